shard.grid @tp(shape = 2)

func.func @bias_in_nested_region(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %c: i1) -> tensor<8x16xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<4x8xf32> -> tensor<8x8xf32>
  %m = tp.matmul %g, %w : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  %r = scf.if %c -> tensor<8x16xf32> {
    %b = arith.constant dense<1.0> : tensor<16xf32>
    %y = tp.bias_add %m, %b : tensor<8x16xf32>, tensor<16xf32>
    scf.yield %y : tensor<8x16xf32>
  } else {
    scf.yield %m : tensor<8x16xf32>
  }
  return %r : tensor<8x16xf32>
}
