// RUN: tp-opt %s --tp-async-tp=emit-remarks -split-input-file -verify-diagnostics | FileCheck %s

// What the fused op needs (B, the bias) and is computed after the collective
// moves above the fused op when it is free of memory effects, ops with
// regions included (linalg ops on tensors, an scf.if of pure ops). The values
// a moved op's regions capture from above move with it; a capture that
// depends on the collective's result, or an op that may have side effects,
// stops the fusion. No canonicalize runs here, so a linalg.transpose of B
// stays a transpose (the pipeline folds it into transpose_b first).

shard.grid @tp(shape = 4)

// A linalg.generic scaling the weight by a scalar defined after the gather:
// the scalar, the init and the generic all move, in order.
// CHECK-LABEL: func.func @hoist_generic_scale
// CHECK-SAME:    (%[[X:.+]]: tensor<8x64xf32>, %[[W:.+]]: tensor<64x128xf32>, %[[S:.+]]: f32)
// CHECK-NEXT:    %[[S2:.+]] = arith.mulf %[[S]], %[[S]] : f32
// CHECK-NEXT:    %[[E:.+]] = tensor.empty() : tensor<64x128xf32>
// CHECK-NEXT:    %[[B:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[W]] : tensor<64x128xf32>) outs(%[[E]] : tensor<64x128xf32>)
// CHECK:           arith.mulf %{{.+}}, %[[S2]] : f32
// CHECK:         %[[Y:.+]] = tp.all_gather_matmul %[[X]], [%[[B]]] on @tp axes = [0] dim = 0 : (tensor<8x64xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<32x128xf32>
func.func @hoist_generic_scale(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>, %s: f32) -> tensor<32x128xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %s2 = arith.mulf %s, %s : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %s2 : f32
    linalg.yield %m : f32
  } -> tensor<64x128xf32>
  %y = tp.matmul %g, %b : tensor<32x64xf32>, tensor<64x128xf32> -> tensor<32x128xf32>
  return %y : tensor<32x128xf32>
}

// -----

shard.grid @tp(shape = 4)

// F.linear's weight as an MLIR frontend emits it: linalg.transpose of the
// [N, K] weight after the gather. It moves; the fused op reads the transpose.
// CHECK-LABEL: func.func @hoist_transpose
// CHECK-SAME:    (%[[X:.+]]: tensor<8x64xf32>, %[[W:.+]]: tensor<128x64xf32>)
// CHECK-NEXT:    %[[E:.+]] = tensor.empty() : tensor<64x128xf32>
// CHECK-NEXT:    %[[T:.+]] = linalg.transpose ins(%[[W]] : tensor<128x64xf32>) outs(%[[E]] : tensor<64x128xf32>) permutation = [1, 0]
// CHECK-NEXT:    %[[Y:.+]] = tp.all_gather_matmul %[[X]], [%[[T]]] on @tp axes = [0] dim = 0 : (tensor<8x64xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<32x128xf32>
func.func @hoist_transpose(%x: tensor<8x64xf32>, %w: tensor<128x64xf32>) -> tensor<32x128xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %e = tensor.empty() : tensor<64x128xf32>
  %t = linalg.transpose ins(%w : tensor<128x64xf32>) outs(%e : tensor<64x128xf32>) permutation = [1, 0]
  %y = tp.matmul %g, %t : tensor<32x64xf32>, tensor<64x128xf32> -> tensor<32x128xf32>
  return %y : tensor<32x128xf32>
}

// -----

shard.grid @tp(shape = 4)

