// Both lowering paths of a sequence-parallel MLP must fuse every collective
// (CSE first merges the two gathers of the shared activation, as upstream does).
// RUN: tp-opt %s --tp-lower-linear --cse --tp-async-tp="emit-remarks stats" -verify-diagnostics | FileCheck %s
// RUN: tp-opt %s --tp-lower-linear=mode=bmm --cse --tp-async-tp="emit-remarks stats" -verify-diagnostics | FileCheck %s

// expected-remark @below {{tp-async-tp: 1 all-gather-matmul (2 matmuls absorbed), 1 matmul-reduce-scatter, 0 all-gather-scaled-matmul, 0 scaled-matmul-reduce-scatter, 0 all-gather-contract, 0 collectives left unfused}}
module {
shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @mlp
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4x64xf32>, %[[WG:.*]]: tensor<32x64xf32>, %[[WU:.*]]: tensor<32x64xf32>, %[[WD:.*]]: tensor<64x32xf32>, %[[BD:.*]]: tensor<64xf32>)
// CHECK-NEXT:  %[[GU:.*]]:2 = tp.all_gather_matmul %[[X]], [%[[WG]], %[[WU]]] on @tp axes = [0] dim = 1 transpose_b : (tensor<2x4x64xf32>, tensor<32x64xf32>, tensor<32x64xf32>) -> (tensor<2x16x32xf32>, tensor<2x16x32xf32>)
// CHECK-NEXT:  %[[A:.*]] = arith.mulf %[[GU]]#0, %[[GU]]#1
// CHECK-NEXT:  %[[Y:.*]] = tp.matmul_reduce_scatter %[[A]], %[[WD]] bias %[[BD]] on @tp axes = [0] dim = 1 reduce = sum transpose_b : (tensor<2x16x32xf32>, tensor<64x32xf32>, tensor<64xf32>) -> tensor<2x4x64xf32>
// CHECK-NEXT:  return %[[Y]]
func.func @mlp(%x: tensor<2x4x64xf32>, %wg: tensor<32x64xf32>, %wu: tensor<32x64xf32>, %wd: tensor<64x32xf32>, %bd: tensor<64xf32>) -> tensor<2x4x64xf32> {
  %g = tp.linear %x, %wg on @tp axes = [0] column input = shard(1) output = shard(2)
      : (tensor<2x4x64xf32>, tensor<32x64xf32>) -> tensor<2x16x32xf32>
  %u = tp.linear %x, %wu on @tp axes = [0] column input = shard(1) output = shard(2)
      : (tensor<2x4x64xf32>, tensor<32x64xf32>) -> tensor<2x16x32xf32>
  %a = arith.mulf %g, %u : tensor<2x16x32xf32>
  %y = tp.linear %a, %wd bias %bd on @tp axes = [0] row input = shard(2) output = shard(1)
      : (tensor<2x16x32xf32>, tensor<64x32xf32>, tensor<64xf32>) -> tensor<2x4x64xf32>
  return %y : tensor<2x4x64xf32>
}
}
