func.func @unknown_grid(%x: tensor<8x64xf32>) -> tensor<32x64xf32> {
  %0 = tp.all_gather %x on @nope axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  return %0 : tensor<32x64xf32>
}
