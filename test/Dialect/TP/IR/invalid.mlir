// RUN: tp-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of the tp dialect. Unless a case says
// otherwise, @tp is a group of 4 ranks.

//===----------------------------------------------------------------------===//
// Groups: grid symbol and axes (shared by every op that names a grid)
//===----------------------------------------------------------------------===//

func.func @unknown_grid(%x: tensor<8x64xf32>) -> tensor<32x64xf32> {
  // expected-error @+1 {{'tp.all_gather' op 'grid' @nope does not name a shard.grid}}
  %0 = tp.all_gather %x on @nope axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  return %0 : tensor<32x64xf32>
}

// -----

func.func private @not_a_grid()

func.func @grid_names_a_func(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{'tp.all_reduce' op 'grid' @not_a_grid does not name a shard.grid}}
  %0 = tp.all_reduce %x on @not_a_grid axes = [0] reduce = sum : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @empty_axes(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{'tp.all_reduce' op 'grid_axes' must name at least one axis of @tp}}
  %0 = tp.all_reduce %x on @tp axes = [] reduce = sum : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

shard.grid @g(shape = 2x4)

func.func @axis_out_of_range(%x: tensor<8x64xf32>) -> tensor<16x64xf32> {
  // expected-error @+1 {{'tp.all_gather' op grid axis 2 is out of range for grid @g of rank 2}}
  %0 = tp.all_gather %x on @g axes = [2] dim = 0 : tensor<8x64xf32> -> tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}

// -----

shard.grid @g(shape = 2x4)

func.func @negative_axis() -> index {
  // expected-error @+1 {{'tp.group_rank' op grid axis -1 is out of range for grid @g of rank 2}}
  %0 = tp.group_rank on @g axes = [-1]
  return %0 : index
}

// -----

shard.grid @g(shape = 2x4)

func.func @axis_named_twice(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{'tp.all_reduce' op grid axis 1 is named twice}}
  %0 = tp.all_reduce %x on @g axes = [1, 0, 1] reduce = sum : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

func.func @group_rank_unknown_grid() -> index {
  // expected-error @+1 {{'tp.group_rank' op 'grid' @nope does not name a shard.grid}}
  %0 = tp.group_rank on @nope axes = [0]
  return %0 : index
}

// -----

shard.grid @tp(shape = 4)

func.func @group_rank_result_type() -> i64 {
  // expected-error @+1 {{'tp.group_rank' op result #0 must be index, but got 'i64'}}
  %0 = "tp.group_rank"() <{grid = @tp, grid_axes = array<i16: 0>}> : () -> i64
  return %0 : i64
}

// -----

func.func @linear_unknown_grid(%x: tensor<32x64xf32>, %w: tensor<32x64xf32>) -> tensor<32x32xf32> {
  // expected-error @+1 {{'tp.linear' op 'grid' @nope does not name a shard.grid}}
  %0 = tp.linear %x, %w on @nope axes = [0] column input = replicated output = shard(1) : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x32xf32>
  return %0 : tensor<32x32xf32>
}

// -----

