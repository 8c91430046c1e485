// RUN: tp-opt %s --tp-async-tp=emit-remarks -split-input-file -verify-diagnostics | FileCheck %s

// Weight gradients: the gathered value contracted over the gathered dim
// becomes tp.all_gather_contract.

// The gathered activation as B: dW = dY^T . X_gathered.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @gathered_as_b
// CHECK-SAME:    (%[[X:.*]]: tensor<16x32xf32>, %[[DY:.*]]: tensor<64x24xf32>)
func.func @gathered_as_b(%x: tensor<16x32xf32>, %dy: tensor<64x24xf32>) -> tensor<24x32xf32> {
  // CHECK:      %[[DW:.*]] = tp.all_gather_contract %[[X]], [%[[DY]]] on @tp axes = [0] dim = 0 transpose_a : (tensor<16x32xf32>, tensor<64x24xf32>) -> tensor<24x32xf32>
  // CHECK-NOT:  tp.matmul
  // CHECK-NOT:  linalg.transpose
  // CHECK:      return %[[DW]]
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<16x32xf32> -> tensor<64x32xf32>
  %e = tensor.empty() : tensor<24x64xf32>
  %t = linalg.transpose ins(%dy : tensor<64x24xf32>) outs(%e : tensor<24x64xf32>) permutation = [1, 0]
  %r = tp.matmul %t, %g : tensor<24x64xf32>, tensor<64x32xf32> -> tensor<24x32xf32>
  return %r : tensor<24x32xf32>
}

// -----

// The gathered value as a transposed A: X_gathered^T . dY.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @gathered_as_transposed_a
// CHECK-SAME:    (%[[X:.*]]: tensor<16x32xbf16>, %[[DY:.*]]: tensor<64x24xbf16>)
func.func @gathered_as_transposed_a(%x: tensor<16x32xbf16>, %dy: tensor<64x24xbf16>) -> tensor<32x24xbf16> {
  // CHECK:      %[[DW:.*]] = tp.all_gather_contract %[[X]], [%[[DY]]] on @tp axes = [0] dim = 0 gathered_lhs transpose_a : (tensor<16x32xbf16>, tensor<64x24xbf16>) -> tensor<32x24xbf16>
  // CHECK-NOT:  tp.all_gather
  // CHECK:      return %[[DW]]
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<16x32xbf16> -> tensor<64x32xbf16>
  %e = tensor.empty() : tensor<32x64xbf16>
  %t = linalg.transpose ins(%g : tensor<64x32xbf16>) outs(%e : tensor<32x64xbf16>) permutation = [1, 0]
  %r = tp.matmul %t, %dy : tensor<32x64xbf16>, tensor<64x24xbf16> -> tensor<32x24xbf16>
  return %r : tensor<32x24xbf16>
}

// -----

// Two weight gradients read one transpose of the gathered value, as CSE
// leaves them: one fused op computes both, and the transpose goes.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @shared_transpose
// CHECK-SAME:    (%[[X:.*]]: tensor<16x32xf32>, %[[DQ:.*]]: tensor<64x24xf32>, %[[DK:.*]]: tensor<64x8xf32>)
func.func @shared_transpose(%x: tensor<16x32xf32>, %dq: tensor<64x24xf32>, %dk: tensor<64x8xf32>) -> (tensor<32x24xf32>, tensor<32x8xf32>) {
  // CHECK:      %[[DW:.*]]:2 = tp.all_gather_contract %[[X]], [%[[DQ]], %[[DK]]] on @tp axes = [0] dim = 0 gathered_lhs transpose_a : (tensor<16x32xf32>, tensor<64x24xf32>, tensor<64x8xf32>) -> (tensor<32x24xf32>, tensor<32x8xf32>)
  // CHECK-NOT:  linalg.transpose
  // CHECK-NOT:  tp.matmul
  // CHECK:      return %[[DW]]#0, %[[DW]]#1
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<16x32xf32> -> tensor<64x32xf32>
  %e = tensor.empty() : tensor<32x64xf32>
  %t = linalg.transpose ins(%g : tensor<64x32xf32>) outs(%e : tensor<32x64xf32>) permutation = [1, 0]
  %wq = tp.matmul %t, %dq : tensor<32x64xf32>, tensor<64x24xf32> -> tensor<32x24xf32>
  %wk = tp.matmul %t, %dk : tensor<32x64xf32>, tensor<64x8xf32> -> tensor<32x8xf32>
  return %wq, %wk : tensor<32x24xf32>, tensor<32x8xf32>
}

