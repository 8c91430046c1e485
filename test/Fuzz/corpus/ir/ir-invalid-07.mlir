func.func @quantize_integer_input(%x: tensor<64x128xi8>) {
  %q, %s = tp.quantize %x row_wise : tensor<64x128xi8> -> tensor<64x128xf8E4M3FN>, tensor<64x1xf32>
  return
}
