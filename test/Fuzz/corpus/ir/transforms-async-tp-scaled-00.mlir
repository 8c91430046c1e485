shard.grid @tp(shape = 4)

func.func @per_tensor(%x: tensor<8x64xf8E4M3FN>, %sx: tensor<f32>, %w: tensor<32x64xf8E4M3FN>, %sw: tensor<f32>) -> tensor<32x32xbf16> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
  %y = tp.scaled_matmul %g scale %sx, %w scale %sw per_tensor : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<32x64xf8E4M3FN>, tensor<f32>) -> tensor<32x32xbf16>
  return %y : tensor<32x32xbf16>
}
