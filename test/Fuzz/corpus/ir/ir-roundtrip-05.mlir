shard.grid @tp(shape = 4)
shard.grid @g(shape = 2x4)

func.func @scaled_matmul_per_tensor(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E5M2>, %bs: tensor<f32>, %bias: tensor<128xbf16>) -> tensor<32x128xbf16> {
  %0 = tp.scaled_matmul %a scale %as, %b scale %bs bias %bias per_tensor : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E5M2>, tensor<f32>, tensor<128xbf16>) -> tensor<32x128xbf16>
  return %0 : tensor<32x128xbf16>
}

