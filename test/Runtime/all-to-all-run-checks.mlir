// A dynamic split dim the verifier cannot check: at run time the runtime
// refuses an extent that does not divide by the group size, naming the op
// and its location, and every rank stops (no rank waits on the exchange).
// RUN: not tp-run %s --ranks 4 --arg-shape 0=8x6 --timeout-ms 20000 2>&1 | FileCheck %s
// RUN: tp-run %s --ranks 4 --arg-shape 0=8x12 | FileCheck %s --check-prefix=OK

shard.grid @sp(shape = 4)

// CHECK: tp-run: rank {{[0-3]}} failed first: 'tp.all_to_all' at {{.*}}all-to-all-run-checks.mlir:[[@LINE+4]]:8: the split dim 1 of tensor<8x6xf32> (6) is not divisible by the group size 4{{$}}
// OK: rank 0 result 0: tensor<32x3xf32>
// OK: rank 3 result 0: tensor<32x3xf32>
func.func @dynamic_split(%x: tensor<8x?xf32>) -> tensor<32x?xf32> {
  %y = tp.all_to_all %x on @sp axes = [0] split = 1 concat = 0 : tensor<8x?xf32> -> tensor<32x?xf32>
  return %y : tensor<32x?xf32>
}
