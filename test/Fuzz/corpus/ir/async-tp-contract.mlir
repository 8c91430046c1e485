shard.grid @tp(shape = 4)
// dW = dY^T . X_gathered (gathered as B)
func.func @as_b(%x: tensor<16x32xf32>, %dy: tensor<64x24xf32>) -> tensor<24x32xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<16x32xf32> -> tensor<64x32xf32>
  %e = tensor.empty() : tensor<24x64xf32>
  %t = linalg.transpose ins(%dy : tensor<64x24xf32>) outs(%e : tensor<24x64xf32>) permutation = [1, 0]
  %r = tp.matmul %t, %g : tensor<24x64xf32>, tensor<64x32xf32> -> tensor<24x32xf32>
  return %r : tensor<24x32xf32>
}
// X_gathered^T . dY (gathered as transposed A)
func.func @as_transposed_a(%x: tensor<16x32xf32>, %dy: tensor<64x24xf32>) -> tensor<32x24xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<16x32xf32> -> tensor<64x32xf32>
  %e = tensor.empty() : tensor<32x64xf32>
  %t = linalg.transpose ins(%g : tensor<64x32xf32>) outs(%e : tensor<32x64xf32>) permutation = [1, 0]
  %r = tp.matmul %t, %dy : tensor<32x64xf32>, tensor<64x24xf32> -> tensor<32x24xf32>
  return %r : tensor<32x24xf32>
}
// 3-D activation gathered along the sequence (dim 1), collapsed.
func.func @batched_seq(%x: tensor<2x8x32xf32>, %dy: tensor<2x32x24xf32>) -> tensor<24x32xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 1 : tensor<2x8x32xf32> -> tensor<2x32x32xf32>
  %gc = tensor.collapse_shape %g [[0, 1], [2]] : tensor<2x32x32xf32> into tensor<64x32xf32>
  %dyc = tensor.collapse_shape %dy [[0, 1], [2]] : tensor<2x32x24xf32> into tensor<64x24xf32>
  %e = tensor.empty() : tensor<24x64xf32>
  %t = linalg.transpose ins(%dyc : tensor<64x24xf32>) outs(%e : tensor<24x64xf32>) permutation = [1, 0]
  %r = tp.matmul %t, %gc : tensor<24x64xf32>, tensor<64x32xf32> -> tensor<24x32xf32>
  return %r : tensor<24x32xf32>
}
// gathered along B's N: not a contraction
func.func @b_free_dim(%a: tensor<8x32xf32>, %w: tensor<32x4xf32>) -> tensor<8x16xf32> {
  %g = tp.all_gather %w on @tp axes = [0] dim = 1 : tensor<32x4xf32> -> tensor<32x16xf32>
  %r = tp.matmul %a, %g : tensor<8x32xf32>, tensor<32x16xf32> -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
