shard.grid @tp(shape = 4)

func.func @agmm_no_b(%x: tensor<8x64xf32>) {
  tp.all_gather_matmul %x, [] on @tp axes = [0] dim = 0 : (tensor<8x64xf32>) -> ()
  return
}
