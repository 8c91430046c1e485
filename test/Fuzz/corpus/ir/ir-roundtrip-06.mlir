shard.grid @tp(shape = 4)
shard.grid @g(shape = 2x4)

func.func @all_gather_matmul(%x: tensor<8x64xf32>, %w1: tensor<64x128xf32>, %w2: tensor<64x32xf32>, %w3: tensor<64x16xf32>, %b1: tensor<128xf32>, %b3: tensor<16xf32>) -> (tensor<32x128xf32>, tensor<32x32xf32>, tensor<32x16xf32>) {
  %0:3 = tp.all_gather_matmul %x, [%w1 bias %b1, %w2, %w3 bias %b3] on @tp axes = [0] dim = 0 : (tensor<8x64xf32>, tensor<64x128xf32>, tensor<64x32xf32>, tensor<64x16xf32>, tensor<128xf32>, tensor<16xf32>) -> (tensor<32x128xf32>, tensor<32x32xf32>, tensor<32x16xf32>)
  return %0#0, %0#1, %0#2 : tensor<32x128xf32>, tensor<32x32xf32>, tensor<32x16xf32>
}

