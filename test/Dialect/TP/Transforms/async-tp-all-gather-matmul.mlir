// RUN: tp-opt %s --tp-async-tp=emit-remarks -split-input-file -verify-diagnostics | FileCheck %s

// all-gather on dim 0 feeding a 2-D matmul as A.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @gather_rows
// CHECK-SAME:    (%[[X:.*]]: tensor<8x64xf32>, %[[W:.*]]: tensor<64x128xf32>)
func.func @gather_rows(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) -> tensor<32x128xf32> {
  // CHECK-NEXT: %[[Y:.*]] = tp.all_gather_matmul %[[X]], [%[[W]]] on @tp axes = [0] dim = 0 : (tensor<8x64xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
  // CHECK-NEXT: return %[[Y]]
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %y = tp.matmul %g, %w : tensor<32x64xf32>, tensor<64x128xf32> -> tensor<32x128xf32>
  return %y : tensor<32x128xf32>
}

// -----

// A weight given as [N, K] (F.linear's layout) and a bias add are absorbed.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @transposed_weight_and_bias
// CHECK-SAME:    (%[[X:.*]]: tensor<8x64xbf16>, %[[W:.*]]: tensor<128x64xbf16>, %[[B:.*]]: tensor<128xbf16>)
func.func @transposed_weight_and_bias(%x: tensor<8x64xbf16>, %w: tensor<128x64xbf16>, %b: tensor<128xbf16>) -> tensor<16x128xbf16> {
  // CHECK-NEXT: %[[Y:.*]] = tp.all_gather_matmul %[[X]], [%[[W]] bias %[[B]]] on @tp axes = [0] dim = 0 transpose_b
  // CHECK-NEXT: return %[[Y]]
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xbf16> -> tensor<16x64xbf16>
  %y = tp.matmul %g, %w transpose_b : tensor<16x64xbf16>, tensor<128x64xbf16> -> tensor<16x128xbf16>
  %z = tp.bias_add %y, %b : tensor<16x128xbf16>, tensor<128xbf16>
  return %z : tensor<16x128xbf16>
}

// -----

// A last-dim (K-split) gather fuses for a plain matmul.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @gather_contraction_dim
// CHECK-SAME:    (%[[X:.*]]: tensor<32x16xf32>, %[[W:.*]]: tensor<64x8xf32>)
func.func @gather_contraction_dim(%x: tensor<32x16xf32>, %w: tensor<64x8xf32>) -> tensor<32x8xf32> {
  // CHECK-NEXT: %[[Y:.*]] = tp.all_gather_matmul %[[X]], [%[[W]]] on @tp axes = [0] dim = 1 : (tensor<32x16xf32>, tensor<64x8xf32>) -> tensor<32x8xf32>
  // CHECK-NEXT: return %[[Y]]
  %g = tp.all_gather %x on @tp axes = [0] dim = 1 : tensor<32x16xf32> -> tensor<32x64xf32>
  %y = tp.matmul %g, %w : tensor<32x64xf32>, tensor<64x8xf32> -> tensor<32x8xf32>
  return %y : tensor<32x8xf32>
}

// -----

// A gathered value that is also returned (saved for backward) is returned by
// the fused op; the matmul still fuses.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @gathered_value_also_returned
// CHECK-SAME:    (%[[X:.*]]: tensor<8x64xf32>, %[[W:.*]]: tensor<64x128xf32>)
func.func @gathered_value_also_returned(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) -> (tensor<32x64xf32>, tensor<32x128xf32>) {
  // CHECK-NEXT: %[[R:.*]]:2 = tp.all_gather_matmul %[[X]], [%[[W]]] on @tp axes = [0] dim = 0 return_gathered : (tensor<8x64xf32>, tensor<64x128xf32>) -> (tensor<32x64xf32>, tensor<32x128xf32>)
  // CHECK-NEXT: return %[[R]]#0, %[[R]]#1
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %y = tp.matmul %g, %w : tensor<32x64xf32>, tensor<64x128xf32> -> tensor<32x128xf32>
  return %g, %y : tensor<32x64xf32>, tensor<32x128xf32>
}

// -----

// Dynamic leading dims keep their dynamic extent.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @dynamic_rows
// CHECK-SAME:    (%[[X:.*]]: tensor<?x64xf32>, %[[W:.*]]: tensor<64x128xf32>)
func.func @dynamic_rows(%x: tensor<?x64xf32>, %w: tensor<64x128xf32>) -> tensor<?x128xf32> {
  // CHECK-NEXT: %[[Y:.*]] = tp.all_gather_matmul %[[X]], [%[[W]]] on @tp axes = [0] dim = 0 : (tensor<?x64xf32>, tensor<64x128xf32>) -> tensor<?x128xf32>
  // CHECK-NEXT: return %[[Y]]
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<?x64xf32> -> tensor<?x64xf32>
  %y = tp.matmul %g, %w : tensor<?x64xf32>, tensor<64x128xf32> -> tensor<?x128xf32>
  return %y : tensor<?x128xf32>
}

// -----

