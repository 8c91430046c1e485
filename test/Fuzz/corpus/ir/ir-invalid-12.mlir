shard.grid @tp(shape = 4)

func.func @agsmm_bias_mask_without_bias(%a: tensor<8x64xf8E4M3FN>, %as: tensor<8x1xf32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<128x1xf32>) {
  %0 = "tp.all_gather_scaled_matmul"(%a, %as, %b, %bs) <{bias_mask = array<i1: true>, dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, mode = #tp.scaling<row_wise>, operandSegmentSizes = array<i32: 1, 1, 0, 1, 1, 0, 0>}> : (tensor<8x64xf8E4M3FN>, tensor<8x1xf32>, tensor<128x64xf8E4M3FN>, tensor<128x1xf32>) -> tensor<32x128xf32>
  return
}
