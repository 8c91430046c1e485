func.func @twice(%ctx: !llvm.ptr {tp.rank_context}, %x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
