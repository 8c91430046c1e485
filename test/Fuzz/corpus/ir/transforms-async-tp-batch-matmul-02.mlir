shard.grid @tp(shape = 2)

func.func @dead_reshape_of_gathered(%x: tensor<2x4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x4x16xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<2x4x8xf32> -> tensor<4x4x8xf32>
  %dead = tensor.collapse_shape %g [[0, 1], [2]] : tensor<4x4x8xf32> into tensor<16x8xf32>
  %y = tp.batch_matmul %g, %w : tensor<4x4x8xf32>, tensor<8x16xf32> -> tensor<4x4x16xf32>
  return %y : tensor<4x4x16xf32>
}
