shard.grid @tp(shape = 4)

func.func @gathered_value_as_b(%x: tensor<16x64xf32>, %a: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<16x64xf32> -> tensor<64x64xf32>
  %y = tp.matmul %a, %g : tensor<8x64xf32>, tensor<64x64xf32> -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}
