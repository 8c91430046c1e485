shard.grid @tp(shape = 4)

func.func @smmrs_unreduced(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  %0:2 = tp.scaled_matmul_reduce_scatter %a scale %as, %b scale %bs on @tp axes = [0] dim = 0 reduce = sum per_tensor return_unreduced : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> (tensor<8x128xf32>, tensor<8x128xf32>)
  return
}