func.func @fused_unknown_grid(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) -> tensor<32x128xf32> {
  // expected-error @+1 {{'tp.all_gather_matmul' op 'grid' @nope does not name a shard.grid}}
  %0 = tp.all_gather_matmul %x, [%w] on @nope axes = [0] dim = 0 : (tensor<8x64xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
  return %0 : tensor<32x128xf32>
}

//===----------------------------------------------------------------------===//
// Parser errors: placements and enum keywords
//===----------------------------------------------------------------------===//

// -----

shard.grid @tp(shape = 4)

func.func @placement_negative_generic(%x: tensor<32x64xf32>, %w: tensor<32x64xf32>) -> tensor<32x32xf32> {
  // expected-error @+1 {{placement shard dimension must be non-negative, got -1}}
  %0 = "tp.linear"(%x, %w) <{grid = @tp, grid_axes = array<i16: 0>, input_placement = #tp.placement<shard(-1)>, output_placement = #tp.placement<shard(1)>, weight_sharding = #tp.weight_sharding<column>}> : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x32xf32>
  return %0 : tensor<32x32xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @placement_negative_custom(%x: tensor<32x16xf32>, %w: tensor<128x16xf32>) -> tensor<32x128xf32> {
  // expected-error @+1 {{placement shard dimension must be non-negative, got -1}}
  %0 = tp.linear %x, %w on @tp axes = [0] row input = shard(1) output = shard(-1) : (tensor<32x16xf32>, tensor<128x16xf32>) -> tensor<32x128xf32>
  return %0 : tensor<32x128xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @placement_unknown_keyword(%x: tensor<32x64xf32>, %w: tensor<32x64xf32>) -> tensor<32x32xf32> {
  // expected-error @+1 {{expected 'shard'}}
  %0 = tp.linear %x, %w on @tp axes = [0] column input = split(0) output = shard(1) : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x32xf32>
  return %0 : tensor<32x32xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @unknown_reduction(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{unknown keyword 'prod'}}
  %0 = tp.all_reduce %x on @tp axes = [0] reduce = prod : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

func.func @unknown_scaling(%x: tensor<64x128xf32>) {
  // expected-error @+1 {{unknown keyword 'row_wize'}}
  %q, %s = tp.quantize %x row_wize : tensor<64x128xf32> -> tensor<64x128xf8E4M3FN>, tensor<64x1xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @unknown_weight_sharding(%x: tensor<32x64xf32>, %w: tensor<32x64xf32>) -> tensor<32x32xf32> {
  // expected-error @+1 {{unknown keyword 'diagonal'}}
  %0 = tp.linear %x, %w on @tp axes = [0] diagonal input = replicated output = shard(1) : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x32xf32>
  return %0 : tensor<32x32xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @unknown_algorithm(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) -> tensor<32x128xf32> {
  // expected-error @+2 {{expected ::mlir::tp::Algorithm to be one of: ring, per_peer}}
  // expected-error @+1 {{failed to parse TP_AlgorithmAttr parameter 'value'}}
  %0 = tp.all_gather_matmul %x, [%w] on @tp axes = [0] dim = 0 {algorithm = #tp.algorithm<tree>} : (tensor<8x64xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
  return %0 : tensor<32x128xf32>
}

//===----------------------------------------------------------------------===//
// all_gather
//===----------------------------------------------------------------------===//

// -----

shard.grid @tp(shape = 4)

func.func @all_gather_dim_out_of_range(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{'tp.all_gather' op 'dim' 2 is out of range for 'input' of rank 2}}
  %0 = tp.all_gather %x on @tp axes = [0] dim = 2 : tensor<8x64xf32> -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @all_gather_negative_dim(%x: tensor<8x64xf32>) -> tensor<32x64xf32> {
  // expected-error @+1 {{'tp.all_gather' op attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = tp.all_gather %x on @tp axes = [0] dim = -1 : tensor<8x64xf32> -> tensor<32x64xf32>
  return %0 : tensor<32x64xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @all_gather_rank_mismatch(%x: tensor<8x64xf32>) -> tensor<4x8x64xf32> {
  // expected-error @+1 {{'tp.all_gather' op 'result' rank 3 differs from 'input' rank 2}}
  %0 = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<4x8x64xf32>
  return %0 : tensor<4x8x64xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @all_gather_element_type_mismatch(%x: tensor<8x64xf32>) -> tensor<32x64xf16> {
  // expected-error @+1 {{'tp.all_gather' op 'result' element type 'f16' differs from 'input' element type 'f32'}}
  %0 = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf16>
  return %0 : tensor<32x64xf16>
}

// -----

shard.grid @tp(shape = 4)

func.func @all_gather_other_dim_differs(%x: tensor<8x64xf32>) -> tensor<32x32xf32> {
  // expected-error @+1 {{'tp.all_gather' op 'result' dim 1 (32) differs from 'input' dim 1 (64)}}
  %0 = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x32xf32>
  return %0 : tensor<32x32xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @all_gather_wrong_size(%x: tensor<8x64xf32>) -> tensor<16x64xf32> {
  // expected-error @+1 {{'tp.all_gather' op 'result' dim 0 (16) must be 'input' dim 0 (8) times the group size 4 = 32}}
  %0 = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @all_gather_not_divisible(%x: tensor<8x64xf32>) -> tensor<30x64xf32> {
  // expected-error @+1 {{'tp.all_gather' op 'result' dim 0 (30) is not divisible by the group size 4}}
  %0 = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<30x64xf32>
  return %0 : tensor<30x64xf32>
}

// -----

// The group of axes [0, 1] of a 2x4 grid has 8 ranks.
shard.grid @g(shape = 2x4)

func.func @all_gather_2d_group_size(%x: tensor<8x64xf32>) -> tensor<8x256xf32> {
  // expected-error @+1 {{'tp.all_gather' op 'result' dim 1 (256) must be 'input' dim 1 (64) times the group size 8 = 512}}
  %0 = tp.all_gather %x on @g axes = [0, 1] dim = 1 : tensor<8x64xf32> -> tensor<8x256xf32>
  return %0 : tensor<8x256xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @all_gather_unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'tp.all_gather' op operand #0 must be ranked tensor of any type values, but got 'tensor<*xf32>'}}
  %0 = "tp.all_gather"(%x) <{dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>}> : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

//===----------------------------------------------------------------------===//
// reduce_scatter, all_reduce
//===----------------------------------------------------------------------===//

// -----

shard.grid @tp(shape = 4)

func.func @reduce_scatter_dim_out_of_range(%x: tensor<32x64xf32>) -> tensor<32x64xf32> {
  // expected-error @+1 {{'tp.reduce_scatter' op 'dim' 5 is out of range for 'input' of rank 2}}
  %0 = tp.reduce_scatter %x on @tp axes = [0] dim = 5 reduce = sum : tensor<32x64xf32> -> tensor<32x64xf32>
  return %0 : tensor<32x64xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @reduce_scatter_not_divisible(%x: tensor<30x64xf32>) -> tensor<7x64xf32> {
  // expected-error @+1 {{'tp.reduce_scatter' op 'input' dim 0 (30) is not divisible by the group size 4}}
  %0 = tp.reduce_scatter %x on @tp axes = [0] dim = 0 reduce = sum : tensor<30x64xf32> -> tensor<7x64xf32>
  return %0 : tensor<7x64xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @reduce_scatter_wrong_size(%x: tensor<32x64xf32>) -> tensor<16x64xf32> {
  // expected-error @+1 {{'tp.reduce_scatter' op 'result' dim 0 (16) must be 'input' dim 0 (32) divided by the group size 4 = 8}}
  %0 = tp.reduce_scatter %x on @tp axes = [0] dim = 0 reduce = sum : tensor<32x64xf32> -> tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @reduce_scatter_other_dim_differs(%x: tensor<32x64xf32>) -> tensor<8x32xf32> {
  // expected-error @+1 {{'tp.reduce_scatter' op 'result' dim 1 (32) differs from 'input' dim 1 (64)}}
  %0 = tp.reduce_scatter %x on @tp axes = [0] dim = 0 reduce = sum : tensor<32x64xf32> -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @reduce_scatter_element_type(%x: tensor<32x64xf32>) -> tensor<8x64xbf16> {
  // expected-error @+1 {{'tp.reduce_scatter' op 'result' element type 'bf16' differs from 'input' element type 'f32'}}
  %0 = tp.reduce_scatter %x on @tp axes = [0] dim = 0 reduce = sum : tensor<32x64xf32> -> tensor<8x64xbf16>
  return %0 : tensor<8x64xbf16>
}

// -----

shard.grid @tp(shape = 4)

func.func @reduce_scatter_rank(%x: tensor<32x64xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'tp.reduce_scatter' op 'result' rank 1 differs from 'input' rank 2}}
  %0 = tp.reduce_scatter %x on @tp axes = [0] dim = 0 reduce = sum : tensor<32x64xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @all_reduce_type_mismatch(%x: tensor<8x64xf32>) -> tensor<8x32xf32> {
  // expected-error @+1 {{'tp.all_reduce' op failed to verify that all of {input, result} have same type}}
  %0 = "tp.all_reduce"(%x) <{grid = @tp, grid_axes = array<i16: 0>, reduce = #tp.reduction<sum>}> : (tensor<8x64xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

//===----------------------------------------------------------------------===//
// matmul, batch_matmul
//===----------------------------------------------------------------------===//

// -----

func.func @matmul_lhs_rank(%a: tensor<2x32x64xf32>, %b: tensor<64x128xf32>) {
  // expected-error @+2 {{'lhs' must have rank 2, got 'tensor<2x32x64xf32>'}}
  // expected-error @+1 {{'tp.matmul' op failed to infer returned types}}
  %0 = tp.matmul %a, %b : tensor<2x32x64xf32>, tensor<64x128xf32> -> tensor<2x32x128xf32>
  return
}

// -----

func.func @matmul_element_types(%a: tensor<32x64xf32>, %b: tensor<64x128xbf16>) {
  // expected-error @+2 {{'lhs' element type 'f32' differs from 'rhs' element type 'bf16'}}
  // expected-error @+1 {{'tp.matmul' op failed to infer returned types}}
  %0 = tp.matmul %a, %b : tensor<32x64xf32>, tensor<64x128xbf16> -> tensor<32x128xf32>
  return
}

// -----

func.func @matmul_rhs_rank(%a: tensor<32x64xf32>, %b: tensor<2x64x128xf32>) {
  // expected-error @+2 {{'rhs' must have rank 2, got 'tensor<2x64x128xf32>'}}
  // expected-error @+1 {{'tp.matmul' op failed to infer returned types}}
  %0 = tp.matmul %a, %b : tensor<32x64xf32>, tensor<2x64x128xf32> -> tensor<32x128xf32>
  return
}

// -----

func.func @matmul_contraction(%a: tensor<32x64xf32>, %b: tensor<32x128xf32>) {
  // expected-error @+2 {{contraction dims differ: 'lhs' has K = 64, 'rhs' has K = 32 (B is [K, N])}}
  // expected-error @+1 {{'tp.matmul' op failed to infer returned types}}
  %0 = tp.matmul %a, %b : tensor<32x64xf32>, tensor<32x128xf32> -> tensor<32x128xf32>
  return
}

// -----

func.func @matmul_contraction_transposed(%a: tensor<32x64xf32>, %b: tensor<64x128xf32>) {
  // expected-error @+2 {{contraction dims differ: 'lhs' has K = 64, 'rhs' has K = 128 (B is [N, K])}}
  // expected-error @+1 {{'tp.matmul' op failed to infer returned types}}
  %0 = tp.matmul %a, %b transpose_b : tensor<32x64xf32>, tensor<64x128xf32> -> tensor<32x64xf32>
  return
}

// -----

func.func @matmul_wrong_result(%a: tensor<32x64xf32>, %b: tensor<64x128xf32>) {
  // expected-error @+2 {{'tp.matmul' op inferred type(s) 'tensor<32x128xf32>' are incompatible with return type(s) of operation 'tensor<32x64xf32>'}}
  // expected-error @+1 {{'tp.matmul' op failed to infer returned types}}
  %0 = tp.matmul %a, %b : tensor<32x64xf32>, tensor<64x128xf32> -> tensor<32x64xf32>
  return
}

// -----

func.func @matmul_integer(%a: tensor<32x64xi32>, %b: tensor<64x128xi32>) {
  // expected-error @+1 {{'tp.matmul' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<32x64xi32>'}}
  %0 = tp.matmul %a, %b : tensor<32x64xi32>, tensor<64x128xi32> -> tensor<32x128xi32>
  return
}

// -----

func.func @matmul_fp8(%a: tensor<32x64xf8E4M3FN>, %b: tensor<64x128xf8E4M3FN>) {
  // expected-error @+1 {{'tp.matmul' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<32x64xf8E4M3FN>'}}
  %0 = tp.matmul %a, %b : tensor<32x64xf8E4M3FN>, tensor<64x128xf8E4M3FN> -> tensor<32x128xf32>
  return
}

// -----

func.func @batch_matmul_lhs_rank(%a: tensor<32x64xf32>, %b: tensor<64x128xf32>) {
  // expected-error @+2 {{'lhs' must have rank 3, got 'tensor<32x64xf32>'}}
  // expected-error @+1 {{'tp.batch_matmul' op failed to infer returned types}}
  %0 = tp.batch_matmul %a, %b : tensor<32x64xf32>, tensor<64x128xf32> -> tensor<32x128xf32>
  return
}

// -----

func.func @batch_matmul_batch_dims(%a: tensor<4x32x64xf32>, %b: tensor<2x64x128xf32>) {
  // expected-error @+2 {{batch dim 0 differs: 'lhs' has 4, 'rhs' has 2}}
  // expected-error @+1 {{'tp.batch_matmul' op failed to infer returned types}}
  %0 = tp.batch_matmul %a, %b : tensor<4x32x64xf32>, tensor<2x64x128xf32> -> tensor<4x32x128xf32>
  return
}

// -----

func.func @batch_matmul_rhs_rank(%a: tensor<4x32x64xf32>, %b: tensor<1x4x64x128xf32>) {
  // expected-error @+2 {{'rhs' must have rank 2 or 3, got 'tensor<1x4x64x128xf32>'}}
  // expected-error @+1 {{'tp.batch_matmul' op failed to infer returned types}}
  %0 = tp.batch_matmul %a, %b : tensor<4x32x64xf32>, tensor<1x4x64x128xf32> -> tensor<4x32x128xf32>
  return
}

// -----

func.func @batch_matmul_contraction(%a: tensor<4x32x64xf16>, %b: tensor<4x128x64xf16>) {
  // expected-error @+2 {{contraction dims differ: 'lhs' has K = 64, 'rhs' has K = 128 (B is [K, N])}}
  // expected-error @+1 {{'tp.batch_matmul' op failed to infer returned types}}
  %0 = tp.batch_matmul %a, %b : tensor<4x32x64xf16>, tensor<4x128x64xf16> -> tensor<4x32x64xf16>
  return
}

// -----

func.func @batch_matmul_wrong_result(%a: tensor<4x32x64xf16>, %b: tensor<64x128xf16>) {
  // expected-error @+2 {{'tp.batch_matmul' op inferred type(s) 'tensor<4x32x128xf16>' are incompatible with return type(s) of operation 'tensor<32x128xf16>'}}
  // expected-error @+1 {{'tp.batch_matmul' op failed to infer returned types}}
  %0 = tp.batch_matmul %a, %b : tensor<4x32x64xf16>, tensor<64x128xf16> -> tensor<32x128xf16>
  return
}

//===----------------------------------------------------------------------===//
// bias_add
//===----------------------------------------------------------------------===//

// -----

func.func @bias_add_scalar(%x: tensor<f32>, %b: tensor<f32>) {
  // expected-error @+1 {{'tp.bias_add' op 'input' must have at least one dim}}
  %0 = tp.bias_add %x, %b : tensor<f32>, tensor<f32>
  return
}

// -----

func.func @bias_add_wrong_size(%x: tensor<32x128xf32>, %b: tensor<64xf32>) {
  // expected-error @+1 {{'tp.bias_add' op 'bias' must be tensor<128xf32>, got 'tensor<64xf32>'}}
  %0 = tp.bias_add %x, %b : tensor<32x128xf32>, tensor<64xf32>
  return
}

// -----

func.func @bias_add_2d_bias(%x: tensor<32x128xf32>, %b: tensor<1x128xf32>) {
  // expected-error @+1 {{'tp.bias_add' op 'bias' must be tensor<128xf32>, got 'tensor<1x128xf32>'}}
  %0 = tp.bias_add %x, %b : tensor<32x128xf32>, tensor<1x128xf32>
  return
}

// -----

func.func @bias_add_element_types(%x: tensor<32x128xf32>, %b: tensor<128xbf16>) {
  // expected-error @+1 {{'tp.bias_add' op failed to verify that all of {input, bias} have same element type}}
  %0 = tp.bias_add %x, %b : tensor<32x128xf32>, tensor<128xbf16>
  return
}

//===----------------------------------------------------------------------===//
// linear
//===----------------------------------------------------------------------===//

// -----

shard.grid @tp(shape = 4)

func.func @linear_input_rank(%x: tensor<64xf32>, %w: tensor<32x64xf32>) {
  // expected-error @+1 {{'tp.linear' op 'input' must have at least 2 dims [..., K], got 'tensor<64xf32>'}}
  %0 = tp.linear %x, %w on @tp axes = [0] column input = replicated output = shard(0) : (tensor<64xf32>, tensor<32x64xf32>) -> tensor<32xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @linear_weight_rank(%x: tensor<32x64xf32>, %w: tensor<2x32x64xf32>) {
  // expected-error @+1 {{'tp.linear' op 'weight' must be 2-D [N, K], got 'tensor<2x32x64xf32>'}}
  %0 = tp.linear %x, %w on @tp axes = [0] column input = replicated output = shard(1) : (tensor<32x64xf32>, tensor<2x32x64xf32>) -> tensor<32x32xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @linear_element_types(%x: tensor<32x64xf32>, %w: tensor<32x64xbf16>) {
  // expected-error @+1 {{'tp.linear' op 'input', 'weight' and 'result' must share one element type}}
  %0 = tp.linear %x, %w on @tp axes = [0] column input = replicated output = shard(1) : (tensor<32x64xf32>, tensor<32x64xbf16>) -> tensor<32x32xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @linear_result_element_type(%x: tensor<32x64xf32>, %w: tensor<32x64xf32>) {
  // expected-error @+1 {{'tp.linear' op 'input', 'weight' and 'result' must share one element type}}
  %0 = tp.linear %x, %w on @tp axes = [0] column input = replicated output = shard(1) : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x32xf16>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @linear_result_rank(%x: tensor<32x64xf32>, %w: tensor<32x64xf32>) {
  // expected-error @+1 {{'tp.linear' op 'result' must have the rank of 'input' (2), got 'tensor<1x32x32xf32>'}}
  %0 = tp.linear %x, %w on @tp axes = [0] column input = replicated output = shard(1) : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<1x32x32xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

// A column-parallel layer needs the whole K on every rank.
func.func @linear_column_input_shard_last(%x: tensor<32x16xf32>, %w: tensor<32x64xf32>) {
  // expected-error @+1 {{'tp.linear' op a column-parallel 'input' must be replicated or sharded on a dim before the last (1), got shard(1)}}
  %0 = tp.linear %x, %w on @tp axes = [0] column input = shard(1) output = shard(1) : (tensor<32x16xf32>, tensor<32x64xf32>) -> tensor<32x32xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @linear_column_input_shard_out_of_range(%x: tensor<32x64xf32>, %w: tensor<32x64xf32>) {
  // expected-error @+1 {{'tp.linear' op a column-parallel 'input' must be replicated or sharded on a dim before the last (1), got shard(5)}}
  %0 = tp.linear %x, %w on @tp axes = [0] column input = shard(5) output = shard(1) : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x32xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @linear_column_output_replicated(%x: tensor<32x64xf32>, %w: tensor<32x64xf32>) {
  // expected-error @+1 {{'tp.linear' op a column-parallel output is split along N: it must be shard(1), got replicated}}
  %0 = tp.linear %x, %w on @tp axes = [0] column input = replicated output = replicated : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x32xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @linear_column_output_shard_rows(%x: tensor<2x32x64xf32>, %w: tensor<32x64xf32>) {
  // expected-error @+1 {{'tp.linear' op a column-parallel output is split along N: it must be shard(2), got shard(1)}}
  %0 = tp.linear %x, %w on @tp axes = [0] column input = replicated output = shard(1) : (tensor<2x32x64xf32>, tensor<32x64xf32>) -> tensor<2x32x32xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @linear_row_input_replicated(%x: tensor<32x64xf32>, %w: tensor<128x16xf32>) {
  // expected-error @+1 {{'tp.linear' op a row-parallel 'input' is split along K: it must be shard(1), got replicated}}
  %0 = tp.linear %x, %w on @tp axes = [0] row input = replicated output = replicated : (tensor<32x64xf32>, tensor<128x16xf32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @linear_row_input_shard_rows(%x: tensor<8x16xf32>, %w: tensor<128x16xf32>) {
  // expected-error @+1 {{'tp.linear' op a row-parallel 'input' is split along K: it must be shard(1), got shard(0)}}
  %0 = tp.linear %x, %w on @tp axes = [0] row input = shard(0) output = replicated : (tensor<8x16xf32>, tensor<128x16xf32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @linear_row_output_shard_last(%x: tensor<32x16xf32>, %w: tensor<128x16xf32>) {
  // expected-error @+1 {{'tp.linear' op a row-parallel output must be replicated or sharded on a dim before the last (1), got shard(1)}}
  %0 = tp.linear %x, %w on @tp axes = [0] row input = shard(1) output = shard(1) : (tensor<32x16xf32>, tensor<128x16xf32>) -> tensor<32x32xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @linear_row_not_divisible(%x: tensor<6x16xf32>, %w: tensor<128x16xf32>) {
  // expected-error @+1 {{'tp.linear' op 'input' dim 0 (6) is not divisible by the group size 4 it is reduce-scattered over}}
  %0 = tp.linear %x, %w on @tp axes = [0] row input = shard(1) output = shard(0) : (tensor<6x16xf32>, tensor<128x16xf32>) -> tensor<1x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @linear_column_weight_k(%x: tensor<32x64xf32>, %w: tensor<32x48xf32>) {
  // expected-error @+1 {{'tp.linear' op 'weight' must be tensor<32x64xf32>, got 'tensor<32x48xf32>'}}
  %0 = tp.linear %x, %w on @tp axes = [0] column input = replicated output = shard(1) : (tensor<32x64xf32>, tensor<32x48xf32>) -> tensor<32x32xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

// Row-parallel: the weight holds this rank's K/4 = 16 input features.
func.func @linear_row_weight_k(%x: tensor<32x16xf32>, %w: tensor<128x64xf32>) {
  // expected-error @+1 {{'tp.linear' op 'weight' must be tensor<128x16xf32>, got 'tensor<128x64xf32>'}}
  %0 = tp.linear %x, %w on @tp axes = [0] row input = shard(1) output = replicated : (tensor<32x16xf32>, tensor<128x64xf32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @linear_bias(%x: tensor<32x64xf32>, %w: tensor<32x64xf32>, %b: tensor<128xf32>) {
  // expected-error @+1 {{'tp.linear' op 'bias' must be tensor<32xf32>, got 'tensor<128xf32>'}}
  %0 = tp.linear %x, %w bias %b on @tp axes = [0] column input = replicated output = shard(1) : (tensor<32x64xf32>, tensor<32x64xf32>, tensor<128xf32>) -> tensor<32x32xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @linear_column_result(%x: tensor<32x64xf32>, %w: tensor<32x64xf32>) {
  // expected-error @+1 {{'tp.linear' op 'result' must be tensor<32x32xf32>, got 'tensor<32x128xf32>'}}
  %0 = tp.linear %x, %w on @tp axes = [0] column input = replicated output = shard(1) : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

// A sequence-sharded input is gathered before the GEMM: 8 rows become 32.
func.func @linear_column_sp_result(%x: tensor<8x64xf32>, %w: tensor<32x64xf32>) {
  // expected-error @+1 {{'tp.linear' op 'result' must be tensor<32x32xf32>, got 'tensor<8x32xf32>'}}
  %0 = tp.linear %x, %w on @tp axes = [0] column input = shard(0) output = shard(1) : (tensor<8x64xf32>, tensor<32x64xf32>) -> tensor<8x32xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

// A row-parallel output sharded on dim 0 is reduce-scattered: 32 rows become 8.
func.func @linear_row_sp_result(%x: tensor<32x16xf32>, %w: tensor<128x16xf32>) {
  // expected-error @+1 {{'tp.linear' op 'result' must be tensor<8x128xf32>, got 'tensor<32x128xf32>'}}
  %0 = tp.linear %x, %w on @tp axes = [0] row input = shard(1) output = shard(0) : (tensor<32x16xf32>, tensor<128x16xf32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @linear_integer(%x: tensor<32x64xi32>, %w: tensor<32x64xi32>) {
  // expected-error @+1 {{'tp.linear' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<32x64xi32>'}}
  %0 = tp.linear %x, %w on @tp axes = [0] column input = replicated output = shard(1) : (tensor<32x64xi32>, tensor<32x64xi32>) -> tensor<32x32xi32>
  return
}

//===----------------------------------------------------------------------===//
// quantize, dequantize
//===----------------------------------------------------------------------===//

// -----

func.func @quantize_shape(%x: tensor<64x128xf32>) {
  // expected-error @+1 {{'tp.quantize' op 'result' shape must match 'input': 'tensor<64x64xf8E4M3FN>' vs 'tensor<64x128xf32>'}}
  %q, %s = tp.quantize %x row_wise : tensor<64x128xf32> -> tensor<64x64xf8E4M3FN>, tensor<64x1xf32>
  return
}

// -----

func.func @quantize_amax_row_wise(%x: tensor<64x128xf32>, %m: tensor<f32>) {
  // expected-error @+1 {{'tp.quantize' op 'amax' sets one scale for the whole tensor: it needs per_tensor or nvfp4 scaling, not row_wise}}
  %q, %s = tp.quantize %x amax %m row_wise : tensor<64x128xf32> -> tensor<64x128xf8E4M3FN>, tensor<64x1xf32>
  return
}

// -----

func.func @quantize_amax_not_scalar(%x: tensor<64x128xf32>, %m: tensor<1xf32>) {
  // expected-error @+1 {{'tp.quantize' op operand #1 must be 0D tensor of 32-bit float values, but got 'tensor<1xf32>'}}
  %q, %s = "tp.quantize"(%x, %m) {mode = #tp.scaling<per_tensor>} : (tensor<64x128xf32>, tensor<1xf32>) -> (tensor<64x128xf8E4M3FN>, tensor<f32>)
  return
}

// -----

// expected-error @+1 {{'tp.replicated' on argument #0 must be a unit attribute, got 1 : i64}}
func.func @replicated_not_unit(%x: tensor<4xf32> {tp.replicated = 1}) {
  return
}

// -----

// expected-error @+1 {{unknown tp argument attribute 'tp.replicate' on argument #1}}
func.func @replicated_misspelled(%x: tensor<4xf32>, %y: tensor<4xf32> {tp.replicate}) {
  return
}

// -----

func.func @quantize_nvfp4_needs_fp4(%x: tensor<64x128xf32>) {
  // expected-error @+1 {{'tp.quantize' op 'result' of nvfp4 scaling must hold f4E2M1FN, got 'f8E4M3FN'}}
  %q, %s, %g = tp.quantize %x nvfp4 : tensor<64x128xf32> -> tensor<64x128xf8E4M3FN>, tensor<64x8xf8E4M3FN>, tensor<f32>
  return
}

// -----

func.func @quantize_fp4_needs_nvfp4(%x: tensor<64x128xf32>) {
  // expected-error @+1 {{'tp.quantize' op 'result' of row_wise scaling must hold f8E4M3FN or f8E5M2, got 'f4E2M1FN'}}
  %q, %s = tp.quantize %x row_wise : tensor<64x128xf32> -> tensor<64x128xf4E2M1FN>, tensor<64x1xf32>
  return
}

// -----

func.func @quantize_nvfp4_without_global_scale(%x: tensor<64x128xf32>) {
  // expected-error @+1 {{'tp.quantize' op 'global_scale' is required by nvfp4 scaling}}
  %q, %s = tp.quantize %x nvfp4 : tensor<64x128xf32> -> tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN>
  return
}

// -----

func.func @quantize_global_scale_per_tensor(%x: tensor<64x128xf32>) {
  // expected-error @+1 {{'tp.quantize' op 'global_scale' is only allowed with nvfp4 scaling, not per_tensor}}
  %q, %s, %g = tp.quantize %x per_tensor : tensor<64x128xf32> -> tensor<64x128xf8E4M3FN>, tensor<f32>, tensor<f32>
  return
}

// -----

func.func @quantize_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{'tp.quantize' op 'result' must have at least one dim}}
  %q, %s = tp.quantize %x per_tensor : tensor<f32> -> tensor<f8E4M3FN>, tensor<f32>
  return
}

// -----

func.func @quantize_mxfp8_block(%x: tensor<64x48xf32>) {
  // expected-error @+1 {{'tp.quantize' op 'result' last dim (48) must be a multiple of the mxfp8 block size 32}}
  %q, %s = tp.quantize %x mxfp8 : tensor<64x48xf32> -> tensor<64x48xf8E4M3FN>, tensor<64x1xf8E8M0FNU>
  return
}

// -----

func.func @quantize_nvfp4_block(%x: tensor<64x40xf32>) {
  // expected-error @+1 {{'tp.quantize' op 'result' last dim (40) must be a multiple of the nvfp4 block size 16}}
  %q, %s, %g = tp.quantize %x nvfp4 : tensor<64x40xf32> -> tensor<64x40xf4E2M1FN>, tensor<64x2xf8E4M3FN>, tensor<f32>
  return
}

// -----

func.func @quantize_row_wise_scale_shape(%x: tensor<64x128xf32>) {
  // expected-error @+1 {{'tp.quantize' op 'scale' must be tensor<64x1xf32> for row_wise scaling of 'result' (tensor<64x128xf8E4M3FN>), got 'tensor<1x128xf32>'}}
  %q, %s = tp.quantize %x row_wise : tensor<64x128xf32> -> tensor<64x128xf8E4M3FN>, tensor<1x128xf32>
  return
}

// -----

func.func @quantize_per_tensor_scale_shape(%x: tensor<64x128xf32>) {
  // expected-error @+1 {{'tp.quantize' op 'scale' must be tensor<f32> for per_tensor scaling of 'result' (tensor<64x128xf8E5M2>), got 'tensor<1xf32>'}}
  %q, %s = tp.quantize %x per_tensor : tensor<64x128xf32> -> tensor<64x128xf8E5M2>, tensor<1xf32>
  return
}

// -----

func.func @quantize_mxfp8_scale_type(%x: tensor<64x128xf32>) {
  // expected-error @+1 {{'tp.quantize' op 'scale' must be tensor<64x4xf8E8M0FNU> for mxfp8 scaling of 'result' (tensor<64x128xf8E4M3FN>), got 'tensor<64x4xf32>'}}
  %q, %s = tp.quantize %x mxfp8 : tensor<64x128xf32> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf32>
  return
}

// -----

func.func @quantize_nvfp4_scale_shape(%x: tensor<64x128xf32>) {
  // expected-error @+1 {{'tp.quantize' op 'scale' must be tensor<64x8xf8E4M3FN> for nvfp4 scaling of 'result' (tensor<64x128xf4E2M1FN>), got 'tensor<64x4xf8E4M3FN>'}}
  %q, %s, %g = tp.quantize %x nvfp4 : tensor<64x128xf32> -> tensor<64x128xf4E2M1FN>, tensor<64x4xf8E4M3FN>, tensor<f32>
  return
}

// -----

func.func @quantize_result_element_type(%x: tensor<64x128xf32>) {
  // expected-error @+1 {{'tp.quantize' op result #0 must be ranked tensor of f8E4M3FN type or f8E5M2 type or f4E2M1FN type values, but got 'tensor<64x128xf16>'}}
  %q, %s = tp.quantize %x row_wise : tensor<64x128xf32> -> tensor<64x128xf16>, tensor<64x1xf32>
  return
}

// -----

func.func @quantize_global_scale_not_scalar(%x: tensor<64x128xf32>) {
  // expected-error @+1 {{'tp.quantize' op result #2 must be 0D tensor of 32-bit float values, but got 'tensor<1xf32>'}}
  %q, %s, %g = tp.quantize %x nvfp4 : tensor<64x128xf32> -> tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

func.func @quantize_integer_input(%x: tensor<64x128xi8>) {
  // expected-error @+1 {{'tp.quantize' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<64x128xi8>'}}
  %q, %s = tp.quantize %x row_wise : tensor<64x128xi8> -> tensor<64x128xf8E4M3FN>, tensor<64x1xf32>
  return
}

// -----

func.func @dequantize_shape(%q: tensor<64x128xf8E4M3FN>, %s: tensor<64x1xf32>) {
  // expected-error @+1 {{'tp.dequantize' op 'result' shape must match 'input': 'tensor<128x64xf32>' vs 'tensor<64x128xf8E4M3FN>'}}
  %0 = tp.dequantize %q scale %s row_wise : (tensor<64x128xf8E4M3FN>, tensor<64x1xf32>) -> tensor<128x64xf32>
  return
}

// -----

func.func @dequantize_nvfp4_without_global_scale(%q: tensor<64x128xf4E2M1FN>, %s: tensor<64x8xf8E4M3FN>) {
  // expected-error @+1 {{'tp.dequantize' op 'global_scale' is required by nvfp4 scaling}}
  %0 = tp.dequantize %q scale %s nvfp4 : (tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN>) -> tensor<64x128xf32>
  return
}

// -----

func.func @dequantize_global_scale_mxfp8(%q: tensor<64x128xf8E4M3FN>, %s: tensor<64x4xf8E8M0FNU>, %g: tensor<f32>) {
  // expected-error @+1 {{'tp.dequantize' op 'global_scale' is only allowed with nvfp4 scaling, not mxfp8}}
  %0 = tp.dequantize %q scale %s global %g mxfp8 : (tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>, tensor<f32>) -> tensor<64x128xf32>
  return
}

// -----

func.func @dequantize_nvfp4_needs_fp4(%q: tensor<64x128xf8E5M2>, %s: tensor<64x8xf8E4M3FN>, %g: tensor<f32>) {
  // expected-error @+1 {{'tp.dequantize' op 'input' of nvfp4 scaling must hold f4E2M1FN, got 'f8E5M2'}}
  %0 = tp.dequantize %q scale %s global %g nvfp4 : (tensor<64x128xf8E5M2>, tensor<64x8xf8E4M3FN>, tensor<f32>) -> tensor<64x128xf32>
  return
}

// -----

func.func @dequantize_mxfp8_scale_shape(%q: tensor<64x128xf8E4M3FN>, %s: tensor<64x8xf8E8M0FNU>) {
  // expected-error @+1 {{'tp.dequantize' op 'scale' must be tensor<64x4xf8E8M0FNU> for mxfp8 scaling of 'input' (tensor<64x128xf8E4M3FN>), got 'tensor<64x8xf8E8M0FNU>'}}
  %0 = tp.dequantize %q scale %s mxfp8 : (tensor<64x128xf8E4M3FN>, tensor<64x8xf8E8M0FNU>) -> tensor<64x128xf32>
  return
}

// -----

func.func @dequantize_mxfp8_block(%q: tensor<64x80xf8E4M3FN>, %s: tensor<64x2xf8E8M0FNU>) {
  // expected-error @+1 {{'tp.dequantize' op 'input' last dim (80) must be a multiple of the mxfp8 block size 32}}
  %0 = tp.dequantize %q scale %s mxfp8 : (tensor<64x80xf8E4M3FN>, tensor<64x2xf8E8M0FNU>) -> tensor<64x80xf32>
  return
}

// -----

func.func @dequantize_float_input(%q: tensor<64x128xf32>, %s: tensor<64x1xf32>) {
  // expected-error @+1 {{'tp.dequantize' op operand #0 must be ranked tensor of f8E4M3FN type or f8E5M2 type or f4E2M1FN type values, but got 'tensor<64x128xf32>'}}
  %0 = tp.dequantize %q scale %s row_wise : (tensor<64x128xf32>, tensor<64x1xf32>) -> tensor<64x128xf32>
  return
}

// -----

func.func @dequantize_scale_element_type(%q: tensor<64x128xf8E4M3FN>, %s: tensor<64x1xf16>) {
  // expected-error @+1 {{'tp.dequantize' op operand #1 must be ranked tensor of 32-bit float or f8E8M0FNU type or f8E4M3FN type values, but got 'tensor<64x1xf16>'}}
  %0 = tp.dequantize %q scale %s row_wise : (tensor<64x128xf8E4M3FN>, tensor<64x1xf16>) -> tensor<64x128xf32>
  return
}

//===----------------------------------------------------------------------===//
// scaled_matmul
//===----------------------------------------------------------------------===//

// -----

func.func @scaled_matmul_a_rank(%a: tensor<2x32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.scaled_matmul' op 'a' must be 2-D [M, K], got 'tensor<2x32x64xf8E4M3FN>'}}
  %0 = tp.scaled_matmul %a scale %as, %b scale %bs per_tensor : (tensor<2x32x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<2x32x128xf32>
  return
}

// -----

func.func @scaled_matmul_b_rank(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<2x128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.scaled_matmul' op 'b' must be 2-D [N, K], got 'tensor<2x128x64xf8E4M3FN>'}}
  %0 = tp.scaled_matmul %a scale %as, %b scale %bs per_tensor : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<2x128x64xf8E4M3FN>, tensor<f32>) -> tensor<32x128xf32>
  return
}

// -----

func.func @scaled_matmul_both_e5m2(%a: tensor<32x64xf8E5M2>, %as: tensor<f32>, %b: tensor<128x64xf8E5M2>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.scaled_matmul' op 'a' and 'b' cannot both be f8E5M2: FP8 GEMMs need an f8E4M3FN operand}}
  %0 = tp.scaled_matmul %a scale %as, %b scale %bs per_tensor : (tensor<32x64xf8E5M2>, tensor<f32>, tensor<128x64xf8E5M2>, tensor<f32>) -> tensor<32x128xf32>
  return
}

// -----

func.func @scaled_matmul_contraction(%a: tensor<32x64xf8E4M3FN>, %as: tensor<32x1xf32>, %b: tensor<128x32xf8E4M3FN>, %bs: tensor<128x1xf32>) {
  // expected-error @+1 {{'tp.scaled_matmul' op contraction dims differ: 'a' has K = 64, 'b' has K = 32 (B is [N, K])}}
  %0 = tp.scaled_matmul %a scale %as, %b scale %bs row_wise : (tensor<32x64xf8E4M3FN>, tensor<32x1xf32>, tensor<128x32xf8E4M3FN>, tensor<128x1xf32>) -> tensor<32x128xf32>
  return
}

// -----

func.func @scaled_matmul_k_alignment(%a: tensor<32x40xf8E4M3FN>, %as: tensor<32x1xf32>, %b: tensor<128x40xf8E4M3FN>, %bs: tensor<128x1xf32>) {
  // expected-error @+1 {{'tp.scaled_matmul' op FP8/FP4 GEMM alignment: K (40) must be a multiple of 16}}
  %0 = tp.scaled_matmul %a scale %as, %b scale %bs row_wise : (tensor<32x40xf8E4M3FN>, tensor<32x1xf32>, tensor<128x40xf8E4M3FN>, tensor<128x1xf32>) -> tensor<32x128xf32>
  return
}

// -----

func.func @scaled_matmul_n_alignment(%a: tensor<32x64xf8E4M3FN>, %as: tensor<32x1xf32>, %b: tensor<100x64xf8E4M3FN>, %bs: tensor<100x1xf32>) {
  // expected-error @+1 {{'tp.scaled_matmul' op FP8/FP4 GEMM alignment: N (100) must be a multiple of 16}}
  %0 = tp.scaled_matmul %a scale %as, %b scale %bs row_wise : (tensor<32x64xf8E4M3FN>, tensor<32x1xf32>, tensor<100x64xf8E4M3FN>, tensor<100x1xf32>) -> tensor<32x100xf32>
  return
}

// -----

func.func @scaled_matmul_f64_result(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.scaled_matmul' op 'result' element type must be f32, bf16 or f16, got 'f64'}}
  %0 = tp.scaled_matmul %a scale %as, %b scale %bs per_tensor : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<32x128xf64>
  return
}

// -----

func.func @scaled_matmul_result_shape(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.scaled_matmul' op 'result' must be tensor<32x128xbf16>, got 'tensor<32x64xbf16>'}}
  %0 = tp.scaled_matmul %a scale %as, %b scale %bs per_tensor : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<32x64xbf16>
  return
}

// -----

func.func @scaled_matmul_bias(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>, %c: tensor<128xf32>) {
  // expected-error @+1 {{'tp.scaled_matmul' op 'bias' must be tensor<128xbf16>, got 'tensor<128xf32>'}}
  %0 = tp.scaled_matmul %a scale %as, %b scale %bs bias %c per_tensor : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>, tensor<128xf32>) -> tensor<32x128xbf16>
  return
}

// -----

func.func @scaled_matmul_nvfp4_without_a_global(%a: tensor<32x64xf4E2M1FN>, %as: tensor<32x4xf8E4M3FN>, %b: tensor<128x64xf4E2M1FN>, %bs: tensor<128x4xf8E4M3FN>, %bg: tensor<f32>) {
  // expected-error @+1 {{'tp.scaled_matmul' op 'a_global_scale' is required by nvfp4 scaling}}
  %0 = tp.scaled_matmul %a scale %as, %b scale %bs global %bg nvfp4 : (tensor<32x64xf4E2M1FN>, tensor<32x4xf8E4M3FN>, tensor<128x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>) -> tensor<32x128xf32>
  return
}

// -----

func.func @scaled_matmul_global_per_tensor(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>, %bg: tensor<f32>) {
  // expected-error @+1 {{'tp.scaled_matmul' op 'b_global_scale' is only allowed with nvfp4 scaling, not per_tensor}}
  %0 = tp.scaled_matmul %a scale %as, %b scale %bs global %bg per_tensor : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>, tensor<f32>) -> tensor<32x128xf32>
  return
}

// -----

func.func @scaled_matmul_mxfp8_block(%a: tensor<32x48xf8E4M3FN>, %as: tensor<32x1xf8E8M0FNU>, %b: tensor<128x48xf8E4M3FN>, %bs: tensor<128x1xf8E8M0FNU>) {
  // expected-error @+1 {{'tp.scaled_matmul' op 'a' last dim (48) must be a multiple of the mxfp8 block size 32}}
  %0 = tp.scaled_matmul %a scale %as, %b scale %bs mxfp8 : (tensor<32x48xf8E4M3FN>, tensor<32x1xf8E8M0FNU>, tensor<128x48xf8E4M3FN>, tensor<128x1xf8E8M0FNU>) -> tensor<32x128xf32>
  return
}

// -----

func.func @scaled_matmul_a_scale_shape(%a: tensor<32x64xf8E4M3FN>, %as: tensor<64x1xf32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<128x1xf32>) {
  // expected-error @+1 {{'tp.scaled_matmul' op 'a_scale' must be tensor<32x1xf32> for row_wise scaling of 'a' (tensor<32x64xf8E4M3FN>), got 'tensor<64x1xf32>'}}
  %0 = tp.scaled_matmul %a scale %as, %b scale %bs row_wise : (tensor<32x64xf8E4M3FN>, tensor<64x1xf32>, tensor<128x64xf8E4M3FN>, tensor<128x1xf32>) -> tensor<32x128xf32>
  return
}

// -----

func.func @scaled_matmul_b_scale_shape(%a: tensor<32x64xf8E4M3FN>, %as: tensor<32x1xf32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<1x128xf32>) {
  // expected-error @+1 {{'tp.scaled_matmul' op 'b_scale' must be tensor<128x1xf32> for row_wise scaling of 'b' (tensor<128x64xf8E4M3FN>), got 'tensor<1x128xf32>'}}
  %0 = tp.scaled_matmul %a scale %as, %b scale %bs row_wise : (tensor<32x64xf8E4M3FN>, tensor<32x1xf32>, tensor<128x64xf8E4M3FN>, tensor<1x128xf32>) -> tensor<32x128xf32>
  return
}

// -----

func.func @scaled_matmul_float_operand(%a: tensor<32x64xbf16>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.scaled_matmul' op operand #0 must be ranked tensor of f8E4M3FN type or f8E5M2 type or f4E2M1FN type values, but got 'tensor<32x64xbf16>'}}
  %0 = tp.scaled_matmul %a scale %as, %b scale %bs per_tensor : (tensor<32x64xbf16>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<32x128xf32>
  return
}

//===----------------------------------------------------------------------===//
// all_gather_matmul
//===----------------------------------------------------------------------===//

// -----

shard.grid @tp(shape = 4)

func.func @agmm_no_b(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'tp.all_gather_matmul' op needs at least one B operand}}
  tp.all_gather_matmul %x, [] on @tp axes = [0] dim = 0 : (tensor<8x64xf32>) -> ()
  return
}

// -----

shard.grid @tp(shape = 4)

// The custom syntax always derives bias_mask from the weight list.
func.func @agmm_bias_mask_size(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) {
  // expected-error @+1 {{'tp.all_gather_matmul' op 'bias_mask' has 2 entries for 1 B operands}}
  %0 = "tp.all_gather_matmul"(%x, %w) <{bias_mask = array<i1: false, false>, dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<8x64xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agmm_bias_mask_without_bias(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) {
  // expected-error @+1 {{'tp.all_gather_matmul' op 'bias_mask' marks 1 biased B operands but 0 biases are given}}
  %0 = "tp.all_gather_matmul"(%x, %w) <{bias_mask = array<i1: true>, dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<8x64xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agmm_bias_without_mask(%x: tensor<8x64xf32>, %w1: tensor<64x128xf32>, %w2: tensor<64x32xf32>, %b: tensor<128xf32>) {
  // expected-error @+1 {{'tp.all_gather_matmul' op 'bias_mask' marks 0 biased B operands but 1 biases are given}}
  %0:2 = "tp.all_gather_matmul"(%x, %w1, %w2, %b) <{bias_mask = array<i1: false, false>, dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, operandSegmentSizes = array<i32: 1, 2, 1>}> : (tensor<8x64xf32>, tensor<64x128xf32>, tensor<64x32xf32>, tensor<128xf32>) -> (tensor<32x128xf32>, tensor<32x32xf32>)
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agmm_a_rank(%x: tensor<64xf32>, %w: tensor<64x128xf32>) {
  // expected-error @+1 {{'tp.all_gather_matmul' op 'a' must have at least 2 dims [..., M, K], got 'tensor<64xf32>'}}
  %0 = tp.all_gather_matmul %x, [%w] on @tp axes = [0] dim = 0 : (tensor<64xf32>, tensor<64x128xf32>) -> tensor<128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agmm_dim_out_of_range(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) {
  // expected-error @+1 {{'tp.all_gather_matmul' op 'dim' 2 is out of range for 'a' of rank 2}}
  %0 = tp.all_gather_matmul %x, [%w] on @tp axes = [0] dim = 2 : (tensor<8x64xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agmm_result_count(%x: tensor<8x64xf32>, %w1: tensor<64x128xf32>, %w2: tensor<64x32xf32>) {
  // expected-error @+1 {{'tp.all_gather_matmul' op expected 2 results (the gathered A if returned, then one per B), got 1}}
  %0 = tp.all_gather_matmul %x, [%w1, %w2] on @tp axes = [0] dim = 0 : (tensor<8x64xf32>, tensor<64x128xf32>, tensor<64x32xf32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agmm_result_count_gathered(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) {
  // expected-error @+1 {{'tp.all_gather_matmul' op expected 2 results (the gathered A if returned, then one per B), got 1}}
  %0 = tp.all_gather_matmul %x, [%w] on @tp axes = [0] dim = 0 return_gathered : (tensor<8x64xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agmm_element_type(%x: tensor<8x64xf32>, %w: tensor<64x128xbf16>) {
  // expected-error @+1 {{'tp.all_gather_matmul' op every B, bias and result must have 'a''s element type 'f32', got 'tensor<64x128xbf16>'}}
  %0 = tp.all_gather_matmul %x, [%w] on @tp axes = [0] dim = 0 : (tensor<8x64xf32>, tensor<64x128xbf16>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agmm_bias_element_type(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>, %b: tensor<128xf16>) {
  // expected-error @+1 {{'tp.all_gather_matmul' op every B, bias and result must have 'a''s element type 'f32', got 'tensor<128xf16>'}}
  %0 = tp.all_gather_matmul %x, [%w bias %b] on @tp axes = [0] dim = 0 : (tensor<8x64xf32>, tensor<64x128xf32>, tensor<128xf16>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agmm_gathered(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) {
  // expected-error @+1 {{'tp.all_gather_matmul' op 'gathered' dim 0 (16) must be 'a' dim 0 (8) times the group size 4 = 32}}
  %0:2 = tp.all_gather_matmul %x, [%w] on @tp axes = [0] dim = 0 return_gathered : (tensor<8x64xf32>, tensor<64x128xf32>) -> (tensor<16x64xf32>, tensor<32x128xf32>)
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agmm_b_rank(%x: tensor<8x64xf32>, %w1: tensor<64x128xf32>, %w2: tensor<2x64x32xf32>) {
  // expected-error @+1 {{'tp.all_gather_matmul' op 'bs[1]' must be 2-D, got 'tensor<2x64x32xf32>'}}
  %0:2 = tp.all_gather_matmul %x, [%w1, %w2] on @tp axes = [0] dim = 0 : (tensor<8x64xf32>, tensor<64x128xf32>, tensor<2x64x32xf32>) -> (tensor<32x128xf32>, tensor<32x32xf32>)
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agmm_contraction(%x: tensor<8x64xf32>, %w: tensor<32x128xf32>) {
  // expected-error @+1 {{'tp.all_gather_matmul' op contraction dims differ: 'a' has K = 64, 'bs[0]' has K = 32 (B is [K, N])}}
  %0 = tp.all_gather_matmul %x, [%w] on @tp axes = [0] dim = 0 : (tensor<8x64xf32>, tensor<32x128xf32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

// Gathering the last dim multiplies K: B must have the gathered K (64).
func.func @agmm_contraction_gathered_k(%x: tensor<32x16xf32>, %w: tensor<128x16xf32>) {
  // expected-error @+1 {{'tp.all_gather_matmul' op contraction dims differ: 'a' has K = 64, 'bs[0]' has K = 16 (B is [N, K])}}
  %0 = tp.all_gather_matmul %x, [%w] on @tp axes = [0] dim = 1 transpose_b : (tensor<32x16xf32>, tensor<128x16xf32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agmm_product_shape(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) {
  // expected-error @+1 {{'tp.all_gather_matmul' op 'products[0]' must be tensor<32x128xf32>, got 'tensor<8x128xf32>'}}
  %0 = tp.all_gather_matmul %x, [%w] on @tp axes = [0] dim = 0 : (tensor<8x64xf32>, tensor<64x128xf32>) -> tensor<8x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agmm_bias_shape(%x: tensor<8x64xf32>, %w1: tensor<64x128xf32>, %w2: tensor<64x32xf32>, %b2: tensor<128xf32>) {
  // expected-error @+1 {{'tp.all_gather_matmul' op 'bias of bs[1]' must be tensor<32xf32>, got 'tensor<128xf32>'}}
  %0:2 = tp.all_gather_matmul %x, [%w1, %w2 bias %b2] on @tp axes = [0] dim = 0 : (tensor<8x64xf32>, tensor<64x128xf32>, tensor<64x32xf32>, tensor<128xf32>) -> (tensor<32x128xf32>, tensor<32x32xf32>)
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agmm_chunks_zero(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) {
  // expected-error @+1 {{'tp.all_gather_matmul' op attribute 'chunks' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = tp.all_gather_matmul %x, [%w] on @tp axes = [0] dim = 0 {chunks = 0} : (tensor<8x64xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @mmrs_streams_zero(%h: tensor<32x64xf32>, %w: tensor<64x16xf32>) {
  // expected-error @+1 {{'tp.matmul_reduce_scatter' op attribute 'streams' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = tp.matmul_reduce_scatter %h, %w on @tp axes = [0] dim = 0 reduce = sum {streams = 0} : (tensor<32x64xf32>, tensor<64x16xf32>) -> tensor<8x16xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agmm_integer(%x: tensor<8x64xi32>, %w: tensor<64x128xi32>) {
  // expected-error @+1 {{'tp.all_gather_matmul' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<8x64xi32>'}}
  %0 = tp.all_gather_matmul %x, [%w] on @tp axes = [0] dim = 0 : (tensor<8x64xi32>, tensor<64x128xi32>) -> tensor<32x128xi32>
  return
}

//===----------------------------------------------------------------------===//
// matmul_reduce_scatter
//===----------------------------------------------------------------------===//

// -----

shard.grid @tp(shape = 4)

func.func @mmrs_a_rank(%x: tensor<16xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'tp.matmul_reduce_scatter' op 'a' must have at least 2 dims [..., M, K], got 'tensor<16xf32>'}}
  %0 = tp.matmul_reduce_scatter %x, %w on @tp axes = [0] dim = 0 reduce = sum : (tensor<16xf32>, tensor<16x64xf32>) -> tensor<16xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @mmrs_reduce_max(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'tp.matmul_reduce_scatter' op reduction 'max' cannot be fused with a matmul: only sum and avg distribute over the chunked product}}
  %0 = tp.matmul_reduce_scatter %x, %w on @tp axes = [0] dim = 0 reduce = max : (tensor<32x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @mmrs_reduce_min(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'tp.matmul_reduce_scatter' op reduction 'min' cannot be fused with a matmul}}
  %0 = tp.matmul_reduce_scatter %x, %w on @tp axes = [0] dim = 0 reduce = min : (tensor<32x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @mmrs_dim_out_of_range(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'tp.matmul_reduce_scatter' op 'dim' 3 is out of range for 'a' of rank 2}}
  %0 = tp.matmul_reduce_scatter %x, %w on @tp axes = [0] dim = 3 reduce = sum : (tensor<32x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @mmrs_result_count(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'tp.matmul_reduce_scatter' op expected 2 results (the unreduced product if returned, then the reduced slice), got 1}}
  %0 = tp.matmul_reduce_scatter %x, %w on @tp axes = [0] dim = 0 reduce = sum return_unreduced : (tensor<32x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @mmrs_result_count_extra(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'tp.matmul_reduce_scatter' op expected 1 results (the unreduced product if returned, then the reduced slice), got 2}}
  %0:2 = tp.matmul_reduce_scatter %x, %w on @tp axes = [0] dim = 0 reduce = sum : (tensor<32x16xf32>, tensor<16x64xf32>) -> (tensor<32x64xf32>, tensor<8x64xf32>)
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @mmrs_element_type(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>, %c: tensor<32x64xbf16>) {
  // expected-error @+1 {{'tp.matmul_reduce_scatter' op 'b', bias, addend and results must have 'a''s element type 'f32', got 'tensor<32x64xbf16>'}}
  %0 = tp.matmul_reduce_scatter %x, %w addend %c on @tp axes = [0] dim = 0 reduce = sum : (tensor<32x16xf32>, tensor<16x64xf32>, tensor<32x64xbf16>) -> tensor<8x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @mmrs_b_rank(%x: tensor<32x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{'tp.matmul_reduce_scatter' op 'b' must be 2-D, got 'tensor<16xf32>'}}
  %0 = tp.matmul_reduce_scatter %x, %w on @tp axes = [0] dim = 0 reduce = sum : (tensor<32x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @mmrs_contraction(%x: tensor<32x16xf32>, %w: tensor<64x16xf32>) {
  // expected-error @+1 {{'tp.matmul_reduce_scatter' op contraction dims differ: 'a' has K = 16, 'b' has K = 64 (B is [K, N])}}
  %0 = tp.matmul_reduce_scatter %x, %w on @tp axes = [0] dim = 0 reduce = sum : (tensor<32x16xf32>, tensor<64x16xf32>) -> tensor<8x16xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @mmrs_addend(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>, %c: tensor<8x64xf32>) {
  // expected-error @+1 {{'tp.matmul_reduce_scatter' op 'addend' must be tensor<32x64xf32>, got 'tensor<8x64xf32>'}}
  %0 = tp.matmul_reduce_scatter %x, %w addend %c on @tp axes = [0] dim = 0 reduce = sum : (tensor<32x16xf32>, tensor<16x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @mmrs_bias(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{'tp.matmul_reduce_scatter' op 'bias' must be tensor<64xf32>, got 'tensor<16xf32>'}}
  %0 = tp.matmul_reduce_scatter %x, %w bias %b on @tp axes = [0] dim = 0 reduce = sum : (tensor<32x16xf32>, tensor<16x64xf32>, tensor<16xf32>) -> tensor<8x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @mmrs_unreduced(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'tp.matmul_reduce_scatter' op 'unreduced' must be tensor<32x64xf32>, got 'tensor<32x16xf32>'}}
  %0:2 = tp.matmul_reduce_scatter %x, %w on @tp axes = [0] dim = 0 reduce = sum return_unreduced : (tensor<32x16xf32>, tensor<16x64xf32>) -> (tensor<32x16xf32>, tensor<8x64xf32>)
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @mmrs_reduced_size(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'tp.matmul_reduce_scatter' op 'result' dim 0 (16) must be 'product a @ b' dim 0 (32) divided by the group size 4 = 8}}
  %0 = tp.matmul_reduce_scatter %x, %w on @tp axes = [0] dim = 0 reduce = sum : (tensor<32x16xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @mmrs_not_divisible(%x: tensor<30x16xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'tp.matmul_reduce_scatter' op 'product a @ b' dim 0 (30) is not divisible by the group size 4}}
  %0 = tp.matmul_reduce_scatter %x, %w on @tp axes = [0] dim = 0 reduce = sum : (tensor<30x16xf32>, tensor<16x64xf32>) -> tensor<7x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @mmrs_other_dim(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'tp.matmul_reduce_scatter' op 'result' dim 1 (16) differs from 'product a @ b' dim 1 (64)}}
  %0 = tp.matmul_reduce_scatter %x, %w on @tp axes = [0] dim = 0 reduce = sum : (tensor<32x16xf32>, tensor<16x64xf32>) -> tensor<8x16xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @mmrs_result_rank(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'tp.matmul_reduce_scatter' op 'result' rank 3 differs from 'product a @ b' rank 2}}
  %0 = tp.matmul_reduce_scatter %x, %w on @tp axes = [0] dim = 0 reduce = sum : (tensor<32x16xf32>, tensor<16x64xf32>) -> tensor<1x8x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// all_gather_scaled_matmul
//===----------------------------------------------------------------------===//

// -----

shard.grid @tp(shape = 4)

func.func @agsmm_no_b(%a: tensor<8x64xf8E4M3FN>, %as: tensor<8x1xf32>) {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op needs at least one B operand}}
  tp.all_gather_scaled_matmul %a scale %as, [] on @tp axes = [0] dim = 0 row_wise : (tensor<8x64xf8E4M3FN>, tensor<8x1xf32>) -> ()
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agsmm_bias_mask_size(%a: tensor<8x64xf8E4M3FN>, %as: tensor<8x1xf32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<128x1xf32>) {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op 'bias_mask' has 0 entries for 1 B operands}}
  %0 = "tp.all_gather_scaled_matmul"(%a, %as, %b, %bs) <{bias_mask = array<i1>, dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, mode = #tp.scaling<row_wise>, operandSegmentSizes = array<i32: 1, 1, 0, 1, 1, 0, 0>}> : (tensor<8x64xf8E4M3FN>, tensor<8x1xf32>, tensor<128x64xf8E4M3FN>, tensor<128x1xf32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agsmm_bias_mask_without_bias(%a: tensor<8x64xf8E4M3FN>, %as: tensor<8x1xf32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<128x1xf32>) {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op 'bias_mask' marks 1 biased B operands but 0 biases are given}}
  %0 = "tp.all_gather_scaled_matmul"(%a, %as, %b, %bs) <{bias_mask = array<i1: true>, dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, mode = #tp.scaling<row_wise>, operandSegmentSizes = array<i32: 1, 1, 0, 1, 1, 0, 0>}> : (tensor<8x64xf8E4M3FN>, tensor<8x1xf32>, tensor<128x64xf8E4M3FN>, tensor<128x1xf32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

// The custom syntax gives every B a scale; the generic form can drop one.
func.func @agsmm_b_scales_count(%a: tensor<8x64xf8E4M3FN>, %as: tensor<8x1xf32>, %b1: tensor<128x64xf8E4M3FN>, %b2: tensor<32x64xf8E4M3FN>, %s1: tensor<128x1xf32>) {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op expected one 'b_scales' entry per B (2), got 1}}
  %0:2 = "tp.all_gather_scaled_matmul"(%a, %as, %b1, %b2, %s1) <{bias_mask = array<i1: false, false>, dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, mode = #tp.scaling<row_wise>, operandSegmentSizes = array<i32: 1, 1, 0, 2, 1, 0, 0>}> : (tensor<8x64xf8E4M3FN>, tensor<8x1xf32>, tensor<128x64xf8E4M3FN>, tensor<32x64xf8E4M3FN>, tensor<128x1xf32>) -> (tensor<32x128xf32>, tensor<32x32xf32>)
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agsmm_b_global_scales_count(%a: tensor<8x64xf4E2M1FN>, %as: tensor<8x4xf8E4M3FN>, %ag: tensor<f32>, %b1: tensor<128x64xf4E2M1FN>, %s1: tensor<128x4xf8E4M3FN>, %g1: tensor<f32>, %b2: tensor<32x64xf4E2M1FN>, %s2: tensor<32x4xf8E4M3FN>) {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op expected one 'b_global_scales' entry per B (2) or none, got 1}}
  %0:2 = tp.all_gather_scaled_matmul %a scale %as global %ag, [%b1 scale %s1 global %g1, %b2 scale %s2] on @tp axes = [0] dim = 0 nvfp4 : (tensor<8x64xf4E2M1FN>, tensor<8x4xf8E4M3FN>, tensor<f32>, tensor<128x64xf4E2M1FN>, tensor<32x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<32x4xf8E4M3FN>, tensor<f32>) -> (tensor<32x128xf32>, tensor<32x32xf32>)
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agsmm_a_rank(%a: tensor<64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op 'a' must have at least 2 dims [..., M, K], got 'tensor<64xf8E4M3FN>'}}
  %0 = tp.all_gather_scaled_matmul %a scale %as, [%b scale %bs] on @tp axes = [0] dim = 0 per_tensor : (tensor<64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agsmm_dim_out_of_range(%a: tensor<8x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op 'dim' 4 is out of range for 'a' of rank 2}}
  %0 = tp.all_gather_scaled_matmul %a scale %as, [%b scale %bs] on @tp axes = [0] dim = 4 per_tensor : (tensor<8x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agsmm_gather_last_dim(%a: tensor<32x16xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op 'dim' must not be the last (K) dim of 'a': scales run along K, so a scaled all-gather splits rows only}}
  %0 = tp.all_gather_scaled_matmul %a scale %as, [%b scale %bs] on @tp axes = [0] dim = 1 per_tensor : (tensor<32x16xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agsmm_result_count(%a: tensor<8x64xf8E4M3FN>, %as: tensor<8x1xf32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<128x1xf32>) {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op expected 3 results (the gathered A and scale if returned, then one per B), got 2}}
  %0:2 = tp.all_gather_scaled_matmul %a scale %as, [%b scale %bs] on @tp axes = [0] dim = 0 row_wise return_gathered : (tensor<8x64xf8E4M3FN>, tensor<8x1xf32>, tensor<128x64xf8E4M3FN>, tensor<128x1xf32>) -> (tensor<32x64xf8E4M3FN>, tensor<32x128xf32>)
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agsmm_a_scale_shape(%a: tensor<8x64xf8E4M3FN>, %as: tensor<32x1xf32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<128x1xf32>) {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op 'a_scale' must be tensor<8x1xf32> for row_wise scaling of 'a' (tensor<8x64xf8E4M3FN>), got 'tensor<32x1xf32>'}}
  %0 = tp.all_gather_scaled_matmul %a scale %as, [%b scale %bs] on @tp axes = [0] dim = 0 row_wise : (tensor<8x64xf8E4M3FN>, tensor<32x1xf32>, tensor<128x64xf8E4M3FN>, tensor<128x1xf32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agsmm_a_nvfp4_without_global(%a: tensor<8x64xf4E2M1FN>, %as: tensor<8x4xf8E4M3FN>, %b: tensor<128x64xf4E2M1FN>, %bs: tensor<128x4xf8E4M3FN>, %bg: tensor<f32>) {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op 'a_global_scale' is required by nvfp4 scaling}}
  %0 = tp.all_gather_scaled_matmul %a scale %as, [%b scale %bs global %bg] on @tp axes = [0] dim = 0 nvfp4 : (tensor<8x64xf4E2M1FN>, tensor<8x4xf8E4M3FN>, tensor<128x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agsmm_b_nvfp4_without_global(%a: tensor<8x64xf4E2M1FN>, %as: tensor<8x4xf8E4M3FN>, %ag: tensor<f32>, %b: tensor<128x64xf4E2M1FN>, %bs: tensor<128x4xf8E4M3FN>) {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op 'b_global_scales[0]' is required by nvfp4 scaling}}
  %0 = tp.all_gather_scaled_matmul %a scale %as global %ag, [%b scale %bs] on @tp axes = [0] dim = 0 nvfp4 : (tensor<8x64xf4E2M1FN>, tensor<8x4xf8E4M3FN>, tensor<f32>, tensor<128x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agsmm_b_global_row_wise(%a: tensor<8x64xf8E4M3FN>, %as: tensor<8x1xf32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<128x1xf32>, %bg: tensor<f32>) {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op 'b_global_scales[0]' is only allowed with nvfp4 scaling, not row_wise}}
  %0 = tp.all_gather_scaled_matmul %a scale %as, [%b scale %bs global %bg] on @tp axes = [0] dim = 0 row_wise : (tensor<8x64xf8E4M3FN>, tensor<8x1xf32>, tensor<128x64xf8E4M3FN>, tensor<128x1xf32>, tensor<f32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agsmm_b_scale_shape(%a: tensor<8x64xf8E4M3FN>, %as: tensor<8x1xf32>, %b1: tensor<128x64xf8E4M3FN>, %s1: tensor<128x1xf32>, %b2: tensor<32x64xf8E4M3FN>, %s2: tensor<128x1xf32>) {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op 'b_scales[1]' must be tensor<32x1xf32> for row_wise scaling of 'bs[1]' (tensor<32x64xf8E4M3FN>), got 'tensor<128x1xf32>'}}
  %0:2 = tp.all_gather_scaled_matmul %a scale %as, [%b1 scale %s1, %b2 scale %s2] on @tp axes = [0] dim = 0 row_wise : (tensor<8x64xf8E4M3FN>, tensor<8x1xf32>, tensor<128x64xf8E4M3FN>, tensor<32x64xf8E4M3FN>, tensor<128x1xf32>, tensor<128x1xf32>) -> (tensor<32x128xf32>, tensor<32x32xf32>)
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agsmm_b_fp4_row_wise(%a: tensor<8x64xf8E4M3FN>, %as: tensor<8x1xf32>, %b: tensor<128x64xf4E2M1FN>, %bs: tensor<128x1xf32>) {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op 'bs[0]' of row_wise scaling must hold f8E4M3FN or f8E5M2, got 'f4E2M1FN'}}
  %0 = tp.all_gather_scaled_matmul %a scale %as, [%b scale %bs] on @tp axes = [0] dim = 0 row_wise : (tensor<8x64xf8E4M3FN>, tensor<8x1xf32>, tensor<128x64xf4E2M1FN>, tensor<128x1xf32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agsmm_b_rank(%a: tensor<8x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<2x128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op 'bs[0]' must be 2-D [N, K], got 'tensor<2x128x64xf8E4M3FN>'}}
  %0 = tp.all_gather_scaled_matmul %a scale %as, [%b scale %bs] on @tp axes = [0] dim = 0 per_tensor : (tensor<8x64xf8E4M3FN>, tensor<f32>, tensor<2x128x64xf8E4M3FN>, tensor<f32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agsmm_both_e5m2(%a: tensor<8x64xf8E5M2>, %as: tensor<f32>, %b: tensor<128x64xf8E5M2>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op 'a' and 'bs[0]' cannot both be f8E5M2: FP8 GEMMs need an f8E4M3FN operand}}
  %0 = tp.all_gather_scaled_matmul %a scale %as, [%b scale %bs] on @tp axes = [0] dim = 0 per_tensor : (tensor<8x64xf8E5M2>, tensor<f32>, tensor<128x64xf8E5M2>, tensor<f32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agsmm_contraction(%a: tensor<8x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x32xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op contraction dims differ: 'a' has K = 64, 'bs[0]' has K = 32 (B is [N, K])}}
  %0 = tp.all_gather_scaled_matmul %a scale %as, [%b scale %bs] on @tp axes = [0] dim = 0 per_tensor : (tensor<8x64xf8E4M3FN>, tensor<f32>, tensor<128x32xf8E4M3FN>, tensor<f32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agsmm_k_alignment(%a: tensor<8x72xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x72xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op FP8/FP4 GEMM alignment: K (72) must be a multiple of 16}}
  %0 = tp.all_gather_scaled_matmul %a scale %as, [%b scale %bs] on @tp axes = [0] dim = 0 per_tensor : (tensor<8x72xf8E4M3FN>, tensor<f32>, tensor<128x72xf8E4M3FN>, tensor<f32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agsmm_n_alignment(%a: tensor<8x64xf8E4M3FN>, %as: tensor<f32>, %b1: tensor<128x64xf8E4M3FN>, %s1: tensor<f32>, %b2: tensor<24x64xf8E4M3FN>, %s2: tensor<f32>) {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op FP8/FP4 GEMM alignment: N (24) must be a multiple of 16}}
  %0:2 = tp.all_gather_scaled_matmul %a scale %as, [%b1 scale %s1, %b2 scale %s2] on @tp axes = [0] dim = 0 per_tensor : (tensor<8x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<24x64xf8E4M3FN>, tensor<f32>, tensor<f32>) -> (tensor<32x128xf32>, tensor<32x24xf32>)
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agsmm_mxfp8_block(%a: tensor<8x48xf8E4M3FN>, %as: tensor<8x1xf8E8M0FNU>, %b: tensor<128x48xf8E4M3FN>, %bs: tensor<128x1xf8E8M0FNU>) {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op 'a' last dim (48) must be a multiple of the mxfp8 block size 32}}
  %0 = tp.all_gather_scaled_matmul %a scale %as, [%b scale %bs] on @tp axes = [0] dim = 0 mxfp8 : (tensor<8x48xf8E4M3FN>, tensor<8x1xf8E8M0FNU>, tensor<128x48xf8E4M3FN>, tensor<128x1xf8E8M0FNU>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agsmm_product_element_type(%a: tensor<8x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op 'products[0]' element type must be f32, bf16 or f16, got 'f8E4M3FN'}}
  %0 = tp.all_gather_scaled_matmul %a scale %as, [%b scale %bs] on @tp axes = [0] dim = 0 per_tensor : (tensor<8x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<32x128xf8E4M3FN>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agsmm_gathered(%a: tensor<8x64xf8E4M3FN>, %as: tensor<8x1xf32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<128x1xf32>) {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op 'gathered' dim 0 (8) must be 'a' dim 0 (8) times the group size 4 = 32}}
  %0:3 = tp.all_gather_scaled_matmul %a scale %as, [%b scale %bs] on @tp axes = [0] dim = 0 row_wise return_gathered : (tensor<8x64xf8E4M3FN>, tensor<8x1xf32>, tensor<128x64xf8E4M3FN>, tensor<128x1xf32>) -> (tensor<8x64xf8E4M3FN>, tensor<32x1xf32>, tensor<32x128xf32>)
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agsmm_gathered_scale(%a: tensor<8x64xf8E4M3FN>, %as: tensor<8x1xf32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<128x1xf32>) {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op 'gathered_scale' must be tensor<32x1xf32>, got 'tensor<8x1xf32>'}}
  %0:3 = tp.all_gather_scaled_matmul %a scale %as, [%b scale %bs] on @tp axes = [0] dim = 0 row_wise return_gathered : (tensor<8x64xf8E4M3FN>, tensor<8x1xf32>, tensor<128x64xf8E4M3FN>, tensor<128x1xf32>) -> (tensor<32x64xf8E4M3FN>, tensor<8x1xf32>, tensor<32x128xf32>)
  return
}

// -----

shard.grid @tp(shape = 4)

// A per-tensor scale is shared by the group: it is returned as is.
func.func @agsmm_gathered_scale_per_tensor(%a: tensor<8x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op 'gathered_scale' must be tensor<f32>, got 'tensor<4xf32>'}}
  %0:3 = tp.all_gather_scaled_matmul %a scale %as, [%b scale %bs] on @tp axes = [0] dim = 0 per_tensor return_gathered : (tensor<8x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> (tensor<32x64xf8E4M3FN>, tensor<4xf32>, tensor<32x128xf32>)
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agsmm_product_shape(%a: tensor<8x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op 'products[0]' must be tensor<32x128xbf16>, got 'tensor<8x128xbf16>'}}
  %0 = tp.all_gather_scaled_matmul %a scale %as, [%b scale %bs] on @tp axes = [0] dim = 0 per_tensor : (tensor<8x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<8x128xbf16>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agsmm_bias_shape(%a: tensor<8x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>, %c: tensor<128xf32>) {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op 'bias of bs[0]' must be tensor<128xbf16>, got 'tensor<128xf32>'}}
  %0 = tp.all_gather_scaled_matmul %a scale %as, [%b scale %bs bias %c] on @tp axes = [0] dim = 0 per_tensor : (tensor<8x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>, tensor<128xf32>) -> tensor<32x128xbf16>
  return
}

//===----------------------------------------------------------------------===//
// scaled_matmul_reduce_scatter
//===----------------------------------------------------------------------===//

// -----

shard.grid @tp(shape = 4)

func.func @smmrs_a_rank(%a: tensor<64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.scaled_matmul_reduce_scatter' op 'a' must have at least 2 dims [..., M, K], got 'tensor<64xf8E4M3FN>'}}
  %0 = tp.scaled_matmul_reduce_scatter %a scale %as, %b scale %bs on @tp axes = [0] dim = 0 reduce = sum per_tensor : (tensor<64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<32xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @smmrs_reduce_max(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.scaled_matmul_reduce_scatter' op reduction 'max' cannot be fused with a matmul: only sum and avg distribute over the chunked product}}
  %0 = tp.scaled_matmul_reduce_scatter %a scale %as, %b scale %bs on @tp axes = [0] dim = 0 reduce = max per_tensor : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<8x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @smmrs_dim_out_of_range(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.scaled_matmul_reduce_scatter' op 'dim' 2 is out of range for 'a' of rank 2}}
  %0 = tp.scaled_matmul_reduce_scatter %a scale %as, %b scale %bs on @tp axes = [0] dim = 2 reduce = sum per_tensor : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<8x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @smmrs_result_count(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.scaled_matmul_reduce_scatter' op expected 2 results (the unreduced product if returned, then the reduced slice), got 1}}
  %0 = tp.scaled_matmul_reduce_scatter %a scale %as, %b scale %bs on @tp axes = [0] dim = 0 reduce = sum per_tensor return_unreduced : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<8x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @smmrs_nvfp4_without_global(%a: tensor<32x64xf4E2M1FN>, %as: tensor<32x4xf8E4M3FN>, %ag: tensor<f32>, %b: tensor<128x64xf4E2M1FN>, %bs: tensor<128x4xf8E4M3FN>) {
  // expected-error @+1 {{'tp.scaled_matmul_reduce_scatter' op 'b_global_scale' is required by nvfp4 scaling}}
  %0 = tp.scaled_matmul_reduce_scatter %a scale %as global %ag, %b scale %bs on @tp axes = [0] dim = 0 reduce = sum nvfp4 : (tensor<32x64xf4E2M1FN>, tensor<32x4xf8E4M3FN>, tensor<f32>, tensor<128x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>) -> tensor<8x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @smmrs_a_scale_shape(%a: tensor<2x32x64xf8E4M3FN>, %as: tensor<32x1xf32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<128x1xf32>) {
  // expected-error @+1 {{'tp.scaled_matmul_reduce_scatter' op 'a_scale' must be tensor<2x32x1xf32> for row_wise scaling of 'a' (tensor<2x32x64xf8E4M3FN>), got 'tensor<32x1xf32>'}}
  %0 = tp.scaled_matmul_reduce_scatter %a scale %as, %b scale %bs on @tp axes = [0] dim = 1 reduce = sum row_wise : (tensor<2x32x64xf8E4M3FN>, tensor<32x1xf32>, tensor<128x64xf8E4M3FN>, tensor<128x1xf32>) -> tensor<2x8x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @smmrs_both_e5m2(%a: tensor<32x64xf8E5M2>, %as: tensor<f32>, %b: tensor<128x64xf8E5M2>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.scaled_matmul_reduce_scatter' op 'a' and 'b' cannot both be f8E5M2: FP8 GEMMs need an f8E4M3FN operand}}
  %0 = tp.scaled_matmul_reduce_scatter %a scale %as, %b scale %bs on @tp axes = [0] dim = 0 reduce = sum per_tensor : (tensor<32x64xf8E5M2>, tensor<f32>, tensor<128x64xf8E5M2>, tensor<f32>) -> tensor<8x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @smmrs_n_alignment(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<40x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.scaled_matmul_reduce_scatter' op FP8/FP4 GEMM alignment: N (40) must be a multiple of 16}}
  %0 = tp.scaled_matmul_reduce_scatter %a scale %as, %b scale %bs on @tp axes = [0] dim = 0 reduce = sum per_tensor : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<40x64xf8E4M3FN>, tensor<f32>) -> tensor<8x40xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @smmrs_f64_result(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.scaled_matmul_reduce_scatter' op 'result' element type must be f32, bf16 or f16, got 'f64'}}
  %0 = tp.scaled_matmul_reduce_scatter %a scale %as, %b scale %bs on @tp axes = [0] dim = 0 reduce = sum per_tensor : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<8x128xf64>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @smmrs_results_element_types(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.scaled_matmul_reduce_scatter' op results must share one element type, got 'tensor<32x128xf32>'}}
  %0:2 = tp.scaled_matmul_reduce_scatter %a scale %as, %b scale %bs on @tp axes = [0] dim = 0 reduce = sum per_tensor return_unreduced : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> (tensor<32x128xf32>, tensor<8x128xbf16>)
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @smmrs_bias(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>, %c: tensor<32xbf16>) {
  // expected-error @+1 {{'tp.scaled_matmul_reduce_scatter' op 'bias' must be tensor<128xbf16>, got 'tensor<32xbf16>'}}
  %0 = tp.scaled_matmul_reduce_scatter %a scale %as, %b scale %bs bias %c on @tp axes = [0] dim = 0 reduce = sum per_tensor : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>, tensor<32xbf16>) -> tensor<8x128xbf16>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @smmrs_unreduced(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.scaled_matmul_reduce_scatter' op 'unreduced' must be tensor<32x128xf32>, got 'tensor<8x128xf32>'}}
  %0:2 = tp.scaled_matmul_reduce_scatter %a scale %as, %b scale %bs on @tp axes = [0] dim = 0 reduce = sum per_tensor return_unreduced : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> (tensor<8x128xf32>, tensor<8x128xf32>)
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @smmrs_reduced_size(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.scaled_matmul_reduce_scatter' op 'result' dim 1 (64) must be 'product a @ b' dim 1 (128) divided by the group size 4 = 32}}
  %0 = tp.scaled_matmul_reduce_scatter %a scale %as, %b scale %bs on @tp axes = [0] dim = 1 reduce = sum per_tensor : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<32x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @matmul_reduce_scatter_bias_on_scattered_n(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>, %b: tensor<64xf32>) -> tensor<32x16xf32> {
  // expected-error @+1 {{'tp.matmul_reduce_scatter' op 'bias' is added after the reduction over the whole N, so it cannot be used when scattering the last dim}}
  %0 = tp.matmul_reduce_scatter %x, %w bias %b on @tp axes = [0] dim = 1 reduce = sum : (tensor<32x16xf32>, tensor<16x64xf32>, tensor<64xf32>) -> tensor<32x16xf32>
  return %0 : tensor<32x16xf32>
}

// -----

shard.grid @tp(shape = 4)

func.func @scaled_matmul_reduce_scatter_bias_on_scattered_n(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>, %c: tensor<128xbf16>) -> tensor<32x32xbf16> {
  // expected-error @+1 {{'tp.scaled_matmul_reduce_scatter' op 'bias' is added after the reduction over the whole N, so it cannot be used when scattering the last dim}}
  %0 = tp.scaled_matmul_reduce_scatter %a scale %as, %b scale %bs bias %c on @tp axes = [0] dim = 1 reduce = sum per_tensor : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>, tensor<128xbf16>) -> tensor<32x32xbf16>
  return %0 : tensor<32x32xbf16>
}
