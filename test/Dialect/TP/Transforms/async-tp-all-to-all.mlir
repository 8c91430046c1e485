// RUN: tp-opt %s --tp-async-tp=emit-remarks -split-input-file -verify-diagnostics | FileCheck %s
// A forced ring runs per_peer, with a remark:
// RUN: tp-opt %s '--tp-async-tp=emit-remarks algorithm=ring chunks=2' -split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=RING-REMARK
// RUN: tp-opt %s '--tp-async-tp=algorithm=ring chunks=2' -split-input-file | FileCheck %s --check-prefix=RING

// Ulysses' exchange before a projection: [S/4, H] split on H and stacked on
// S. Each arriving block is multiplied into its own rows; the bias add goes
// with it.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @rows
// CHECK-SAME:    (%[[X:.*]]: tensor<8x64xf32>, %[[W:.*]]: tensor<16x32xf32>, %[[B:.*]]: tensor<32xf32>)
func.func @rows(%x: tensor<8x64xf32>, %w: tensor<16x32xf32>, %b: tensor<32xf32>) -> tensor<32x32xf32> {
  // CHECK-NEXT: %[[Y:.*]] = tp.all_to_all_matmul %[[X]], [%[[W]] bias %[[B]]] on @tp axes = [0] split = 1 concat = 0 : (tensor<8x64xf32>, tensor<16x32xf32>, tensor<32xf32>) -> tensor<32x32xf32>
  // CHECK-NEXT: return %[[Y]]
  %e = tp.all_to_all %x on @tp axes = [0] split = 1 concat = 0 : tensor<8x64xf32> -> tensor<32x16xf32>
  %m = tp.matmul %e, %w : tensor<32x16xf32>, tensor<16x32xf32> -> tensor<32x32xf32>
  %y = tp.bias_add %m, %b : tensor<32x32xf32>, tensor<32xf32>
  return %y : tensor<32x32xf32>
}
// RING-REMARK: remark: all-to-all runs per_peer, not ring: each peer takes a different block, which no ring passes on
// RING-LABEL: func.func @rows
// RING: tp.all_to_all_matmul {{.*}} {algorithm = #tp.algorithm<per_peer>, chunks = 2 : i64}

// -----

// A 3-D activation through F.linear's reshapes, two projections sharing the
// exchange (Q and K, say), and the exchanged value also returned.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @sequence_two_projections
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4x64xf32>, %[[WQ:.*]]: tensor<32x16xf32>, %[[WK:.*]]: tensor<32x16xf32>)
func.func @sequence_two_projections(%x: tensor<2x4x64xf32>, %wq: tensor<32x16xf32>, %wk: tensor<32x16xf32>)
    -> (tensor<2x16x32xf32>, tensor<2x16x32xf32>, tensor<2x16x16xf32>) {
  // CHECK-NEXT: %[[R:.*]]:3 = tp.all_to_all_matmul %[[X]], [%[[WQ]], %[[WK]]] on @tp axes = [0] split = 2 concat = 1 transpose_b return_exchanged : (tensor<2x4x64xf32>, tensor<32x16xf32>, tensor<32x16xf32>) -> (tensor<2x16x16xf32>, tensor<2x16x32xf32>, tensor<2x16x32xf32>)
  // CHECK-NEXT: return %[[R]]#1, %[[R]]#2, %[[R]]#0
  %e = tp.all_to_all %x on @tp axes = [0] split = 2 concat = 1 : tensor<2x4x64xf32> -> tensor<2x16x16xf32>
  %c = tensor.collapse_shape %e [[0, 1], [2]] : tensor<2x16x16xf32> into tensor<32x16xf32>
  %q = tp.matmul %c, %wq transpose_b : tensor<32x16xf32>, tensor<32x16xf32> -> tensor<32x32xf32>
  %qe = tensor.expand_shape %q [[0, 1], [2]] output_shape [2, 16, 32] : tensor<32x32xf32> into tensor<2x16x32xf32>
  %k = tp.matmul %c, %wk transpose_b : tensor<32x16xf32>, tensor<32x16xf32> -> tensor<32x32xf32>
  %ke = tensor.expand_shape %k [[0, 1], [2]] output_shape [2, 16, 32] : tensor<32x32xf32> into tensor<2x16x32xf32>
  return %qe, %ke, %e : tensor<2x16x32xf32>, tensor<2x16x32xf32>, tensor<2x16x16xf32>
}

