shard.grid @tp(shape = 4)

func.func @dynamic_batch(%x: tensor<?x4x64xf32>, %w: tensor<128x64xf32>) -> tensor<?x16x128xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 1 : tensor<?x4x64xf32> -> tensor<?x16x64xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %g, %c0 : tensor<?x16x64xf32>
  %c = tensor.collapse_shape %g [[0, 1], [2]] : tensor<?x16x64xf32> into tensor<?x64xf32>
  %m = tp.matmul %c, %w transpose_b : tensor<?x64xf32>, tensor<128x64xf32> -> tensor<?x128xf32>
  %y = tensor.expand_shape %m [[0, 1], [2]] output_shape [%n, 16, 128] : tensor<?x128xf32> into tensor<?x16x128xf32>
  return %y : tensor<?x16x128xf32>
}
