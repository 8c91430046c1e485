// The other ops upstream's partitioner produces, executed or refused by name:
// a lone all_slice (this rank's slice, no communication) and the process
// indices run; update_halo gets a remark from tp-import and a located refusal
// from tp-run; an unrealized cast runs only as half of a pair that cancels.
// RUN: tp-run %s --entry slice_and_index --ranks 4 | FileCheck %s --check-prefix=EXEC
// RUN: tp-run %s --entry cast_pair --ranks 1 | FileCheck %s --check-prefix=PAIR
// RUN: tp-opt %s --tp-import=emit-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: not tp-run %s --entry halo --ranks 4 2>&1 | FileCheck %s --check-prefix=HALO
// RUN: not tp-run %s --entry lone_cast --ranks 1 2>&1 | FileCheck %s --check-prefix=CAST
// RUN: not tp-opt %s --tp-async-tp-pipeline --tp-lower-to-llvm 2>&1 | FileCheck %s --check-prefix=LOWER

shard.grid @tp(shape = 4)
shard.grid @grid2d(shape = 2x2)

// Rank r keeps elements [2r, 2r + 1] of 0..7 (sum 4r + 1) and returns its
// linear index r and its index along axis 1 of the 2x2 grid (r % 2); tp-run
// prints index results as i64.
// EXEC: rank 0 result 0: tensor<2xf32> sum=1.000000e+00
// EXEC: rank 0 result 1: tensor<2xi64> sum=0.000000e+00
// EXEC: rank 1 result 0: tensor<2xf32> sum=5.000000e+00
// EXEC: rank 1 result 1: tensor<2xi64> sum=2.000000e+00
// EXEC: rank 2 result 0: tensor<2xf32> sum=9.000000e+00
// EXEC: rank 2 result 1: tensor<2xi64> sum=2.000000e+00
// EXEC: rank 3 result 0: tensor<2xf32> sum=1.300000e+01
// EXEC: rank 3 result 1: tensor<2xi64> sum=4.000000e+00
func.func @slice_and_index() -> (tensor<2xf32>, tensor<2xindex>) {
  %all = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]> : tensor<8xf32>
  %mine = shard.all_slice %all on @tp grid_axes = [0] slice_axis = 0 : tensor<8xf32> -> tensor<2xf32>
  %linear = shard.process_linear_index on @grid2d : index
  %multi:2 = shard.process_multi_index on @grid2d : index, index
  %pair = tensor.from_elements %linear, %multi#1 : tensor<2xindex>
  return %mine, %pair : tensor<2xf32>, tensor<2xindex>
}

// PAIR: rank 0 result 0: tensor<4x4xf32>
func.func @cast_pair(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %a = builtin.unrealized_conversion_cast %x : tensor<4x4xf32> to tensor<2x8xf32>
  %b = builtin.unrealized_conversion_cast %a : tensor<2x8xf32> to tensor<4x4xf32>
  return %b : tensor<4x4xf32>
}

// REMARK: remark: 'shard.update_halo' not raised: tp has no halo exchange (a stencil's neighbour rows); keep halo_sizes out of shardings tp runs
// LOWER: shard-ops.mlir:[[@LINE+4]]:8: error: 'shard.update_halo' cannot be compiled: tp-import did not raise it (tp-import{emit-remarks} says why)
// HALO: tp-run: {{.*}}shard-ops.mlir:[[@LINE+3]]:8: 'shard.update_halo' op tp-import does not raise this op (tp has no halo exchange
// upstream's partition of a tensor sharded with halo_sizes = [1, 1].
func.func @halo(%x: tensor<10x8xf32>) -> tensor<10x8xf32> {
  %y = shard.update_halo %x on @tp split_axes = [[0]] halo_sizes = [1, 1] : tensor<10x8xf32>
  return %y : tensor<10x8xf32>
}

// CAST: tp-run: {{.*}}shard-ops.mlir:[[@LINE+2]]:8: 'builtin.unrealized_conversion_cast' op a cast from tensor<4x4xf32> to tensor<2x8xf32> has no run-time meaning; only a pair of casts that cancel out is removed
func.func @lone_cast(%x: tensor<4x4xf32>) -> tensor<2x8xf32> {
  %a = builtin.unrealized_conversion_cast %x : tensor<4x4xf32> to tensor<2x8xf32>
  return %a : tensor<2x8xf32>
}

// An annotated program that was never partitioned.
// REMARK: remark: 'shard.shard' not raised: it is a sharding annotation: the program is not partitioned yet (run upstream's shard-partition first)
func.func @not_partitioned(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %s = shard.sharding @tp split_axes = [[0]] : !shard.sharding
  %y = shard.shard %x to %s : tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}