// -----

// Tokens dispatched to the ranks of their experts ([E, C, H] split on E,
// stacked on C) and a batched matmul with one weight; and blocks stacked
// along K, each a partial product.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @experts_and_k
// CHECK-SAME:    (%[[X:.*]]: tensor<4x3x16xf32>, %[[W:.*]]: tensor<16x8xf32>, %[[Z:.*]]: tensor<8x8xf32>, %[[V:.*]]: tensor<16x8xf32>)
func.func @experts_and_k(%x: tensor<4x3x16xf32>, %w: tensor<16x8xf32>, %z: tensor<8x8xf32>, %v: tensor<16x8xf32>) -> (tensor<2x6x8xf32>, tensor<4x8xf32>) {
  // CHECK-NEXT: %[[E:.*]] = tp.all_to_all_matmul %[[X]], [%[[W]]] on @tp axes = [0] split = 0 concat = 1 : (tensor<4x3x16xf32>, tensor<16x8xf32>) -> tensor<2x6x8xf32>
  // CHECK-NEXT: %[[K:.*]] = tp.all_to_all_matmul %[[Z]], [%[[V]]] on @tp axes = [0] split = 0 concat = 1 : (tensor<8x8xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  // CHECK-NEXT: return %[[E]], %[[K]]
  %e = tp.all_to_all %x on @tp axes = [0] split = 0 concat = 1 : tensor<4x3x16xf32> -> tensor<2x6x16xf32>
  %y = tp.batch_matmul %e, %w : tensor<2x6x16xf32>, tensor<16x8xf32> -> tensor<2x6x8xf32>
  %k = tp.all_to_all %z on @tp axes = [0] split = 0 concat = 1 : tensor<8x8xf32> -> tensor<4x16xf32>
  %p = tp.matmul %k, %v : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  return %y, %p : tensor<2x6x8xf32>, tensor<4x8xf32>
}

// -----

// A transpose between the exchange and the matmul (the heads moved in
// front) moves above the exchange, which then cuts and stacks the
// transposed dims; negative: the exchanged value used as B.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @transpose_between
// CHECK-SAME:    (%[[X:.*]]: tensor<8x64xf32>, %[[W:.*]]: tensor<32x16xf32>, %[[A:.*]]: tensor<8x32xf32>)
// CHECK-NEXT:  %[[I:.*]] = tensor.empty() : tensor<64x8xf32>
// CHECK-NEXT:  %[[T:.*]] = linalg.transpose ins(%[[X]] : tensor<8x64xf32>) outs(%[[I]] : tensor<64x8xf32>) permutation = [1, 0]
// CHECK-NEXT:  %[[M:.*]] = tp.all_to_all_matmul %[[T]], [%[[W]]] on @tp axes = [0] split = 0 concat = 1 : (tensor<64x8xf32>, tensor<32x16xf32>) -> tensor<16x16xf32>
// CHECK-NEXT:  %[[F:.*]] = tp.all_to_all %[[X]]
// CHECK-NEXT:  %[[N:.*]] = tp.matmul %[[A]], %[[F]]
// CHECK-NEXT:  return %[[M]], %[[N]]
func.func @transpose_between(%x: tensor<8x64xf32>, %w: tensor<32x16xf32>, %a: tensor<8x32xf32>) -> (tensor<16x16xf32>, tensor<8x16xf32>) {
  %e = tp.all_to_all %x on @tp axes = [0] split = 1 concat = 0 : tensor<8x64xf32> -> tensor<32x16xf32>
  %t = tensor.empty() : tensor<16x32xf32>
  %et = linalg.transpose ins(%e : tensor<32x16xf32>) outs(%t : tensor<16x32xf32>) permutation = [1, 0]
  %m = tp.matmul %et, %w : tensor<16x32xf32>, tensor<32x16xf32> -> tensor<16x16xf32>
  // expected-remark @below {{all-to-all not fused: the exchanged value is used as B of 'tp.matmul', not A}}
  %f = tp.all_to_all %x on @tp axes = [0] split = 1 concat = 0 : tensor<8x64xf32> -> tensor<32x16xf32>
  %n = tp.matmul %a, %f : tensor<8x32xf32>, tensor<32x16xf32> -> tensor<8x16xf32>
  return %m, %n : tensor<16x16xf32>, tensor<8x16xf32>
}

