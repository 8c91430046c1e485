shard.grid @tp(shape = 4)

func.func @bias_not_movable(%h: tensor<32x16xf32>, %w: tensor<16x64xf32>, %b0: tensor<64xf32>, %c: i1) -> tensor<8x64xf32> {
  %p = tp.matmul %h, %w : tensor<32x16xf32>, tensor<16x64xf32> -> tensor<32x64xf32>
  %r = tp.reduce_scatter %p on @tp axes = [0] dim = 0 reduce = sum : tensor<32x64xf32> -> tensor<8x64xf32>
  %b = scf.if %c -> tensor<64xf32> {
    scf.yield %b0 : tensor<64xf32>
  } else {
    %n = arith.negf %b0 : tensor<64xf32>
    scf.yield %n : tensor<64xf32>
  }
  %y = tp.bias_add %r, %b : tensor<8x64xf32>, tensor<64xf32>
  return %y : tensor<8x64xf32>
}
