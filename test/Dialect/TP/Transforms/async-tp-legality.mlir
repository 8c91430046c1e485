// RUN: tp-opt %s --tp-async-tp=emit-remarks -split-input-file -verify-diagnostics | FileCheck %s

// B computed after the all-gather (by pure ops) is moved above the fused op.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @hoist_b_producer
// CHECK-SAME:    (%[[X:.*]]: tensor<8x64xf32>, %[[W:.*]]: tensor<64x128xf32>)
func.func @hoist_b_producer(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) -> tensor<32x128xf32> {
  // CHECK-NEXT: %[[N:.*]] = arith.negf %[[W]]
  // CHECK-NEXT: %[[Y:.*]] = tp.all_gather_matmul %[[X]], [%[[N]]]
  // CHECK-NEXT: return %[[Y]]
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %wn = arith.negf %w : tensor<64x128xf32>
  %y = tp.matmul %g, %wn : tensor<32x64xf32>, tensor<64x128xf32> -> tensor<32x128xf32>
  return %y : tensor<32x128xf32>
}

// -----

// Negative: B comes from an op after the all-gather that may have side effects
// (a branch calls a function); it cannot move above the fused op. (An scf.if
// of pure ops moves: see async-tp-hoist.mlir.)

shard.grid @tp(shape = 4)

func.func private @observe(tensor<64x128xf32>)

// CHECK-LABEL: func.func @b_not_movable
func.func @b_not_movable(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>, %c: i1) -> tensor<32x128xf32> {
  // CHECK: tp.all_gather
  // CHECK: scf.if
  // CHECK: tp.matmul
  // expected-remark @+1 {{all-gather not fused: B is computed after the all-gather by 'scf.if', which cannot move above the fused op (it may have side effects)}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %b = scf.if %c -> tensor<64x128xf32> {
    scf.yield %w : tensor<64x128xf32>
  } else {
    %n = arith.negf %w : tensor<64x128xf32>
    func.call @observe(%n) : (tensor<64x128xf32>) -> ()
    scf.yield %n : tensor<64x128xf32>
  }
  %y = tp.matmul %g, %b : tensor<32x64xf32>, tensor<64x128xf32> -> tensor<32x128xf32>
  return %y : tensor<32x128xf32>
}

// -----

// Negative: the bias depends on the gathered value.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @bias_depends_on_gathered
func.func @bias_depends_on_gathered(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // CHECK: tp.all_gather
  // CHECK: tp.matmul
  // CHECK: tp.bias_add
  // expected-remark @+1 {{all-gather not fused: the bias depends on the gathered value}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x16xf32> -> tensor<16x16xf32>
  %y = tp.matmul %g, %w : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %b = tensor.extract_slice %g[0, 0] [1, 16] [1, 1] : tensor<16x16xf32> to tensor<16xf32>
  %z = tp.bias_add %y, %b : tensor<16x16xf32>, tensor<16xf32>
  return %z : tensor<16x16xf32>
}

// -----

// On a data x tensor grid, the collective along the tensor axis fuses; one
// spanning both axes does not.

shard.grid @dp_tp(shape = 2x4)

// CHECK-LABEL: func.func @two_d_grid
// CHECK-SAME:    (%[[X:.*]]: tensor<8x64xf32>, %[[W:.*]]: tensor<64x128xf32>)
func.func @two_d_grid(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) -> (tensor<32x128xf32>, tensor<64x128xf32>) {
  // CHECK-NEXT: %[[Y:.*]] = tp.all_gather_matmul %[[X]], [%[[W]]] on @dp_tp axes = [1] dim = 0
  // CHECK-NEXT: %[[G2:.*]] = tp.all_gather %[[X]] on @dp_tp axes = [0, 1] dim = 0
  // CHECK-NEXT: %[[Y2:.*]] = tp.matmul %[[G2]], %[[W]]
  // CHECK-NEXT: return %[[Y]], %[[Y2]]
  %g = tp.all_gather %x on @dp_tp axes = [1] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %y = tp.matmul %g, %w : tensor<32x64xf32>, tensor<64x128xf32> -> tensor<32x128xf32>
  // expected-remark @+1 {{all-gather not fused: the all-gather spans grid axes [0, 1]; async TP fuses collectives along one tensor-parallel axis}}
  %g2 = tp.all_gather %x on @dp_tp axes = [0, 1] dim = 0 : tensor<8x64xf32> -> tensor<64x64xf32>
  %y2 = tp.matmul %g2, %w : tensor<64x64xf32>, tensor<64x128xf32> -> tensor<64x128xf32>
  return %y, %y2 : tensor<32x128xf32>, tensor<64x128xf32>
}

// -----

// A bias added inside a nested region stays there: the product fuses, the
// bias add does not join it.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @bias_in_nested_region
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x16xf32>, %[[C:.*]]: i1)
// CHECK-NEXT:  %[[Y:.*]] = tp.all_gather_matmul %[[X]], [%[[W]]] on @tp axes = [0] dim = 0 :
// CHECK-NEXT:  scf.if %[[C]]
// CHECK:       tp.bias_add %[[Y]]
func.func @bias_in_nested_region(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %c: i1) -> tensor<8x16xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<4x8xf32> -> tensor<8x8xf32>
  %m = tp.matmul %g, %w : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  %r = scf.if %c -> tensor<8x16xf32> {
    %b = arith.constant dense<1.0> : tensor<16xf32>
    %y = tp.bias_add %m, %b : tensor<8x16xf32>, tensor<16xf32>
    scf.yield %y : tensor<8x16xf32>
  } else {
    scf.yield %m : tensor<8x16xf32>
  }
  return %r : tensor<8x16xf32>
}

// -----

// A row-parallel layer without sequence parallelism: the all-reduce of the
// partial sums is reported (tp-sequence-parallel would split it); an
// all-reduce of anything else (here an amax) is not a candidate.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @row_parallel_all_reduce
func.func @row_parallel_all_reduce(%h: tensor<16x8xf32>, %w: tensor<8x32xf32>, %amax: tensor<f32>) -> (tensor<16x32xf32>, tensor<f32>) {
  // CHECK: tp.all_reduce
  %p = tp.matmul %h, %w : tensor<16x8xf32>, tensor<8x32xf32> -> tensor<16x32xf32>
  // expected-remark @+1 {{all-reduce not fused: async TP overlaps reduce-scatters and all-gathers with matmuls; tp-sequence-parallel (the pipeline's 'sequence-parallel' option) splits this one into both}}
  %y = tp.all_reduce %p on @tp axes = [0] reduce = sum : tensor<16x32xf32>
  %m = tp.all_reduce %amax on @tp axes = [0] reduce = max : tensor<f32>
  return %y, %m : tensor<16x32xf32>, tensor<f32>
}

