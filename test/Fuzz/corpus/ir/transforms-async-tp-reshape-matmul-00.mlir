shard.grid @tp(shape = 4)

func.func @gather_batch_dim(%x: tensor<2x16x64xf32>, %w: tensor<128x64xf32>) -> tensor<8x16x128xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<2x16x64xf32> -> tensor<8x16x64xf32>
  %c = tensor.collapse_shape %g [[0, 1], [2]] : tensor<8x16x64xf32> into tensor<128x64xf32>
  %m = tp.matmul %c, %w transpose_b : tensor<128x64xf32>, tensor<128x64xf32> -> tensor<128x128xf32>
  %y = tensor.expand_shape %m [[0, 1], [2]] output_shape [8, 16, 128] : tensor<128x128xf32> into tensor<8x16x128xf32>
  return %y : tensor<8x16x128xf32>
}
