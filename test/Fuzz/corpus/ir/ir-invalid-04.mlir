func.func @bias_add_2d_bias(%x: tensor<32x128xf32>, %b: tensor<1x128xf32>) {
  %0 = tp.bias_add %x, %b : tensor<32x128xf32>, tensor<1x128xf32>
  return
}
