shard.grid @tp(shape = 4)

func.func @product_reduction(%y: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %r = shard.all_reduce %y on @tp grid_axes = [0] reduction = product : tensor<32x64xf32> -> tensor<32x64xf32>
  return %r : tensor<32x64xf32>
}
