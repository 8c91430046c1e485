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

// A B that reaches tp.matmul through a linalg.transpose of its last two dims
// (F.linear decomposed into aten.t + matmul) is the weight itself with
// transpose_b; the transpose, now unused, goes away.

// CHECK-LABEL: func.func @matmul_transposed_weight(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<8x64xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<128x64xf32>
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[Y:.+]] = tp.matmul %[[A]], %[[W]] transpose_b : tensor<8x64xf32>, tensor<128x64xf32> -> tensor<8x128xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<8x128xf32>
func.func @matmul_transposed_weight(%a: tensor<8x64xf32>, %w: tensor<128x64xf32>) -> tensor<8x128xf32> {
  %init = tensor.empty() : tensor<64x128xf32>
  %wt = linalg.transpose ins(%w : tensor<128x64xf32>) outs(%init : tensor<64x128xf32>) permutation = [1, 0]
  %y = tp.matmul %a, %wt : tensor<8x64xf32>, tensor<64x128xf32> -> tensor<8x128xf32>
  return %y : tensor<8x128xf32>
}

// Dynamic extents carry over as they are.

// CHECK-LABEL: func.func @matmul_transposed_weight_dynamic(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<?x64xf16>, %[[W:[a-zA-Z0-9_]+]]: tensor<?x64xf16>
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[Y:.+]] = tp.matmul %[[A]], %[[W]] transpose_b : tensor<?x64xf16>, tensor<?x64xf16> -> tensor<?x?xf16>
// CHECK-NEXT:    return %[[Y]] : tensor<?x?xf16>
func.func @matmul_transposed_weight_dynamic(%a: tensor<?x64xf16>, %w: tensor<?x64xf16>, %init: tensor<64x?xf16>) -> tensor<?x?xf16> {
  %wt = linalg.transpose ins(%w : tensor<?x64xf16>) outs(%init : tensor<64x?xf16>) permutation = [1, 0]
  %y = tp.matmul %a, %wt : tensor<?x64xf16>, tensor<64x?xf16> -> tensor<?x?xf16>
  return %y : tensor<?x?xf16>
}

// A transpose of an [N, K] weight given with transpose_b cancels out.

// CHECK-LABEL: func.func @matmul_double_transpose(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<8x64xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<64x128xf32>
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[Y:.+]] = tp.matmul %[[A]], %[[W]] : tensor<8x64xf32>, tensor<64x128xf32> -> tensor<8x128xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<8x128xf32>
func.func @matmul_double_transpose(%a: tensor<8x64xf32>, %w: tensor<64x128xf32>) -> tensor<8x128xf32> {
  %init = tensor.empty() : tensor<128x64xf32>
  %wt = linalg.transpose ins(%w : tensor<64x128xf32>) outs(%init : tensor<128x64xf32>) permutation = [1, 0]
  %y = tp.matmul %a, %wt transpose_b : tensor<8x64xf32>, tensor<128x64xf32> -> tensor<8x128xf32>
  return %y : tensor<8x128xf32>
}

// A transpose with other users stays for them; the matmul still reads the
// weight directly.

// CHECK-LABEL: func.func @matmul_transpose_shared(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<8x64xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<128x64xf32>
// CHECK:         %[[T:.+]] = linalg.transpose ins(%[[W]] : tensor<128x64xf32>)
// CHECK:         %[[Y:.+]] = tp.matmul %[[A]], %[[W]] transpose_b : tensor<8x64xf32>, tensor<128x64xf32> -> tensor<8x128xf32>
// CHECK-NEXT:    return %[[Y]], %[[T]] : tensor<8x128xf32>, tensor<64x128xf32>
func.func @matmul_transpose_shared(%a: tensor<8x64xf32>, %w: tensor<128x64xf32>) -> (tensor<8x128xf32>, tensor<64x128xf32>) {
  %init = tensor.empty() : tensor<64x128xf32>
  %wt = linalg.transpose ins(%w : tensor<128x64xf32>) outs(%init : tensor<64x128xf32>) permutation = [1, 0]
  %y = tp.matmul %a, %wt : tensor<8x64xf32>, tensor<64x128xf32> -> tensor<8x128xf32>
  return %y, %wt : tensor<8x128xf32>, tensor<64x128xf32>
}

// tp.batch_matmul: a per-batch B transposed in its last two dims, batch dim
// kept in place, folds.

// CHECK-LABEL: func.func @batch_matmul_transposed_weight(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<4x8x64xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<4x128x64xf32>
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[Y:.+]] = tp.batch_matmul %[[A]], %[[W]] transpose_b : tensor<4x8x64xf32>, tensor<4x128x64xf32> -> tensor<4x8x128xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<4x8x128xf32>
func.func @batch_matmul_transposed_weight(%a: tensor<4x8x64xf32>, %w: tensor<4x128x64xf32>) -> tensor<4x8x128xf32> {
  %init = tensor.empty() : tensor<4x64x128xf32>
  %wt = linalg.transpose ins(%w : tensor<4x128x64xf32>) outs(%init : tensor<4x64x128xf32>) permutation = [0, 2, 1]
  %y = tp.batch_matmul %a, %wt : tensor<4x8x64xf32>, tensor<4x64x128xf32> -> tensor<4x8x128xf32>
  return %y : tensor<4x8x128xf32>
}

