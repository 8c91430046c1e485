shard.grid @tp(shape = 2)

func.func @out_of_bounds(%x: tensor<4x4xf32>) -> tensor<2x4xf32> {
  %rank = tp.group_rank on @tp axes = [0]
  %c3 = arith.constant 3 : index
  %offset = arith.muli %rank, %c3 : index
  %s = tensor.extract_slice %x[%offset, 0] [2, 4] [1, 1] : tensor<4x4xf32> to tensor<2x4xf32>
  return %s : tensor<2x4xf32>
}

func.func @narrow(%b: tensor<?xf32>) -> f32 {
  %r = tensor.cast %b : tensor<?xf32> to tensor<4xf32>
  %c0 = arith.constant 0 : index
  %e = tensor.extract %r[%c0] : tensor<4xf32>
  return %e : f32
}

func.func @glue(%x: tensor<4x8xf32>) -> tensor<8x8xf32> {
  %t = math.tanh %x : tensor<4x8xf32>
  %s = arith.mulf %t, %x : tensor<4x8xf32>
  %g = tp.all_gather %s on @tp axes = [0] dim = 0 : tensor<4x8xf32> -> tensor<8x8xf32>
  %e = math.exp %g : tensor<8x8xf32>
  return %e : tensor<8x8xf32>
}

func.func @takes_memref(%m: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %v = memref.load %m[%c0] : memref<4xf32>
  return %v : f32
}
