shard.grid @tp(shape = 4)
func.func @rowwise(%h: tensor<32x1024xf32>, %w: tensor<1024x256xf32>, %o: tensor<32x256xf32>) -> tensor<32x256xf32> {
  %cols = shard.sharding @tp split_axes = [[], [0]] : !shard.sharding
  %rows = shard.sharding @tp split_axes = [[0]] : !shard.sharding
  %repl = shard.sharding @tp split_axes = [[]] : !shard.sharding
  %h0 = shard.shard %h to %cols : tensor<32x1024xf32>
  %h1 = shard.shard %h0 to %cols annotate_for_users : tensor<32x1024xf32>
  %w0 = shard.shard %w to %rows : tensor<1024x256xf32>
  %w1 = shard.shard %w0 to %rows annotate_for_users : tensor<1024x256xf32>
  %o0 = shard.shard %o to %repl : tensor<32x256xf32>
  %o1 = shard.shard %o0 to %repl annotate_for_users : tensor<32x256xf32>
  %y = linalg.matmul ins(%h1, %w1 : tensor<32x1024xf32>, tensor<1024x256xf32>) outs(%o1 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %y0 = shard.shard %y to %repl : tensor<32x256xf32>
  return %y0 : tensor<32x256xf32>
}
