// Segfault in the op verifier (tp-opt FILE): operandSegmentSizes gives a
// required single operand an empty segment at the end of the operand list,
// so its getter dereferences past the last operand. ODS checks only the sum
// and that optional segments are 0 or 1.
func.func @f(%a: tensor<32x64xf8E4M3FN>, %as: tensor<f32>, %b: tensor<128x64xf8E4M3FN>, %bs: tensor<f32>) {
  %0 = "tp.scaled_matmul"(%a, %a, %as, %b) <{mode = #tp.scaling<per_tensor>, operandSegmentSizes = array<i32: 2, 1, 0, 1, 0, 0, 0>}> : (tensor<32x64xf8E4M3FN>, tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<128x64xf8E4M3FN>) -> tensor<32x128xf32>
  return
}
