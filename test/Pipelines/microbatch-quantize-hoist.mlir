// Weight quantization in a microbatch loop: the weight does not change across
// iterations, so the pipeline (loop-invariant-code-motion before fusion)
// computes its amax, normalizes, quantizes and rescales it once, above the
// loop; only the activation's quantization and the fused gather + scaled
// matmul stay inside. Then the same program on 2 ranks, the pipeline's
// against as given.
// RUN: tp-opt %s --tp-async-tp-pipeline | FileCheck %s
// RUN: tp-run %s --ranks 2 --pipeline tp-async-tp-pipeline --compare-pipeline '' | FileCheck %s --check-prefix=NUM

// CHECK-LABEL: func.func @microbatches
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8x64xf32>, %[[W:.*]]: tensor<64x64xf32>)
// CHECK:         %[[AMAX:.*]] = linalg.reduce ins(%[[W]] : tensor<64x64xf32>)
// CHECK:         %[[WN:.*]] = linalg.generic {{.*}} ins(%[[W]], %[[AMAX]] : tensor<64x64xf32>, tensor<f32>)
// CHECK:         %[[WQ:.*]], %[[WS:.*]] = tp.quantize %[[WN]] row_wise
// CHECK:         %[[BS:.*]] = linalg.generic {{.*}} ins(%[[WS]], %[[AMAX]] : tensor<64x1xf32>, tensor<f32>)
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK-NEXT:      %[[XI:.*]] = tensor.extract_slice %[[X]][%[[I]], 0, 0] [1, 8, 64] [1, 1, 1]
// CHECK-NEXT:      %[[XQ:.*]], %[[XS:.*]] = tp.quantize %[[XI]] row_wise
// CHECK-NEXT:      %[[Y:.*]] = tp.all_gather_scaled_matmul %[[XQ]] scale %[[XS]], [%[[WQ]] scale %[[BS]]] on @tp axes = [0] dim = 0 row_wise
// CHECK-NEXT:      %[[NEXT:.*]] = tensor.insert_slice %[[Y]] into %[[ACC]][%[[I]], 0, 0]
// CHECK-NEXT:      scf.yield %[[NEXT]]
// CHECK-NEXT:    }

// NUM: rank 1 result 0: tensor<4x16x64xf32>
// NUM: compare: every result on every rank matches

shard.grid @tp(shape = 2)
func.func @microbatches(%x: tensor<4x8x64xf32>, %w: tensor<64x64xf32>) -> tensor<4x16x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %init = tensor.empty() : tensor<4x16x64xf32>
  %out = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (tensor<4x16x64xf32>) {
    // The weight's scale: its amax over the whole tensor ...
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<f32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
    %amax = linalg.reduce ins(%w : tensor<64x64xf32>) outs(%z : tensor<f32>) dimensions = [0, 1]
      (%in: f32, %m: f32) {
        %a = math.absf %in : f32
        %r = arith.maximumf %a, %m : f32
        linalg.yield %r : f32
      }
    // ... divides it before quantizing and multiplies the row-wise scales.
    %ew = tensor.empty() : tensor<64x64xf32>
    %wn = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>, affine_map<(i, j) -> (i, j)>],
                          iterator_types = ["parallel", "parallel"]}
        ins(%w, %amax : tensor<64x64xf32>, tensor<f32>) outs(%ew : tensor<64x64xf32>) {
    ^bb0(%a: f32, %m: f32, %o: f32):
      %d = arith.divf %a, %m : f32
      linalg.yield %d : f32
    } -> tensor<64x64xf32>
    %wq, %ws = tp.quantize %wn row_wise : tensor<64x64xf32> -> tensor<64x64xf8E4M3FN>, tensor<64x1xf32>
    %es = tensor.empty() : tensor<64x1xf32>
    %wscale = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>, affine_map<(i, j) -> (i, j)>],
                              iterator_types = ["parallel", "parallel"]}
        ins(%ws, %amax : tensor<64x1xf32>, tensor<f32>) outs(%es : tensor<64x1xf32>) {
    ^bb0(%s: f32, %m: f32, %o: f32):
      %p = arith.mulf %s, %m : f32
      linalg.yield %p : f32
    } -> tensor<64x1xf32>
    // This microbatch: quantized, gathered with its scales, multiplied.
    %xi = tensor.extract_slice %x[%i, 0, 0] [1, 8, 64] [1, 1, 1] : tensor<4x8x64xf32> to tensor<8x64xf32>
    %xq, %xs = tp.quantize %xi row_wise : tensor<8x64xf32> -> tensor<8x64xf8E4M3FN>, tensor<8x1xf32>
    %g = tp.all_gather %xq on @tp axes = [0] dim = 0 : tensor<8x64xf8E4M3FN> -> tensor<16x64xf8E4M3FN>
    %gs = tp.all_gather %xs on @tp axes = [0] dim = 0 : tensor<8x1xf32> -> tensor<16x1xf32>
    %y = tp.scaled_matmul %g scale %gs, %wq scale %wscale row_wise
        : (tensor<16x64xf8E4M3FN>, tensor<16x1xf32>, tensor<64x64xf8E4M3FN>, tensor<64x1xf32>) -> tensor<16x64xf32>
    %next = tensor.insert_slice %y into %acc[%i, 0, 0] [1, 16, 64] [1, 1, 1] : tensor<16x64xf32> into tensor<4x16x64xf32>
    scf.yield %next : tensor<4x16x64xf32>
  }
  return %out : tensor<4x16x64xf32>
}
