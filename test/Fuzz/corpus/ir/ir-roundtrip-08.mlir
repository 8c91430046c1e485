shard.grid @tp(shape = 4)
shard.grid @g(shape = 2x4)

func.func @all_gather_scaled_matmul(%a: tensor<8x64xf8E4M3FN>, %as: tensor<8x1xf32>, %b1: tensor<128x64xf8E4M3FN>, %s1: tensor<128x1xf32>, %b2: tensor<32x64xf8E5M2>, %s2: tensor<32x1xf32>, %c1: tensor<128xbf16>) -> (tensor<32x64xf8E4M3FN>, tensor<32x1xf32>, tensor<32x128xbf16>, tensor<32x32xbf16>) {
  %0:4 = tp.all_gather_scaled_matmul %a scale %as, [%b1 scale %s1 bias %c1, %b2 scale %s2] on @tp axes = [0] dim = 0 row_wise return_gathered : (tensor<8x64xf8E4M3FN>, tensor<8x1xf32>, tensor<128x64xf8E4M3FN>, tensor<32x64xf8E5M2>, tensor<128x1xf32>, tensor<32x1xf32>, tensor<128xbf16>) -> (tensor<32x64xf8E4M3FN>, tensor<32x1xf32>, tensor<32x128xbf16>, tensor<32x32xbf16>)
  return %0#0, %0#1, %0#2, %0#3 : tensor<32x64xf8E4M3FN>, tensor<32x1xf32>, tensor<32x128xbf16>, tensor<32x32xbf16>
}

