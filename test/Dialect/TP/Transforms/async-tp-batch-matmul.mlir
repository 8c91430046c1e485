// RUN: tp-opt %s --tp-async-tp=emit-remarks -split-input-file -verify-diagnostics | FileCheck %s

// The "bmm path": a batched matmul of the gathered activation with one weight
// broadcast over the batch. The reference pass never fuses it.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @bmm_broadcast_weight
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4x64xf32>, %[[W:.*]]: tensor<128x64xf32>)
func.func @bmm_broadcast_weight(%x: tensor<2x4x64xf32>, %w: tensor<128x64xf32>) -> tensor<2x16x128xf32> {
  // CHECK-NEXT: %[[Y:.*]] = tp.all_gather_matmul %[[X]], [%[[W]]] on @tp axes = [0] dim = 1 transpose_b : (tensor<2x4x64xf32>, tensor<128x64xf32>) -> tensor<2x16x128xf32>
  // CHECK-NEXT: return %[[Y]]
  %g = tp.all_gather %x on @tp axes = [0] dim = 1 : tensor<2x4x64xf32> -> tensor<2x16x64xf32>
  %y = tp.batch_matmul %g, %w transpose_b : tensor<2x16x64xf32>, tensor<128x64xf32> -> tensor<2x16x128xf32>
  return %y : tensor<2x16x128xf32>
}

// -----

// bmm path into a reduce-scatter on the sequence dim.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @bmm_reduce_scatter
// CHECK-SAME:    (%[[H:.*]]: tensor<2x16x32xf32>, %[[W:.*]]: tensor<64x32xf32>)
func.func @bmm_reduce_scatter(%h: tensor<2x16x32xf32>, %w: tensor<64x32xf32>) -> tensor<2x4x64xf32> {
  // CHECK-NEXT: %[[Y:.*]] = tp.matmul_reduce_scatter %[[H]], %[[W]] on @tp axes = [0] dim = 1 reduce = sum transpose_b : (tensor<2x16x32xf32>, tensor<64x32xf32>) -> tensor<2x4x64xf32>
  // CHECK-NEXT: return %[[Y]]
  %p = tp.batch_matmul %h, %w transpose_b : tensor<2x16x32xf32>, tensor<64x32xf32> -> tensor<2x16x64xf32>
  %y = tp.reduce_scatter %p on @tp axes = [0] dim = 1 reduce = sum : tensor<2x16x64xf32> -> tensor<2x4x64xf32>
  return %y : tensor<2x4x64xf32>
}

// -----

// Negative: a per-batch B is not a broadcast weight.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @bmm_per_batch_weight
func.func @bmm_per_batch_weight(%x: tensor<1x16x64xf32>, %w: tensor<4x64x8xf32>) -> tensor<4x16x8xf32> {
  // CHECK: tp.all_gather
  // CHECK: tp.batch_matmul
  // expected-remark @+1 {{all-gather not fused: the batched matmul has a per-batch B, not one weight broadcast over the batch}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<1x16x64xf32> -> tensor<4x16x64xf32>
  %y = tp.batch_matmul %g, %w : tensor<4x16x64xf32>, tensor<4x64x8xf32> -> tensor<4x16x8xf32>
  return %y : tensor<4x16x8xf32>
}

// -----

// Negative: the same for a reduce-scatter.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @bmm_per_batch_weight_reduce_scatter
func.func @bmm_per_batch_weight_reduce_scatter(%h: tensor<4x16x64xf32>, %w: tensor<4x64x8xf32>) -> tensor<4x4x8xf32> {
  // CHECK: tp.batch_matmul
  // CHECK: tp.reduce_scatter
  %p = tp.batch_matmul %h, %w : tensor<4x16x64xf32>, tensor<4x64x8xf32> -> tensor<4x16x8xf32>
  // expected-remark @+1 {{reduce-scatter not fused: the batched matmul has a per-batch B, not one weight broadcast over the batch}}
  %y = tp.reduce_scatter %p on @tp axes = [0] dim = 1 reduce = sum : tensor<4x16x8xf32> -> tensor<4x4x8xf32>
  return %y : tensor<4x4x8xf32>
}

// -----

// A dead reshape of the gathered value keeps reading it: the fused op returns
// the gathered value for it.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @dead_reshape_of_gathered
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4x8xf32>, %[[W:.*]]: tensor<8x16xf32>)
// CHECK-NEXT:  %[[R:.*]]:2 = tp.all_gather_matmul %[[X]], [%[[W]]] on @tp axes = [0] dim = 0 return_gathered
// CHECK-NEXT:  tensor.collapse_shape %[[R]]#0
// CHECK-NEXT:  return %[[R]]#1
func.func @dead_reshape_of_gathered(%x: tensor<2x4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x4x16xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<2x4x8xf32> -> tensor<4x4x8xf32>
  %dead = tensor.collapse_shape %g [[0, 1], [2]] : tensor<4x4x8xf32> into tensor<16x8xf32>
  %y = tp.batch_matmul %g, %w : tensor<4x4x8xf32>, tensor<8x16xf32> -> tensor<4x4x16xf32>
  return %y : tensor<4x4x16xf32>
}

// -----

// Negative: the gathered value is a batched matmul's per-batch B.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @gathered_as_batched_b
func.func @gathered_as_batched_b(%a: tensor<2x8x16xf32>, %x: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  // CHECK: tp.all_gather
  // CHECK: tp.batch_matmul
  // expected-remark @+1 {{all-gather not fused: the gathered value is used as B of 'tp.batch_matmul', not A}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 1 : tensor<2x8x4xf32> -> tensor<2x16x4xf32>
  %y = tp.batch_matmul %a, %g : tensor<2x8x16xf32>, tensor<2x16x4xf32> -> tensor<2x8x4xf32>
  return %y : tensor<2x8x4xf32>
}
