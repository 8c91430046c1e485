shard.grid @tp(shape = 4)

func.func @collectives(%x: tensor<8x64xf32>, %y: tensor<32x64xf32>) -> (tensor<32x64xf32>, tensor<32x16xf32>, tensor<32x64xf32>) {
  %g = shard.all_gather %x on @tp grid_axes = [0] gather_axis = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %s = shard.reduce_scatter %y on @tp grid_axes = [0] reduction = max scatter_axis = 1 : tensor<32x64xf32> -> tensor<32x16xf32>
  %r = shard.all_reduce %y on @tp grid_axes = [0] reduction = average : tensor<32x64xf32> -> tensor<32x64xf32>
  return %g, %s, %r : tensor<32x64xf32>, tensor<32x16xf32>, tensor<32x64xf32>
}
