func.func @matmul_contraction(%a: tensor<32x64xf32>, %b: tensor<32x128xf32>) {
  %0 = tp.matmul %a, %b : tensor<32x64xf32>, tensor<32x128xf32> -> tensor<32x128xf32>
  return
}
