shard.grid @tp(shape = 2)

func.func @layer(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<4x8xf32> -> tensor<8x8xf32>
  %y = tp.matmul %g, %w : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
