// RUN: tp-opt %s --tp-async-tp=emit-remarks -split-input-file -verify-diagnostics | FileCheck %s

// all-gather -> collapse -> matmul -> expand: the graph F.linear gives for a
// 3-D activation. The fused op multiplies the 3-D gathered value directly.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @gather_batch_dim
// CHECK-SAME:    (%[[X:.*]]: tensor<2x16x64xf32>, %[[W:.*]]: tensor<128x64xf32>)
func.func @gather_batch_dim(%x: tensor<2x16x64xf32>, %w: tensor<128x64xf32>) -> tensor<8x16x128xf32> {
  // CHECK-NEXT: %[[Y:.*]] = tp.all_gather_matmul %[[X]], [%[[W]]] on @tp axes = [0] dim = 0 transpose_b : (tensor<2x16x64xf32>, tensor<128x64xf32>) -> tensor<8x16x128xf32>
  // CHECK-NEXT: return %[[Y]]
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<2x16x64xf32> -> tensor<8x16x64xf32>
  %c = tensor.collapse_shape %g [[0, 1], [2]] : tensor<8x16x64xf32> into tensor<128x64xf32>
  %m = tp.matmul %c, %w transpose_b : tensor<128x64xf32>, tensor<128x64xf32> -> tensor<128x128xf32>
  %y = tensor.expand_shape %m [[0, 1], [2]] output_shape [8, 16, 128] : tensor<128x128xf32> into tensor<8x16x128xf32>
  return %y : tensor<8x16x128xf32>
}

// -----

// The sequence dim (1) of a batch-first [B, S, H] activation, with the bias
// added after the expand.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @gather_sequence_dim
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4x64xf32>, %[[W:.*]]: tensor<128x64xf32>, %[[B:.*]]: tensor<128xf32>)
func.func @gather_sequence_dim(%x: tensor<2x4x64xf32>, %w: tensor<128x64xf32>, %b: tensor<128xf32>) -> tensor<2x16x128xf32> {
  // CHECK-NEXT: %[[Y:.*]] = tp.all_gather_matmul %[[X]], [%[[W]] bias %[[B]]] on @tp axes = [0] dim = 1 transpose_b : (tensor<2x4x64xf32>, tensor<128x64xf32>, tensor<128xf32>) -> tensor<2x16x128xf32>
  // CHECK-NEXT: return %[[Y]]
  %g = tp.all_gather %x on @tp axes = [0] dim = 1 : tensor<2x4x64xf32> -> tensor<2x16x64xf32>
  %c = tensor.collapse_shape %g [[0, 1], [2]] : tensor<2x16x64xf32> into tensor<32x64xf32>
  %m = tp.matmul %c, %w transpose_b : tensor<32x64xf32>, tensor<128x64xf32> -> tensor<32x128xf32>
  %e = tensor.expand_shape %m [[0, 1], [2]] output_shape [2, 16, 128] : tensor<32x128xf32> into tensor<2x16x128xf32>
  %y = tp.bias_add %e, %b : tensor<2x16x128xf32>, tensor<128xf32>
  return %y : tensor<2x16x128xf32>
}

// -----

// Without the expand back, the 2-D product is recovered by collapsing the
// fused op's 3-D product.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @no_expand_back
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4x64xf32>, %[[W:.*]]: tensor<64x32xf32>)
func.func @no_expand_back(%x: tensor<2x4x64xf32>, %w: tensor<64x32xf32>) -> tensor<16x32xf32> {
  // CHECK-NEXT: %[[Y:.*]] = tp.all_gather_matmul %[[X]], [%[[W]]] on @tp axes = [0] dim = 0 : (tensor<2x4x64xf32>, tensor<64x32xf32>) -> tensor<4x4x32xf32>
  // CHECK-NEXT: %[[C:.*]] = tensor.collapse_shape %[[Y]] {{\[\[}}0, 1], [2]] : tensor<4x4x32xf32> into tensor<16x32xf32>
  // CHECK-NEXT: return %[[C]]
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<2x4x64xf32> -> tensor<4x4x64xf32>
  %c = tensor.collapse_shape %g [[0, 1], [2]] : tensor<4x4x64xf32> into tensor<16x64xf32>
  %m = tp.matmul %c, %w : tensor<16x64xf32>, tensor<64x32xf32> -> tensor<16x32xf32>
  return %m : tensor<16x32xf32>
}

// -----

