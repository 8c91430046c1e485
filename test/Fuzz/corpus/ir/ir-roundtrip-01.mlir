shard.grid @tp(shape = 4)
shard.grid @g(shape = 2x4)

func.func @reduce_scatter(%x: tensor<32x64xf32>) -> tensor<8x64xf32> {
  %0 = tp.reduce_scatter %x on @tp axes = [0] dim = 0 reduce = sum : tensor<32x64xf32> -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