// Negative: the gathered value is B, gathered along its N (a gather of B's
// contraction dim is tp.all_gather_contract's, in async-tp-contract.mlir).

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @gathered_value_as_b
func.func @gathered_value_as_b(%x: tensor<64x16xf32>, %a: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // CHECK: tp.all_gather
  // CHECK: tp.matmul
  // expected-remark @+1 {{all-gather not fused: the all-gather is along the free (N) dim of the matmul's B, not its contraction dim; only a gather of the contraction dim (a weight gradient) or of A's rows is fused}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 1 : tensor<64x16xf32> -> tensor<64x64xf32>
  %y = tp.matmul %a, %g : tensor<8x64xf32>, tensor<64x64xf32> -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// Negative: an elementwise op between the all-gather and the matmul.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @elementwise_between
func.func @elementwise_between(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) -> tensor<32x128xf32> {
  // CHECK: tp.all_gather
  // CHECK: arith.negf
  // CHECK: tp.matmul
  // expected-remark @+1 {{all-gather not fused: an elementwise op ('arith.negf') sits between the all-gather and the matmul}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %n = arith.negf %g : tensor<32x64xf32>
  %y = tp.matmul %n, %w : tensor<32x64xf32>, tensor<64x128xf32> -> tensor<32x128xf32>
  return %y : tensor<32x128xf32>
}

// -----

// Negative: a transpose between the all-gather and the matmul.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @transpose_between
func.func @transpose_between(%x: tensor<64x8xf32>, %w: tensor<64x128xf32>) -> tensor<32x128xf32> {
  // CHECK: tp.all_gather
  // CHECK: linalg.transpose
  // expected-remark @+1 {{all-gather not fused: the all-gather is along the free (M) dim of the matmul's transposed A, not its contraction dim; only a gather of the contraction dim (a weight gradient) or of A's rows is fused}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 1 : tensor<64x8xf32> -> tensor<64x32xf32>
  %e = tensor.empty() : tensor<32x64xf32>
  %t = linalg.transpose ins(%g : tensor<64x32xf32>) outs(%e : tensor<32x64xf32>) permutation = [1, 0]
  %y = tp.matmul %t, %w : tensor<32x64xf32>, tensor<64x128xf32> -> tensor<32x128xf32>
  return %y : tensor<32x128xf32>
}

// -----

// Negative: the gathered value feeds only a non-matmul op.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @no_matmul
func.func @no_matmul(%x: tensor<8x64xf32>) -> tensor<64xf32> {
  // CHECK: tp.all_gather
  // expected-remark @+1 {{all-gather not fused: the gathered value feeds 'tensor.extract_slice', which is not a matmul}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %s = tensor.extract_slice %g[0, 0] [1, 64] [1, 1] : tensor<32x64xf32> to tensor<64xf32>
  return %s : tensor<64xf32>
}

// -----

// Negative: the matmul sits in a nested region.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @matmul_in_other_block
func.func @matmul_in_other_block(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>, %c: i1) -> tensor<32x128xf32> {
  // CHECK: tp.all_gather
  // CHECK: scf.if
  // CHECK: tp.matmul
  // expected-remark @+1 {{all-gather not fused: the matmul is in a different block than the all-gather}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %r = scf.if %c -> tensor<32x128xf32> {
    %y = tp.matmul %g, %w : tensor<32x64xf32>, tensor<64x128xf32> -> tensor<32x128xf32>
    scf.yield %y : tensor<32x128xf32>
  } else {
    %z = tensor.empty() : tensor<32x128xf32>
    scf.yield %z : tensor<32x128xf32>
  }
  return %r : tensor<32x128xf32>
}

// -----

// An unused all-gather is not a miss: no remark.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @unused
func.func @unused(%x: tensor<8x64xf32>) {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  return
}

// -----

// Negative: glue follows the all-gather but no matmul does; and a matmul
// left as linalg by tp-import (it mixes element types).

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @no_matmul_follows
func.func @no_matmul_follows(%x: tensor<4x8xf32>) -> tensor<8x8xf32> {
  // CHECK: tp.all_gather
  // expected-remark @+1 {{all-gather not fused: the gathered value feeds an elementwise op ('math.tanh') and no matmul follows}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<4x8xf32> -> tensor<8x8xf32>
  %t = math.tanh %g : tensor<8x8xf32>
  return %t : tensor<8x8xf32>
}

// CHECK-LABEL: func.func @mixed_precision_linalg
func.func @mixed_precision_linalg(%x: tensor<4x8xbf16>, %w: tensor<8x16xbf16>) -> tensor<8x16xf32> {
  // CHECK: tp.all_gather
  // CHECK: linalg.matmul
  // expected-remark @+1 {{all-gather not fused: the gathered value feeds 'linalg.matmul', a contraction tp-import did not raise to a tp matmul (tp-import{emit-remarks} says why)}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<4x8xbf16> -> tensor<8x8xbf16>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %m = linalg.matmul ins(%g, %w : tensor<8x8xbf16>, tensor<8x16xbf16>) outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %m : tensor<8x16xf32>
}
