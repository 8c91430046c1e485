shard.grid @tp(shape = 4)

func.func @scatter_rows(%h: tensor<32x16xf32>, %w: tensor<16x64xf32>) -> tensor<8x64xf32> {
  %p = tp.matmul %h, %w : tensor<32x16xf32>, tensor<16x64xf32> -> tensor<32x64xf32>
  %y = tp.reduce_scatter %p on @tp axes = [0] dim = 0 reduce = sum : tensor<32x64xf32> -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}
