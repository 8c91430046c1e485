// A 2x4 grid; one all-gather along each axis, each feeding a tp.matmul.
// Input of pass-options.test.

shard.grid @g(shape = 2x4)

func.func @gather_axis0(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) -> tensor<16x128xf32> {
  %g = tp.all_gather %x on @g axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<16x64xf32>
  %y = tp.matmul %g, %w : tensor<16x64xf32>, tensor<64x128xf32> -> tensor<16x128xf32>
  return %y : tensor<16x128xf32>
}

func.func @gather_axis1(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) -> tensor<32x128xf32> {
  %g = tp.all_gather %x on @g axes = [1] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %y = tp.matmul %g, %w : tensor<32x64xf32>, tensor<64x128xf32> -> tensor<32x128xf32>
  return %y : tensor<32x128xf32>
}
