shard.grid @tp(shape = 4)

func.func @placement_unknown_keyword(%x: tensor<32x64xf32>, %w: tensor<32x64xf32>) -> tensor<32x32xf32> {
  %0 = tp.linear %x, %w on @tp axes = [0] column input = split(0) output = shard(1) : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x32xf32>
  return %0 : tensor<32x32xf32>
}