// -----

// Negative: a shared transpose also feeds a matmul that contracts the free
// dim. The weight gradient fuses; the transpose stays, on the gathered value
// the fused op returns, for the other matmul.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @shared_transpose_partly
// CHECK-SAME:    (%[[X:.*]]: tensor<16x32xf32>, %[[DQ:.*]]: tensor<64x24xf32>, %[[A:.*]]: tensor<24x32xf32>)
func.func @shared_transpose_partly(%x: tensor<16x32xf32>, %dq: tensor<64x24xf32>, %a: tensor<24x32xf32>) -> (tensor<32x24xf32>, tensor<24x64xf32>) {
  // CHECK:      %[[R:.*]]:2 = tp.all_gather_contract %[[X]], [%[[DQ]]] on @tp axes = [0] dim = 0 gathered_lhs transpose_a return_gathered
  // CHECK:      %[[T:.*]] = linalg.transpose ins(%[[R]]#0
  // CHECK:      %[[Y:.*]] = tp.matmul %[[A]], %[[T]]
  // CHECK:      return %[[R]]#1, %[[Y]]
  // expected-remark @+1 {{all-gather fused without one of its uses: the all-gather is along the free (N) dim of the matmul's B, not its contraction dim}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<16x32xf32> -> tensor<64x32xf32>
  %e = tensor.empty() : tensor<32x64xf32>
  %t = linalg.transpose ins(%g : tensor<64x32xf32>) outs(%e : tensor<32x64xf32>) permutation = [1, 0]
  %wq = tp.matmul %t, %dq : tensor<32x64xf32>, tensor<64x24xf32> -> tensor<32x24xf32>
  %y = tp.matmul %a, %t : tensor<24x32xf32>, tensor<32x64xf32> -> tensor<24x64xf32>
  return %wq, %y : tensor<32x24xf32>, tensor<24x64xf32>
}

// -----

// A K-split contraction: B gathered along its K, given as [N, K]
// (transpose_b); dY^T comes in already transposed.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @gathered_b_transposed
// CHECK-SAME:    (%[[X:.*]]: tensor<32x8xf32>, %[[A:.*]]: tensor<24x16xf32>)
func.func @gathered_b_transposed(%x: tensor<32x8xf32>, %a: tensor<24x16xf32>) -> tensor<24x32xf32> {
  // CHECK:      %[[R:.*]] = tp.all_gather_contract %[[X]], [%[[A]]] on @tp axes = [0] dim = 1 transpose_b : (tensor<32x8xf32>, tensor<24x16xf32>) -> tensor<24x32xf32>
  // CHECK:      return %[[R]]
  %g = tp.all_gather %x on @tp axes = [0] dim = 1 : tensor<32x8xf32> -> tensor<32x16xf32>
  %r = tp.matmul %a, %g transpose_b : tensor<24x16xf32>, tensor<32x16xf32> -> tensor<24x32xf32>
  return %r : tensor<24x32xf32>
}

// -----

