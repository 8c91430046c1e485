// An all_to_all whose split dim does not divide by the group size is refused
// before anything runs: the verifier names the op, its location, the dim and
// the group size (tp-run, and tp-opt alike).
// RUN: not tp-run %s --entry tp_form --ranks 4 2>&1 | FileCheck %s --check-prefix=TP
// RUN: not tp-opt %s --tp-import 2>&1 | FileCheck %s --check-prefix=TP

shard.grid @sp(shape = 4)

// TP: all-to-all-indivisible.mlir:[[@LINE+2]]:8: error: 'tp.all_to_all' op 'input' dim 1 (6) is the split dim and is not divisible by the group size 4
func.func @tp_form(%x: tensor<8x6xf32>) -> tensor<32x1xf32> {
  %y = tp.all_to_all %x on @sp axes = [0] split = 1 concat = 0 : tensor<8x6xf32> -> tensor<32x1xf32>
  return %y : tensor<32x1xf32>
}
