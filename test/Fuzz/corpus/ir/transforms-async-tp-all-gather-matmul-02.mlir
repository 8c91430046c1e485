shard.grid @tp(shape = 4)

func.func @unused(%x: tensor<8x64xf32>) {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  return
}
