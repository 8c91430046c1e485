// Reshapes with several dynamic sizes in one group compile and run (MLIR
// 22's expand-strided-metadata crashes on them; tp-lower-to-llvm rewrites
// them first). The expanded result must equal the same op applied without
// the reshapes, bit for bit.
// RUN: tp-run %s --entry collapse_expand --dim-size 3 | FileCheck %s --check-prefix=SAME
// RUN: tp-run %s --entry fused_layer --ranks 2 --dim-size 2 --pipeline tp-async-tp --compare-pipeline '' | FileCheck %s --check-prefix=FUSED

// SAME: rank 0 result 0: tensor<3x3x4xf32> sum=[[SUM:[-0-9.e+]+]] checksum=[[CK:[0-9a-f]+]]
// SAME-NEXT: rank 0 result 1: tensor<3x3x4xf32> sum=[[SUM]] checksum=[[CK]]
func.func @collapse_expand(%x: tensor<?x?x4xf32>) -> (tensor<?x?x4xf32>, tensor<?x?x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tensor.dim %x, %c0 : tensor<?x?x4xf32>
  %b = tensor.dim %x, %c1 : tensor<?x?x4xf32>
  %flat = tensor.collapse_shape %x [[0, 1], [2]] : tensor<?x?x4xf32> into tensor<?x4xf32>
  %t = math.absf %flat : tensor<?x4xf32>
  %y = tensor.expand_shape %t [[0, 1], [2]] output_shape [%a, %b, 4] : tensor<?x4xf32> into tensor<?x?x4xf32>
  %z = math.absf %x : tensor<?x?x4xf32>
  return %y, %z : tensor<?x?x4xf32>, tensor<?x?x4xf32>
}

// The product of a fused all-gather-matmul, expanded back to [B, S, N] with
// both dynamic.
// FUSED: compare: every result on every rank matches
shard.grid @tp(shape = 2)
func.func @fused_layer(%x: tensor<?x?x8xf32>, %w: tensor<8x4xf32>) -> tensor<?x?x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<?x?x8xf32> -> tensor<?x?x8xf32>
  %a = tensor.dim %g, %c0 : tensor<?x?x8xf32>
  %b = tensor.dim %g, %c1 : tensor<?x?x8xf32>
  %flat = tensor.collapse_shape %g [[0, 1], [2]] : tensor<?x?x8xf32> into tensor<?x8xf32>
  %m = tp.matmul %flat, %w : tensor<?x8xf32>, tensor<8x4xf32> -> tensor<?x4xf32>
  %y = tensor.expand_shape %m [[0, 1], [2]] output_shape [%a, %b, 4] : tensor<?x4xf32> into tensor<?x?x4xf32>
  return %y : tensor<?x?x4xf32>
}
