shard.grid @tp(shape = 4)
shard.grid @g(shape = 2x4)

func.func @linear_column(%x: tensor<32x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>) -> tensor<32x32xf32> {
  %0 = tp.linear %x, %w bias %b on @tp axes = [0] column input = replicated output = shard(1) : (tensor<32x64xf32>, tensor<32x64xf32>, tensor<32xf32>) -> tensor<32x32xf32>
  return %0 : tensor<32x32xf32>
}

