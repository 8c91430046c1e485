// A collective on a loop-carried tensor yields a new buffer on every trip:
// the program compiles (bufferization may return allocations from loops,
// ownership-based deallocation frees the old ones) and every rank ends with
// the same all-reduced value.
// RUN: tp-run %s --ranks 2 --pipeline tp-async-tp-pipeline --compare-pipeline '' | FileCheck %s

// CHECK: rank 0 result 0: tensor<4xf32> sum={{.*}} checksum=[[SUM:[0-9a-f]+]]
// CHECK: rank 0 result 1: tensor<2x4xf32> sum={{.*}} checksum=[[GATHERED:[0-9a-f]+]]
// CHECK: rank 1 result 0: tensor<4xf32> sum={{.*}} checksum=[[SUM]]
// CHECK: rank 1 result 1: tensor<2x4xf32> sum={{.*}} checksum=[[GATHERED]]
// CHECK: compare: every result on every rank matches
shard.grid @pair(shape = 2)
func.func @main(%x: tensor<4xf32>, %y: tensor<1x4xf32>) -> (tensor<4xf32>, tensor<2x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> (tensor<4xf32>) {
    %g = tp.all_reduce %a on @pair axes = [0] reduce = sum : tensor<4xf32>
    scf.yield %g : tensor<4xf32>
  }
  %init = arith.constant dense<0.0> : tensor<2x4xf32>
  %s = scf.for %i = %c0 to %c3 step %c1 iter_args(%b = %init) -> (tensor<2x4xf32>) {
    %g = tp.all_gather %y on @pair axes = [0] dim = 0 : tensor<1x4xf32> -> tensor<2x4xf32>
    %n = arith.addf %b, %g : tensor<2x4xf32>
    scf.yield %n : tensor<2x4xf32>
  }
  return %r, %s : tensor<4xf32>, tensor<2x4xf32>
}
