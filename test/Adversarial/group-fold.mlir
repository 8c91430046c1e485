// RUN: tp-opt %s --canonicalize | FileCheck %s

// Folds over hostile but valid group arithmetic: a collective over a group of
// one rank folds away (and tp.group_rank to 0) however the single-rank group
// is spelled, and one over a group whose extents are huge but whose product
// fits int64 must NOT fold (a wrapped or truncated size could look like 1).

shard.grid @one(shape = 1)
shard.grid @ones(shape = 1x1x1)
// 2^32 * (2^31 - 1) ranks: fits int64, does not fit 32 bits.
shard.grid @big(shape = 4294967296x2147483647)
// 2^32 * 2^32 would be 0 modulo 2^64; one axis of 2^32 alone fits.
shard.grid @wide(shape = 4294967296x4294967296x1)
shard.grid @maxaxis(shape = 9223372036854775807x1)
shard.grid @dyn1(shape = ?x1)

// CHECK: shard.grid @one(shape = 1)
// CHECK: shard.grid @ones(shape = 1x1x1)
// CHECK: shard.grid @big(shape = 4294967296x2147483647)
// CHECK: shard.grid @wide(shape = 4294967296x4294967296x1)
// CHECK: shard.grid @maxaxis(shape = 9223372036854775807x1)
// CHECK: shard.grid @dyn1(shape = ?x1)

// CHECK-LABEL: func.func @all_reduce_single_rank_spellings(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>
// CHECK-NOT:     tp.all_reduce
// CHECK:         return %[[X]], %[[X]], %[[X]] : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>
func.func @all_reduce_single_rank_spellings(%x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>) {
  %0 = tp.all_reduce %x on @one axes = [0] reduce = sum : tensor<8x64xf32>
  // Three unit axes, named out of order.
  %1 = tp.all_reduce %x on @ones axes = [2, 0, 1] reduce = max : tensor<8x64xf32>
  // The unit axis of a grid whose other axis is INT64_MAX.
  %2 = tp.all_reduce %x on @maxaxis axes = [1] reduce = avg : tensor<8x64xf32>
  return %0, %1, %2 : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>
}

// CHECK-LABEL: func.func @all_reduce_huge_groups_stay(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>
// CHECK-NEXT:    %[[A:.*]] = tp.all_reduce %[[X]] on @big axes = [0, 1] reduce = sum : tensor<8x64xf32>
// CHECK-NEXT:    %[[B:.*]] = tp.all_reduce %[[A]] on @maxaxis axes = [1, 0] reduce = sum : tensor<8x64xf32>
// CHECK-NEXT:    %[[C:.*]] = tp.all_reduce %[[B]] on @wide axes = [2, 1] reduce = min : tensor<8x64xf32>
// CHECK-NEXT:    %[[D:.*]] = tp.all_reduce %[[C]] on @dyn1 axes = [1, 0] reduce = sum : tensor<8x64xf32>
// CHECK-NEXT:    return %[[D]] : tensor<8x64xf32>
func.func @all_reduce_huge_groups_stay(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %0 = tp.all_reduce %x on @big axes = [0, 1] reduce = sum : tensor<8x64xf32>
  // INT64_MAX * 1 ranks.
  %1 = tp.all_reduce %0 on @maxaxis axes = [1, 0] reduce = sum : tensor<8x64xf32>
  // 1 * 2^32 ranks: 0 modulo 2^32.
  %2 = tp.all_reduce %1 on @wide axes = [2, 1] reduce = min : tensor<8x64xf32>
  // A unit axis next to a dynamic one: the size is unknown.
  %3 = tp.all_reduce %2 on @dyn1 axes = [1, 0] reduce = sum : tensor<8x64xf32>
  return %3 : tensor<8x64xf32>
}

// CHECK-LABEL: func.func @group_rank_folds(
// CHECK-NOT:     tp.group_rank
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    return %[[C0]], %[[C0]], %[[C0]] : index, index, index
func.func @group_rank_folds() -> (index, index, index) {
  %0 = tp.group_rank on @one axes = [0]
  %1 = tp.group_rank on @ones axes = [0, 1, 2]
  %2 = tp.group_rank on @maxaxis axes = [1]
  return %0, %1, %2 : index, index, index
}

// CHECK-LABEL: func.func @group_rank_stays(
// CHECK-NEXT:    %[[A:.*]] = tp.group_rank on @big axes = [1, 0]
// CHECK-NEXT:    %[[B:.*]] = tp.group_rank on @wide axes = [0]
// CHECK-NEXT:    %[[C:.*]] = tp.group_rank on @maxaxis axes = [0]
// CHECK-NEXT:    %[[D:.*]] = tp.group_rank on @dyn1 axes = [0, 1]
// CHECK-NEXT:    return %[[A]], %[[B]], %[[C]], %[[D]] : index, index, index, index
func.func @group_rank_stays() -> (index, index, index, index) {
  %0 = tp.group_rank on @big axes = [1, 0]
  %1 = tp.group_rank on @wide axes = [0]
  %2 = tp.group_rank on @maxaxis axes = [0]
  %3 = tp.group_rank on @dyn1 axes = [0, 1]
  return %0, %1, %2, %3 : index, index, index, index
}

// A gather and a scatter over a unit axis of a huge grid fold; a gather over
// the huge axis of a one-element slice stays.
// CHECK-LABEL: func.func @gather_scatter_unit_axis_of_huge_grid(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<8x64xf32>
// CHECK-NOT:     tp.all_gather
// CHECK-NOT:     tp.reduce_scatter
// CHECK:         return %[[X]], %[[X]] : tensor<8x64xf32>, tensor<8x64xf32>
func.func @gather_scatter_unit_axis_of_huge_grid(%x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
  %0 = tp.all_gather %x on @maxaxis axes = [1] dim = 0 : tensor<8x64xf32> -> tensor<8x64xf32>
  %1 = tp.reduce_scatter %x on @dyn1 axes = [1] dim = 1 reduce = sum : tensor<8x64xf32> -> tensor<8x64xf32>
  return %0, %1 : tensor<8x64xf32>, tensor<8x64xf32>
}

// CHECK-LABEL: func.func @gather_onto_huge_axis_stays(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<1x1xi8>
// CHECK-NEXT:    %[[G:.*]] = tp.all_gather %[[X]] on @maxaxis axes = [0] dim = 0 : tensor<1x1xi8> -> tensor<9223372036854775807x1xi8>
// CHECK-NEXT:    return %[[G]] : tensor<9223372036854775807x1xi8>
func.func @gather_onto_huge_axis_stays(%x: tensor<1x1xi8>) -> tensor<9223372036854775807x1xi8> {
  %0 = tp.all_gather %x on @maxaxis axes = [0] dim = 0 : tensor<1x1xi8> -> tensor<9223372036854775807x1xi8>
  return %0 : tensor<9223372036854775807x1xi8>
}
