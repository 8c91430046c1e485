shard.grid @tp(shape = 4)

func.func @scale_gathered_first(%x: tensor<8x64xf8E4M3FN>, %sx: tensor<8x1xf32>, %w: tensor<32x64xf8E4M3FN>, %sw: tensor<32x1xf32>) -> tensor<32x32xbf16> {
  %gs = tp.all_gather %sx on @tp axes = [0] dim = 0 : tensor<8x1xf32> -> tensor<32x1xf32>
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
  %y = tp.scaled_matmul %g scale %gs, %w scale %sw row_wise : (tensor<32x64xf8E4M3FN>, tensor<32x1xf32>, tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) -> tensor<32x32xbf16>
  return %y : tensor<32x32xbf16>
}
