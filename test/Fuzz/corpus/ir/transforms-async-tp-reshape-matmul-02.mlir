shard.grid @tp(shape = 2)

func.func @collapse_shared_with_other_user(%x: tensor<2x4x64xf32>, %w: tensor<64x32xf32>) -> (tensor<16x32xf32>, tensor<16x64xf32>) {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<2x4x64xf32> -> tensor<4x4x64xf32>
  %c = tensor.collapse_shape %g [[0, 1], [2]] : tensor<4x4x64xf32> into tensor<16x64xf32>
  %m = tp.matmul %c, %w : tensor<16x64xf32>, tensor<64x32xf32> -> tensor<16x32xf32>
  %n = arith.negf %c : tensor<16x64xf32>
  return %m, %n : tensor<16x32xf32>, tensor<16x64xf32>
}
