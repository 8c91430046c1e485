shard.grid @tp(shape = 2)
func.func @qkv(%x: tensor<64x256xf32>, %wq: tensor<256x256xf32>, %wk: tensor<256x256xf32>, %wv: tensor<256x256xf32>,
               %oq: tensor<64x256xf32>, %ok: tensor<64x256xf32>, %ov: tensor<64x256xf32>)
    -> (tensor<64x256xf32>, tensor<64x256xf32>, tensor<64x256xf32>) {
  %rows = shard.sharding @tp split_axes = [[0]] : !shard.sharding
  %repl = shard.sharding @tp split_axes = [[]] : !shard.sharding
  %cols = shard.sharding @tp split_axes = [[], [0]] : !shard.sharding
  %x0 = shard.shard %x to %rows : tensor<64x256xf32>
  %x1 = shard.shard %x0 to %repl annotate_for_users : tensor<64x256xf32>
  %wq0 = shard.shard %wq to %cols : tensor<256x256xf32>
  %wq1 = shard.shard %wq0 to %cols annotate_for_users : tensor<256x256xf32>
  %wk0 = shard.shard %wk to %cols : tensor<256x256xf32>
  %wk1 = shard.shard %wk0 to %cols annotate_for_users : tensor<256x256xf32>
  %wv0 = shard.shard %wv to %cols : tensor<256x256xf32>
  %wv1 = shard.shard %wv0 to %cols annotate_for_users : tensor<256x256xf32>
  %oq0 = shard.shard %oq to %cols : tensor<64x256xf32>
  %oq1 = shard.shard %oq0 to %cols annotate_for_users : tensor<64x256xf32>
  %ok0 = shard.shard %ok to %cols : tensor<64x256xf32>
  %ok1 = shard.shard %ok0 to %cols annotate_for_users : tensor<64x256xf32>
  %ov0 = shard.shard %ov to %cols : tensor<64x256xf32>
  %ov1 = shard.shard %ov0 to %cols annotate_for_users : tensor<64x256xf32>
  %q = linalg.matmul ins(%x1, %wq1 : tensor<64x256xf32>, tensor<256x256xf32>) outs(%oq1 : tensor<64x256xf32>) -> tensor<64x256xf32>
  %k = linalg.matmul ins(%x1, %wk1 : tensor<64x256xf32>, tensor<256x256xf32>) outs(%ok1 : tensor<64x256xf32>) -> tensor<64x256xf32>
  %v = linalg.matmul ins(%x1, %wv1 : tensor<64x256xf32>, tensor<256x256xf32>) outs(%ov1 : tensor<64x256xf32>) -> tensor<64x256xf32>
  %q1 = shard.shard %q to %cols : tensor<64x256xf32>
  %k1 = shard.shard %k to %cols : tensor<64x256xf32>
  %v1 = shard.shard %v to %cols : tensor<64x256xf32>
  return %q1, %k1, %v1 : tensor<64x256xf32>, tensor<64x256xf32>, tensor<64x256xf32>
}
