shard.grid @tp(shape = 4)

func.func @hoist_b_producer(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) -> tensor<32x128xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %wn = arith.negf %w : tensor<64x128xf32>
  %y = tp.matmul %g, %wn : tensor<32x64xf32>, tensor<64x128xf32> -> tensor<32x128xf32>
  return %y : tensor<32x128xf32>
}
