shard.grid @tp(shape = 4)
shard.grid @pair(shape = 2)

func.func @one_rank_fails(%x: tensor<2x4xf32>) -> (tensor<8x4xf32>, i64) {
  %rank = tp.group_rank on @tp axes = [0]
  %r = arith.index_cast %rank : index to i64
  %c2 = arith.constant 2 : i64
  %divisor = arith.subi %r, %c2 : i64
  %c7 = arith.constant 7 : i64
  %numerator = arith.addi %r, %c7 : i64
  %v = arith.divsi %numerator, %divisor : i64
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<2x4xf32> -> tensor<8x4xf32>
  return %g, %v : tensor<8x4xf32>, i64
}

func.func @shapes_differ(%x: tensor<2x4xf32>) -> tensor<?x4xf32> {
  %rank = tp.group_rank on @pair axes = [0]
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %is1 = arith.cmpi eq, %rank, %c1 : index
  %rows = arith.select %is1, %c1, %c2 : index
  %s = tensor.extract_slice %x[0, 0] [%rows, 4] [1, 1] : tensor<2x4xf32> to tensor<?x4xf32>
  %g = tp.all_gather %s on @pair axes = [0] dim = 0 : tensor<?x4xf32> -> tensor<?x4xf32>
  return %g : tensor<?x4xf32>
}

func.func @rank_skips_collective(%x: tensor<2x4xf32>, %y: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %rank = tp.group_rank on @pair axes = [0]
  %c0 = arith.constant 0 : index
  %is0 = arith.cmpi eq, %rank, %c0 : index
  %r = scf.if %is0 -> (tensor<4x4xf32>) {
    %g = tp.all_gather %x on @pair axes = [0] dim = 0 : tensor<2x4xf32> -> tensor<4x4xf32>
    scf.yield %g : tensor<4x4xf32>
  } else {
    scf.yield %y : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}

func.func @unsupported(%x: tensor<4x4xf32>) -> tensor<1x16xf32> {
  %y = shard.all_to_all %x on @tp grid_axes = [0] split_axis = 0 concat_axis = 1 : tensor<4x4xf32> -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}


func.func @dynamic_bias(%x: tensor<2x4xf32>, %b: tensor<?xf32>) -> tensor<2x4xf32> {
  %d = tensor.cast %x : tensor<2x4xf32> to tensor<2x?xf32>
  %y = tp.bias_add %d, %b : tensor<2x?xf32>, tensor<?xf32>
  %r = tensor.cast %y : tensor<2x?xf32> to tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}