// An scf.if whose branches are pure moves as a whole.
// CHECK-LABEL: func.func @hoist_pure_if
// CHECK-SAME:    (%[[X:.+]]: tensor<8x64xf32>, %[[W:.+]]: tensor<64x128xf32>, %[[C:.+]]: i1)
// CHECK-NEXT:    %[[B:.+]] = scf.if %[[C]] -> (tensor<64x128xf32>) {
// CHECK:           arith.negf %[[W]]
// CHECK:         }
// CHECK-NEXT:    %[[Y:.+]] = tp.all_gather_matmul %[[X]], [%[[B]]] on @tp axes = [0] dim = 0
// CHECK-NEXT:    return %[[Y]] : tensor<32x128xf32>
func.func @hoist_pure_if(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>, %c: i1) -> tensor<32x128xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %b = scf.if %c -> tensor<64x128xf32> {
    scf.yield %w : tensor<64x128xf32>
  } else {
    %n = arith.negf %w : tensor<64x128xf32>
    scf.yield %n : tensor<64x128xf32>
  }
  %y = tp.matmul %g, %b : tensor<32x64xf32>, tensor<64x128xf32> -> tensor<32x128xf32>
  return %y : tensor<32x128xf32>
}

// -----

shard.grid @tp(shape = 4)

// Negative: the generic's region captures a scalar read out of the gathered
// value after the gather; B depends on the fused op's own result.
// CHECK-LABEL: func.func @capture_depends_on_gathered
// CHECK:         %[[G:.+]] = tp.all_gather
// CHECK:         %[[E:.+]] = tensor.extract %[[G]]
// CHECK:         %[[B:.+]] = linalg.generic
// CHECK:         tp.matmul %[[G]], %[[B]]
// CHECK-NOT:     tp.all_gather_matmul
func.func @capture_depends_on_gathered(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) -> tensor<32x128xf32> {
  // expected-remark @+1 {{all-gather not fused: B depends on the gathered value}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %c0 = arith.constant 0 : index
  %s = tensor.extract %g[%c0, %c0] : tensor<32x64xf32>
  %e = tensor.empty() : tensor<64x128xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %s : f32
    linalg.yield %m : f32
  } -> tensor<64x128xf32>
  %y = tp.matmul %g, %b : tensor<32x64xf32>, tensor<64x128xf32> -> tensor<32x128xf32>
  return %y : tensor<32x128xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func private @observe(tensor<64x128xf32>)

// Negative: a branch calls a function (unknown effects): the scf.if may have
// side effects and stays after the gather.
// CHECK-LABEL: func.func @region_with_side_effects
// CHECK:         tp.all_gather
// CHECK:         scf.if
// CHECK:           call @observe
// CHECK:         tp.matmul
// CHECK-NOT:     tp.all_gather_matmul
func.func @region_with_side_effects(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>, %c: i1) -> tensor<32x128xf32> {
  // expected-remark @+1 {{all-gather not fused: B is computed after the all-gather by 'scf.if', which cannot move above the fused op (it may have side effects)}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %b = scf.if %c -> tensor<64x128xf32> {
    func.call @observe(%w) : (tensor<64x128xf32>) -> ()
    scf.yield %w : tensor<64x128xf32>
  } else {
    scf.yield %w : tensor<64x128xf32>
  }
  %y = tp.matmul %g, %b : tensor<32x64xf32>, tensor<64x128xf32> -> tensor<32x128xf32>
  return %y : tensor<32x128xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func private @load_scale() -> f32

// Negative: the generic itself is pure, but its region captures a value a
// call produces after the gather; the call cannot move, so neither can B.
// CHECK-LABEL: func.func @capture_from_side_effecting_op
// CHECK:         tp.all_gather
// CHECK:         call @load_scale
// CHECK:         linalg.generic
// CHECK:         tp.matmul
// CHECK-NOT:     tp.all_gather_matmul
func.func @capture_from_side_effecting_op(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) -> tensor<32x128xf32> {
  // expected-remark @+1 {{all-gather not fused: B is computed after the all-gather by 'func.call', which cannot move above the fused op (it may have side effects)}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %s = func.call @load_scale() : () -> f32
  %e = tensor.empty() : tensor<64x128xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %s : f32
    linalg.yield %m : f32
  } -> tensor<64x128xf32>
  %y = tp.matmul %g, %b : tensor<32x64xf32>, tensor<64x128xf32> -> tensor<32x128xf32>
  return %y : tensor<32x128xf32>
}

// -----

shard.grid @tp(shape = 4)

