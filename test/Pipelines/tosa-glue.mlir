// TOSA glue between the matmuls of a sequence-parallel MLP, as a frontend
// emitting TOSA writes it: upstream shard-partition partitions it, tp-opt
// parses the TOSA ops, imports and fuses around them (they stay TOSA: the
// fusion only needs the collectives and the matmuls), and tp-lower-to-llvm
// lowers them through upstream's TOSA conversions (tp-lower-tosa).
//
// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(shard-partition,canonicalize,cse))' \
// RUN:   | tp-opt --tp-async-tp-pipeline=emit-remarks 2>&1 | FileCheck %s
// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(shard-partition,canonicalize,cse))' \
// RUN:   | tp-opt --tp-lower-tosa --tp-async-tp-pipeline=emit-remarks 2>&1 | FileCheck %s --check-prefix=EARLY
// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(shard-partition,canonicalize,cse))' \
// RUN:   | tp-opt --tp-async-tp-pipeline --tp-lower-to-llvm | FileCheck %s --check-prefix=LLVM
//
// A module without TOSA ops: tp-lower-tosa leaves it exactly as it is (no
// canonicalization, no folding), so tp-lower-to-llvm lowers it as before.
// RUN: mlir-opt %S/Inputs/seqpar_mlp.mlir --pass-pipeline='builtin.module(func.func(shard-partition))' -o %t.notosa.mlir
// RUN: tp-opt %t.notosa.mlir -o %t.before.mlir
// RUN: tp-opt %t.notosa.mlir --tp-lower-tosa -o %t.after.mlir
// RUN: diff %t.before.mlir %t.after.mlir

shard.grid @tp(shape = 4)

// A sequence-parallel MLP whose activation a frontend wrote in TOSA:
// y = silu(x @ w1 + o1 + b1) @ w2 + o2, silu(a) = a * sigmoid(a). The bias
// (broadcast from 1xH), the sigmoid and the product stay on each rank's
// column shard of the hidden layer; the shift of tosa.mul (MLIR 22 requires
// the operand) is a constant annotated replicated: shard-partition crashes on
// an operand no shard.shard annotates.
func.func @tosa_mlp(%x: tensor<16x32xf32>, %w1: tensor<32x48xf32>, %b1: tensor<1x48xf32>,
                    %w2: tensor<48x32xf32>, %o1: tensor<16x48xf32>, %o2: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %rows = shard.sharding @tp split_axes = [[0]] : !shard.sharding
  %repl = shard.sharding @tp split_axes = [[]] : !shard.sharding
  %cols = shard.sharding @tp split_axes = [[], [0]] : !shard.sharding
  %x0 = shard.shard %x to %rows : tensor<16x32xf32>
  %x1 = shard.shard %x0 to %repl annotate_for_users : tensor<16x32xf32>
  %w1s = shard.shard %w1 to %cols : tensor<32x48xf32>
  %w1u = shard.shard %w1s to %cols annotate_for_users : tensor<32x48xf32>
  %o1s = shard.shard %o1 to %cols : tensor<16x48xf32>
  %o1u = shard.shard %o1s to %cols annotate_for_users : tensor<16x48xf32>
  %h = linalg.matmul ins(%x1, %w1u : tensor<16x32xf32>, tensor<32x48xf32>) outs(%o1u : tensor<16x48xf32>) -> tensor<16x48xf32>
  %h1 = shard.shard %h to %cols : tensor<16x48xf32>
  %h2 = shard.shard %h1 to %cols annotate_for_users : tensor<16x48xf32>
  %b1s = shard.shard %b1 to %cols : tensor<1x48xf32>
  %b1u = shard.shard %b1s to %cols annotate_for_users : tensor<1x48xf32>
  %a = tosa.add %h2, %b1u : (tensor<16x48xf32>, tensor<1x48xf32>) -> tensor<16x48xf32>
  %a1 = shard.shard %a to %cols : tensor<16x48xf32>
  %a2 = shard.shard %a1 to %cols annotate_for_users : tensor<16x48xf32>
  %s = tosa.sigmoid %a2 : (tensor<16x48xf32>) -> tensor<16x48xf32>
  %s1 = shard.shard %s to %cols : tensor<16x48xf32>
  %s2 = shard.shard %s1 to %cols annotate_for_users : tensor<16x48xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %shift1 = shard.shard %shift to %repl : tensor<1xi8>
  %shift2 = shard.shard %shift1 to %repl annotate_for_users : tensor<1xi8>
  %m = tosa.mul %a2, %s2, %shift2 : (tensor<16x48xf32>, tensor<16x48xf32>, tensor<1xi8>) -> tensor<16x48xf32>
  %m1 = shard.shard %m to %cols : tensor<16x48xf32>
  %m2 = shard.shard %m1 to %cols annotate_for_users : tensor<16x48xf32>
  %w2s = shard.shard %w2 to %rows : tensor<48x32xf32>
  %w2u = shard.shard %w2s to %rows annotate_for_users : tensor<48x32xf32>
  %o2s = shard.shard %o2 to %repl : tensor<16x32xf32>
  %o2u = shard.shard %o2s to %repl annotate_for_users : tensor<16x32xf32>
  %y = linalg.matmul ins(%m2, %w2u : tensor<16x48xf32>, tensor<48x32xf32>) outs(%o2u : tensor<16x32xf32>) -> tensor<16x32xf32>
  %y1 = shard.shard %y to %repl : tensor<16x32xf32>
  %y2 = shard.shard %y1 to %rows annotate_for_users : tensor<16x32xf32>
  return %y2 : tensor<16x32xf32>
}

