// F.linear with the weight stored [N, K], written the way an MLIR frontend
// emits PyTorch's decomposition (aten.t + matmul): linalg.transpose of the
// weight, then linalg.matmul. A sequence-parallel MLP: the column-parallel
// layer gathers the activation, the row-parallel one reduce-scatters (upstream's
// all_reduce + all_slice). Upstream shard-partition (MLIR 22) partitions
// linalg.transpose as it is: the sharding on the weight's N dim (dim 0) and on
// the transpose's result dim 1 agree, so each rank transposes its own
// [N/g, K] (or [N, K/g]) piece and the transpose lands after the all-gather.
// tp-import raises the matmuls, canonicalize folds each transpose into
// transpose_b on the weight itself, and both collectives fuse.
//
// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(shard-partition,canonicalize,cse))' \
// RUN:   | tp-opt --tp-async-tp-pipeline=emit-remarks -verify-diagnostics | FileCheck %s
//
// Without canonicalize the transposes stay; they are pure, so tp-async-tp
// hoists the one after the all-gather above the fused op instead.
// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(shard-partition,canonicalize,cse))' \
// RUN:   | tp-opt --tp-import --tp-async-tp=emit-remarks -verify-diagnostics | FileCheck %s --check-prefix=HOIST

// CHECK-LABEL: func.func @mlp_transposed_weights
// CHECK-SAME:    (%[[X:.+]]: tensor<16x128xf32>, %[[W1:.+]]: tensor<64x128xf32>, %[[W2:.+]]: tensor<128x64xf32>, %[[O1:.+]]: tensor<64x64xf32>, %[[O2:.+]]: tensor<64x128xf32>)
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[H:.+]] = tp.all_gather_matmul %[[X]], [%[[W1]]] on @tp axes = [0] dim = 0 transpose_b : (tensor<16x128xf32>, tensor<64x128xf32>) -> tensor<64x64xf32>
// CHECK-NEXT:    %[[H1:.+]] = arith.addf %[[H]], %[[O1]] : tensor<64x64xf32>
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[ACC:.+]] = scf.if
// CHECK:         %[[Y:.+]] = tp.matmul_reduce_scatter %[[H1]], %[[W2]] addend %[[ACC]] on @tp axes = [0] dim = 0 reduce = sum transpose_b : (tensor<64x64xf32>, tensor<128x64xf32>, tensor<64x128xf32>) -> tensor<16x128xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<16x128xf32>
// CHECK-NOT:     tp.all_gather
// CHECK-NOT:     tp.reduce_scatter

// HOIST-LABEL: func.func @mlp_transposed_weights
// HOIST-SAME:    (%[[X:.+]]: tensor<16x128xf32>, %[[W1:.+]]: tensor<64x128xf32>,
// HOIST:         %[[E:.+]] = tensor.empty() : tensor<128x64xf32>
// HOIST-NEXT:    %[[T1:.+]] = linalg.transpose ins(%[[W1]] : tensor<64x128xf32>) outs(%[[E]] : tensor<128x64xf32>) permutation = [1, 0]
// HOIST-NEXT:    %[[H:.+]] = tp.all_gather_matmul %[[X]], [%[[T1]]] on @tp axes = [0] dim = 0 : (tensor<16x128xf32>, tensor<128x64xf32>) -> tensor<64x64xf32>
// HOIST:         %[[T2:.+]] = linalg.transpose
// HOIST:         tp.matmul_reduce_scatter %{{.+}}, %[[T2]] addend %{{.+}} on @tp axes = [0] dim = 0 reduce = sum :
// HOIST-NOT:     tp.all_gather
// HOIST-NOT:     tp.reduce_scatter

shard.grid @tp(shape = 4)
func.func @mlp_transposed_weights(%x: tensor<64x128xf32>, %w1: tensor<256x128xf32>, %w2: tensor<128x256xf32>,
                 %o1: tensor<64x256xf32>, %o2: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %rows = shard.sharding @tp split_axes = [[0]] : !shard.sharding
  %repl = shard.sharding @tp split_axes = [[]] : !shard.sharding
  %cols = shard.sharding @tp split_axes = [[], [0]] : !shard.sharding
  %x0 = shard.shard %x to %rows : tensor<64x128xf32>
  %x1 = shard.shard %x0 to %repl annotate_for_users : tensor<64x128xf32>
  %w1a = shard.shard %w1 to %rows : tensor<256x128xf32>
  %w1b = shard.shard %w1a to %rows annotate_for_users : tensor<256x128xf32>
  %e1 = tensor.empty() : tensor<128x256xf32>
  %e1a = shard.shard %e1 to %cols : tensor<128x256xf32>
  %e1b = shard.shard %e1a to %cols annotate_for_users : tensor<128x256xf32>
  %w1t = linalg.transpose ins(%w1b : tensor<256x128xf32>) outs(%e1b : tensor<128x256xf32>) permutation = [1, 0]
  %w1ta = shard.shard %w1t to %cols : tensor<128x256xf32>
  %w1tb = shard.shard %w1ta to %cols annotate_for_users : tensor<128x256xf32>
  %o1a = shard.shard %o1 to %cols : tensor<64x256xf32>
  %o1b = shard.shard %o1a to %cols annotate_for_users : tensor<64x256xf32>
  %h = linalg.matmul ins(%x1, %w1tb : tensor<64x128xf32>, tensor<128x256xf32>) outs(%o1b : tensor<64x256xf32>) -> tensor<64x256xf32>
  %h1 = shard.shard %h to %cols : tensor<64x256xf32>
  %h2 = shard.shard %h1 to %cols annotate_for_users : tensor<64x256xf32>
  %w2a = shard.shard %w2 to %cols : tensor<128x256xf32>
  %w2b = shard.shard %w2a to %cols annotate_for_users : tensor<128x256xf32>
  %e2 = tensor.empty() : tensor<256x128xf32>
  %e2a = shard.shard %e2 to %rows : tensor<256x128xf32>
  %e2b = shard.shard %e2a to %rows annotate_for_users : tensor<256x128xf32>
  %w2t = linalg.transpose ins(%w2b : tensor<128x256xf32>) outs(%e2b : tensor<256x128xf32>) permutation = [1, 0]
  %w2ta = shard.shard %w2t to %rows : tensor<256x128xf32>
  %w2tb = shard.shard %w2ta to %rows annotate_for_users : tensor<256x128xf32>
  %o2a = shard.shard %o2 to %repl : tensor<64x128xf32>
  %o2b = shard.shard %o2a to %repl annotate_for_users : tensor<64x128xf32>
  %y = linalg.matmul ins(%h2, %w2tb : tensor<64x256xf32>, tensor<256x128xf32>) outs(%o2b : tensor<64x128xf32>) -> tensor<64x128xf32>
  %y1 = shard.shard %y to %repl : tensor<64x128xf32>
  %y2 = shard.shard %y1 to %rows annotate_for_users : tensor<64x128xf32>
  return %y2 : tensor<64x128xf32>
}
