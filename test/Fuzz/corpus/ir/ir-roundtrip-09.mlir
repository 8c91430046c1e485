shard.grid @tp(shape = 4)
shard.grid @g(shape = 2x4)

func.func @scaled_matmul_reduce_scatter(%a: tensor<32x64xf8E4M3FN>, %as: tensor<32x1xf32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<128x1xf32>, %bias: tensor<128xbf16>) -> tensor<8x128xbf16> {
  %0 = tp.scaled_matmul_reduce_scatter %a scale %as, %b scale %bs bias %bias on @tp axes = [0] dim = 0 reduce = sum row_wise : (tensor<32x64xf8E4M3FN>, tensor<32x1xf32>, tensor<128x64xf8E4M3FN>, tensor<128x1xf32>, tensor<128xbf16>) -> tensor<8x128xbf16>
  return %0 : tensor<8x128xbf16>
}

