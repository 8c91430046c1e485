// tp-run verifies the lowered program once, after the lowering's last pass;
// --verify-each verifies it after every pass as well, and computes the same.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tp-run %s --ranks 2 --pipeline tp-async-tp-pipeline | FileCheck %s
// RUN: tp-run %s --ranks 2 --pipeline tp-async-tp-pipeline | grep checksum > %t/once.sums
// RUN: tp-run %s --ranks 2 --pipeline tp-async-tp-pipeline --verify-each | grep checksum | diff %t/once.sums -
// RUN: not tp-run %s --ranks 2 --verify-each=sometimes 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: tp-run{{.*}}verify-each{{.*}}'sometimes'

// Two results and a scalar: the entry stores each through the result pointer.
// CHECK:      rank 0 result 0: tensor<2x8xf32> sum={{.*}} checksum=
// CHECK-NEXT: rank 0 result 1: tensor<4x8xf32> sum={{.*}} checksum=
// CHECK-NEXT: rank 0 result 2: tensor<f32> sum=4.000000e+00 checksum=
// CHECK-NEXT: rank 1 result 0: tensor<2x8xf32> sum={{.*}} checksum=

shard.grid @tp(shape = 2)
func.func @chain(%x: tensor<2x8xf32>, %w: tensor<8x8xf32>) -> (tensor<2x8xf32>, tensor<4x8xf32>, f32) {
  %four = arith.constant 4.0 : f32
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<2x8xf32> -> tensor<4x8xf32>
  %m = tp.matmul %g, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %t = math.tanh %m : tensor<4x8xf32>
  %n = tp.matmul %t, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %s = tp.reduce_scatter %n on @tp axes = [0] dim = 0 reduce = sum : tensor<4x8xf32> -> tensor<2x8xf32>
  return %s, %t, %four : tensor<2x8xf32>, tensor<4x8xf32>, f32
}