// 3-D activations [batch, seq, hidden] gathered along the sequence (dim 1)
// and collapsed, as autograd reshapes them for the weight gradient. The
// other operand is computed after the all-gather, so the fused op takes the
// matmul's place.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @batched_sequence_dim
// CHECK-SAME:    (%[[X:.*]]: tensor<2x8x32xf32>, %[[DY:.*]]: tensor<2x32x24xf32>)
func.func @batched_sequence_dim(%x: tensor<2x8x32xf32>, %dy: tensor<2x32x24xf32>) -> tensor<24x32xf32> {
  // CHECK:      %[[DYC:.*]] = tensor.collapse_shape %[[DY]] {{\[}}[0, 1], [2]]
  // CHECK:      %[[DW:.*]] = tp.all_gather_contract %[[X]], [%[[DYC]]] on @tp axes = [0] dim = 1 transpose_a : (tensor<2x8x32xf32>, tensor<64x24xf32>) -> tensor<24x32xf32>
  // CHECK-NOT:  tp.all_gather
  // CHECK:      return %[[DW]]
  %g = tp.all_gather %x on @tp axes = [0] dim = 1 : tensor<2x8x32xf32> -> tensor<2x32x32xf32>
  %gc = tensor.collapse_shape %g [[0, 1], [2]] : tensor<2x32x32xf32> into tensor<64x32xf32>
  %dyc = tensor.collapse_shape %dy [[0, 1], [2]] : tensor<2x32x24xf32> into tensor<64x24xf32>
  %e = tensor.empty() : tensor<24x64xf32>
  %t = linalg.transpose ins(%dyc : tensor<64x24xf32>) outs(%e : tensor<24x64xf32>) permutation = [1, 0]
  %r = tp.matmul %t, %gc : tensor<24x64xf32>, tensor<64x32xf32> -> tensor<24x32xf32>
  return %r : tensor<24x32xf32>
}

// -----

// Sequence-first [seq, batch, hidden] activations gathered along dim 0.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @batched_dim0
// CHECK-SAME:    (%[[X:.*]]: tensor<4x2x32xf32>, %[[DY:.*]]: tensor<32x24xf32>)
func.func @batched_dim0(%x: tensor<4x2x32xf32>, %dy: tensor<32x24xf32>) -> tensor<32x24xf32> {
  // CHECK:      %[[DW:.*]] = tp.all_gather_contract %[[X]], [%[[DY]]] on @tp axes = [0] dim = 0 gathered_lhs transpose_a : (tensor<4x2x32xf32>, tensor<32x24xf32>) -> tensor<32x24xf32>
  // CHECK:      return %[[DW]]
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<4x2x32xf32> -> tensor<16x2x32xf32>
  %gc = tensor.collapse_shape %g [[0, 1], [2]] : tensor<16x2x32xf32> into tensor<32x32xf32>
  %e = tensor.empty() : tensor<32x32xf32>
  %t = linalg.transpose ins(%gc : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) permutation = [1, 0]
  %r = tp.matmul %t, %dy : tensor<32x32xf32>, tensor<32x24xf32> -> tensor<32x24xf32>
  return %r : tensor<32x24xf32>
}

// -----

