shard.grid @tp(shape = 4)

func.func @bmm_broadcast_weight(%x: tensor<2x4x64xf32>, %w: tensor<128x64xf32>) -> tensor<2x16x128xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 1 : tensor<2x4x64xf32> -> tensor<2x16x64xf32>
  %y = tp.batch_matmul %g, %w transpose_b : tensor<2x16x64xf32>, tensor<128x64xf32> -> tensor<2x16x128xf32>
  return %y : tensor<2x16x128xf32>
}
