// RUN: tp-opt %s --tp-lower-linear -split-input-file | FileCheck %s
// RUN: tp-opt %s --tp-lower-linear=mode=bmm -split-input-file | FileCheck %s --check-prefix=BMM

shard.grid @tp(shape = 4)

// Column-parallel on a 2-D sequence-sharded input: gather, matmul, bias add.

// CHECK-LABEL: func.func @column_2d
// CHECK-SAME:    (%[[X:.*]]: tensor<8x64xf32>, %[[W:.*]]: tensor<32x64xf32>, %[[B:.*]]: tensor<32xf32>)
// CHECK-NEXT:  %[[G:.*]] = tp.all_gather %[[X]] on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
// CHECK-NEXT:  %[[M:.*]] = tp.matmul %[[G]], %[[W]] transpose_b : tensor<32x64xf32>, tensor<32x64xf32> -> tensor<32x32xf32>
// CHECK-NEXT:  %[[Y:.*]] = tp.bias_add %[[M]], %[[B]]
// CHECK-NEXT:  return %[[Y]]
// BMM-LABEL:   func.func @column_2d
// BMM:         tp.matmul
func.func @column_2d(%x: tensor<8x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>) -> tensor<32x32xf32> {
  %y = tp.linear %x, %w bias %b on @tp axes = [0] column input = shard(0) output = shard(1)
      : (tensor<8x64xf32>, tensor<32x64xf32>, tensor<32xf32>) -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

// Column-parallel on a 3-D input sharded on the sequence dim (1).

// CHECK-LABEL: func.func @column_3d
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4x64xf32>, %[[W:.*]]: tensor<32x64xf32>)
// CHECK-NEXT:  %[[G:.*]] = tp.all_gather %[[X]] on @tp axes = [0] dim = 1 : tensor<2x4x64xf32> -> tensor<2x16x64xf32>
// CHECK-NEXT:  %[[C:.*]] = tensor.collapse_shape %[[G]] {{\[\[}}0, 1], [2]] : tensor<2x16x64xf32> into tensor<32x64xf32>
// CHECK-NEXT:  %[[M:.*]] = tp.matmul %[[C]], %[[W]] transpose_b
// CHECK-NEXT:  %[[E:.*]] = tensor.expand_shape %[[M]] {{\[\[}}0, 1], [2]] output_shape [2, 16, 32] : tensor<32x32xf32> into tensor<2x16x32xf32>
// CHECK-NEXT:  return %[[E]]
// BMM-LABEL:   func.func @column_3d
// BMM-SAME:      (%[[X:.*]]: tensor<2x4x64xf32>, %[[W:.*]]: tensor<32x64xf32>)
// BMM-NEXT:    %[[G:.*]] = tp.all_gather %[[X]] on @tp axes = [0] dim = 1
// BMM-NEXT:    %[[Y:.*]] = tp.batch_matmul %[[G]], %[[W]] transpose_b : tensor<2x16x64xf32>, tensor<32x64xf32> -> tensor<2x16x32xf32>
// BMM-NEXT:    return %[[Y]]
func.func @column_3d(%x: tensor<2x4x64xf32>, %w: tensor<32x64xf32>) -> tensor<2x16x32xf32> {
  %y = tp.linear %x, %w on @tp axes = [0] column input = shard(1) output = shard(2)
      : (tensor<2x4x64xf32>, tensor<32x64xf32>) -> tensor<2x16x32xf32>
  return %y : tensor<2x16x32xf32>
}

// Column-parallel on a replicated input: no gather.

// CHECK-LABEL: func.func @column_replicated
// CHECK-NEXT:  tp.matmul
// CHECK-NEXT:  return
func.func @column_replicated(%x: tensor<16x64xf32>, %w: tensor<32x64xf32>) -> tensor<16x32xf32> {
  %y = tp.linear %x, %w on @tp axes = [0] column input = replicated output = shard(1)
      : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}

// Row-parallel with a sequence-sharded output: matmul, reduce-scatter, then
// the bias once.

// CHECK-LABEL: func.func @row_3d
// CHECK-SAME:    (%[[H:.*]]: tensor<2x16x32xf32>, %[[W:.*]]: tensor<64x32xf32>, %[[B:.*]]: tensor<64xf32>)
// CHECK-NEXT:  %[[C:.*]] = tensor.collapse_shape %[[H]]
// CHECK-NEXT:  %[[M:.*]] = tp.matmul %[[C]], %[[W]] transpose_b
// CHECK-NEXT:  %[[E:.*]] = tensor.expand_shape %[[M]]
// CHECK-NEXT:  %[[R:.*]] = tp.reduce_scatter %[[E]] on @tp axes = [0] dim = 1 reduce = sum : tensor<2x16x64xf32> -> tensor<2x4x64xf32>
// CHECK-NEXT:  %[[Y:.*]] = tp.bias_add %[[R]], %[[B]]
// CHECK-NEXT:  return %[[Y]]
// BMM-LABEL:   func.func @row_3d
// BMM:         tp.batch_matmul
// BMM-NEXT:    tp.reduce_scatter
func.func @row_3d(%h: tensor<2x16x32xf32>, %w: tensor<64x32xf32>, %b: tensor<64xf32>) -> tensor<2x4x64xf32> {
  %y = tp.linear %h, %w bias %b on @tp axes = [0] row input = shard(2) output = shard(1)
      : (tensor<2x16x32xf32>, tensor<64x32xf32>, tensor<64xf32>) -> tensor<2x4x64xf32>
  return %y : tensor<2x4x64xf32>
}

// Row-parallel with a replicated output: all-reduce.

// CHECK-LABEL: func.func @row_replicated
// CHECK:       %[[M:.*]] = tp.matmul
// CHECK-NEXT:  tp.all_reduce %[[M]] on @tp axes = [0] reduce = sum : tensor<16x64xf32>
func.func @row_replicated(%h: tensor<16x32xf32>, %w: tensor<64x32xf32>) -> tensor<16x64xf32> {
  %y = tp.linear %h, %w on @tp axes = [0] row input = shard(1) output = replicated
      : (tensor<16x32xf32>, tensor<64x32xf32>) -> tensor<16x64xf32>
  return %y : tensor<16x64xf32>
}