// Dynamic batch: the reshape sizes come from the gathered value.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @dynamic_batch
// CHECK-SAME:    (%[[X:.*]]: tensor<?x4x64xf32>, %[[W:.*]]: tensor<128x64xf32>
func.func @dynamic_batch(%x: tensor<?x4x64xf32>, %w: tensor<128x64xf32>) -> tensor<?x16x128xf32> {
  // The dim query now reads the product, whose leading dims are the same.
  // CHECK-NEXT: %[[Y:.*]] = tp.all_gather_matmul %[[X]], [%[[W]]] on @tp axes = [0] dim = 1 transpose_b : (tensor<?x4x64xf32>, tensor<128x64xf32>) -> tensor<?x16x128xf32>
  // CHECK:      tensor.dim %[[Y]]
  // CHECK-NEXT: return %[[Y]]
  %g = tp.all_gather %x on @tp axes = [0] dim = 1 : tensor<?x4x64xf32> -> tensor<?x16x64xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %g, %c0 : tensor<?x16x64xf32>
  %c = tensor.collapse_shape %g [[0, 1], [2]] : tensor<?x16x64xf32> into tensor<?x64xf32>
  %m = tp.matmul %c, %w transpose_b : tensor<?x64xf32>, tensor<128x64xf32> -> tensor<?x128xf32>
  %y = tensor.expand_shape %m [[0, 1], [2]] output_shape [%n, 16, 128] : tensor<?x128xf32> into tensor<?x16x128xf32>
  return %y : tensor<?x16x128xf32>
}

// -----

// A dynamic expand into other extents of the same product keeps its own
// reshape: the fused product is collapsed and expanded as the program says.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @dynamic_expand_elsewhere
// CHECK-SAME:    (%[[X:.*]]: tensor<?x?x8xf32>, %[[W:.*]]: tensor<8x4xf32>, %[[A:.*]]: index, %[[B:.*]]: index)
// CHECK-NEXT:  %[[Y:.*]] = tp.all_gather_matmul %[[X]], [%[[W]]] on @tp axes = [0] dim = 0
// CHECK-NEXT:  %[[C:.*]] = tensor.collapse_shape %[[Y]]
// CHECK-NEXT:  %[[E:.*]] = tensor.expand_shape %[[C]] {{\[\[}}0, 1], [2]] output_shape [%[[A]], %[[B]], 4]
// CHECK-NEXT:  return %[[E]]
func.func @dynamic_expand_elsewhere(%x: tensor<?x?x8xf32>, %w: tensor<8x4xf32>, %a: index, %b: index) -> tensor<?x?x4xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<?x?x8xf32> -> tensor<?x?x8xf32>
  %c = tensor.collapse_shape %g [[0, 1], [2]] : tensor<?x?x8xf32> into tensor<?x8xf32>
  %m = tp.matmul %c, %w : tensor<?x8xf32>, tensor<8x4xf32> -> tensor<?x4xf32>
  %y = tensor.expand_shape %m [[0, 1], [2]] output_shape [%a, %b, 4] : tensor<?x4xf32> into tensor<?x?x4xf32>
  return %y : tensor<?x?x4xf32>
}

// -----

// Negative: a reshape that merges the contraction dim.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @reshape_merges_k
func.func @reshape_merges_k(%x: tensor<2x16x4xf32>, %w: tensor<64x8xf32>) -> tensor<8x8xf32> {
  // CHECK: tp.all_gather
  // CHECK: tensor.collapse_shape
  // CHECK: tp.matmul
  // expected-remark @+1 {{all-gather not fused: a reshape ('tensor.collapse_shape') that does not just merge the leading dims sits between the all-gather and the matmul}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<2x16x4xf32> -> tensor<8x16x4xf32>
  %c = tensor.collapse_shape %g [[0], [1, 2]] : tensor<8x16x4xf32> into tensor<8x64xf32>
  %m = tp.matmul %c, %w : tensor<8x64xf32>, tensor<64x8xf32> -> tensor<8x8xf32>
  return %m : tensor<8x8xf32>
}

// -----

// Negative: the collapse also feeds a non-matmul op; the matmul still fuses and
// the other op reads a collapse of the gathered value the fused op returns.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @collapse_shared_with_other_user
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4x64xf32>, %[[W:.*]]: tensor<64x32xf32>)
func.func @collapse_shared_with_other_user(%x: tensor<2x4x64xf32>, %w: tensor<64x32xf32>) -> (tensor<16x32xf32>, tensor<16x64xf32>) {
  // CHECK-NEXT: %[[R:.*]]:2 = tp.all_gather_matmul %[[X]], [%[[W]]] on @tp axes = [0] dim = 0 return_gathered
  // CHECK-DAG:  %[[P:.*]] = tensor.collapse_shape %[[R]]#1
  // CHECK-DAG:  %[[G:.*]] = tensor.collapse_shape %[[R]]#0
  // CHECK-DAG:  %[[N:.*]] = arith.negf %[[G]]
  // CHECK:      return %[[P]], %[[N]]
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<2x4x64xf32> -> tensor<4x4x64xf32>
  %c = tensor.collapse_shape %g [[0, 1], [2]] : tensor<4x4x64xf32> into tensor<16x64xf32>
  %m = tp.matmul %c, %w : tensor<16x64xf32>, tensor<64x32xf32> -> tensor<16x32xf32>
  // expected-remark @-3 {{all-gather fused without one of its uses: the gathered value feeds an elementwise op ('arith.negf') and no matmul follows}}
  %n = arith.negf %c : tensor<16x64xf32>
  return %m, %n : tensor<16x32xf32>, tensor<16x64xf32>
}

