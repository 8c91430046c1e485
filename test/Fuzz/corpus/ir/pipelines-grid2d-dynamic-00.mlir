shard.grid @dp_tp(shape = 2x4)
func.func @dp_tp_layer(%x: tensor<64x64xf32>, %w: tensor<64x128xf32>, %o: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %rows_both = shard.sharding @dp_tp split_axes = [[0, 1]] : !shard.sharding
  %rows_dp = shard.sharding @dp_tp split_axes = [[0]] : !shard.sharding
  %cols_tp = shard.sharding @dp_tp split_axes = [[], [1]] : !shard.sharding
  %out = shard.sharding @dp_tp split_axes = [[0], [1]] : !shard.sharding
  %x0 = shard.shard %x to %rows_both : tensor<64x64xf32>
  %x1 = shard.shard %x0 to %rows_dp annotate_for_users : tensor<64x64xf32>
  %w0 = shard.shard %w to %cols_tp : tensor<64x128xf32>
  %w1 = shard.shard %w0 to %cols_tp annotate_for_users : tensor<64x128xf32>
  %o0 = shard.shard %o to %out : tensor<64x128xf32>
  %o1 = shard.shard %o0 to %out annotate_for_users : tensor<64x128xf32>
  %y = linalg.matmul ins(%x1, %w1 : tensor<64x64xf32>, tensor<64x128xf32>) outs(%o1 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %y0 = shard.shard %y to %out : tensor<64x128xf32>
  return %y0 : tensor<64x128xf32>
}
