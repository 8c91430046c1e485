shard.grid @tp(shape = 4)
func.func @layer(%x: tensor<4x8xf32>, %w: tensor<2x8xf32>) -> tensor<4x2xf32> {
  %y = tp.linear %x, %w on @tp axes = [0] column input = replicated output = shard(1)
      : (tensor<4x8xf32>, tensor<2x8xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}
