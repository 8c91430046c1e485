shard.grid @tp(shape = 4)
shard.grid @g(shape = 2x4)

func.func @all_gather_matmul_dynamic(%x: tensor<?x64xf32>, %w: tensor<64x128xf32>) -> tensor<?x128xf32> {
  %0 = tp.all_gather_matmul %x, [%w] on @tp axes = [0] dim = 0 {algorithm = #tp.algorithm<per_peer>} : (tensor<?x64xf32>, tensor<64x128xf32>) -> tensor<?x128xf32>
  return %0 : tensor<?x128xf32>
}