// Three weight gradients of one re-gathered activation (Q, K and V
// projections) share one fused op.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @three_projections
// CHECK-SAME:    (%[[X:.*]]: tensor<8x16xf32>, %[[DQ:.*]]: tensor<16x4xf32>, %[[DK:.*]]: tensor<16x4xf32>, %[[DV:.*]]: tensor<16x4xf32>)
func.func @three_projections(%x: tensor<8x16xf32>, %dq: tensor<16x4xf32>, %dk: tensor<16x4xf32>, %dv: tensor<16x4xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  // CHECK:      %[[R:.*]]:3 = tp.all_gather_contract %[[X]], [%[[DQ]], %[[DK]], %[[DV]]] on @tp axes = [0] dim = 0 transpose_a
  // CHECK-NOT:  tp.matmul
  // CHECK:      return %[[R]]#0, %[[R]]#1, %[[R]]#2
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x16xf32> -> tensor<16x16xf32>
  %e = tensor.empty() : tensor<4x16xf32>
  %tq = linalg.transpose ins(%dq : tensor<16x4xf32>) outs(%e : tensor<4x16xf32>) permutation = [1, 0]
  %wq = tp.matmul %tq, %g : tensor<4x16xf32>, tensor<16x16xf32> -> tensor<4x16xf32>
  %tk = linalg.transpose ins(%dk : tensor<16x4xf32>) outs(%e : tensor<4x16xf32>) permutation = [1, 0]
  %wk = tp.matmul %tk, %g : tensor<4x16xf32>, tensor<16x16xf32> -> tensor<4x16xf32>
  %tv = linalg.transpose ins(%dv : tensor<16x4xf32>) outs(%e : tensor<4x16xf32>) permutation = [1, 0]
  %wv = tp.matmul %tv, %g : tensor<4x16xf32>, tensor<16x16xf32> -> tensor<4x16xf32>
  return %wq, %wk, %wv : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// Two weight gradients read one collapse of a 3-D gather.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @shared_collapse
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4x8xf32>, %[[DA:.*]]: tensor<16x4xf32>, %[[DB:.*]]: tensor<16x6xf32>)
func.func @shared_collapse(%x: tensor<2x4x8xf32>, %da: tensor<16x4xf32>, %db: tensor<16x6xf32>) -> (tensor<4x8xf32>, tensor<6x8xf32>) {
  // CHECK:      %[[R:.*]]:2 = tp.all_gather_contract %[[X]], [%[[DA]], %[[DB]]] on @tp axes = [0] dim = 1 transpose_a : (tensor<2x4x8xf32>, tensor<16x4xf32>, tensor<16x6xf32>) -> (tensor<4x8xf32>, tensor<6x8xf32>)
  // CHECK-NOT:  tensor.collapse_shape
  // CHECK:      return %[[R]]#0, %[[R]]#1
  %g = tp.all_gather %x on @tp axes = [0] dim = 1 : tensor<2x4x8xf32> -> tensor<2x8x8xf32>
  %gc = tensor.collapse_shape %g [[0, 1], [2]] : tensor<2x8x8xf32> into tensor<16x8xf32>
  %ea = tensor.empty() : tensor<4x16xf32>
  %ta = linalg.transpose ins(%da : tensor<16x4xf32>) outs(%ea : tensor<4x16xf32>) permutation = [1, 0]
  %wa = tp.matmul %ta, %gc : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %eb = tensor.empty() : tensor<6x16xf32>
  %tb = linalg.transpose ins(%db : tensor<16x6xf32>) outs(%eb : tensor<6x16xf32>) permutation = [1, 0]
  %wb = tp.matmul %tb, %gc : tensor<6x16xf32>, tensor<16x8xf32> -> tensor<6x8xf32>
  return %wa, %wb : tensor<4x8xf32>, tensor<6x8xf32>
}

// -----

// The gathered value is also saved (returned): the fused op returns it.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @saved_for_later
// CHECK-SAME:    (%[[X:.*]]: tensor<16x32xf32>, %[[DY:.*]]: tensor<64x24xf32>)
func.func @saved_for_later(%x: tensor<16x32xf32>, %dy: tensor<64x24xf32>) -> (tensor<24x32xf32>, tensor<64x32xf32>) {
  // CHECK:      %[[R:.*]]:2 = tp.all_gather_contract %[[X]], [%[[DY]]] on @tp axes = [0] dim = 0 transpose_a return_gathered : (tensor<16x32xf32>, tensor<64x24xf32>) -> (tensor<64x32xf32>, tensor<24x32xf32>)
  // CHECK:      return %[[R]]#1, %[[R]]#0
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<16x32xf32> -> tensor<64x32xf32>
  %e = tensor.empty() : tensor<24x64xf32>
  %t = linalg.transpose ins(%dy : tensor<64x24xf32>) outs(%e : tensor<24x64xf32>) permutation = [1, 0]
  %r = tp.matmul %t, %g : tensor<24x64xf32>, tensor<64x32xf32> -> tensor<24x32xf32>
  return %r, %g : tensor<24x32xf32>, tensor<64x32xf32>
}

// -----

