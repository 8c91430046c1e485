shard.grid @tp(shape = 2)
func.func @dyn(%x: tensor<?x5xf32>) -> tensor<?x5xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<?x5xf32> -> tensor<?x5xf32>
  return %g : tensor<?x5xf32>
}
