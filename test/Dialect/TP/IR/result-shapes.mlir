// RUN: tp-opt %s --split-input-file --resolve-ranked-shaped-type-result-dims | FileCheck %s

// Each op's result dims follow from its operands (ResultShapes.cpp): a
// tensor.dim of a result becomes the operand dims it comes from, times or
// divided by the group size (4 here) or a block size.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @gather_scatter(
// CHECK-SAME:      %[[X:.*]]: tensor<?x8xf32>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[G:.*]] = arith.constant 4 : index
// CHECK:         %[[M:.*]] = tensor.dim %[[X]], %[[C0]]
// CHECK:         %[[GATHERED:.*]] = arith.muli %[[M]], %[[G]] : index
// CHECK:         %[[M2:.*]] = tensor.dim %[[X]], %[[C0]]
// CHECK:         %[[SCATTERED:.*]] = arith.divui %[[M2]], %{{.*}} : index
// CHECK:         return %[[GATHERED]], %[[SCATTERED]]
func.func @gather_scatter(%x: tensor<?x8xf32>) -> (index, index) {
  %c0 = arith.constant 0 : index
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<?x8xf32> -> tensor<?x8xf32>
  %s = tp.reduce_scatter %x on @tp axes = [0] dim = 0 reduce = sum : tensor<?x8xf32> -> tensor<?x8xf32>
  %dg = tensor.dim %g, %c0 : tensor<?x8xf32>
  %ds = tensor.dim %s, %c0 : tensor<?x8xf32>
  return %dg, %ds : index, index
}

// A product's rows are A's, its columns B's N: dim 0 of a transposed B.
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:      %[[A:.*]]: tensor<?x16xf32>, %[[B:.*]]: tensor<?x16xf32>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[ROWS:.*]] = tensor.dim %[[A]], %[[C0]]
// CHECK-DAG:     %[[COLS:.*]] = tensor.dim %[[B]], %[[C0]]
// CHECK:         return %[[ROWS]], %[[COLS]]
func.func @matmul(%a: tensor<?x16xf32>, %b: tensor<?x16xf32>) -> (index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %y = tp.matmul %a, %b transpose_b : tensor<?x16xf32>, tensor<?x16xf32> -> tensor<?x?xf32>
  %m = tensor.dim %y, %c0 : tensor<?x?xf32>
  %n = tensor.dim %y, %c1 : tensor<?x?xf32>
  return %m, %n : index, index
}

// The gathered rows of a fused all-gather-matmul, and its product's.
// CHECK-LABEL: func.func @all_gather_matmul(
// CHECK-SAME:      %[[A:.*]]: tensor<?x64xf32>, %[[W:.*]]: tensor<64x128xf32>)
// CHECK:         %[[M:.*]] = tensor.dim %[[A]], %{{.*}}
// CHECK:         %[[ROWS:.*]] = arith.muli %[[M]], %{{.*}} : index
// CHECK:         %[[M2:.*]] = tensor.dim %[[A]], %{{.*}}
// CHECK:         %[[PROWS:.*]] = arith.muli %[[M2]], %{{.*}} : index
// CHECK:         return %[[ROWS]], %[[PROWS]]
func.func @all_gather_matmul(%a: tensor<?x64xf32>, %w: tensor<64x128xf32>) -> (index, index) {
  %c0 = arith.constant 0 : index
  %g, %y = tp.all_gather_matmul %a, [%w] on @tp axes = [0] dim = 0 return_gathered : (tensor<?x64xf32>, tensor<64x128xf32>) -> (tensor<?x64xf32>, tensor<?x128xf32>)
  %dg = tensor.dim %g, %c0 : tensor<?x64xf32>
  %dy = tensor.dim %y, %c0 : tensor<?x128xf32>
  return %dg, %dy : index, index
}

// MXFP8 scales: one per 32 elements of the last dim.
// CHECK-LABEL: func.func @quantize(
// CHECK-SAME:      %[[X:.*]]: tensor<4x?xf32>)
// CHECK-DAG:     %[[BLOCK:.*]] = arith.constant 32 : index
// CHECK-DAG:     %[[K:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK:         %[[BLOCKS:.*]] = arith.divui %[[K]], %[[BLOCK]] : index
// CHECK:         return %[[BLOCKS]]
func.func @quantize(%x: tensor<4x?xf32>) -> index {
  %c1 = arith.constant 1 : index
  %q, %s = tp.quantize %x mxfp8 : tensor<4x?xf32> -> tensor<4x?xf8E4M3FN>, tensor<4x?xf8E8M0FNU>
  %d = tensor.dim %s, %c1 : tensor<4x?xf8E8M0FNU>
  return %d : index
}

// A sequence-parallel column layer gathers its rows; a row layer
// reduce-scatters them. N is the weight's dim 0.
// CHECK-LABEL: func.func @linear(
// CHECK-SAME:      %[[X:.*]]: tensor<?x64xf32>, %[[WC:.*]]: tensor<?x64xf32>, %[[XR:.*]]: tensor<?x16xf32>, %[[WR:.*]]: tensor<64x16xf32>)
// CHECK:         %[[M:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK:         %[[GATHERED:.*]] = arith.muli %[[M]], %{{.*}} : index
// CHECK:         %[[N:.*]] = tensor.dim %[[WC]], %{{.*}}
// CHECK:         %[[MR:.*]] = tensor.dim %[[XR]], %{{.*}}
// CHECK:         %[[SCATTERED:.*]] = arith.divui %[[MR]], %{{.*}} : index
// CHECK:         return %[[GATHERED]], %[[N]], %[[SCATTERED]]
func.func @linear(%x: tensor<?x64xf32>, %wc: tensor<?x64xf32>, %xr: tensor<?x16xf32>, %wr: tensor<64x16xf32>) -> (index, index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %col = tp.linear %x, %wc on @tp axes = [0] column input = shard(0) output = shard(1) : (tensor<?x64xf32>, tensor<?x64xf32>) -> tensor<?x?xf32>
  %row = tp.linear %xr, %wr on @tp axes = [0] row input = shard(1) output = shard(0) : (tensor<?x16xf32>, tensor<64x16xf32>) -> tensor<?x64xf32>
  %m = tensor.dim %col, %c0 : tensor<?x?xf32>
  %n = tensor.dim %col, %c1 : tensor<?x?xf32>
  %mr = tensor.dim %row, %c0 : tensor<?x64xf32>
  return %m, %n, %mr : index, index, index
}

// -----

// A grid of dynamic size has no static group size: the dim stays asked of
// the result.
shard.grid @dynamic(shape = ?)

// CHECK-LABEL: func.func @dynamic_grid(
// CHECK:         %[[G:.*]] = tp.all_gather
// CHECK:         tensor.dim %[[G]]
func.func @dynamic_grid(%x: tensor<?x8xf32>) -> index {
  %c0 = arith.constant 0 : index
  %g = tp.all_gather %x on @dynamic axes = [0] dim = 0 : tensor<?x8xf32> -> tensor<?x8xf32>
  %d = tensor.dim %g, %c0 : tensor<?x8xf32>
  return %d : index
}
