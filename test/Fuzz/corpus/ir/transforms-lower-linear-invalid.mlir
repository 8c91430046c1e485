shard.grid @tp(shape = 2)

func.func @rank4_bmm(%x: tensor<2x2x4x64xf32>, %w: tensor<32x64xf32>) -> tensor<2x2x8x32xf32> {
  %y = tp.linear %x, %w on @tp axes = [0] column input = shard(2) output = shard(3)
      : (tensor<2x2x4x64xf32>, tensor<32x64xf32>) -> tensor<2x2x8x32xf32>
  return %y : tensor<2x2x8x32xf32>
}
