shard.grid @tp(shape = 4)
shard.grid @g(shape = 2x4)

func.func @linear_dynamic(%x: tensor<?x64xf32>, %w: tensor<32x64xf32>) -> tensor<?x32xf32> {
  %0 = tp.linear %x, %w on @tp axes = [0] column input = shard(0) output = shard(1) : (tensor<?x64xf32>, tensor<32x64xf32>) -> tensor<?x32xf32>
  return %0 : tensor<?x32xf32>
}

