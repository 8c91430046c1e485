shard.grid @tp(shape = 4)

func.func @qkv(%x: tensor<8x64xf32>, %wq: tensor<32x64xf32>, %wk: tensor<16x64xf32>, %wv: tensor<16x64xf32>, %bq: tensor<32xf32>)
    -> (tensor<32x32xf32>, tensor<32x16xf32>, tensor<32x16xf32>) {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %q0 = tp.matmul %g, %wq transpose_b : tensor<32x64xf32>, tensor<32x64xf32> -> tensor<32x32xf32>
  %q = tp.bias_add %q0, %bq : tensor<32x32xf32>, tensor<32xf32>
  %k = tp.matmul %g, %wk transpose_b : tensor<32x64xf32>, tensor<16x64xf32> -> tensor<32x16xf32>
  %v = tp.matmul %g, %wv transpose_b : tensor<32x64xf32>, tensor<16x64xf32> -> tensor<32x16xf32>
  return %q, %k, %v : tensor<32x32xf32>, tensor<32x16xf32>, tensor<32x16xf32>
}
