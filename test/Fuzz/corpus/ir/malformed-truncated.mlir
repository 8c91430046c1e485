shard.grid @tp(shape = 8)
func.func @seqpar_mlp(%x: tensor<256x512xf32>, %w1: tensor<512x2048xf32>, %w2: tensor<2048x512xf32>,
                      %o1: tensor<256x2048xf32>, %o2: tensor<256x512xf32>) -> tensor<256x512xf32> {
  %rows = shard.sharding @tp split_axes = [[0]] : !shard.sharding
  %repl = shard.sharding @tp split_axes = [[]] : !shard.sharding
  %cols = shard.sharding @tp split_axes = [[], [0]] : !shard.sharding
  %x0 = shard.shard %x to %rows : tensor<256x512xf32>
  %x1 = shard.shard %x0 to %repl annotate_for_users : tensor<256x512xf32>
  %w1s = shard.shard %w1 to %cols : tensor<512x2048xf32>
  %w1u = shard.shard %w1s to %cols annotate_for_users : tensor<512x2048xf32>
  %o1s = shard.shard %o1 to %cols : tensor<256x2048xf32>
  %o1u = shard.shard %o1s to %cols annotate_for_users : tensor<256x2048xf32>
  %h =