shard.grid @tp(shape = 4)


func.func @callee(%x: tensor<2x8xf32>) -> tensor<8x8xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<2x8xf32> -> tensor<8x8xf32>
  return %g : tensor<8x8xf32>
}

func.func private @external(tensor<2x8xf32>) -> tensor<2x8xf32>

func.func @caller(%x: tensor<2x8xf32>, %b: tensor<8xf32>) -> (tensor<8x8xf32>, index, tensor<2x8xf32>, tensor<2x8xf32>) {
  %g = call @callee(%x) : (tensor<2x8xf32>) -> tensor<8x8xf32>
  %e = call @external(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %r = tp.group_rank on @tp axes = [0]
  %y = tp.bias_add %x, %b : tensor<2x8xf32>, tensor<8xf32>
  return %g, %r, %y, %e : tensor<8x8xf32>, index, tensor<2x8xf32>, tensor<2x8xf32>
}
