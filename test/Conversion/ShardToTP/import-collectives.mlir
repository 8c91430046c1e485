// RUN: tp-opt %s --tp-import=emit-remarks -split-input-file -verify-diagnostics | FileCheck %s

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @collectives
// CHECK-SAME:    (%[[X:.*]]: tensor<8x64xf32>, %[[Y:.*]]: tensor<32x64xf32>)
// CHECK-NEXT:  %[[G:.*]] = tp.all_gather %[[X]] on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
// CHECK-NEXT:  %[[S:.*]] = tp.reduce_scatter %[[Y]] on @tp axes = [0] dim = 1 reduce = max : tensor<32x64xf32> -> tensor<32x16xf32>
// CHECK-NEXT:  %[[R:.*]] = tp.all_reduce %[[Y]] on @tp axes = [0] reduce = avg : tensor<32x64xf32>
// CHECK-NEXT:  return %[[G]], %[[S]], %[[R]]
func.func @collectives(%x: tensor<8x64xf32>, %y: tensor<32x64xf32>) -> (tensor<32x64xf32>, tensor<32x16xf32>, tensor<32x64xf32>) {
  %g = shard.all_gather %x on @tp grid_axes = [0] gather_axis = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %s = shard.reduce_scatter %y on @tp grid_axes = [0] reduction = max scatter_axis = 1 : tensor<32x64xf32> -> tensor<32x16xf32>
  %r = shard.all_reduce %y on @tp grid_axes = [0] reduction = average : tensor<32x64xf32> -> tensor<32x64xf32>
  return %g, %s, %r : tensor<32x64xf32>, tensor<32x16xf32>, tensor<32x64xf32>
}

// -----

// all_reduce + all_slice on the same group is one reduce-scatter.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @all_reduce_then_slice
// CHECK-SAME:    (%[[Y:.*]]: tensor<2x32x64xf32>)
// CHECK-NEXT:  %[[S:.*]] = tp.reduce_scatter %[[Y]] on @tp axes = [0] dim = 1 reduce = sum : tensor<2x32x64xf32> -> tensor<2x8x64xf32>
// CHECK-NEXT:  return %[[S]]
func.func @all_reduce_then_slice(%y: tensor<2x32x64xf32>) -> tensor<2x8x64xf32> {
  %r = shard.all_reduce %y on @tp grid_axes = [0] : tensor<2x32x64xf32> -> tensor<2x32x64xf32>
  %s = shard.all_slice %r on @tp grid_axes = [0] slice_axis = 1 : tensor<2x32x64xf32> -> tensor<2x8x64xf32>
  return %s : tensor<2x8x64xf32>
}

// -----

// An all_reduce whose result is also used elsewhere stays an all-reduce; its
// slice becomes this rank's extract_slice.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @all_reduce_shared
// CHECK-SAME:    (%[[Y:.*]]: tensor<32x64xf32>)
// CHECK-NEXT:  %[[R:.*]] = tp.all_reduce %[[Y]] on @tp axes = [0] reduce = sum
// CHECK-NEXT:  %[[RANK:.*]] = tp.group_rank on @tp axes = [0]
// CHECK-NEXT:  %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT:  %[[OFF:.*]] = arith.muli %[[RANK]], %[[C8]] : index
// CHECK-NEXT:  %[[S:.*]] = tensor.extract_slice %[[R]][%[[OFF]], 0] [8, 64] [1, 1] : tensor<32x64xf32> to tensor<8x64xf32>
// CHECK-NEXT:  return %[[S]], %[[R]]
func.func @all_reduce_shared(%y: tensor<32x64xf32>) -> (tensor<8x64xf32>, tensor<32x64xf32>) {
  %r = shard.all_reduce %y on @tp grid_axes = [0] : tensor<32x64xf32> -> tensor<32x64xf32>
  %s = shard.all_slice %r on @tp grid_axes = [0] slice_axis = 0 : tensor<32x64xf32> -> tensor<8x64xf32>
  return %s, %r : tensor<8x64xf32>, tensor<32x64xf32>
}

// -----

// Rank queries.

shard.grid @g(shape = 2x4)

