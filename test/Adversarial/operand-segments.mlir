// Generic-form ops whose operandSegmentSizes leave a required operand empty
// or give it two values. ODS checks only that the sizes add up (and that
// optional operands have at most one value); the ops' own verifiers must
// refuse the rest before any getter reads past the operand list.
// RUN: tp-opt %s --split-input-file --verify-diagnostics

shard.grid @tp(shape = 4)
func.func @mrs_b_missing(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'tp.matmul_reduce_scatter' op operand 'a' must be exactly one value, got 2}}
  %0 = "tp.matmul_reduce_scatter"(%x, %w) <{dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, operandSegmentSizes = array<i32: 2, 0, 0, 0>, reduce = #tp.reduction<sum>}> : (tensor<32x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)
func.func @mrs_a_missing(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'tp.matmul_reduce_scatter' op operand 'a' must be exactly one value, got 0}}
  %0 = "tp.matmul_reduce_scatter"(%x, %w) <{dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, operandSegmentSizes = array<i32: 0, 2, 0, 0>, reduce = #tp.reduction<sum>}> : (tensor<32x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)
func.func @mrs_b_twice(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'tp.matmul_reduce_scatter' op operand 'b' must be exactly one value, got 2}}
  %0 = "tp.matmul_reduce_scatter"(%x, %w, %w) <{dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, operandSegmentSizes = array<i32: 1, 2, 0, 0>, reduce = #tp.reduction<sum>}> : (tensor<32x16xf32>, tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
  return
}

// -----

func.func @scaled_b_scale_missing(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.scaled_matmul' op operand 'a' must be exactly one value, got 2}}
  %0 = "tp.scaled_matmul"(%a, %a, %as, %b) <{mode = #tp.scaling<per_tensor>, operandSegmentSizes = array<i32: 2, 1, 0, 1, 0, 0, 0>}> : (tensor<32x64xf8E4M3FN>, tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>) -> tensor<32x128xf32>
  return
}

// -----

func.func @scaled_b_missing(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.scaled_matmul' op operand 'b' must be exactly one value, got 0}}
  %0 = "tp.scaled_matmul"(%a, %as, %bs, %b) <{mode = #tp.scaling<per_tensor>, operandSegmentSizes = array<i32: 1, 1, 0, 0, 2, 0, 0>}> : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<f32>, tensor<128x64xf8E4M3FN>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)
func.func @smrs_b_scale_missing(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.scaled_matmul_reduce_scatter' op operand 'a' must be exactly one value, got 2}}
  %0 = "tp.scaled_matmul_reduce_scatter"(%a, %a, %as, %b) <{dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, mode = #tp.scaling<per_tensor>, operandSegmentSizes = array<i32: 2, 1, 0, 1, 0, 0, 0>, reduce = #tp.reduction<sum>}> : (tensor<32x64xf8E4M3FN>, tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>) -> tensor<8x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)
func.func @smrs_b_scale_empty(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.scaled_matmul_reduce_scatter' op operand 'b_scale' must be exactly one value, got 0}}
  %0 = "tp.scaled_matmul_reduce_scatter"(%a, %as, %b, %bs) <{dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, mode = #tp.scaling<per_tensor>, operandSegmentSizes = array<i32: 1, 1, 0, 1, 0, 0, 1>, reduce = #tp.reduction<sum>}> : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<8x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)
func.func @agmm_a_missing(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) -> tensor<32x128xf32> {
  // expected-error @+1 {{'tp.all_gather_matmul' op operand 'a' must be exactly one value, got 0}}
  %0 = "tp.all_gather_matmul"(%w) <{bias_mask = array<i1: false>, dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, operandSegmentSizes = array<i32: 0, 1, 0>}> : (tensor<64x128xf32>) -> tensor<32x128xf32>
  return %0 : tensor<32x128xf32>
}

// -----

shard.grid @tp(shape = 4)
func.func @agmm_a_twice(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) -> tensor<32x128xf32> {
  // expected-error @+1 {{'tp.all_gather_matmul' op operand 'a' must be exactly one value, got 2}}
  %0 = "tp.all_gather_matmul"(%x, %x, %w) <{bias_mask = array<i1: false>, dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, operandSegmentSizes = array<i32: 2, 1, 0>}> : (tensor<8x64xf32>, tensor<8x64xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
  return %0 : tensor<32x128xf32>
}

// -----

shard.grid @tp(shape = 4)
func.func @agsmm_scale_missing(%a: tensor<8x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) -> tensor<32x128xf32> {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op operand 'a_scale' must be exactly one value, got 0}}
  %0 = "tp.all_gather_scaled_matmul"(%a, %b, %bs) <{bias_mask = array<i1: false>, dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, mode = #tp.scaling<per_tensor>, operandSegmentSizes = array<i32: 1, 0, 0, 1, 1, 0, 0>}> : (tensor<8x64xf8E4M3FN>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<32x128xf32>
  return %0 : tensor<32x128xf32>
}
