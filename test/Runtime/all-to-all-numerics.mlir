// Resharding from one split dim to another, as upstream partitions it: a
// shard.all_to_all that tp-import raises to tp.all_to_all. A [S, H] tensor
// moves from split on S to split on H; a Ulysses-style [S, heads, d]
// activation from split on the sequence to split on the heads, and back.
// Here: the global-view program below, partitioned for 4 ranks and (with the
// grid rewritten) for 2, is raised entirely to tp.all_to_all.
// all-to-all-numerics.test runs both partitions with tp-run against numpy.
// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(shard-partition,canonicalize,cse))' | tp-opt --tp-import | FileCheck %s
// RUN: sed 's/shape = 4)/shape = 2)/' %s | mlir-opt --pass-pipeline='builtin.module(func.func(shard-partition,canonicalize,cse))' | tp-opt --tp-import | FileCheck %s --check-prefix=G2

// CHECK-NOT: shard.all_to_all
// CHECK-LABEL: func.func @rows_to_cols_f32
// CHECK-SAME:    tensor<4x12xf32>
// CHECK-NEXT:  tp.all_to_all %{{.*}} on @sp axes = [0] split = 1 concat = 0 : tensor<4x12xf32> -> tensor<16x3xf32>
// CHECK-LABEL: func.func @rows_to_cols_bf16
// CHECK-NEXT:  tp.all_to_all %{{.*}} split = 1 concat = 0 : tensor<4x12xbf16> -> tensor<16x3xbf16>
// CHECK-LABEL: func.func @rows_to_cols_i32
// CHECK-NEXT:  tp.all_to_all %{{.*}} split = 1 concat = 0 : tensor<4x12xi32> -> tensor<16x3xi32>
// CHECK-LABEL: func.func @seq_to_heads_f32
// CHECK-NEXT:  tp.all_to_all %{{.*}} split = 1 concat = 0 : tensor<4x8x4xf32> -> tensor<16x2x4xf32>
// CHECK-LABEL: func.func @seq_to_heads_bf16
// CHECK-NEXT:  tp.all_to_all %{{.*}} split = 1 concat = 0 : tensor<4x8x4xbf16> -> tensor<16x2x4xbf16>
// CHECK-LABEL: func.func @seq_to_heads_i32
// CHECK-NEXT:  tp.all_to_all %{{.*}} split = 1 concat = 0 : tensor<4x8x4xi32> -> tensor<16x2x4xi32>
// CHECK-LABEL: func.func @heads_to_seq_f32
// CHECK-NEXT:  tp.all_to_all %{{.*}} split = 0 concat = 1 : tensor<16x2x4xf32> -> tensor<4x8x4xf32>
// CHECK-NOT: shard.all_to_all

// G2-LABEL: func.func @rows_to_cols_f32
// G2-NEXT:  tp.all_to_all %{{.*}} on @sp axes = [0] split = 1 concat = 0 : tensor<8x12xf32> -> tensor<16x6xf32>
// G2-LABEL: func.func @seq_to_heads_f32
// G2-NEXT:  tp.all_to_all %{{.*}} split = 1 concat = 0 : tensor<8x8x4xf32> -> tensor<16x4x4xf32>

shard.grid @sp(shape = 4)

func.func @rows_to_cols_f32(%x: tensor<16x12xf32>) -> tensor<16x12xf32> {
  %s0 = shard.sharding @sp split_axes = [[0]] : !shard.sharding
  %0 = shard.shard %x to %s0 : tensor<16x12xf32>
  %s1 = shard.sharding @sp split_axes = [[], [0]] : !shard.sharding
  %1 = shard.shard %0 to %s1 annotate_for_users : tensor<16x12xf32>
  return %1 : tensor<16x12xf32>
}

func.func @rows_to_cols_bf16(%x: tensor<16x12xbf16>) -> tensor<16x12xbf16> {
  %s0 = shard.sharding @sp split_axes = [[0]] : !shard.sharding
  %0 = shard.shard %x to %s0 : tensor<16x12xbf16>
  %s1 = shard.sharding @sp split_axes = [[], [0]] : !shard.sharding
  %1 = shard.shard %0 to %s1 annotate_for_users : tensor<16x12xbf16>
  return %1 : tensor<16x12xbf16>
}

func.func @rows_to_cols_i32(%x: tensor<16x12xi32>) -> tensor<16x12xi32> {
  %s0 = shard.sharding @sp split_axes = [[0]] : !shard.sharding
  %0 = shard.shard %x to %s0 : tensor<16x12xi32>
  %s1 = shard.sharding @sp split_axes = [[], [0]] : !shard.sharding
  %1 = shard.shard %0 to %s1 annotate_for_users : tensor<16x12xi32>
  return %1 : tensor<16x12xi32>
}

// Ulysses: [S, heads, d] split on S -> split on heads (before attention).
func.func @seq_to_heads_f32(%x: tensor<16x8x4xf32>) -> tensor<16x8x4xf32> {
  %s0 = shard.sharding @sp split_axes = [[0]] : !shard.sharding
  %0 = shard.shard %x to %s0 : tensor<16x8x4xf32>
  %s1 = shard.sharding @sp split_axes = [[], [0]] : !shard.sharding
  %1 = shard.shard %0 to %s1 annotate_for_users : tensor<16x8x4xf32>
  return %1 : tensor<16x8x4xf32>
}

func.func @seq_to_heads_bf16(%x: tensor<16x8x4xbf16>) -> tensor<16x8x4xbf16> {
  %s0 = shard.sharding @sp split_axes = [[0]] : !shard.sharding
  %0 = shard.shard %x to %s0 : tensor<16x8x4xbf16>
  %s1 = shard.sharding @sp split_axes = [[], [0]] : !shard.sharding
  %1 = shard.shard %0 to %s1 annotate_for_users : tensor<16x8x4xbf16>
  return %1 : tensor<16x8x4xbf16>
}

func.func @seq_to_heads_i32(%x: tensor<16x8x4xi32>) -> tensor<16x8x4xi32> {
  %s0 = shard.sharding @sp split_axes = [[0]] : !shard.sharding
  %0 = shard.shard %x to %s0 : tensor<16x8x4xi32>
  %s1 = shard.sharding @sp split_axes = [[], [0]] : !shard.sharding
  %1 = shard.shard %0 to %s1 annotate_for_users : tensor<16x8x4xi32>
  return %1 : tensor<16x8x4xi32>
}

// ... and back to split on S (after attention).
func.func @heads_to_seq_f32(%x: tensor<16x8x4xf32>) -> tensor<16x8x4xf32> {
  %s0 = shard.sharding @sp split_axes = [[], [0]] : !shard.sharding
  %0 = shard.shard %x to %s0 : tensor<16x8x4xf32>
  %s1 = shard.sharding @sp split_axes = [[0]] : !shard.sharding
  %1 = shard.shard %0 to %s1 annotate_for_users : tensor<16x8x4xf32>
  return %1 : tensor<16x8x4xf32>
}
