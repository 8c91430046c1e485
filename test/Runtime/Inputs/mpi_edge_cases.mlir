// Programs for mpi-cpu.test and loop-collectives.mlir.
shard.grid @pair(shape = 2)

// An empty result whose other dims are larger than its report on the wire.
func.func @empty_result(%x: tensor<100x0xf32>) -> tensor<100x0xf32> {
  return %x : tensor<100x0xf32>
}

// Every rank spins in compiled code (the loop ends only when i * i
// overflows to INT64_MAX, which it never does): nobody waits on a peer, so
// only the run's deadline ends it.
func.func @all_spin(%x: tensor<4xf32>, %s: tensor<i64>) -> (tensor<4xf32>, i64) {
  %i0 = tensor.extract %s[] : tensor<i64>
  %one = arith.constant 1 : i64
  %big = arith.constant 9223372036854775807 : i64
  %w = scf.while (%i = %i0) : (i64) -> i64 {
    %a = arith.muli %i, %i : i64
    %c = arith.cmpi ne, %a, %big : i64
    scf.condition(%c) %i : i64
  } do {
  ^bb0(%j: i64):
    %n = arith.addi %j, %one : i64
    scf.yield %n : i64
  }
  %g = tp.all_reduce %x on @pair axes = [0] reduce = sum : tensor<4xf32>
  return %g, %w : tensor<4xf32>, i64
}
