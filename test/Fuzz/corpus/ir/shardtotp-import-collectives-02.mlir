shard.grid @tp(shape = 4)

func.func @no_axes(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %g = shard.all_gather %x on @tp grid_axes = [] gather_axis = 0 : tensor<8x64xf32> -> tensor<8x64xf32>
  return %g : tensor<8x64xf32>
}