// Fused around the glue: the all-gather feeds the first matmul, the glue
// reads its result (plus the partitioned accumulator), the reduce-scatter's
// matmul reads the glue's product.
// CHECK-NOT:   remark: {{.*}}not fused
// CHECK-LABEL: func.func @tosa_mlp
// CHECK-SAME:    (%[[X:.*]]: tensor<4x32xf32>, %[[W1:.*]]: tensor<32x12xf32>, %[[B1:.*]]: tensor<1x12xf32>, %[[W2:.*]]: tensor<12x32xf32>, %[[O1:.*]]: tensor<16x12xf32>, %[[O2:.*]]: tensor<16x32xf32>)
// CHECK:         %[[SHIFT:.*]] = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
// CHECK:         %[[H:.*]] = tp.all_gather_matmul %[[X]], [%[[W1]]] on @tp axes = [0] dim = 0 : (tensor<4x32xf32>, tensor<32x12xf32>) -> tensor<16x12xf32>
// CHECK-NEXT:    %[[H1:.*]] = arith.addf %[[H]], %[[O1]] : tensor<16x12xf32>
// CHECK-NEXT:    %[[A:.*]] = tosa.add %[[H1]], %[[B1]] : (tensor<16x12xf32>, tensor<1x12xf32>) -> tensor<16x12xf32>
// CHECK-NEXT:    %[[S:.*]] = tosa.sigmoid %[[A]] : (tensor<16x12xf32>) -> tensor<16x12xf32>
// CHECK-NEXT:    %[[M:.*]] = tosa.mul %[[A]], %[[S]], %[[SHIFT]] : (tensor<16x12xf32>, tensor<16x12xf32>, tensor<1xi8>) -> tensor<16x12xf32>
// CHECK:         %[[RANK:.*]] = tp.group_rank on @tp axes = [0]
// CHECK:         %[[IS0:.*]] = arith.cmpi eq, %[[RANK]]
// CHECK:         %[[ACC:.*]] = scf.if %[[IS0]] -> (tensor<16x32xf32>) {
// CHECK-NEXT:      scf.yield %[[O2]] : tensor<16x32xf32>
// CHECK:         %[[Y:.*]] = tp.matmul_reduce_scatter %[[M]], %[[W2]] addend %[[ACC]] on @tp axes = [0] dim = 0 reduce = sum : (tensor<16x12xf32>, tensor<12x32xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
// CHECK-NOT:     tp.all_gather {{.*}}:
// CHECK-NOT:     tp.reduce_scatter
// CHECK:         return %[[Y]] : tensor<4x32xf32>

// Lowered before the pipeline (tp-lower-tosa first): the glue is linalg
// and the same two collectives fuse.
// EARLY-NOT:   remark: {{.*}}not fused
// EARLY-LABEL: func.func @tosa_mlp
// EARLY-SAME:    (%[[X:.*]]: tensor<4x32xf32>, %[[W1:.*]]: tensor<32x12xf32>, %[[B1:.*]]: tensor<1x12xf32>, %[[W2:.*]]: tensor<12x32xf32>, %[[O1:.*]]: tensor<16x12xf32>, %[[O2:.*]]: tensor<16x32xf32>)
// EARLY-NOT:     tosa.
// EARLY:         %[[H:.*]] = tp.all_gather_matmul %[[X]], [%[[W1]]] on @tp axes = [0] dim = 0
// EARLY-NEXT:    %[[H1:.*]] = arith.addf %[[H]], %[[O1]] : tensor<16x12xf32>
// EARLY:         %[[A:.*]] = linalg.generic {{.*}} ins(%[[H1]], %[[B1]] : tensor<16x12xf32>, tensor<1x12xf32>)
// EARLY:           arith.addf
// EARLY:         %[[S:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<16x12xf32>)
// EARLY:           math.exp
// EARLY:         %[[M:.*]] = linalg.generic {{.*}} ins(%[[A]], %[[S]] : tensor<16x12xf32>, tensor<16x12xf32>)
// EARLY:           arith.mulf
// EARLY:         %[[ACC:.*]] = scf.if
// EARLY:         %[[Y:.*]] = tp.matmul_reduce_scatter %[[M]], %[[W2]] addend %[[ACC]] on @tp axes = [0] dim = 0 reduce = sum
// EARLY-NOT:     tosa.
// EARLY:         return %[[Y]]

// Compiled: no TOSA op left; between the two fused runtime calls, the glue
// as scalar code (bias add, sigmoid's negation, approximated exponential and
// reciprocal, the product).
// LLVM-NOT:     tosa.
// LLVM-LABEL: llvm.func @tosa_mlp
// LLVM-NOT:     tosa.
// LLVM:         llvm.call @tp_rt_all_gather_matmul
// LLVM:         llvm.fadd
// LLVM:         llvm.fneg
// LLVM:         llvm.fdiv
// LLVM:         llvm.fmul
// LLVM:         llvm.call @tp_rt_matmul_reduce_scatter
// LLVM-NOT:     tosa.
