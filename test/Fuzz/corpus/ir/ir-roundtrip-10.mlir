shard.grid @tp(shape = 4)
shard.grid @g(shape = 2x4)

func.func @reduce_scatter_dynamic(%x: tensor<?x64xf32>) -> tensor<?x16xf32> {
  %0 = tp.reduce_scatter %x on @tp axes = [0] dim = 1 reduce = avg : tensor<?x64xf32> -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}

