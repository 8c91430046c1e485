shard.grid @tp(shape = 4)

func.func @mixed_b_layouts(%x: tensor<8x64xf32>, %w1: tensor<32x64xf32>, %w2: tensor<32x64xf32>, %w3: tensor<64x32xf32>)
    -> (tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %y1 = tp.matmul %g, %w1 transpose_b : tensor<32x64xf32>, tensor<32x64xf32> -> tensor<32x32xf32>
  %y2 = tp.matmul %g, %w2 transpose_b : tensor<32x64xf32>, tensor<32x64xf32> -> tensor<32x32xf32>
  %y3 = tp.matmul %g, %w3 : tensor<32x64xf32>, tensor<64x32xf32> -> tensor<32x32xf32>
  return %y1, %y2, %y3 : tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>
}