// A 2-D B broadcast over the batch folds with [1, 0]; with transpose_b set
// the transposes cancel.

// CHECK-LABEL: func.func @batch_matmul_broadcast_weight(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<4x8x64xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<128x64xf32>, %[[V:[a-zA-Z0-9_]+]]: tensor<64x128xf32>
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[Y:.+]] = tp.batch_matmul %[[A]], %[[W]] transpose_b : tensor<4x8x64xf32>, tensor<128x64xf32> -> tensor<4x8x128xf32>
// CHECK:         %[[Z:.+]] = tp.batch_matmul %[[A]], %[[V]] : tensor<4x8x64xf32>, tensor<64x128xf32> -> tensor<4x8x128xf32>
// CHECK-NEXT:    return %[[Y]], %[[Z]]
func.func @batch_matmul_broadcast_weight(%a: tensor<4x8x64xf32>, %w: tensor<128x64xf32>, %v: tensor<64x128xf32>) -> (tensor<4x8x128xf32>, tensor<4x8x128xf32>) {
  %init = tensor.empty() : tensor<64x128xf32>
  %wt = linalg.transpose ins(%w : tensor<128x64xf32>) outs(%init : tensor<64x128xf32>) permutation = [1, 0]
  %y = tp.batch_matmul %a, %wt : tensor<4x8x64xf32>, tensor<64x128xf32> -> tensor<4x8x128xf32>
  %init2 = tensor.empty() : tensor<128x64xf32>
  %vt = linalg.transpose ins(%v : tensor<64x128xf32>) outs(%init2 : tensor<128x64xf32>) permutation = [1, 0]
  %z = tp.batch_matmul %a, %vt transpose_b : tensor<4x8x64xf32>, tensor<128x64xf32> -> tensor<4x8x128xf32>
  return %y, %z : tensor<4x8x128xf32>, tensor<4x8x128xf32>
}

// Negative: a permutation that swaps the batch dim with K, not K with N.

// CHECK-LABEL: func.func @batch_matmul_wrong_permutation(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<4x8x64xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<64x4x128xf32>
// CHECK:         %[[T:.+]] = linalg.transpose ins(%[[W]] : tensor<64x4x128xf32>) outs({{.*}}) permutation = [1, 0, 2]
// CHECK:         %[[Y:.+]] = tp.batch_matmul %[[A]], %[[T]] : tensor<4x8x64xf32>, tensor<4x64x128xf32> -> tensor<4x8x128xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @batch_matmul_wrong_permutation(%a: tensor<4x8x64xf32>, %w: tensor<64x4x128xf32>) -> tensor<4x8x128xf32> {
  %init = tensor.empty() : tensor<4x64x128xf32>
  %wt = linalg.transpose ins(%w : tensor<64x4x128xf32>) outs(%init : tensor<4x64x128xf32>) permutation = [1, 0, 2]
  %y = tp.batch_matmul %a, %wt : tensor<4x8x64xf32>, tensor<4x64x128xf32> -> tensor<4x8x128xf32>
  return %y : tensor<4x8x128xf32>
}

// Negative: K and N trade places, but the batch dim moves too (B stored as
// [N, batch, K]); transpose_b cannot express that.

// CHECK-LABEL: func.func @batch_matmul_moves_batch_dim(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<4x8x64xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<128x4x64xf32>
// CHECK:         %[[T:.+]] = linalg.transpose ins(%[[W]] : tensor<128x4x64xf32>) outs({{.*}}) permutation = [1, 2, 0]
// CHECK:         %[[Y:.+]] = tp.batch_matmul %[[A]], %[[T]] : tensor<4x8x64xf32>, tensor<4x64x128xf32> -> tensor<4x8x128xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @batch_matmul_moves_batch_dim(%a: tensor<4x8x64xf32>, %w: tensor<128x4x64xf32>) -> tensor<4x8x128xf32> {
  %init = tensor.empty() : tensor<4x64x128xf32>
  %wt = linalg.transpose ins(%w : tensor<128x4x64xf32>) outs(%init : tensor<4x64x128xf32>) permutation = [1, 2, 0]
  %y = tp.batch_matmul %a, %wt : tensor<4x8x64xf32>, tensor<4x64x128xf32> -> tensor<4x8x128xf32>
  return %y : tensor<4x8x128xf32>
}

// Negative: a B transposed by something else than linalg.transpose (a
// linalg.generic with a transposing map) is left alone.

// CHECK-LABEL: func.func @matmul_generic_transpose_kept(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<8x64xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<128x64xf32>
// CHECK:         %[[T:.+]] = linalg.generic
// CHECK:         %[[Y:.+]] = tp.matmul %[[A]], %[[T]] : tensor<8x64xf32>, tensor<64x128xf32> -> tensor<8x128xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @matmul_generic_transpose_kept(%a: tensor<8x64xf32>, %w: tensor<128x64xf32>) -> tensor<8x128xf32> {
  %init = tensor.empty() : tensor<64x128xf32>
  %wt = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<128x64xf32>) outs(%init : tensor<64x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<64x128xf32>
  %y = tp.matmul %a, %wt : tensor<8x64xf32>, tensor<64x128xf32> -> tensor<8x128xf32>
  return %y : tensor<8x128xf32>
}
