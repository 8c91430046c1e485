shard.grid @tp(shape = 4)
shard.grid @g(shape = 2x4)

func.func @matmul(%a: tensor<32x64xf32>, %b: tensor<64x128xf32>, %bt: tensor<128x64xf32>) -> (tensor<32x128xf32>, tensor<32x128xf32>) {
  %0 = tp.matmul %a, %b : tensor<32x64xf32>, tensor<64x128xf32> -> tensor<32x128xf32>
  %1 = tp.matmul %a, %bt transpose_b : tensor<32x64xf32>, tensor<128x64xf32> -> tensor<32x128xf32>
  return %0, %1 : tensor<32x128xf32>, tensor<32x128xf32>
}

