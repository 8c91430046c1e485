shard.grid @tp(shape = 2)

func.func @bias_depends_on_gathered(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x16xf32> -> tensor<16x16xf32>
  %y = tp.matmul %g, %w : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %b = tensor.extract_slice %g[0, 0] [1, 16] [1, 1] : tensor<16x16xf32> to tensor<16xf32>
  %z = tp.bias_add %y, %b : tensor<16x16xf32>, tensor<16xf32>
  return %z : tensor<16x16xf32>
}
