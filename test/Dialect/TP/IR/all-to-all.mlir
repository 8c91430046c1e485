// RUN: tp-opt %s | FileCheck %s
// RUN: tp-opt %s | tp-opt | FileCheck %s
// RUN: tp-opt %s --mlir-print-op-generic | tp-opt | FileCheck %s
// RUN: tp-opt %s --canonicalize | FileCheck %s --check-prefix=FOLD

// tp.all_to_all: the split dim is divided by the group size, the concat dim
// multiplied by it; split == concat keeps the shape. Over a group of one rank
// it is the identity and folds away; over a larger or unknown group it stays.

shard.grid @tp(shape = 4)
shard.grid @one(shape = 1)
shard.grid @g(shape = 2x4)
shard.grid @dyn(shape = ?)

// CHECK-LABEL: func.func @seq_to_hidden
// CHECK: tp.all_to_all %{{.*}} on @tp axes = [0] split = 1 concat = 0 : tensor<8x64xf32> -> tensor<32x16xf32>
// FOLD-LABEL: func.func @seq_to_hidden
// FOLD: tp.all_to_all
func.func @seq_to_hidden(%x: tensor<8x64xf32>) -> tensor<32x16xf32> {
  %0 = tp.all_to_all %x on @tp axes = [0] split = 1 concat = 0 : tensor<8x64xf32> -> tensor<32x16xf32>
  return %0 : tensor<32x16xf32>
}

// Ulysses: [S/g, heads, d] -> [S, heads/g, d], and back.
// CHECK-LABEL: func.func @ulysses
// CHECK: tp.all_to_all %{{.*}} on @g axes = [1] split = 1 concat = 0 : tensor<4x8x16xbf16> -> tensor<16x2x16xbf16>
// CHECK: tp.all_to_all %{{.*}} on @g axes = [1] split = 0 concat = 1 : tensor<16x2x16xbf16> -> tensor<4x8x16xbf16>
func.func @ulysses(%x: tensor<4x8x16xbf16>) -> tensor<4x8x16xbf16> {
  %h = tp.all_to_all %x on @g axes = [1] split = 1 concat = 0 : tensor<4x8x16xbf16> -> tensor<16x2x16xbf16>
  %s = tp.all_to_all %h on @g axes = [1] split = 0 concat = 1 : tensor<16x2x16xbf16> -> tensor<4x8x16xbf16>
  return %s : tensor<4x8x16xbf16>
}

// split == concat: block r of every rank, stacked in rank order.
// CHECK-LABEL: func.func @same_dim
// CHECK: tp.all_to_all %{{.*}} on @tp axes = [0] split = 0 concat = 0 : tensor<8x3xi32> -> tensor<8x3xi32>
// FOLD-LABEL: func.func @same_dim
// FOLD: tp.all_to_all
func.func @same_dim(%x: tensor<8x3xi32>) -> tensor<8x3xi32> {
  %0 = tp.all_to_all %x on @tp axes = [0] split = 0 concat = 0 : tensor<8x3xi32> -> tensor<8x3xi32>
  return %0 : tensor<8x3xi32>
}

// Dynamic extents and groups skip the size rules they involve.
// CHECK-LABEL: func.func @dynamic
// CHECK: tp.all_to_all %{{.*}} on @tp axes = [0] split = 1 concat = 0 : tensor<?x64xf32> -> tensor<?x16xf32>
// CHECK: tp.all_to_all %{{.*}} on @dyn axes = [0] split = 1 concat = 0 : tensor<8x64xf32> -> tensor<?x?xf32>
// FOLD-LABEL: func.func @dynamic
// FOLD-COUNT-2: tp.all_to_all
func.func @dynamic(%x: tensor<?x64xf32>, %y: tensor<8x64xf32>) -> (tensor<?x16xf32>, tensor<?x?xf32>) {
  %0 = tp.all_to_all %x on @tp axes = [0] split = 1 concat = 0 : tensor<?x64xf32> -> tensor<?x16xf32>
  %1 = tp.all_to_all %y on @dyn axes = [0] split = 1 concat = 0 : tensor<8x64xf32> -> tensor<?x?xf32>
  return %0, %1 : tensor<?x16xf32>, tensor<?x?xf32>
}

// FOLD-LABEL: func.func @single_rank
// FOLD-SAME:    (%[[X:.*]]: tensor<8x64xf32>
// FOLD-NEXT:    return %[[X]], %[[X]]
func.func @single_rank(%x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
  %0 = tp.all_to_all %x on @one axes = [0] split = 1 concat = 0 : tensor<8x64xf32> -> tensor<8x64xf32>
  %1 = tp.all_to_all %x on @one axes = [0] split = 0 concat = 0 : tensor<8x64xf32> -> tensor<8x64xf32>
  return %0, %1 : tensor<8x64xf32>, tensor<8x64xf32>
}
