shard.grid @tp(shape = 4)

func.func @mlp(%x: tensor<8x64xf32>, %w1: tensor<64x128xf32>, %w2: tensor<128x64xf32>) -> tensor<8x64xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %h = tp.matmul %g, %w1 : tensor<32x64xf32>, tensor<64x128xf32> -> tensor<32x128xf32>
  %y = tp.matmul %h, %w2 : tensor<32x128xf32>, tensor<128x64xf32> -> tensor<32x64xf32>
  %r = tp.reduce_scatter %y on @tp axes = [0] dim = 0 reduce = sum : tensor<32x64xf32> -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}
