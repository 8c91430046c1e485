shard.grid @dp_tp(shape = 2x4)

func.func @only_tensor_axis(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) -> (tensor<32x128xf32>, tensor<16x128xf32>) {
  %g = tp.all_gather %x on @dp_tp axes = [1] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %y = tp.matmul %g, %w : tensor<32x64xf32>, tensor<64x128xf32> -> tensor<32x128xf32>
  %g2 = tp.all_gather %x on @dp_tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<16x64xf32>
  %y2 = tp.matmul %g2, %w : tensor<16x64xf32>, tensor<64x128xf32> -> tensor<16x128xf32>
  return %y, %y2 : tensor<32x128xf32>, tensor<16x128xf32>
}
