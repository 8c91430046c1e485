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
  %h = linalg.matmul ins(%x1, %w1u : tensor<256x512xf32>, tensor<512x2048xf32>) outs(%o1u : tensor<256x2048xf32>) -> tensor<256x2048xf32>
  %h1 = shard.shard %h to %cols : tensor<256x2048xf32>
  %h2 = shard.shard %h1 to %cols annotate_for_users : tensor<256x2048xf32>
  %w2s = shard.shard %w2 to %rows : tensor<2048x512xf32>
  %w2u = shard.shard %w2s to %rows annotate_for_users : tensor<2048x512xf32>
  %o2s = shard.shard %o2 to %repl : tensor<256x512xf32>
  %o2u = shard.shard %o2s to %repl annotate_for_users : tensor<256x512xf32>
  %y = linalg.matmul ins(%h2, %w2u : tensor<256x2048xf32>, tensor<2048x512xf32>) outs(%o2u : tensor<256x512xf32>) -> tensor<256x512xf32>
  %y1 = shard.shard %y to %repl : tensor<256x512xf32>
  %y2 = shard.shard %y1 to %rows annotate_for_users : tensor<256x512xf32>
  return %y2 : tensor<256x512xf32>
}
