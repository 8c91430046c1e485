func.func @quantize_fp4_needs_nvfp4(%x: tensor<64x128xf32>) {
  %q, %s = tp.quantize %x row_wise : tensor<64x128xf32> -> tensor<64x128xf4E2M1FN>, tensor<64x1xf32>
  return
}