// CHECK-LABEL: func.func @rank_queries
// CHECK-NEXT:  %[[A0:.*]] = tp.group_rank on @g axes = [0]
// CHECK-NEXT:  %[[A1:.*]] = tp.group_rank on @g axes = [1]
// CHECK-NEXT:  %[[B1:.*]] = tp.group_rank on @g axes = [1]
// CHECK-NEXT:  %[[L:.*]] = tp.group_rank on @g axes = [0, 1]
// CHECK-NEXT:  return %[[A0]], %[[A1]], %[[B1]], %[[L]]
func.func @rank_queries() -> (index, index, index, index) {
  %a:2 = shard.process_multi_index on @g : index, index
  %b = shard.process_multi_index on @g axes = [1] : index
  %l = shard.process_linear_index on @g : index
  return %a#0, %a#1, %b, %l : index, index, index, index
}

// -----

// Negative: a reduction tp does not have stays upstream, with a remark.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @product_reduction
// CHECK-NEXT:  shard.all_reduce
func.func @product_reduction(%y: tensor<32x64xf32>) -> tensor<32x64xf32> {
  // expected-remark @+1 {{'shard.all_reduce' not raised: its reduction 'product' is not one tp has (sum, average, max, min)}}
  %r = shard.all_reduce %y on @tp grid_axes = [0] reduction = product : tensor<32x64xf32> -> tensor<32x64xf32>
  return %r : tensor<32x64xf32>
}

// -----

// Negative: an all-reduce that changes the element type.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @widening_all_reduce
// CHECK-NEXT:  shard.all_reduce
func.func @widening_all_reduce(%y: tensor<32x64xbf16>) -> tensor<32x64xf32> {
  // expected-remark @+1 {{'shard.all_reduce' not raised: its result type differs from its input type}}
  %r = shard.all_reduce %y on @tp grid_axes = [0] : tensor<32x64xbf16> -> tensor<32x64xf32>
  return %r : tensor<32x64xf32>
}

// -----

// Negative: a slice of a dynamic dim.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @dynamic_slice
// CHECK-NEXT:  shard.all_slice
func.func @dynamic_slice(%y: tensor<?x64xf32>) -> tensor<?x64xf32> {
  // expected-remark @+1 {{'shard.all_slice' not raised: the sliced dim is dynamic}}
  %s = shard.all_slice %y on @tp grid_axes = [0] slice_axis = 0 : tensor<?x64xf32> -> tensor<?x64xf32>
  return %s : tensor<?x64xf32>
}

// -----

// Negative: no grid axis.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @no_axes
// CHECK-NEXT:  shard.all_gather
func.func @no_axes(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-remark @+1 {{'shard.all_gather' not raised: it names no grid axis}}
  %g = shard.all_gather %x on @tp grid_axes = [] gather_axis = 0 : tensor<8x64xf32> -> tensor<8x64xf32>
  return %g : tensor<8x64xf32>
}

// -----

// all_to_all keeps its axes: upstream's split_axis and concat_axis are tp's
// split and concat.

shard.grid @g(shape = 2x4)

// CHECK-LABEL: func.func @all_to_all
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8x16xf32>, %[[Y:.*]]: tensor<8x6xi32>)
// CHECK-NEXT:  %[[H:.*]] = tp.all_to_all %[[X]] on @g axes = [1] split = 1 concat = 0 : tensor<4x8x16xf32> -> tensor<16x2x16xf32>
// CHECK-NEXT:  %[[S:.*]] = tp.all_to_all %[[Y]] on @g axes = [0, 1] split = 0 concat = 0 : tensor<8x6xi32> -> tensor<8x6xi32>
// CHECK-NEXT:  return %[[H]], %[[S]]
func.func @all_to_all(%x: tensor<4x8x16xf32>, %y: tensor<8x6xi32>) -> (tensor<16x2x16xf32>, tensor<8x6xi32>) {
  %h = shard.all_to_all %x on @g grid_axes = [1] split_axis = 1 concat_axis = 0 : tensor<4x8x16xf32> -> tensor<16x2x16xf32>
  %s = shard.all_to_all %y on @g grid_axes = [0, 1] split_axis = 0 concat_axis = 0 : tensor<8x6xi32> -> tensor<8x6xi32>
  return %h, %s : tensor<16x2x16xf32>, tensor<8x6xi32>
}

// -----

// Negative: an all_to_all over no grid axis stays upstream, with a remark.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @all_to_all_no_axes
// CHECK-NEXT:  shard.all_to_all
func.func @all_to_all_no_axes(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-remark @+1 {{'shard.all_to_all' not raised: it names no grid axis}}
  %y = shard.all_to_all %x on @tp grid_axes = [] split_axis = 1 concat_axis = 0 : tensor<8x64xf32> -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}
