shard.grid @tp(shape = 1)

func.func @layer(%x: tensor<64x128xbf16>, %w: tensor<128x256xbf16>) -> tensor<64x256xbf16> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<64x128xbf16> -> tensor<64x128xbf16>
  %y = tp.matmul %g, %w : tensor<64x128xbf16>, tensor<128x256xbf16> -> tensor<64x256xbf16>
  return %y : tensor<64x256xbf16>
}
