// Per-rank programs on grids of dynamic size, for dynamic-grid.mlir.
shard.grid @tp(shape = ?)
shard.grid @two(shape = ?x?)
shard.grid @three(shape = 3x?)
shard.grid @pair_rows(shape = 2x?)

// Static types that only hold for a group of 2.
func.func @needs_static(%x: tensor<4x8xf32>) -> tensor<8x8xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<4x8xf32> -> tensor<8x8xf32>
  return %g : tensor<8x8xf32>
}

func.func @two_dynamic_axes(%x: tensor<4x8xf32>) -> tensor<?x8xf32> {
  %g = tp.all_gather %x on @two axes = [0] dim = 0 : tensor<4x8xf32> -> tensor<?x8xf32>
  return %g : tensor<?x8xf32>
}

func.func @indivisible(%x: tensor<4x8xf32>) -> tensor<?x8xf32> {
  %g = tp.all_gather %x on @three axes = [1] dim = 0 : tensor<4x8xf32> -> tensor<?x8xf32>
  return %g : tensor<?x8xf32>
}

// 6 ranks: the dynamic axis gets 3; the gather along it has 3 pieces.
func.func @one_dynamic_axis(%x: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %r = tp.all_reduce %x on @pair_rows axes = [1] reduce = sum : tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}
