shard.grid @tp(shape = 2)



func.func @layer(%x: tensor<4x8xf32>, %w1: tensor<8x16xf32>, %w2: tensor<16x8xf32>, %n: index) -> tensor<4x8xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<4x8xf32> -> tensor<8x8xf32>
  %h = tp.matmul %g, %w1 : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  %a = math.tanh %h : tensor<8x16xf32>
  %p = tp.matmul %a, %w2 : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %y = tp.reduce_scatter %p on @tp axes = [0] dim = 0 reduce = sum : tensor<8x8xf32> -> tensor<4x8xf32>
  %s = tensor.extract_slice %y[%n, 0] [2, 8] [1, 1] : tensor<4x8xf32> to tensor<2x8xf32>
  %r = tensor.insert_slice %s into %x[0, 0] [2, 8] [1, 1] : tensor<2x8xf32> into tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
