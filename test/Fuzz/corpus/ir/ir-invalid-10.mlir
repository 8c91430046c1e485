shard.grid @tp(shape = 4)

func.func @agmm_contraction(%x: tensor<8x64xf32>, %w: tensor<32x128xf32>) {
  %0 = tp.all_gather_matmul %x, [%w] on @tp axes = [0] dim = 0 : (tensor<8x64xf32>, tensor<32x128xf32>) -> tensor<32x128xf32>
  return
}
