shard.grid @tp(shape = 4)

func.func @bmm_per_batch_weight(%x: tensor<1x16x64xf32>, %w: tensor<4x64x8xf32>) -> tensor<4x16x8xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<1x16x64xf32> -> tensor<4x16x64xf32>
  %y = tp.batch_matmul %g, %w : tensor<4x16x64xf32>, tensor<4x64x8xf32> -> tensor<4x16x8xf32>
  return %y : tensor<4x16x8xf32>
}
