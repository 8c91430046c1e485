// A program compiled as functions of at most N ops (--max-function-ops,
// tp-split-long-functions) computes what it computes as written, bit for
// bit, fused and unfused, on threads and on MPI ranks.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tp-run %s --ranks 2 --max-function-ops 0 --pipeline tp-async-tp-pipeline | grep checksum > %t/whole.sums
// RUN: tp-run %s --ranks 2 --max-function-ops 2 --pipeline tp-async-tp-pipeline | grep checksum | diff %t/whole.sums -
// RUN: tp-run %s --ranks 2 --max-function-ops 3 | grep checksum > %t/unfused.sums
// RUN: tp-run %s --ranks 2 --max-function-ops 0 | grep checksum | diff %t/unfused.sums -
// RUN: %if mpi %{ tp-run %s --ranks 2 --transport mpi --max-function-ops 2 --pipeline tp-async-tp-pipeline | grep checksum | diff %t/whole.sums - %}
// RUN: not tp-run %s --ranks 2 --max-function-ops -1 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// NEGATIVE: tp-run: --max-function-ops must not be negative, got -1

shard.grid @tp(shape = 2)
func.func @chain(%x: tensor<2x8xf32>, %w: tensor<8x8xf32>) -> (tensor<2x8xf32>, tensor<4x8xf32>) {
  %one = arith.constant dense<0.5> : tensor<4x8xf32>
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<2x8xf32> -> tensor<4x8xf32>
  %m = tp.matmul %g, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %t = math.tanh %m : tensor<4x8xf32>
  %v = tensor.collapse_shape %t [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  %e = tensor.expand_shape %v [[0, 1]] output_shape [4, 8] : tensor<32xf32> into tensor<4x8xf32>
  %a = arith.addf %e, %one : tensor<4x8xf32>
  %n = tp.matmul %a, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %r = arith.mulf %n, %one : tensor<4x8xf32>
  %s = tp.reduce_scatter %r on @tp axes = [0] dim = 0 reduce = sum : tensor<4x8xf32> -> tensor<2x8xf32>
  %g2 = tp.all_gather %s on @tp axes = [0] dim = 0 : tensor<2x8xf32> -> tensor<4x8xf32>
  %o = tp.matmul %g2, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %p = arith.addf %o, %t : tensor<4x8xf32>
  return %s, %p : tensor<2x8xf32>, tensor<4x8xf32>
}
