shard.grid @tp(shape = 4)

func.func @partial_b_depends_on_gathered(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> (tensor<64x16xf32>, tensor<64x16xf32>) {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<16x16xf32> -> tensor<64x16xf32>
  %y1 = tp.matmul %g, %w : tensor<64x16xf32>, tensor<16x16xf32> -> tensor<64x16xf32>
  %s = tensor.extract_slice %g[0, 0] [16, 16] [1, 1] : tensor<64x16xf32> to tensor<16x16xf32>
  %y2 = tp.matmul %g, %s : tensor<64x16xf32>, tensor<16x16xf32> -> tensor<64x16xf32>
  return %y1, %y2 : tensor<64x16xf32>, tensor<64x16xf32>
}
