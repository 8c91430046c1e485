// TOSA that tp cannot compile is an error at the op's location, from tp-run
// and from tp-opt --tp-lower-to-llvm, never a crash.
//
// RUN: split-file --leading-lines %s %t
// RUN: not tp-run %t/custom.mlir --ranks 1 2>&1 | FileCheck %s --check-prefix=CUSTOM
// RUN: not tp-opt %t/custom.mlir --tp-lower-to-llvm -o /dev/null 2>&1 | FileCheck %s --check-prefix=CUSTOM-OPT
// RUN: not tp-run %t/variable.mlir --ranks 1 2>&1 | FileCheck %s --check-prefix=VARIABLE
// RUN: not tp-run %t/matmul.mlir --ranks 2 2>&1 | FileCheck %s --check-prefix=MATMUL
// RUN: not tp-opt %t/matmul.mlir --tp-async-tp-pipeline --tp-lower-to-llvm -o /dev/null 2>&1 | FileCheck %s --check-prefix=MATMUL-OPT

//--- custom.mlir
// tosa.custom has no lowering anywhere upstream: tosa-to-linalg cannot
// legalize it.
func.func @custom(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tosa.sigmoid %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = tosa.custom %0 {domain_name = "tp", operator_name = "gelu", implementation_attrs = ""} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CUSTOM: tp-run: cannot compile @custom: {{.*}}custom.mlir:[[@LINE-1]]:8: failed to legalize operation 'tosa.custom'
  // CUSTOM-OPT: custom.mlir:[[@LINE-2]]:8: error: failed to legalize operation 'tosa.custom'
  // CUSTOM-OPT: custom.mlir:[[@LINE-3]]:8: note: while lowering TOSA ops through upstream's conversions (tp-lower-tosa)
  return %1 : tensor<4x8xf32>
}

//--- variable.mlir
// A TOSA variable lives outside functions; upstream's conversions to
// linalg, arith, tensor and scf leave it, and tp says so.
module {
  tosa.variable @state = dense<0.0> : tensor<4xf32>
  // VARIABLE: tp-run: cannot compile @f: {{.*}}variable.mlir:[[@LINE-1]]:3: 'tosa.variable' op is not lowered by upstream's TOSA conversions (tosa-to-linalg-named, tosa-to-linalg, tosa-to-arith, tosa-to-tensor, tosa-to-scf); tp cannot compile it
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = tosa.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

//--- matmul.mlir
// What MLIR 22's shard-partition makes of a column-parallel tosa.matmul
// (shard.shard annotations of a 1x8x16 x 1x16x32 product, weight split by
// columns on 2 ranks): the weight is partitioned, the result type is not.
// The TOSA verifier accepts it; its lowering is a linalg.batch_matmul whose
// shapes disagree, reported at the tosa.matmul.
shard.grid @tp(shape = 2)
func.func @f(%arg0: tensor<1x4x16xf32>, %arg1: tensor<1x16x16xf32>) -> tensor<1x8x32xf32> {
  %0 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
  %all_gather = shard.all_gather %arg0 on @tp grid_axes = [0] gather_axis = 1 : tensor<1x4x16xf32> -> tensor<1x8x16xf32>
  %1 = tosa.matmul %all_gather, %arg1, %0, %0 : (tensor<1x8x16xf32>, tensor<1x16x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x32xf32>
  // MATMUL: tp-run: cannot compile @f: {{.*}}matmul.mlir:[[@LINE-1]]:8: 'linalg.batch_matmul' op inferred input/output operand #2 has shape's dimension #2 to be 16, but found 32
  // MATMUL-OPT: matmul.mlir:[[@LINE-2]]:8: error: 'linalg.batch_matmul' op inferred input/output operand #2 has shape's dimension #2 to be 16, but found 32
  // MATMUL-OPT: matmul.mlir:[[@LINE-3]]:8: note: while lowering TOSA ops through upstream's conversions (tp-lower-tosa)
  return %1 : tensor<1x8x32xf32>
}
