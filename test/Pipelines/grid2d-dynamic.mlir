// A data x tensor grid, and dynamic leading dims, through upstream's
// partitioner and the one-flag pipeline.
//
// RUN: mlir-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(shard-partition,canonicalize,cse))' \
// RUN:   | tp-opt -split-input-file --tp-async-tp-pipeline=emit-remarks -verify-diagnostics | FileCheck %s

// Rows are split over both axes (data parallel, then sequence parallel within
// the tensor-parallel group); the column-parallel weight over the tensor axis
// only. Upstream gathers along grid axis 1 alone, which fuses.

// CHECK-LABEL: func.func @dp_tp_layer
// CHECK-SAME:    (%[[X:.*]]: tensor<8x64xf32>, %[[W:.*]]: tensor<64x32xf32>,
// CHECK:         tp.all_gather_matmul %[[X]], [%[[W]]] on @dp_tp axes = [1] dim = 0 : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<32x32xf32>
// CHECK-NOT:     tp.all_gather

shard.grid @dp_tp(shape = 2x4)
func.func @dp_tp_layer(%x: tensor<64x64xf32>, %w: tensor<64x128xf32>, %o: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %rows_both = shard.sharding @dp_tp split_axes = [[0, 1]] : !shard.sharding
  %rows_dp = shard.sharding @dp_tp split_axes = [[0]] : !shard.sharding
  %cols_tp = shard.sharding @dp_tp split_axes = [[], [1]] : !shard.sharding
  %out = shard.sharding @dp_tp split_axes = [[0], [1]] : !shard.sharding
  %x0 = shard.shard %x to %rows_both : tensor<64x64xf32>
  %x1 = shard.shard %x0 to %rows_dp annotate_for_users : tensor<64x64xf32>
  %w0 = shard.shard %w to %cols_tp : tensor<64x128xf32>
  %w1 = shard.shard %w0 to %cols_tp annotate_for_users : tensor<64x128xf32>
  %o0 = shard.shard %o to %out : tensor<64x128xf32>
  %o1 = shard.shard %o0 to %out annotate_for_users : tensor<64x128xf32>
  %y = linalg.matmul ins(%x1, %w1 : tensor<64x64xf32>, tensor<64x128xf32>) outs(%o1 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %y0 = shard.shard %y to %out : tensor<64x128xf32>
  return %y0 : tensor<64x128xf32>
}

// -----

// A dynamic number of tokens, sequence parallel.

// CHECK-LABEL: func.func @dynamic_tokens
// CHECK-SAME:    (%[[X:.*]]: tensor<?x64xf32>, %[[W:.*]]: tensor<64x32xf32>,
// CHECK:         tp.all_gather_matmul %[[X]], [%[[W]]] on @tp axes = [0] dim = 0 : (tensor<?x64xf32>, tensor<64x32xf32>) -> tensor<?x32xf32>

shard.grid @tp(shape = 4)
func.func @dynamic_tokens(%x: tensor<?x64xf32>, %w: tensor<64x128xf32>, %o: tensor<?x128xf32>) -> tensor<?x128xf32> {
  %rows = shard.sharding @tp split_axes = [[0]] : !shard.sharding
  %repl = shard.sharding @tp split_axes = [[]] : !shard.sharding
  %cols = shard.sharding @tp split_axes = [[], [0]] : !shard.sharding
  %x0 = shard.shard %x to %rows : tensor<?x64xf32>
  %x1 = shard.shard %x0 to %repl annotate_for_users : tensor<?x64xf32>
  %w0 = shard.shard %w to %cols : tensor<64x128xf32>
  %w1 = shard.shard %w0 to %cols annotate_for_users : tensor<64x128xf32>
  %o0 = shard.shard %o to %cols : tensor<?x128xf32>
  %o1 = shard.shard %o0 to %cols annotate_for_users : tensor<?x128xf32>
  %y = linalg.matmul ins(%x1, %w1 : tensor<?x64xf32>, tensor<64x128xf32>) outs(%o1 : tensor<?x128xf32>) -> tensor<?x128xf32>
  %y1 = shard.shard %y to %cols : tensor<?x128xf32>
  return %y1 : tensor<?x128xf32>
}
