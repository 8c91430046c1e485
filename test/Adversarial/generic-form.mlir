// RUN: tp-opt %s --split-input-file --verify-diagnostics

// Hostile generic-form ops ("tp.op"(...) <{...}> : ...), which bypass the
// custom parsers: missing or extra operands and results, missing required
// attributes, attributes of the wrong kind, out-of-range values, unknown
// enum cases, inconsistent operandSegmentSizes, unranked and non-tensor
// operands, element type mismatches, and grid symbols that are missing or
// name something other than a shard.grid. Each must be a clean parser or
// verifier error. Unless a case says otherwise, @tp is a group of 4 ranks.

//===----------------------------------------------------------------------===//
// tp.all_gather
//===----------------------------------------------------------------------===//

shard.grid @tp(shape = 4)

func.func @all_gather_no_operand() {
  // expected-error @+1 {{'tp.all_gather' op requires a single operand}}
  %0 = "tp.all_gather"() <{dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>}> : () -> tensor<32x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @all_gather_two_operands(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'tp.all_gather' op requires a single operand}}
  %0 = "tp.all_gather"(%x, %x) <{dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>}> : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<32x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @all_gather_no_result(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'tp.all_gather' op requires one result}}
  "tp.all_gather"(%x) <{dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>}> : (tensor<8x64xf32>) -> ()
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @all_gather_two_results(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'tp.all_gather' op requires one result}}
  %0:2 = "tp.all_gather"(%x) <{dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>}> : (tensor<8x64xf32>) -> (tensor<32x64xf32>, tensor<32x64xf32>)
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @all_gather_missing_dim(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'tp.all_gather' op requires attribute 'dim'}}
  %0 = "tp.all_gather"(%x) <{grid = @tp, grid_axes = array<i16: 0>}> : (tensor<8x64xf32>) -> tensor<32x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @all_gather_missing_grid(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'tp.all_gather' op requires attribute 'grid'}}
  %0 = "tp.all_gather"(%x) <{dim = 0 : i64, grid_axes = array<i16: 0>}> : (tensor<8x64xf32>) -> tensor<32x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @all_gather_missing_grid_axes(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'tp.all_gather' op requires attribute 'grid_axes'}}
  %0 = "tp.all_gather"(%x) <{dim = 0 : i64, grid = @tp}> : (tensor<8x64xf32>) -> tensor<32x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

// A string where an i16 array is expected.
func.func @all_gather_grid_axes_string(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{invalid properties {dim = 0 : i64, grid = @tp, grid_axes = "0"} for op tp.all_gather: Invalid attribute `grid_axes` in property conversion: "0"}}
  %0 = "tp.all_gather"(%x) <{dim = 0 : i64, grid = @tp, grid_axes = "0"}> : (tensor<8x64xf32>) -> tensor<32x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

// An array of the wrong element width.
func.func @all_gather_grid_axes_i32(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{invalid properties {dim = 0 : i64, grid = @tp, grid_axes = array<i32: 0>} for op tp.all_gather: Invalid attribute `grid_axes` in property conversion: array<i32: 0>}}
  %0 = "tp.all_gather"(%x) <{dim = 0 : i64, grid = @tp, grid_axes = array<i32: 0>}> : (tensor<8x64xf32>) -> tensor<32x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

// An ArrayAttr of integers instead of a dense array.
func.func @all_gather_grid_axes_array_attr(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{invalid properties {dim = 0 : i64, grid = @tp, grid_axes = [0 : i16]} for op tp.all_gather: Invalid attribute `grid_axes` in property conversion: [0 : i16]}}
  %0 = "tp.all_gather"(%x) <{dim = 0 : i64, grid = @tp, grid_axes = [0 : i16]}> : (tensor<8x64xf32>) -> tensor<32x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @all_gather_dim_string(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{invalid properties {dim = "0", grid = @tp, grid_axes = array<i16: 0>} for op tp.all_gather: Invalid attribute `dim` in property conversion: "0"}}
  %0 = "tp.all_gather"(%x) <{dim = "0", grid = @tp, grid_axes = array<i16: 0>}> : (tensor<8x64xf32>) -> tensor<32x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @all_gather_dim_i32(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'tp.all_gather' op attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = "tp.all_gather"(%x) <{dim = 0 : i32, grid = @tp, grid_axes = array<i16: 0>}> : (tensor<8x64xf32>) -> tensor<32x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @all_gather_dim_negative(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'tp.all_gather' op attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = "tp.all_gather"(%x) <{dim = -1 : i64, grid = @tp, grid_axes = array<i16: 0>}> : (tensor<8x64xf32>) -> tensor<32x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @all_gather_dim_past_rank(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'tp.all_gather' op 'dim' 2 is out of range for 'input' of rank 2}}
  %0 = "tp.all_gather"(%x) <{dim = 2 : i64, grid = @tp, grid_axes = array<i16: 0>}> : (tensor<8x64xf32>) -> tensor<32x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @all_gather_vector_operand(%x: vector<8x64xf32>) {
  // expected-error @+1 {{'tp.all_gather' op operand #0 must be ranked tensor of any type values, but got 'vector<8x64xf32>'}}
  %0 = "tp.all_gather"(%x) <{dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>}> : (vector<8x64xf32>) -> tensor<32x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @all_gather_memref_operand(%x: memref<8x64xf32>) {
  // expected-error @+1 {{'tp.all_gather' op operand #0 must be ranked tensor of any type values, but got 'memref<8x64xf32>'}}
  %0 = "tp.all_gather"(%x) <{dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>}> : (memref<8x64xf32>) -> memref<32x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @all_gather_element_type(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'tp.all_gather' op 'result' element type 'i32' differs from 'input' element type 'f32'}}
  %0 = "tp.all_gather"(%x) <{dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>}> : (tensor<8x64xf32>) -> tensor<32x64xi32>
  return
}

// -----

shard.grid @tp(shape = 4)

// A string instead of a symbol reference.
func.func @all_gather_grid_string(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{invalid properties {dim = 0 : i64, grid = "tp", grid_axes = array<i16: 0>} for op tp.all_gather: Invalid attribute `grid` in property conversion: "tp"}}
  %0 = "tp.all_gather"(%x) <{dim = 0 : i64, grid = "tp", grid_axes = array<i16: 0>}> : (tensor<8x64xf32>) -> tensor<32x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

// A nested symbol reference where a flat one is required.
func.func @all_gather_grid_nested_ref(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{invalid properties {dim = 0 : i64, grid = @tp::@inner, grid_axes = array<i16: 0>} for op tp.all_gather: Invalid attribute `grid` in property conversion: @tp::@inner}}
  %0 = "tp.all_gather"(%x) <{dim = 0 : i64, grid = @tp::@inner, grid_axes = array<i16: 0>}> : (tensor<8x64xf32>) -> tensor<32x64xf32>
  return
}

