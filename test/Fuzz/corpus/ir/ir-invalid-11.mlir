shard.grid @tp(shape = 4)

func.func @mmrs_element_type(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>, %c: tensor<32x64xbf16>) {
  %0 = tp.matmul_reduce_scatter %x, %w addend %c on @tp axes = [0] dim = 0 reduce = sum : (tensor<32x16xf32>, tensor<16x64xf32>, tensor<32x64xbf16>) -> tensor<8x64xf32>
  return
}
