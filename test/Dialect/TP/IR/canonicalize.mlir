// RUN: tp-opt %s --canonicalize | FileCheck %s

// A collective over a group of one rank is the identity and folds away; over
// a larger (or unknown) group it stays.

shard.grid @one(shape = 1)
shard.grid @tp(shape = 4)
shard.grid @g(shape = 4x1)
shard.grid @dyn(shape = ?)

// CHECK-LABEL: func.func @all_gather_single_rank(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>
// CHECK-NOT:     tp.all_gather
// CHECK:         return %[[X]] : tensor<8x64xf32>
func.func @all_gather_single_rank(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %0 = tp.all_gather %x on @one axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// CHECK-LABEL: func.func @all_gather_single_rank_dynamic(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x64xf32>
// CHECK-NOT:     tp.all_gather
// CHECK:         return %[[X]] : tensor<?x64xf32>
func.func @all_gather_single_rank_dynamic(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %0 = tp.all_gather %x on @one axes = [0] dim = 0 : tensor<?x64xf32> -> tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

// An axis of size 1 of a 2-D grid is a group of one rank too.
// CHECK-LABEL: func.func @all_gather_unit_axis(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>
// CHECK-NOT:     tp.all_gather
// CHECK:         return %[[X]] : tensor<8x64xf32>
func.func @all_gather_unit_axis(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %0 = tp.all_gather %x on @g axes = [1] dim = 1 : tensor<8x64xf32> -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// CHECK-LABEL: func.func @all_gather_four_ranks(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>
// CHECK:         %[[G:.*]] = tp.all_gather %[[X]] on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
// CHECK:         return %[[G]] : tensor<32x64xf32>
func.func @all_gather_four_ranks(%x: tensor<8x64xf32>) -> tensor<32x64xf32> {
  %0 = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  return %0 : tensor<32x64xf32>
}

// The axes [0, 1] of @g span 4 ranks, though axis 1 alone is a single rank.
// CHECK-LABEL: func.func @all_gather_both_axes(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>
// CHECK:         %[[G:.*]] = tp.all_gather %[[X]] on @g axes = [0, 1] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
// CHECK:         return %[[G]] : tensor<32x64xf32>
func.func @all_gather_both_axes(%x: tensor<8x64xf32>) -> tensor<32x64xf32> {
  %0 = tp.all_gather %x on @g axes = [0, 1] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  return %0 : tensor<32x64xf32>
}

// A fold may not change the type: a single-rank gather into a dynamic result
// stays.
// CHECK-LABEL: func.func @all_gather_single_rank_type_change(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>
// CHECK:         %[[G:.*]] = tp.all_gather %[[X]] on @one axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<?x64xf32>
// CHECK:         return %[[G]] : tensor<?x64xf32>
func.func @all_gather_single_rank_type_change(%x: tensor<8x64xf32>) -> tensor<?x64xf32> {
  %0 = tp.all_gather %x on @one axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

// CHECK-LABEL: func.func @reduce_scatter_single_rank(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>
// CHECK-NOT:     tp.reduce_scatter
// CHECK:         return %[[X]] : tensor<8x64xf32>
func.func @reduce_scatter_single_rank(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %0 = tp.reduce_scatter %x on @one axes = [0] dim = 1 reduce = sum : tensor<8x64xf32> -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// CHECK-LABEL: func.func @reduce_scatter_unit_axis(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<8x64xbf16>
// CHECK-NOT:     tp.reduce_scatter
// CHECK:         return %[[X]] : tensor<8x64xbf16>
func.func @reduce_scatter_unit_axis(%x: tensor<8x64xbf16>) -> tensor<8x64xbf16> {
  %0 = tp.reduce_scatter %x on @g axes = [1] dim = 0 reduce = max : tensor<8x64xbf16> -> tensor<8x64xbf16>
  return %0 : tensor<8x64xbf16>
}

// CHECK-LABEL: func.func @reduce_scatter_four_ranks(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<32x64xf32>
// CHECK:         %[[R:.*]] = tp.reduce_scatter %[[X]] on @tp axes = [0] dim = 0 reduce = sum : tensor<32x64xf32> -> tensor<8x64xf32>
// CHECK:         return %[[R]] : tensor<8x64xf32>
func.func @reduce_scatter_four_ranks(%x: tensor<32x64xf32>) -> tensor<8x64xf32> {
  %0 = tp.reduce_scatter %x on @tp axes = [0] dim = 0 reduce = sum : tensor<32x64xf32> -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// CHECK-LABEL: func.func @all_reduce_single_rank(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>
// CHECK-NOT:     tp.all_reduce
// CHECK:         return %[[X]], %[[X]] : tensor<8x64xf32>, tensor<8x64xf32>
func.func @all_reduce_single_rank(%x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
  %0 = tp.all_reduce %x on @one axes = [0] reduce = sum : tensor<8x64xf32>
  %1 = tp.all_reduce %x on @g axes = [1] reduce = avg : tensor<8x64xf32>
  return %0, %1 : tensor<8x64xf32>, tensor<8x64xf32>
}

// CHECK-LABEL: func.func @all_reduce_four_ranks(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>
// CHECK:         %[[A:.*]] = tp.all_reduce %[[X]] on @tp axes = [0] reduce = sum : tensor<8x64xf32>
// CHECK:         %[[B:.*]] = tp.all_reduce %[[X]] on @g axes = [0] reduce = max : tensor<8x64xf32>
// CHECK:         return %[[A]], %[[B]] : tensor<8x64xf32>, tensor<8x64xf32>
func.func @all_reduce_four_ranks(%x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
  %0 = tp.all_reduce %x on @tp axes = [0] reduce = sum : tensor<8x64xf32>
  %1 = tp.all_reduce %x on @g axes = [0] reduce = max : tensor<8x64xf32>
  return %0, %1 : tensor<8x64xf32>, tensor<8x64xf32>
}

// A grid of unknown size does not fold.
// CHECK-LABEL: func.func @all_reduce_dynamic_grid(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>
// CHECK:         %[[A:.*]] = tp.all_reduce %[[X]] on @dyn axes = [0] reduce = sum : tensor<8x64xf32>
// CHECK:         return %[[A]] : tensor<8x64xf32>
func.func @all_reduce_dynamic_grid(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %0 = tp.all_reduce %x on @dyn axes = [0] reduce = sum : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// Folds chain: every collective of the sequence disappears.
// CHECK-LABEL: func.func @single_rank_chain(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>
// CHECK-NOT:     tp.
// CHECK:         return %[[X]] : tensor<8x64xf32>
func.func @single_rank_chain(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %0 = tp.all_gather %x on @one axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<8x64xf32>
  %1 = tp.all_reduce %0 on @g axes = [1] reduce = sum : tensor<8x64xf32>
  %2 = tp.reduce_scatter %1 on @one axes = [0] dim = 0 reduce = sum : tensor<8x64xf32> -> tensor<8x64xf32>
  return %2 : tensor<8x64xf32>
}

// CHECK-LABEL: func.func @group_rank_four_ranks(
// CHECK:         %[[A:.*]] = tp.group_rank on @tp axes = [0]
// CHECK:         %[[B:.*]] = tp.group_rank on @g axes = [0, 1]
// CHECK:         return %[[A]], %[[B]] : index, index
func.func @group_rank_four_ranks() -> (index, index) {
  %0 = tp.group_rank on @tp axes = [0]
  %1 = tp.group_rank on @g axes = [0, 1]
  return %0, %1 : index, index
}

// tp.group_rank over a single rank is the constant 0.

// CHECK-LABEL: func.func @group_rank_single_rank(
// CHECK-NOT:     tp.group_rank
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         return %[[C0]], %[[C0]] : index, index
func.func @group_rank_single_rank() -> (index, index) {
  %0 = tp.group_rank on @one axes = [0]
  %1 = tp.group_rank on @g axes = [1]
  return %0, %1 : index, index
}