// Reduce-scatter: the bias computed after the matmul by a linalg.generic moves
// above the fused op, which takes the matmul's place.
// CHECK-LABEL: func.func @rs_hoist_generic_bias
// CHECK-SAME:    (%[[H:.+]]: tensor<32x16xf32>, %[[W:.+]]: tensor<16x64xf32>, %[[B0:.+]]: tensor<64xf32>)
// CHECK-NEXT:    %[[E:.+]] = tensor.empty() : tensor<64xf32>
// CHECK-NEXT:    %[[B:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[B0]] : tensor<64xf32>) outs(%[[E]] : tensor<64xf32>)
// CHECK:         %[[Y:.+]] = tp.matmul_reduce_scatter %[[H]], %[[W]] bias %[[B]] on @tp axes = [0] dim = 0 reduce = sum
// CHECK-NEXT:    return %[[Y]] : tensor<8x64xf32>
func.func @rs_hoist_generic_bias(%h: tensor<32x16xf32>, %w: tensor<16x64xf32>, %b0: tensor<64xf32>) -> tensor<8x64xf32> {
  %p = tp.matmul %h, %w : tensor<32x16xf32>, tensor<16x64xf32> -> tensor<32x64xf32>
  %r = tp.reduce_scatter %p on @tp axes = [0] dim = 0 reduce = sum : tensor<32x64xf32> -> tensor<8x64xf32>
  %e = tensor.empty() : tensor<64xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%b0 : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<64xf32>
  %y = tp.bias_add %r, %b : tensor<8x64xf32>, tensor<64xf32>
  return %y : tensor<8x64xf32>
}

// -----

shard.grid @tp(shape = 4)

// Negative: the bias's generic captures a scalar of the product (the product
// is replaced by the fused op).
// CHECK-LABEL: func.func @rs_bias_capture_depends_on_product
// CHECK:         tp.matmul
// CHECK:         tp.reduce_scatter
// CHECK:         linalg.generic
// CHECK:         tp.bias_add
// CHECK-NOT:     tp.matmul_reduce_scatter
func.func @rs_bias_capture_depends_on_product(%h: tensor<32x16xf32>, %w: tensor<16x64xf32>, %b0: tensor<64xf32>) -> tensor<8x64xf32> {
  %p = tp.matmul %h, %w : tensor<32x16xf32>, tensor<16x64xf32> -> tensor<32x64xf32>
  // expected-remark @+1 {{reduce-scatter not fused: the bias depends on the matmul's product}}
  %r = tp.reduce_scatter %p on @tp axes = [0] dim = 0 reduce = sum : tensor<32x64xf32> -> tensor<8x64xf32>
  %c0 = arith.constant 0 : index
  %s = tensor.extract %p[%c0, %c0] : tensor<32x64xf32>
  %e = tensor.empty() : tensor<64xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%b0 : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %s : f32
    linalg.yield %m : f32
  } -> tensor<64xf32>
  %y = tp.bias_add %r, %b : tensor<8x64xf32>, tensor<64xf32>
  return %y : tensor<8x64xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func private @scale(f32) -> f32

// Negative: a linalg.generic on tensors reports no effects of its own, but its
// body calls a function; it stays after the gather.
// CHECK-LABEL: func.func @generic_body_with_side_effects
// CHECK:         tp.all_gather
// CHECK:         linalg.generic
// CHECK:           call @scale
// CHECK:         tp.matmul
// CHECK-NOT:     tp.all_gather_matmul
func.func @generic_body_with_side_effects(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) -> tensor<32x128xf32> {
  // expected-remark @+1 {{all-gather not fused: B is computed after the all-gather by 'linalg.generic', which cannot move above the fused op (it may have side effects)}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %e = tensor.empty() : tensor<64x128xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = func.call @scale(%in) : (f32) -> f32
    linalg.yield %m : f32
  } -> tensor<64x128xf32>
  %y = tp.matmul %g, %b : tensor<32x64xf32>, tensor<64x128xf32> -> tensor<32x128xf32>
  return %y : tensor<32x128xf32>
}
