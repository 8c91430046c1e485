shard.grid @tp(shape = 4)


func.func @column_2d(%x: tensor<8x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>) -> tensor<32x32xf32> {
  %y = tp.linear %x, %w bias %b on @tp axes = [0] column input = shard(0) output = shard(1)
      : (tensor<8x64xf32>, tensor<32x64xf32>, tensor<32xf32>) -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}


func.func @column_3d(%x: tensor<2x4x64xf32>, %w: tensor<32x64xf32>) -> tensor<2x16x32xf32> {
  %y = tp.linear %x, %w on @tp axes = [0] column input = shard(1) output = shard(2)
      : (tensor<2x4x64xf32>, tensor<32x64xf32>) -> tensor<2x16x32xf32>
  return %y : tensor<2x16x32xf32>
}


func.func @column_replicated(%x: tensor<16x64xf32>, %w: tensor<32x64xf32>) -> tensor<16x32xf32> {
  %y = tp.linear %x, %w on @tp axes = [0] column input = replicated output = shard(1)
      : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}


func.func @row_3d(%h: tensor<2x16x32xf32>, %w: tensor<64x32xf32>, %b: tensor<64xf32>) -> tensor<2x4x64xf32> {
  %y = tp.linear %h, %w bias %b on @tp axes = [0] row input = shard(2) output = shard(1)
      : (tensor<2x16x32xf32>, tensor<64x32xf32>, tensor<64xf32>) -> tensor<2x4x64xf32>
  return %y : tensor<2x4x64xf32>
}


func.func @row_replicated(%h: tensor<16x32xf32>, %w: tensor<64x32xf32>) -> tensor<16x64xf32> {
  %y = tp.linear %h, %w on @tp axes = [0] row input = shard(1) output = replicated
      : (tensor<16x32xf32>, tensor<64x32xf32>) -> tensor<16x64xf32>
  return %y : tensor<16x64xf32>
}
