func.func @scaled_matmul_contraction(%a: tensor<32x64xf8E4M3FN>, %as: tensor<32x1xf32>, %b: tensor<128x32xf8E4M3FN>, %bs: tensor<128x1xf32>) {
  %0 = tp.scaled_matmul %a scale %as, %b scale %bs row_wise : (tensor<32x64xf8E4M3FN>, tensor<32x1xf32>, tensor<128x32xf8E4M3FN>, tensor<128x1xf32>) -> tensor<32x128xf32>
  return
}
