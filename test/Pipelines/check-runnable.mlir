// RUN: tp-opt %s --split-input-file --verify-diagnostics --tp-check-runnable=ranks=2

// tp-check-runnable refuses, at their locations, what a compiled run cannot
// do, and changes nothing. Every public function with a body is an entry
// here; check-runnable-entry.mlir names one.

// A program a run can do: the grid spans the run, the types are exchanged,
// the declaration is libm's.
shard.grid @tp(shape = 2)
func.func private @sinf(f32) -> f32
func.func @main(%x: tensor<4x8xf32>, %s: f32) -> (tensor<8x8xf32>, f32) {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<4x8xf32> -> tensor<8x8xf32>
  %y = func.call @sinf(%s) : (f32) -> f32
  return %g, %y : tensor<8x8xf32>, f32
}

// -----

// expected-error @+1 {{@takes_memref takes a value of type 'memref<4xf32>' (argument 0), which a run cannot feed}}
func.func @takes_memref(%x: memref<4xf32>) {
  return
}

// -----

// expected-error @+1 {{@i16_result returns a value of type 'tensor<4xi16>' (result 0), which a run cannot read}}
func.func @i16_result(%x: tensor<4xf32>) -> tensor<4xi16> {
  %y = arith.fptosi %x : tensor<4xf32> to tensor<4xi16>
  return %y : tensor<4xi16>
}

// -----

func.func private @no_such_function_anywhere(f32) -> f32
func.func @main(%x: f32) -> f32 {
  // expected-error @+1 {{'func.call' op @no_such_function_anywhere is only declared, and no function 'no_such_function_anywhere' is linked into this process}}
  %y = func.call @no_such_function_anywhere(%x) : (f32) -> f32
  return %y : f32
}

// -----

func.func private @helper(%x: f32) -> f32 {
  return %x : f32
}
func.func @main(%x: f32) -> f32 {
  // expected-error @+1 {{'func.constant' op @helper is called indirectly, which compiled programs do not support}}
  %f = func.constant @helper : (f32) -> f32
  %y = func.call_indirect %f(%x) : (f32) -> f32
  return %y : f32
}

// -----

shard.grid @tp(shape = 2)
func.func @main(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'shard.update_halo' op tp-import does not raise this op (tp has no halo exchange}}
  %y = shard.update_halo %x on @tp split_axes = [[0]] halo_sizes = [1, 1] : tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

func.func @main(%x: tensor<4x4xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'builtin.unrealized_conversion_cast' op a cast from tensor<4x4xf32> to tensor<2x8xf32> has no run-time meaning}}
  %y = builtin.unrealized_conversion_cast %x : tensor<4x4xf32> to tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// A round trip cancels out: lowering removes it.
func.func @main(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %y = builtin.unrealized_conversion_cast %x : tensor<4x4xf32> to tensor<2x8xf32>
  %z = builtin.unrealized_conversion_cast %y : tensor<2x8xf32> to tensor<4x4xf32>
  return %z : tensor<4x4xf32>
}

// -----

shard.grid @tp(shape = 4)
func.func @main(%x: tensor<4x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'tp.all_gather' op grid @tp has 4 ranks but the run has 2}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<4x8xf32> -> tensor<16x8xf32>
  return %g : tensor<16x8xf32>
}

// -----

shard.grid @tp(shape = ?)
func.func @main() -> index {
  // expected-error @+1 {{'tp.group_rank' op grid @tp has a dynamic size; a run needs static grids (tp-specialize-dynamic-grids fixes one axis)}}
  %r = tp.group_rank on @tp axes = [0]
  return %r : index
}

// -----

func.func @main(%x: f32) -> f32 {
  // expected-error @+1 {{'tensor.empty' op 'tensor<4294967296x4294967297xf32>' holds more bytes than int64 counts}}
  %e = tensor.empty() : tensor<4294967296x4294967297xf32>
  return %x : f32
}