// -----

// tensor.reshape with static shapes that only merges the leading dims is the
// collapse above, written as upstream's shard-partition and frontends emit it.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @tensor_reshape_merges_leading_dims
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4x32xf32>, %[[W:.*]]: tensor<32x16xf32>)
func.func @tensor_reshape_merges_leading_dims(%x: tensor<2x4x32xf32>, %w: tensor<32x16xf32>) -> tensor<16x16xf32> {
  // CHECK-NEXT: %[[Y:.*]] = tp.all_gather_matmul %[[X]], [%[[W]]] on @tp axes = [0] dim = 1 : (tensor<2x4x32xf32>, tensor<32x16xf32>) -> tensor<2x8x16xf32>
  // CHECK-NEXT: %[[C:.*]] = tensor.collapse_shape %[[Y]] {{\[\[}}0, 1], [2]] : tensor<2x8x16xf32> into tensor<16x16xf32>
  // CHECK-NEXT: return %[[C]]
  %g = tp.all_gather %x on @tp axes = [0] dim = 1 : tensor<2x4x32xf32> -> tensor<2x8x32xf32>
  %shape = arith.constant dense<[16, 32]> : tensor<2xi64>
  %c = tensor.reshape %g(%shape) : (tensor<2x8x32xf32>, tensor<2xi64>) -> tensor<16x32xf32>
  %m = tp.matmul %c, %w : tensor<16x32xf32>, tensor<32x16xf32> -> tensor<16x16xf32>
  return %m : tensor<16x16xf32>
}

// -----

// The same on the reduce-scatter side: a reshape that splits the product's
// rows back into [B, S].

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @tensor_reshape_splits_rows
// CHECK-SAME:    (%[[H:.*]]: tensor<16x32xf32>, %[[W:.*]]: tensor<32x16xf32>)
func.func @tensor_reshape_splits_rows(%h: tensor<16x32xf32>, %w: tensor<32x16xf32>) -> tensor<2x4x16xf32> {
  // CHECK-NEXT: %[[A:.*]] = tensor.expand_shape %[[H]] {{\[\[}}0, 1], [2]] output_shape [2, 8, 32] : tensor<16x32xf32> into tensor<2x8x32xf32>
  // CHECK-NEXT: %[[Y:.*]] = tp.matmul_reduce_scatter %[[A]], %[[W]] on @tp axes = [0] dim = 1 reduce = sum : (tensor<2x8x32xf32>, tensor<32x16xf32>) -> tensor<2x4x16xf32>
  // CHECK-NEXT: return %[[Y]]
  %m = tp.matmul %h, %w : tensor<16x32xf32>, tensor<32x16xf32> -> tensor<16x16xf32>
  %shape = arith.constant dense<[2, 8, 16]> : tensor<3xi64>
  %p = tensor.reshape %m(%shape) : (tensor<16x16xf32>, tensor<3xi64>) -> tensor<2x8x16xf32>
  %y = tp.reduce_scatter %p on @tp axes = [0] dim = 1 reduce = sum : tensor<2x8x16xf32> -> tensor<2x4x16xf32>
  return %y : tensor<2x4x16xf32>
}

// -----

// Negative: a tensor.reshape that regroups elements across dims is no
// collapse; it stays, and the remark names it.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @tensor_reshape_regroups
func.func @tensor_reshape_regroups(%x: tensor<2x6x4xf32>, %w: tensor<8x8xf32>) -> tensor<12x8xf32> {
  // CHECK: tp.all_gather
  // CHECK: tensor.reshape
  // CHECK: tp.matmul
  // expected-remark @+1 {{all-gather not fused: a reshape ('tensor.reshape') that does not just merge the leading dims sits between the all-gather and the matmul}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<2x6x4xf32> -> tensor<4x6x4xf32>
  %shape = arith.constant dense<[12, 8]> : tensor<2xi64>
  %c = tensor.reshape %g(%shape) : (tensor<4x6x4xf32>, tensor<2xi64>) -> tensor<12x8xf32>
  %m = tp.matmul %c, %w : tensor<12x8xf32>, tensor<8x8xf32> -> tensor<12x8xf32>
  return %m : tensor<12x8xf32>
}
