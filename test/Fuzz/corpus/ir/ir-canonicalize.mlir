shard.grid @one(shape = 1)
shard.grid @tp(shape = 4)
shard.grid @g(shape = 4x1)
shard.grid @dyn(shape = ?)

func.func @all_gather_single_rank(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %0 = tp.all_gather %x on @one axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

func.func @all_gather_single_rank_dynamic(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %0 = tp.all_gather %x on @one axes = [0] dim = 0 : tensor<?x64xf32> -> tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

func.func @all_gather_unit_axis(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %0 = tp.all_gather %x on @g axes = [1] dim = 1 : tensor<8x64xf32> -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

func.func @all_gather_four_ranks(%x: tensor<8x64xf32>) -> tensor<32x64xf32> {
  %0 = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  return %0 : tensor<32x64xf32>
}

func.func @all_gather_both_axes(%x: tensor<8x64xf32>) -> tensor<32x64xf32> {
  %0 = tp.all_gather %x on @g axes = [0, 1] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  return %0 : tensor<32x64xf32>
}

func.func @all_gather_single_rank_type_change(%x: tensor<8x64xf32>) -> tensor<?x64xf32> {
  %0 = tp.all_gather %x on @one axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

func.func @reduce_scatter_single_rank(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %0 = tp.reduce_scatter %x on @one axes = [0] dim = 1 reduce = sum : tensor<8x64xf32> -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

func.func @reduce_scatter_unit_axis(%x: tensor<8x64xbf16>) -> tensor<8x64xbf16> {
  %0 = tp.reduce_scatter %x on @g axes = [1] dim = 0 reduce = max : tensor<8x64xbf16> -> tensor<8x64xbf16>
  return %0 : tensor<8x64xbf16>
}

func.func @reduce_scatter_four_ranks(%x: tensor<32x64xf32>) -> tensor<8x64xf32> {
  %0 = tp.reduce_scatter %x on @tp axes = [0] dim = 0 reduce = sum : tensor<32x64xf32> -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

func.func @all_reduce_single_rank(%x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
  %0 = tp.all_reduce %x on @one axes = [0] reduce = sum : tensor<8x64xf32>
  %1 = tp.all_reduce %x on @g axes = [1] reduce = avg : tensor<8x64xf32>
  return %0, %1 : tensor<8x64xf32>, tensor<8x64xf32>
}

func.func @all_reduce_four_ranks(%x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
  %0 = tp.all_reduce %x on @tp axes = [0] reduce = sum : tensor<8x64xf32>
  %1 = tp.all_reduce %x on @g axes = [0] reduce = max : tensor<8x64xf32>
  return %0, %1 : tensor<8x64xf32>, tensor<8x64xf32>
}

func.func @all_reduce_dynamic_grid(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %0 = tp.all_reduce %x on @dyn axes = [0] reduce = sum : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

func.func @single_rank_chain(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %0 = tp.all_gather %x on @one axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<8x64xf32>
  %1 = tp.all_reduce %0 on @g axes = [1] reduce = sum : tensor<8x64xf32>
  %2 = tp.reduce_scatter %1 on @one axes = [0] dim = 0 reduce = sum : tensor<8x64xf32> -> tensor<8x64xf32>
  return %2 : tensor<8x64xf32>
}

func.func @group_rank_four_ranks() -> (index, index) {
  %0 = tp.group_rank on @tp axes = [0]
  %1 = tp.group_rank on @g axes = [0, 1]
  return %0, %1 : index, index
}


func.func @group_rank_single_rank() -> (index, index) {
  %0 = tp.group_rank on @one axes = [0]
  %1 = tp.group_rank on @g axes = [1]
  return %0, %1 : index, index
}
