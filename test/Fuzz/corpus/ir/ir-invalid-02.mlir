shard.grid @g(shape = 2x4)

func.func @all_gather_2d_group_size(%x: tensor<8x64xf32>) -> tensor<8x256xf32> {
  %0 = tp.all_gather %x on @g axes = [0, 1] dim = 1 : tensor<8x64xf32> -> tensor<8x256xf32>
  return %0 : tensor<8x256xf32>
}