// -----

// The grid symbol names a func, not a shard.grid.
func.func private @tp()

func.func @all_gather_grid_is_func(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'tp.all_gather' op 'grid' @tp does not name a shard.grid}}
  %0 = "tp.all_gather"(%x) <{dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>}> : (tensor<8x64xf32>) -> tensor<32x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

// Inherent attributes given in the discardable dictionary still reach the
// verifier.
func.func @all_gather_legacy_attr_dict(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'tp.all_gather' op 'result' dim 0 (16) must be 'input' dim 0 (8) times the group size 4 = 32}}
  %0 = "tp.all_gather"(%x) {dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>} : (tensor<8x64xf32>) -> tensor<16x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// tp.reduce_scatter, tp.all_reduce
//===----------------------------------------------------------------------===//

// -----

shard.grid @tp(shape = 4)

func.func @reduce_scatter_unknown_reduction(%x: tensor<32x64xf32>) {
  // expected-error @+2 {{expected ::mlir::tp::ReductionKind to be one of: sum, avg, max, min}}
  // expected-error @+1 {{failed to parse TP_ReductionKindAttr parameter 'value' which is to be a `::mlir::tp::ReductionKind`}}
  %0 = "tp.reduce_scatter"(%x) <{dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, reduce = #tp.reduction<prod>}> : (tensor<32x64xf32>) -> tensor<8x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

// The enum's integer value is not accepted in place of the attribute.
func.func @reduce_scatter_reduction_integer(%x: tensor<32x64xf32>) {
  // expected-error @+1 {{invalid properties {dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, reduce = 0 : i32} for op tp.reduce_scatter: Invalid attribute `reduce` in property conversion: 0 : i32}}
  %0 = "tp.reduce_scatter"(%x) <{dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, reduce = 0 : i32}> : (tensor<32x64xf32>) -> tensor<8x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

// An attribute of another tp enum.
func.func @reduce_scatter_reduction_wrong_enum(%x: tensor<32x64xf32>) {
  // expected-error @+1 {{invalid properties {dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, reduce = #tp.scaling<row_wise>} for op tp.reduce_scatter: Invalid attribute `reduce` in property conversion: #tp.scaling<row_wise>}}
  %0 = "tp.reduce_scatter"(%x) <{dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, reduce = #tp.scaling<row_wise>}> : (tensor<32x64xf32>) -> tensor<8x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @reduce_scatter_missing_reduce(%x: tensor<32x64xf32>) {
  // expected-error @+1 {{'tp.reduce_scatter' op requires attribute 'reduce'}}
  %0 = "tp.reduce_scatter"(%x) <{dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>}> : (tensor<32x64xf32>) -> tensor<8x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @reduce_scatter_unranked_result(%x: tensor<32x64xf32>) {
  // expected-error @+1 {{'tp.reduce_scatter' op result #0 must be ranked tensor of any type values, but got 'tensor<*xf32>'}}
  %0 = "tp.reduce_scatter"(%x) <{dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, reduce = #tp.reduction<sum>}> : (tensor<32x64xf32>) -> tensor<*xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @all_reduce_element_type(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'tp.all_reduce' op failed to verify that all of {input, result} have same type}}
  %0 = "tp.all_reduce"(%x) <{grid = @tp, grid_axes = array<i16: 0>, reduce = #tp.reduction<sum>}> : (tensor<8x64xf32>) -> tensor<8x64xbf16>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @all_reduce_missing_reduce(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'tp.all_reduce' op requires attribute 'reduce'}}
  %0 = "tp.all_reduce"(%x) <{grid = @tp, grid_axes = array<i16: 0>}> : (tensor<8x64xf32>) -> tensor<8x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @all_reduce_two_results(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'tp.all_reduce' op requires one result}}
  %0:2 = "tp.all_reduce"(%x) <{grid = @tp, grid_axes = array<i16: 0>, reduce = #tp.reduction<sum>}> : (tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>)
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @all_reduce_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{'tp.all_reduce' op operand #0 must be ranked tensor of any type values, but got 'tensor<*xf32>'}}
  %0 = "tp.all_reduce"(%x) <{grid = @tp, grid_axes = array<i16: 0>, reduce = #tp.reduction<sum>}> : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

// Enum cases are keywords; their integer values do not parse.
func.func @all_reduce_reduction_by_number(%x: tensor<8x64xf32>) {
  // expected-error @+2 {{expected valid keyword or string}}
  // expected-error @+1 {{failed to parse TP_ReductionKindAttr parameter 'value' which is to be a `::mlir::tp::ReductionKind`}}
  %0 = "tp.all_reduce"(%x) <{grid = @tp, grid_axes = array<i16: 0>, reduce = #tp.reduction<7>}> : (tensor<8x64xf32>) -> tensor<8x64xf32>
  return
}

// -----

func.func @all_reduce_unknown_grid(%x: tensor<8x64xf32>) {
  // expected-error @+1 {{'tp.all_reduce' op 'grid' @nowhere does not name a shard.grid}}
  %0 = "tp.all_reduce"(%x) <{grid = @nowhere, grid_axes = array<i16: 0>, reduce = #tp.reduction<sum>}> : (tensor<8x64xf32>) -> tensor<8x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// tp.group_rank
//===----------------------------------------------------------------------===//

// -----

shard.grid @tp(shape = 4)

func.func @group_rank_with_operand(%x: index) {
  // expected-error @+1 {{'tp.group_rank' op requires zero operands}}
  %0 = "tp.group_rank"(%x) <{grid = @tp, grid_axes = array<i16: 0>}> : (index) -> index
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @group_rank_two_results() {
  // expected-error @+1 {{'tp.group_rank' op requires one result}}
  %0:2 = "tp.group_rank"() <{grid = @tp, grid_axes = array<i16: 0>}> : () -> (index, index)
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @group_rank_empty_axes() {
  // expected-error @+1 {{'tp.group_rank' op 'grid_axes' must name at least one axis of @tp}}
  %0 = "tp.group_rank"() <{grid = @tp, grid_axes = array<i16>}> : () -> index
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @group_rank_missing_axes() {
  // expected-error @+1 {{'tp.group_rank' op requires attribute 'grid_axes'}}
  %0 = "tp.group_rank"() <{grid = @tp}> : () -> index
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @group_rank_tensor_result() {
  // expected-error @+1 {{'tp.group_rank' op result #0 must be index, but got 'tensor<index>'}}
  %0 = "tp.group_rank"() <{grid = @tp, grid_axes = array<i16: 0>}> : () -> tensor<index>
  return
}

//===----------------------------------------------------------------------===//
// tp.matmul, tp.batch_matmul, tp.bias_add
//===----------------------------------------------------------------------===//

// -----

func.func @matmul_one_operand(%a: tensor<32x64xf32>) {
  // expected-error @+1 {{'tp.matmul' op expected 2 operands, but found 1}}
  %0 = "tp.matmul"(%a) : (tensor<32x64xf32>) -> tensor<32x128xf32>
  return
}

// -----

func.func @matmul_transpose_b_integer(%a: tensor<32x64xf32>, %b: tensor<64x128xf32>) {
  // expected-error @+1 {{invalid properties {transpose_b = 1 : i64} for op tp.matmul: Invalid attribute `transpose_b` in property conversion: 1 : i64}}
  %0 = "tp.matmul"(%a, %b) <{transpose_b = 1 : i64}> : (tensor<32x64xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
  return
}

// -----

// transpose_b set by a unit attribute: B is then read as [N, K].
func.func @matmul_transpose_b_unit(%a: tensor<32x64xf32>, %b: tensor<64x128xf32>) {
  // expected-error @+2 {{contraction dims differ: 'lhs' has K = 64, 'rhs' has K = 128 (B is [N, K])}}
  // expected-error @+1 {{'tp.matmul' op failed to infer returned types}}
  %0 = "tp.matmul"(%a, %b) <{transpose_b = unit}> : (tensor<32x64xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
  return
}

// -----

func.func @matmul_no_result(%a: tensor<32x64xf32>, %b: tensor<64x128xf32>) {
  // expected-error @+1 {{'tp.matmul' op requires one result}}
  "tp.matmul"(%a, %b) : (tensor<32x64xf32>, tensor<64x128xf32>) -> ()
  return
}

// -----

func.func @matmul_unranked_rhs(%a: tensor<32x64xf32>, %b: tensor<*xf32>) {
  // expected-error @+1 {{'tp.matmul' op operand #1 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<*xf32>'}}
  %0 = "tp.matmul"(%a, %b) : (tensor<32x64xf32>, tensor<*xf32>) -> tensor<32x128xf32>
  return
}

// -----

func.func @matmul_result_element_type(%a: tensor<32x64xf32>, %b: tensor<64x128xf32>) {
  // expected-error @+2 {{'tp.matmul' op inferred type(s) 'tensor<32x128xf32>' are incompatible with return type(s) of operation 'tensor<32x128xf16>'}}
  // expected-error @+1 {{'tp.matmul' op failed to infer returned types}}
  %0 = "tp.matmul"(%a, %b) : (tensor<32x64xf32>, tensor<64x128xf32>) -> tensor<32x128xf16>
  return
}

// -----

func.func @batch_matmul_three_operands(%a: tensor<4x32x64xf32>, %b: tensor<4x64x128xf32>) {
  // expected-error @+1 {{'tp.batch_matmul' op expected 2 operands, but found 3}}
  %0 = "tp.batch_matmul"(%a, %b, %b) : (tensor<4x32x64xf32>, tensor<4x64x128xf32>, tensor<4x64x128xf32>) -> tensor<4x32x128xf32>
  return
}

// -----

func.func @batch_matmul_two_results(%a: tensor<4x32x64xf32>, %b: tensor<4x64x128xf32>) {
  // expected-error @+1 {{'tp.batch_matmul' op requires one result}}
  %0:2 = "tp.batch_matmul"(%a, %b) : (tensor<4x32x64xf32>, tensor<4x64x128xf32>) -> (tensor<4x32x128xf32>, tensor<4x32x128xf32>)
  return
}

// -----

func.func @bias_add_one_operand(%x: tensor<32x128xf32>) {
  // expected-error @+1 {{'tp.bias_add' op expected 2 operands, but found 1}}
  %0 = "tp.bias_add"(%x) : (tensor<32x128xf32>) -> tensor<32x128xf32>
  return
}

// -----

func.func @bias_add_unranked_bias(%x: tensor<32x128xf32>, %b: tensor<*xf32>) {
  // expected-error @+1 {{'tp.bias_add' op operand #1 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<*xf32>'}}
  %0 = "tp.bias_add"(%x, %b) : (tensor<32x128xf32>, tensor<*xf32>) -> tensor<32x128xf32>
  return
}

// -----

func.func @bias_add_result_shape(%x: tensor<32x128xf32>, %b: tensor<128xf32>) {
  // expected-error @+1 {{'tp.bias_add' op failed to verify that all of {input, result} have same type}}
  %0 = "tp.bias_add"(%x, %b) : (tensor<32x128xf32>, tensor<128xf32>) -> tensor<32x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// tp.linear
//===----------------------------------------------------------------------===//

// -----

shard.grid @tp(shape = 4)

func.func @linear_missing_weight_sharding(%x: tensor<32x64xf32>, %w: tensor<32x64xf32>) {
  // expected-error @+1 {{'tp.linear' op requires attribute 'weight_sharding'}}
  %0 = "tp.linear"(%x, %w) <{grid = @tp, grid_axes = array<i16: 0>, input_placement = #tp.placement<replicated>, output_placement = #tp.placement<shard(1)>}> : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x32xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @linear_placement_integer(%x: tensor<32x64xf32>, %w: tensor<32x64xf32>) {
  // expected-error @+1 {{Invalid attribute `input_placement` in property conversion: 0 : i64}}
  %0 = "tp.linear"(%x, %w) <{grid = @tp, grid_axes = array<i16: 0>, input_placement = 0 : i64, output_placement = #tp.placement<shard(1)>, weight_sharding = #tp.weight_sharding<column>}> : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x32xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @linear_unknown_weight_sharding(%x: tensor<32x64xf32>, %w: tensor<32x64xf32>) {
  // expected-error @+2 {{expected ::mlir::tp::WeightSharding to be one of: column, row}}
  // expected-error @+1 {{failed to parse TP_WeightShardingAttr parameter 'value' which is to be a `::mlir::tp::WeightSharding`}}
  %0 = "tp.linear"(%x, %w) <{grid = @tp, grid_axes = array<i16: 0>, input_placement = #tp.placement<replicated>, output_placement = #tp.placement<shard(1)>, weight_sharding = #tp.weight_sharding<diagonal>}> : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x32xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @linear_weight_sharding_wrong_enum(%x: tensor<32x64xf32>, %w: tensor<32x64xf32>) {
  // expected-error @+1 {{Invalid attribute `weight_sharding` in property conversion: #tp.reduction<sum>}}
  %0 = "tp.linear"(%x, %w) <{grid = @tp, grid_axes = array<i16: 0>, input_placement = #tp.placement<replicated>, output_placement = #tp.placement<shard(1)>, weight_sharding = #tp.reduction<sum>}> : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x32xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @linear_placement_shard_without_dim(%x: tensor<32x64xf32>, %w: tensor<32x64xf32>) {
  // expected-error @+1 {{expected '('}}
  %0 = "tp.linear"(%x, %w) <{grid = @tp, grid_axes = array<i16: 0>, input_placement = #tp.placement<shard(0)>, output_placement = #tp.placement<shard>, weight_sharding = #tp.weight_sharding<column>}> : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x32xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @linear_placement_negative(%x: tensor<32x64xf32>, %w: tensor<32x64xf32>) {
  // expected-error @+1 {{placement shard dimension must be non-negative, got -2}}
  %0 = "tp.linear"(%x, %w) <{grid = @tp, grid_axes = array<i16: 0>, input_placement = #tp.placement<replicated>, output_placement = #tp.placement<shard(-2)>, weight_sharding = #tp.weight_sharding<column>}> : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x32xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

// The optional bias takes at most one operand.
func.func @linear_four_operands(%x: tensor<32x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>) {
  // expected-error @+1 {{'tp.linear' op operand group starting at #2 requires 0 or 1 element, but found 2}}
  %0 = "tp.linear"(%x, %w, %b, %b) <{grid = @tp, grid_axes = array<i16: 0>, input_placement = #tp.placement<replicated>, output_placement = #tp.placement<shard(1)>, weight_sharding = #tp.weight_sharding<column>}> : (tensor<32x64xf32>, tensor<32x64xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<32x32xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @linear_no_weight(%x: tensor<32x64xf32>) {
  // expected-error @+1 {{'tp.linear' op expected 2 or more operands, but found 1}}
  %0 = "tp.linear"(%x) <{grid = @tp, grid_axes = array<i16: 0>, input_placement = #tp.placement<replicated>, output_placement = #tp.placement<shard(1)>, weight_sharding = #tp.weight_sharding<column>}> : (tensor<32x64xf32>) -> tensor<32x32xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @linear_two_results(%x: tensor<32x64xf32>, %w: tensor<32x64xf32>) {
  // expected-error @+1 {{'tp.linear' op requires one result}}
  %0:2 = "tp.linear"(%x, %w) <{grid = @tp, grid_axes = array<i16: 0>, input_placement = #tp.placement<replicated>, output_placement = #tp.placement<shard(1)>, weight_sharding = #tp.weight_sharding<column>}> : (tensor<32x64xf32>, tensor<32x64xf32>) -> (tensor<32x32xf32>, tensor<32x32xf32>)
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @linear_result_element_type(%x: tensor<32x64xf32>, %w: tensor<32x64xf32>) {
  // expected-error @+1 {{'tp.linear' op 'input', 'weight' and 'result' must share one element type}}
  %0 = "tp.linear"(%x, %w) <{grid = @tp, grid_axes = array<i16: 0>, input_placement = #tp.placement<replicated>, output_placement = #tp.placement<shard(1)>, weight_sharding = #tp.weight_sharding<column>}> : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x32xf64>
  return
}

//===----------------------------------------------------------------------===//
// tp.quantize, tp.dequantize
//===----------------------------------------------------------------------===//

// -----

func.func @quantize_missing_mode(%x: tensor<64x128xf32>) {
  // expected-error @+1 {{'tp.quantize' op requires attribute 'mode'}}
  %q, %s = "tp.quantize"(%x) : (tensor<64x128xf32>) -> (tensor<64x128xf8E4M3FN>, tensor<64x1xf32>)
  return
}

// -----

func.func @quantize_four_results(%x: tensor<64x128xf32>) {
  // expected-error @+1 {{'tp.quantize' op result group starting at #2 requires 0 or 1 element, but found 2}}
  %q:4 = "tp.quantize"(%x) <{mode = #tp.scaling<nvfp4>}> : (tensor<64x128xf32>) -> (tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN>, tensor<f32>, tensor<f32>)
  return
}

// -----

func.func @quantize_no_results(%x: tensor<64x128xf32>) {
  // expected-error @+1 {{'tp.quantize' op expected 2 or more results}}
  "tp.quantize"(%x) <{mode = #tp.scaling<row_wise>}> : (tensor<64x128xf32>) -> ()
  return
}

// -----

func.func @quantize_one_result(%x: tensor<64x128xf32>) {
  // expected-error @+1 {{'tp.quantize' op expected 2 or more results}}
  %q = "tp.quantize"(%x) <{mode = #tp.scaling<row_wise>}> : (tensor<64x128xf32>) -> (tensor<64x128xf8E4M3FN>)
  return
}

// -----

func.func @quantize_unknown_mode(%x: tensor<64x128xf32>) {
  // expected-error @+2 {{expected ::mlir::tp::ScalingMode to be one of: per_tensor, row_wise, mxfp8, nvfp4}}
  // expected-error @+1 {{failed to parse TP_ScalingModeAttr parameter 'value' which is to be a `::mlir::tp::ScalingMode`}}
  %q, %s = "tp.quantize"(%x) <{mode = #tp.scaling<mxfp4>}> : (tensor<64x128xf32>) -> (tensor<64x128xf8E4M3FN>, tensor<64x1xf32>)
  return
}

// -----

func.func @quantize_mode_string(%x: tensor<64x128xf32>) {
  // expected-error @+1 {{invalid properties {mode = "row_wise"} for op tp.quantize: Invalid attribute `mode` in property conversion: "row_wise"}}
  %q, %s = "tp.quantize"(%x) <{mode = "row_wise"}> : (tensor<64x128xf32>) -> (tensor<64x128xf8E4M3FN>, tensor<64x1xf32>)
  return
}

// -----

func.func @quantize_with_region(%x: tensor<64x128xf32>) {
  // expected-error @+1 {{'tp.quantize' op requires zero regions}}
  %q, %s = "tp.quantize"(%x) <{mode = #tp.scaling<row_wise>}> ({
  ^bb0:
    "tp.group_rank"() : () -> ()
  }) : (tensor<64x128xf32>) -> (tensor<64x128xf8E4M3FN>, tensor<64x1xf32>)
  return
}

// -----

func.func @dequantize_no_scale(%q: tensor<64x128xf8E4M3FN>) {
  // expected-error @+1 {{'tp.dequantize' op expected 2 or more operands, but found 1}}
  %0 = "tp.dequantize"(%q) <{mode = #tp.scaling<per_tensor>}> : (tensor<64x128xf8E4M3FN>) -> tensor<64x128xf32>
  return
}

// -----

func.func @dequantize_four_operands(%q: tensor<64x128xf8E4M3FN>, %s: tensor<f32>) {
  // expected-error @+1 {{'tp.dequantize' op operand group starting at #2 requires 0 or 1 element, but found 2}}
  %0 = "tp.dequantize"(%q, %s, %s, %s) <{mode = #tp.scaling<per_tensor>}> : (tensor<64x128xf8E4M3FN>, tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<64x128xf32>
  return
}

// -----

func.func @dequantize_global_scale_not_scalar(%q: tensor<64x128xf4E2M1FN>, %s: tensor<64x8xf8E4M3FN>, %g: tensor<1xf32>) {
  // expected-error @+1 {{'tp.dequantize' op operand #2 must be 0D tensor of 32-bit float values, but got 'tensor<1xf32>'}}
  %0 = "tp.dequantize"(%q, %s, %g) <{mode = #tp.scaling<nvfp4>}> : (tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN>, tensor<1xf32>) -> tensor<64x128xf32>
  return
}

// -----

func.func @dequantize_integer_result(%q: tensor<64x128xf8E4M3FN>, %s: tensor<f32>) {
  // expected-error @+1 {{'tp.dequantize' op result #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<64x128xi8>'}}
  %0 = "tp.dequantize"(%q, %s) <{mode = #tp.scaling<per_tensor>}> : (tensor<64x128xf8E4M3FN>, tensor<f32>) -> tensor<64x128xi8>
  return
}

//===----------------------------------------------------------------------===//
// tp.scaled_matmul: operandSegmentSizes
//===----------------------------------------------------------------------===//

// -----

func.func @scaled_matmul_no_segment_sizes(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.scaled_matmul' op operand count (4) does not match with the total size (0) specified in attribute 'operandSegmentSizes'}}
  %0 = "tp.scaled_matmul"(%a, %as, %b, %bs) <{mode = #tp.scaling<per_tensor>}> : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<32x128xf32>
  return
}

// -----

func.func @scaled_matmul_short_segment_sizes(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{for op tp.scaled_matmul: size mismatch in attribute conversion: 5 vs 7}}
  %0 = "tp.scaled_matmul"(%a, %as, %b, %bs) <{mode = #tp.scaling<per_tensor>, operandSegmentSizes = array<i32: 1, 1, 0, 1, 1>}> : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<32x128xf32>
  return
}

// -----

// The segments claim a bias the operand list does not have.
func.func @scaled_matmul_segment_sum(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.scaled_matmul' op operand count (4) does not match with the total size (5) specified in attribute 'operandSegmentSizes'}}
  %0 = "tp.scaled_matmul"(%a, %as, %b, %bs) <{mode = #tp.scaling<per_tensor>, operandSegmentSizes = array<i32: 1, 1, 0, 1, 1, 0, 1>}> : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<32x128xf32>
  return
}

// -----

func.func @scaled_matmul_optional_segment_of_two(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.scaled_matmul' op operand group starting at #2 requires 0 or 1 element, but found 2}}
  %0 = "tp.scaled_matmul"(%a, %as, %b, %bs, %as) <{mode = #tp.scaling<per_tensor>, operandSegmentSizes = array<i32: 1, 1, 2, 1, 0, 0, 0>}> : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>, tensor<f32>) -> tensor<32x128xf32>
  return
}

// -----

func.func @scaled_matmul_negative_segment(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.scaled_matmul' op 'operandSegmentSizes' attribute cannot have negative elements}}
  %0 = "tp.scaled_matmul"(%a, %as, %b, %bs) <{mode = #tp.scaling<per_tensor>, operandSegmentSizes = array<i32: 2, 1, -1, 1, 1, 0, 0>}> : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<32x128xf32>
  return
}

// -----

func.func @scaled_matmul_segment_sizes_i64(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{for op tp.scaled_matmul: expected DenseI32ArrayAttr for key `value`}}
  %0 = "tp.scaled_matmul"(%a, %as, %b, %bs) <{mode = #tp.scaling<per_tensor>, operandSegmentSizes = array<i64: 1, 1, 0, 1, 1, 0, 0>}> : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<32x128xf32>
  return
}

// -----

func.func @scaled_matmul_no_operands() {
  // expected-error @+1 {{'tp.scaled_matmul' op expected 4 or more operands, but found 0}}
  %0 = "tp.scaled_matmul"() <{mode = #tp.scaling<per_tensor>, operandSegmentSizes = array<i32: 0, 0, 0, 0, 0, 0, 0>}> : () -> tensor<32x128xf32>
  return
}

//===----------------------------------------------------------------------===//
// tp.all_gather_matmul
//===----------------------------------------------------------------------===//

// -----

shard.grid @tp(shape = 4)

func.func @agmm_missing_bias_mask(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) {
  // expected-error @+1 {{'tp.all_gather_matmul' op requires attribute 'bias_mask'}}
  %0 = "tp.all_gather_matmul"(%x, %w) <{dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<8x64xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agmm_bias_mask_i32(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) {
  // expected-error @+1 {{Invalid attribute `bias_mask` in property conversion: array<i32: 0>}}
  %0 = "tp.all_gather_matmul"(%x, %w) <{bias_mask = array<i32: 0>, dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<8x64xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agmm_chunks_zero(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) {
  // expected-error @+1 {{'tp.all_gather_matmul' op attribute 'chunks' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = "tp.all_gather_matmul"(%x, %w) <{bias_mask = array<i1: false>, chunks = 0 : i64, dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<8x64xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agmm_chunks_negative(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) {
  // expected-error @+1 {{'tp.all_gather_matmul' op attribute 'chunks' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = "tp.all_gather_matmul"(%x, %w) <{bias_mask = array<i1: false>, chunks = -3 : i64, dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<8x64xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agmm_algorithm_string(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) {
  // expected-error @+1 {{Invalid attribute `algorithm` in property conversion: "ring"}}
  %0 = "tp.all_gather_matmul"(%x, %w) <{algorithm = "ring", bias_mask = array<i1: false>, dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<8x64xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agmm_algorithm_unknown(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) {
  // expected-error @+2 {{expected ::mlir::tp::Algorithm to be one of: ring, per_peer}}
  // expected-error @+1 {{failed to parse TP_AlgorithmAttr parameter 'value' which is to be a `::mlir::tp::Algorithm`}}
  %0 = "tp.all_gather_matmul"(%x, %w) <{algorithm = #tp.algorithm<tree>, bias_mask = array<i1: false>, dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<8x64xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agmm_algorithm_by_number(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) {
  // expected-error @+2 {{expected valid keyword or string}}
  // expected-error @+1 {{failed to parse TP_AlgorithmAttr parameter 'value' which is to be a `::mlir::tp::Algorithm`}}
  %0 = "tp.all_gather_matmul"(%x, %w) <{algorithm = #tp.algorithm<2>, bias_mask = array<i1: false>, dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<8x64xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agmm_return_gathered_bool(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) {
  // expected-error @+1 {{Invalid attribute `return_gathered` in property conversion: true}}
  %0 = "tp.all_gather_matmul"(%x, %w) <{bias_mask = array<i1: false>, dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, operandSegmentSizes = array<i32: 1, 1, 0>, return_gathered = true}> : (tensor<8x64xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agmm_no_results(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) {
  // expected-error @+1 {{'tp.all_gather_matmul' op expected 1 results (the gathered A if returned, then one per B), got 0}}
  "tp.all_gather_matmul"(%x, %w) <{bias_mask = array<i1: false>, dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<8x64xf32>, tensor<64x128xf32>) -> ()
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agmm_segment_sum(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) {
  // expected-error @+1 {{'tp.all_gather_matmul' op operand count (2) does not match with the total size (3) specified in attribute 'operandSegmentSizes'}}
  %0 = "tp.all_gather_matmul"(%x, %w) <{bias_mask = array<i1: false>, dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, operandSegmentSizes = array<i32: 1, 2, 0>}> : (tensor<8x64xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agmm_no_operands() {
  // expected-error @+1 {{'tp.all_gather_matmul' op expected 1 or more operands, but found 0}}
  "tp.all_gather_matmul"() <{bias_mask = array<i1>, dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, operandSegmentSizes = array<i32: 0, 0, 0>}> : () -> ()
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agmm_integer_result(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) {
  // expected-error @+1 {{'tp.all_gather_matmul' op result #0 must be variadic of ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<32x128xi32>'}}
  %0 = "tp.all_gather_matmul"(%x, %w) <{bias_mask = array<i1: false>, dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<8x64xf32>, tensor<64x128xf32>) -> tensor<32x128xi32>
  return
}

//===----------------------------------------------------------------------===//
// tp.matmul_reduce_scatter
//===----------------------------------------------------------------------===//

// -----

shard.grid @tp(shape = 4)

func.func @mmrs_bias_segment_of_two(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'tp.matmul_reduce_scatter' op operand group starting at #2 requires 0 or 1 element, but found 2}}
  %0 = "tp.matmul_reduce_scatter"(%x, %w, %w, %w) <{dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, operandSegmentSizes = array<i32: 1, 1, 2, 0>, reduce = #tp.reduction<sum>}> : (tensor<32x16xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @mmrs_reduce_max(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'tp.matmul_reduce_scatter' op reduction 'max' cannot be fused with a matmul: only sum and avg distribute over the chunked product}}
  %0 = "tp.matmul_reduce_scatter"(%x, %w) <{dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, operandSegmentSizes = array<i32: 1, 1, 0, 0>, reduce = #tp.reduction<max>}> : (tensor<32x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @mmrs_return_unreduced_bool(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{Invalid attribute `return_unreduced` in property conversion: false}}
  %0 = "tp.matmul_reduce_scatter"(%x, %w) <{dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, operandSegmentSizes = array<i32: 1, 1, 0, 0>, reduce = #tp.reduction<sum>, return_unreduced = false}> : (tensor<32x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @mmrs_missing_reduce(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'tp.matmul_reduce_scatter' op requires attribute 'reduce'}}
  %0 = "tp.matmul_reduce_scatter"(%x, %w) <{dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (tensor<32x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @mmrs_missing_segment_sizes(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'tp.matmul_reduce_scatter' op operand count (2) does not match with the total size (0) specified in attribute 'operandSegmentSizes'}}
  %0 = "tp.matmul_reduce_scatter"(%x, %w) <{dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, reduce = #tp.reduction<sum>}> : (tensor<32x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @mmrs_three_results(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'tp.matmul_reduce_scatter' op expected 1 results (the unreduced product if returned, then the reduced slice), got 3}}
  %0:3 = "tp.matmul_reduce_scatter"(%x, %w) <{dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, operandSegmentSizes = array<i32: 1, 1, 0, 0>, reduce = #tp.reduction<sum>}> : (tensor<32x16xf32>, tensor<16x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>)
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @mmrs_chunks_i32(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'tp.matmul_reduce_scatter' op attribute 'chunks' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = "tp.matmul_reduce_scatter"(%x, %w) <{chunks = 2 : i32, dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, operandSegmentSizes = array<i32: 1, 1, 0, 0>, reduce = #tp.reduction<sum>}> : (tensor<32x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @mmrs_one_operand(%w: tensor<16x64xf32>) {
  // expected-error @+1 {{'tp.matmul_reduce_scatter' op expected 2 or more operands, but found 1}}
  %0 = "tp.matmul_reduce_scatter"(%w) <{dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, operandSegmentSizes = array<i32: 0, 1, 0, 0>, reduce = #tp.reduction<sum>}> : (tensor<16x64xf32>) -> tensor<8x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// tp.all_gather_scaled_matmul, tp.scaled_matmul_reduce_scatter
//===----------------------------------------------------------------------===//

// -----

shard.grid @tp(shape = 4)

func.func @agsmm_missing_mode(%a: tensor<8x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op requires attribute 'mode'}}
  %0 = "tp.all_gather_scaled_matmul"(%a, %as, %b, %bs) <{bias_mask = array<i1: false>, dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, operandSegmentSizes = array<i32: 1, 1, 0, 1, 1, 0, 0>}> : (tensor<8x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agsmm_six_segments(%a: tensor<8x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{for op tp.all_gather_scaled_matmul: size mismatch in attribute conversion: 6 vs 7}}
  %0 = "tp.all_gather_scaled_matmul"(%a, %as, %b, %bs) <{bias_mask = array<i1: false>, dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, mode = #tp.scaling<per_tensor>, operandSegmentSizes = array<i32: 1, 1, 0, 1, 1, 0>}> : (tensor<8x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<32x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @agsmm_fp8_product(%a: tensor<8x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.all_gather_scaled_matmul' op 'products[0]' element type must be f32, bf16 or f16, got 'f8E4M3FN'}}
  %0 = "tp.all_gather_scaled_matmul"(%a, %as, %b, %bs) <{bias_mask = array<i1: false>, dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, mode = #tp.scaling<per_tensor>, operandSegmentSizes = array<i32: 1, 1, 0, 1, 1, 0, 0>}> : (tensor<8x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<32x128xf8E4M3FN>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @smmrs_global_scale_not_scalar(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>, %g: tensor<1xf32>) {
  // expected-error @+1 {{'tp.scaled_matmul_reduce_scatter' op operand #2 must be 0D tensor of 32-bit float values, but got 'tensor<1xf32>'}}
  %0 = "tp.scaled_matmul_reduce_scatter"(%a, %as, %g, %b, %bs) <{dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, mode = #tp.scaling<per_tensor>, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0>, reduce = #tp.reduction<sum>}> : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<1xf32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<8x128xf32>
  return
}

// -----

func.func @smmrs_missing_grid(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.scaled_matmul_reduce_scatter' op requires attribute 'grid'}}
  %0 = "tp.scaled_matmul_reduce_scatter"(%a, %as, %b, %bs) <{dim = 0 : i64, grid_axes = array<i16: 0>, mode = #tp.scaling<per_tensor>, operandSegmentSizes = array<i32: 1, 1, 0, 1, 1, 0, 0>, reduce = #tp.reduction<sum>}> : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<8x128xf32>
  return
}

// -----

func.func private @tp()

func.func @smmrs_grid_is_func(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.scaled_matmul_reduce_scatter' op 'grid' @tp does not name a shard.grid}}
  %0 = "tp.scaled_matmul_reduce_scatter"(%a, %as, %b, %bs) <{dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, mode = #tp.scaling<per_tensor>, operandSegmentSizes = array<i32: 1, 1, 0, 1, 1, 0, 0>, reduce = #tp.reduction<sum>}> : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<8x128xf32>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @smmrs_fp8_result(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.scaled_matmul_reduce_scatter' op result #0 must be variadic of ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<8x128xf8E4M3FN>'}}
  %0 = "tp.scaled_matmul_reduce_scatter"(%a, %as, %b, %bs) <{dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, mode = #tp.scaling<per_tensor>, operandSegmentSizes = array<i32: 1, 1, 0, 1, 1, 0, 0>, reduce = #tp.reduction<sum>}> : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<8x128xf8E4M3FN>
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @smmrs_three_operands(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  // expected-error @+1 {{'tp.scaled_matmul_reduce_scatter' op expected 4 or more operands, but found 3}}
  %0 = "tp.scaled_matmul_reduce_scatter"(%as, %b, %bs) <{dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, mode = #tp.scaling<per_tensor>, operandSegmentSizes = array<i32: 0, 1, 0, 1, 1, 0, 0>, reduce = #tp.reduction<sum>}> : (tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<f32>) -> tensor<8x128xf32>
  return
}
