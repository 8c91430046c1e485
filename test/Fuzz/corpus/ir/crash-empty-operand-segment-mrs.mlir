// Segfault in the op verifier (tp-opt FILE): operandSegmentSizes gives a
// required single operand an empty segment at the end of the operand list,
// so its getter dereferences past the last operand. ODS checks only the sum
// and that optional segments are 0 or 1.
shard.grid @tp(shape = 4)
func.func @f(%x: tensor<32x16xf32>, %w: tensor<16x64xf32>) {
  %0 = "tp.matmul_reduce_scatter"(%x, %w) <{dim = 0 : i64, grid = @tp, grid_axes = array<i16: 0>, operandSegmentSizes = array<i32: 2, 0, 0, 0>, reduce = #tp.reduction<sum>}> : (tensor<32x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
  return
}
