shard.grid @tp(shape = 4)
func.func @dynamic_tokens(%x: tensor<?x64xf32>, %w: tensor<64x128xf32>, %o: tensor<?x128xf32>) -> tensor<?x128xf32> {
  %rows = shard.sharding @tp split_axes = [[0]] : !shard.sharding
  %repl = shard.sharding @tp split_axes = [[]] : !shard.sharding
  %cols = shard.sharding @tp split_axes = [[], [0]] : !shard.sharding
  %x0 = shard.shard %x to %rows : tensor<?x64xf32>
  %x1 = shard.shard %x0 to %repl annotate_for_users : tensor<?x64xf32>
  %w0 = shard.shard %w to %cols : tensor<64x128xf32>
  %w1 = shard.shard %w0 to %cols annotate_for_users : tensor<64x128xf32>
  %o0 = shard.shard %o to %cols : tensor<?x128xf32>
  %o1 = shard.shard %o0 to %cols annotate_for_users : tensor<?x128xf32>
  %y = linalg.matmul ins(%x1, %w1 : tensor<?x64xf32>, tensor<64x128xf32>) outs(%o1 : tensor<?x128xf32>) -> tensor<?x128xf32>
  %y1 = shard.shard %y to %cols : tensor<?x128xf32>
  return %y1 : tensor<?x128xf32>
}
