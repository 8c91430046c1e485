// Numerics of weights reached through a transpose: the sequence-parallel MLP
// of test/Pipelines/upstream-transposed-weight.mlir (both weights stored
// [N, K] and passed through linalg.transpose before linalg.matmul), partitioned
// by upstream shard-partition, then run by tp-run fused (tp-async-tp-pipeline:
// the transposes fold into transpose_b and both collectives fuse) against the
// unfused import on the same inputs; tp-run exits 1 when any result on any
// rank disagrees. 2 and 4 ranks in f32, 4 ranks in bf16.
//
// RUN: sed -e 's/shape = 4/shape = 2/' %s \
// RUN:   | mlir-opt --pass-pipeline='builtin.module(func.func(shard-partition,canonicalize,cse))' -o %t.g2.mlir
// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(shard-partition,canonicalize,cse))' -o %t.g4.mlir
// RUN: sed -e 's/xf32>/xbf16>/g' %s \
// RUN:   | mlir-opt --pass-pipeline='builtin.module(func.func(shard-partition,canonicalize,cse))' -o %t.g4bf16.mlir
//
// Both collectives fuse, with the weight itself as transpose_b.
// RUN: tp-opt %t.g2.mlir --tp-async-tp-pipeline=stats -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: tp-opt %t.g4bf16.mlir --tp-async-tp-pipeline=stats -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// STATS: remark: tp-async-tp: 1 all-gather-matmul (1 matmuls absorbed), 1 matmul-reduce-scatter, {{.*}} 0 collectives left unfused
// RUN: tp-opt %t.g4bf16.mlir --tp-async-tp-pipeline | FileCheck %s --check-prefix=IR
// IR-LABEL: func.func @mlp_transposed_weights
// IR-NOT:     linalg.transpose
// IR:         tp.all_gather_matmul %{{.+}}, [%{{.+}}] on @tp axes = [0] dim = 0 transpose_b : (tensor<16x128xbf16>, tensor<64x128xbf16>) -> tensor<64x64xbf16>
// IR-NOT:     linalg.transpose
// IR:         tp.matmul_reduce_scatter {{.*}} reduce = sum transpose_b : (tensor<64x64xbf16>, tensor<128x64xbf16>, tensor<64x128xbf16>) -> tensor<16x128xbf16>
//
// RUN: tp-run %t.g2.mlir --ranks 2 --seed 2 --pipeline tp-async-tp-pipeline --compare-pipeline '' \
// RUN:   | FileCheck %s --check-prefix=G2
// RUN: tp-run %t.g4.mlir --ranks 4 --seed 4 --pipeline tp-async-tp-pipeline --compare-pipeline '' \
// RUN:   | FileCheck %s --check-prefix=G4
// RUN: tp-run %t.g4bf16.mlir --ranks 4 --seed 5 --pipeline tp-async-tp-pipeline --compare-pipeline '' \
// RUN:   | FileCheck %s --check-prefix=G4
// G2: tp-run: @mlp_transposed_weights on 2 ranks
// G2: compare: every result on every rank matches ({{.*}}max normalized error {{.*}})
// G4: tp-run: @mlp_transposed_weights on 4 ranks
// G4: compare: every result on every rank matches ({{.*}}max normalized error {{.*}})

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
