// A grid of dynamic size: upstream partitions the program with dynamic shard
// shapes and casts the gathered value to the shape the matmul needs; the
// pipeline fuses through the cast (the product is cast back). tp-run takes
// the grid size from --ranks; a rule that needs a static size reports its
// location; a grid it cannot size is refused.
//
// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(shard-partition,canonicalize,cse))' \
// RUN:   | tp-opt --tp-async-tp-pipeline=emit-remarks 2>&1 | FileCheck %s
// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(shard-partition,canonicalize,cse))' -o %t.mlir
// RUN: tp-run %t.mlir --ranks 4 --arg-shape 0=12x32 --arg-shape 1=32x12 --arg-shape 2=48x12 \
// RUN:   --pipeline tp-async-tp-pipeline --compare-pipeline '' | FileCheck %s --check-prefix=RUN4
// RUN: not tp-run %S/Inputs/dynamic_grids.mlir --entry needs_static --ranks 4 2>&1 | FileCheck %s --check-prefix=STATIC
// RUN: not tp-run %S/Inputs/dynamic_grids.mlir --entry two_dynamic_axes --ranks 4 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: not tp-run %S/Inputs/dynamic_grids.mlir --entry indivisible --ranks 4 2>&1 | FileCheck %s --check-prefix=INDIVISIBLE
// RUN: tp-run %S/Inputs/dynamic_grids.mlir --entry one_dynamic_axis --ranks 6 | FileCheck %s --check-prefix=ONE

// CHECK-NOT:   remark
// CHECK-LABEL: func.func @mlp
// CHECK-SAME:    (%[[X:.*]]: tensor<?x32xf32>, %[[W:.*]]: tensor<32x?xf32>, %[[O:.*]]: tensor<48x?xf32>)
// CHECK-NEXT:    %[[Y:.*]] = tp.all_gather_matmul %[[X]], [%[[W]]] on @tp axes = [0] dim = 0 : (tensor<?x32xf32>, tensor<32x?xf32>) -> tensor<?x?xf32>
// CHECK-NEXT:    %[[C:.*]] = tensor.cast %[[Y]] : tensor<?x?xf32> to tensor<48x?xf32>
// CHECK-NEXT:    %[[S:.*]] = arith.addf %[[C]], %[[O]]
// CHECK-NEXT:    return %[[S]]

// RUN4: tp-run: @mlp on 4 ranks (cpu)
// RUN4: compare: every result on every rank matches

// STATIC: tp-run: with the grid size taken from the run's 4 ranks, the program does not verify:
// STATIC-NEXT: {{.*}}dynamic_grids.mlir:{{[0-9]+}}:8: 'tp.all_gather' op 'result' dim 0 (8) must be 'input' dim 0 (4) times the group size 4 = 16

// TWO: tp-run: {{.*}}dynamic_grids.mlir{{.*}}: grid @two has 2 dynamic axes; a run fixes only one from its rank count

// INDIVISIBLE: tp-run: {{.*}}dynamic_grids.mlir{{.*}}: grid @three has static axes spanning 3 ranks, which does not divide the run's 4

// ONE: tp-run: @one_dynamic_axis on 6 ranks (cpu)
// ONE: rank 5 result 0: tensor<4x2xf32>

shard.grid @tp(shape = ?)
func.func @mlp(%x: tensor<48x32xf32>, %w1: tensor<32x48xf32>, %o1: tensor<48x48xf32>) -> tensor<48x48xf32> {
  %rows = shard.sharding @tp split_axes = [[0]] : !shard.sharding
  %repl = shard.sharding @tp split_axes = [[]] : !shard.sharding
  %cols = shard.sharding @tp split_axes = [[], [0]] : !shard.sharding
  %x0 = shard.shard %x to %rows : tensor<48x32xf32>
  %x1 = shard.shard %x0 to %repl annotate_for_users : tensor<48x32xf32>
  %w1s = shard.shard %w1 to %cols : tensor<32x48xf32>
  %w1u = shard.shard %w1s to %cols annotate_for_users : tensor<32x48xf32>
  %o1s = shard.shard %o1 to %cols : tensor<48x48xf32>
  %o1u = shard.shard %o1s to %cols annotate_for_users : tensor<48x48xf32>
  %h = linalg.matmul ins(%x1, %w1u : tensor<48x32xf32>, tensor<32x48xf32>) outs(%o1u : tensor<48x48xf32>) -> tensor<48x48xf32>
  %h1 = shard.shard %h to %cols : tensor<48x48xf32>
  return %h1 : tensor<48x48xf32>
}
