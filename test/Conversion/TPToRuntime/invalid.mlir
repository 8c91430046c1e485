// RUN: tp-opt %s --tp-to-runtime --split-input-file --verify-diagnostics

shard.grid @tp(shape = 4)
func.func @layer(%x: tensor<4x8xf32>, %w: tensor<2x8xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{run tp-lower-linear before tp-to-runtime}}
  %y = tp.linear %x, %w on @tp axes = [0] column input = replicated output = shard(1)
      : (tensor<4x8xf32>, tensor<2x8xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

shard.grid @dynamic(shape = ?)
func.func @dynamic_grid() -> index {
  // expected-error @+1 {{grid @dynamic has a dynamic size; compiled programs need static grids}}
  %r = tp.group_rank on @dynamic axes = [0]
  return %r : index
}

// -----

// The runtime's entry points are called by name: a user function named like
// one would be called in their place.
shard.grid @tp(shape = 2)
// expected-error @+1 {{the name @tp_rt_all_reduce is reserved for the tp runtime's entry points (tp_rt_*); rename the function}}
func.func private @tp_rt_all_reduce(i64)
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tp.all_reduce %x on @tp axes = [0] reduce = sum : tensor<4xf32>
  return %y : tensor<4xf32>
}
