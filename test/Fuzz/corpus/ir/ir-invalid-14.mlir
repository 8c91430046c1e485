shard.grid @tp(shape = 4)

func.func @agsmm_bias_shape(%a: tensor<8x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>, %c: tensor<128xf32>) {
  %0 = tp.all_gather_scaled_matmul %a scale %as, [%b scale %bs bias %c] on @tp axes = [0] dim = 0 per_tensor : (tensor<8x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>, tensor<128xf32>) -> tensor<32x128xbf16>
  return
}
