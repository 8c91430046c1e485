shard.grid @tp(shape = 4)

func.func @agsmm_b_fp4_row_wise(%a: tensor<8x64xf8E4M3FN>, %as: tensor<8x1xf32>, %b: tensor<128x64xf4E2M1FN>, %bs: tensor<128x1xf32>) {
  %0 = tp.all_gather_scaled_matmul %a scale %as, [%b scale %bs] on @tp axes = [0] dim = 0 row_wise : (tensor<8x64xf8E4M3FN>, tensor<8x1xf32>, tensor<128x64xf4E2M1FN>, tensor<128x1xf32>) -> tensor<32x128xf32>
  return
}