// Backward of a row-parallel layer: the gathered output gradient feeds the
// data-gradient matmul as A (all_gather_matmul) and the weight gradient as a
// transposed A, which reads the gathered value the fused op returns.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @dgrad_and_wgrad
// CHECK-SAME:    (%[[DY:.*]]: tensor<8x32xf32>, %[[W:.*]]: tensor<32x16xf32>, %[[A:.*]]: tensor<32x16xf32>)
func.func @dgrad_and_wgrad(%dy: tensor<8x32xf32>, %w: tensor<32x16xf32>, %a: tensor<32x16xf32>) -> (tensor<32x16xf32>, tensor<32x16xf32>) {
  // CHECK:      %[[R:.*]]:2 = tp.all_gather_matmul %[[DY]], [%[[W]]] on @tp axes = [0] dim = 0 return_gathered
  // CHECK:      %[[T:.*]] = linalg.transpose ins(%[[R]]#0
  // CHECK:      %[[DW:.*]] = tp.matmul %[[T]], %[[A]]
  // CHECK:      return %[[R]]#1, %[[DW]]
  // expected-remark @+1 {{all-gather fused without one of its uses: it contracts the gathered value over the gathered dim and reads it from the fused op, whose gather already overlaps the other consumers' GEMMs}}
  %g = tp.all_gather %dy on @tp axes = [0] dim = 0 : tensor<8x32xf32> -> tensor<32x32xf32>
  %da = tp.matmul %g, %w : tensor<32x32xf32>, tensor<32x16xf32> -> tensor<32x16xf32>
  %e = tensor.empty() : tensor<32x32xf32>
  %t = linalg.transpose ins(%g : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) permutation = [1, 0]
  %dw = tp.matmul %t, %a : tensor<32x32xf32>, tensor<32x16xf32> -> tensor<32x16xf32>
  return %da, %dw : tensor<32x16xf32>, tensor<32x16xf32>
}

// -----

// Negative: two layouts; the larger group fuses, the other reads the
// gathered value.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @mixed_layouts
func.func @mixed_layouts(%x: tensor<8x16xf32>, %dy: tensor<16x4xf32>, %dz: tensor<16x4xf32>) -> (tensor<4x16xf32>, tensor<16x4xf32>) {
  // CHECK:      %[[R:.*]]:2 = tp.all_gather_contract %{{.*}}, [%{{.*}}] on @tp axes = [0] dim = 0 transpose_a return_gathered
  // CHECK:      linalg.transpose ins(%[[R]]#0
  // CHECK:      tp.matmul
  // expected-remark @+1 {{all-gather fused without one of its uses: its operand layout (which side is gathered, which is transposed) differs from the fused consumers'}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x16xf32> -> tensor<16x16xf32>
  %e = tensor.empty() : tensor<4x16xf32>
  %t = linalg.transpose ins(%dy : tensor<16x4xf32>) outs(%e : tensor<4x16xf32>) permutation = [1, 0]
  %w1 = tp.matmul %t, %g : tensor<4x16xf32>, tensor<16x16xf32> -> tensor<4x16xf32>
  %e2 = tensor.empty() : tensor<16x16xf32>
  %tg = linalg.transpose ins(%g : tensor<16x16xf32>) outs(%e2 : tensor<16x16xf32>) permutation = [1, 0]
  %w2 = tp.matmul %tg, %dz : tensor<16x16xf32>, tensor<16x4xf32> -> tensor<16x4xf32>
  return %w1, %w2 : tensor<4x16xf32>, tensor<16x4xf32>
}

// -----

