// RUN: tp-opt %s --split-input-file --tp-reassociate-reductions | FileCheck %s

// The op folding each element into a reduction's accumulator becomes
// reassoc (keeping its other flags); the rest of the body does not.

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>

// CHECK-LABEL: func.func @row_sum_and_max
// CHECK:         linalg.reduce
// CHECK:           arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
// CHECK:         linalg.generic
// CHECK:           %[[SQ:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:      %[[M:.*]] = arith.maximumf %{{.*}}, %[[SQ]] fastmath<reassoc,nnan> : f32
// CHECK-NEXT:      linalg.yield %[[M]]
func.func @row_sum_and_max(%x: tensor<4x8xf32>, %acc: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %sum = linalg.reduce ins(%x : tensor<4x8xf32>) outs(%acc : tensor<4xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %c = arith.addf %a, %b : f32
      linalg.yield %c : f32
    }
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %sq = arith.mulf %v, %v : f32
    %m = arith.maximumf %o, %sq fastmath<nnan> : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %sum, %max : tensor<4xf32>, tensor<4xf32>
}

// -----

// Negative: element-wise ops, a combiner that is no floating-point fold
// (a select), and a yielded value that does not read the accumulator keep
// their flags.

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>

// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     reassoc
func.func @left_alone(%x: tensor<4x8xf32>, %acc: tensor<4xf32>, %e: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>) {
  %double = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %d = arith.addf %v, %v : f32
    linalg.yield %d : f32
  } -> tensor<4x8xf32>
  %last_positive = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %p = arith.cmpf ogt, %v, %zero : f32
    %s = arith.select %p, %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %overwrite = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %d = arith.addf %v, %v : f32
    linalg.yield %d : f32
  } -> tensor<4xf32>
  return %double, %last_positive, %overwrite : tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>
}