// -----

// Experts with their own weights (a per-batch B): each arriving block of
// tokens lands in one expert's rows and is multiplied by that expert's
// weight. An all-to-all that sends a matmul's product fuses on the producer
// side (async-tp-all-to-all-producer.mlir). Negative: a per-batch B whose
// rows the blocks do not stack along.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @per_expert_weights_and_producer
// CHECK-SAME:    (%[[X:.*]]: tensor<4x3x16xf32>, %[[W:.*]]: tensor<2x16x8xf32>,
// CHECK:       tp.all_to_all_matmul %[[X]], [%[[W]]] on @tp axes = [0] split = 0 concat = 1 : (tensor<4x3x16xf32>, tensor<2x16x8xf32>) -> tensor<2x6x8xf32>
// CHECK:       tp.matmul_all_to_all %{{.*}}, %{{.*}} on @tp axes = [0] split = 1 concat = 0 : (tensor<6x16xf32>, tensor<16x16xf32>) -> tensor<12x8xf32>
// CHECK:       tp.all_to_all %
func.func @per_expert_weights_and_producer(%x: tensor<4x3x16xf32>, %w: tensor<2x16x8xf32>, %h: tensor<6x16xf32>, %v: tensor<16x16xf32>,
    %z: tensor<3x4x16xf32>, %u: tensor<3x16x8xf32>) -> (tensor<2x6x8xf32>, tensor<12x8xf32>, tensor<3x4x8xf32>) {
  %e = tp.all_to_all %x on @tp axes = [0] split = 0 concat = 1 : tensor<4x3x16xf32> -> tensor<2x6x16xf32>
  %y = tp.batch_matmul %e, %w : tensor<2x6x16xf32>, tensor<2x16x8xf32> -> tensor<2x6x8xf32>
  %p = tp.matmul %h, %v : tensor<6x16xf32>, tensor<16x16xf32> -> tensor<6x16xf32>
  %s = tp.all_to_all %p on @tp axes = [0] split = 1 concat = 0 : tensor<6x16xf32> -> tensor<12x8xf32>
  // expected-remark @below {{all-to-all not fused: the batched matmul has a per-batch B, and the exchanged blocks do not stack along its rows}}
  %f = tp.all_to_all %z on @tp axes = [0] split = 2 concat = 2 : tensor<3x4x16xf32> -> tensor<3x4x16xf32>
  %o = tp.batch_matmul %f, %u : tensor<3x4x16xf32>, tensor<3x16x8xf32> -> tensor<3x4x8xf32>
  return %y, %s, %o : tensor<2x6x8xf32>, tensor<12x8xf32>, tensor<3x4x8xf32>
}

// -----

// An all-to-all that feeds no matmul, directly or through layout ops, is not
// a candidate: no remark.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @no_matmul
// CHECK:       tp.all_to_all %
func.func @no_matmul(%v: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %d = tp.all_to_all %v on @tp axes = [0] split = 0 concat = 0 : tensor<32x16xf32> -> tensor<32x16xf32>
  %sum = arith.addf %d, %v : tensor<32x16xf32>
  return %sum : tensor<32x16xf32>
}
