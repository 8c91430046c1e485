shard.grid @tp(shape = 4)

func.func @linear_row_input_shard_rows(%x: tensor<8x16xf32>, %w: tensor<128x16xf32>) {
  %0 = tp.linear %x, %w on @tp axes = [0] row input = shard(0) output = replicated : (tensor<8x16xf32>, tensor<128x16xf32>) -> tensor<32x128xf32>
  return
}
