module {
shard.grid @tp(shape = 4)

func.func @mlp(%x: tensor<2x4x64xf32>, %wg: tensor<32x64xf32>, %wu: tensor<32x64xf32>, %wd: tensor<64x32xf32>, %bd: tensor<64xf32>) -> tensor<2x4x64xf32> {
  %g = tp.linear %x, %wg on @tp axes = [0] column input = shard(1) output = shard(2)
      : (tensor<2x4x64xf32>, tensor<32x64xf32>) -> tensor<2x16x32xf32>
  %u = tp.linear %x, %wu on @tp axes = [0] column input = shard(1) output = shard(2)
      : (tensor<2x4x64xf32>, tensor<32x64xf32>) -> tensor<2x16x32xf32>
  %a = arith.mulf %g, %u : tensor<2x16x32xf32>
  %y = tp.linear %a, %wd bias %bd on @tp axes = [0] row input = shard(2) output = shard(1)
      : (tensor<2x16x32xf32>, tensor<64x32xf32>, tensor<64xf32>) -> tensor<2x4x64xf32>
  return %y : tensor<2x4x64xf32>
}
}