// Negative: the other operand is computed from the gathered value itself.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @gram_matrix
func.func @gram_matrix(%x: tensor<8x16xf32>) -> tensor<16x16xf32> {
  // CHECK: tp.all_gather
  // CHECK: tp.matmul
  // expected-remark @+1 {{all-gather not fused: the matmul reads the gathered value on both sides}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x16xf32> -> tensor<16x16xf32>
  %e = tensor.empty() : tensor<16x16xf32>
  %t = linalg.transpose ins(%g : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) permutation = [1, 0]
  %r = tp.matmul %t, %g : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

// Negative: a 4-D gathered value.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @four_d
func.func @four_d(%x: tensor<2x2x4x8xf32>, %dy: tensor<32x8xf32>) -> tensor<8x8xf32> {
  // CHECK: tp.all_gather
  // expected-remark @+1 {{all-gather not fused: the gathered value is contracted as a 4-D tensor; weight-gradient fusion takes 2-D values and 3-D ones collapsed to 2-D over their leading dims}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 1 : tensor<2x2x4x8xf32> -> tensor<2x4x4x8xf32>
  %gc = tensor.collapse_shape %g [[0, 1, 2], [3]] : tensor<2x4x4x8xf32> into tensor<32x8xf32>
  %e = tensor.empty() : tensor<8x32xf32>
  %t = linalg.transpose ins(%dy : tensor<32x8xf32>) outs(%e : tensor<8x32xf32>) permutation = [1, 0]
  %r = tp.matmul %t, %gc : tensor<8x32xf32>, tensor<32x8xf32> -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

// Negative: the other operand comes from an op with side effects after the
// all-gather, and the gathered value is read before the matmul.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @immovable_other
func.func @immovable_other(%x: tensor<8x16xf32>, %m: memref<16x4xf32>) -> (tensor<16x16xf32>, tensor<4x16xf32>) {
  // CHECK: tp.all_gather
  // CHECK: bufferization.to_tensor
  // CHECK: tp.matmul
  // expected-remark @+2 {{all-gather not fused: the gathered value feeds an elementwise op ('arith.negf') and no matmul follows}}
  // expected-remark @+1 {{all-gather not fused: the other operand is computed after the all-gather by 'bufferization.to_tensor', which cannot move above the fused op (it may have side effects)}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x16xf32> -> tensor<16x16xf32>
  %n = arith.negf %g : tensor<16x16xf32>
  %dy = bufferization.to_tensor %m restrict : memref<16x4xf32> to tensor<16x4xf32>
  %e = tensor.empty() : tensor<4x16xf32>
  %t = linalg.transpose ins(%dy : tensor<16x4xf32>) outs(%e : tensor<4x16xf32>) permutation = [1, 0]
  %r = tp.matmul %t, %g : tensor<4x16xf32>, tensor<16x16xf32> -> tensor<4x16xf32>
  return %n, %r : tensor<16x16xf32>, tensor<4x16xf32>
}

// -----

// Negative: a 3-D value gathered along the sequence, collapsed, used as a
// [N, K] B: the gathered dim lands in N, not K.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @collapsed_gather_in_free_dim
func.func @collapsed_gather_in_free_dim(%x: tensor<2x4x8xf32>, %a: tensor<3x8xf32>) -> tensor<3x16xf32> {
  // CHECK: tp.all_gather
  // CHECK: tp.matmul
  // expected-remark @+1 {{all-gather not fused: the all-gather is along the free (N) dim of the matmul's B, not its contraction dim; only a gather of the contraction dim (a weight gradient) or of A's rows is fused}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 1 : tensor<2x4x8xf32> -> tensor<2x8x8xf32>
  %gc = tensor.collapse_shape %g [[0, 1], [2]] : tensor<2x8x8xf32> into tensor<16x8xf32>
  %r = tp.matmul %a, %gc transpose_b : tensor<3x8xf32>, tensor<16x8xf32> -> tensor<3x16xf32>
  return %r : tensor<3x16xf32>
}

// -----

// Negative: the same with the gather along the last dim, which is K here
// (a 3-D value whose K trails).

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @collapsed_gather_k_trailing
func.func @collapsed_gather_k_trailing(%x: tensor<2x8x4xf32>, %a: tensor<3x8xf32>) -> tensor<3x16xf32> {
  // CHECK: tp.all_gather
  // CHECK: tp.matmul
  // expected-remark @+1 {{all-gather not fused: the collapsed 3-D gathered value is contracted over its last dim (K trails); weight-gradient fusion takes 3-D values whose leading dims are K}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 2 : tensor<2x8x4xf32> -> tensor<2x8x8xf32>
  %gc = tensor.collapse_shape %g [[0, 1], [2]] : tensor<2x8x8xf32> into tensor<16x8xf32>
  %r = tp.matmul %a, %gc transpose_b : tensor<3x8xf32>, tensor<16x8xf32> -> tensor<3x16xf32>
  return %r : tensor<3x16xf32>
}
