// Rank 1 marks that it runs (nice +1 on its thread, which a test can see in
// /proc) and spins in compiled code; the other ranks wait for it in an
// all-reduce. A fault test kills or interrupts the run meanwhile.
shard.grid @tp(shape = 3)
func.func private @nice(i32) -> i32
func.func private @spin(%x: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %max = arith.constant 9223372036854775807 : index
  %r = scf.for %i = %c0 to %max step %c1 iter_args(%a = %x) -> f32 {
    %y = arith.addf %a, %x : f32
    scf.yield %y : f32
  }
  return %r : f32
}
func.func @stall(%t: tensor<4xf32>, %x: f32) -> tensor<4xf32> {
  %c1 = arith.constant 1 : index
  %rank = tp.group_rank on @tp axes = [0]
  %is_one = arith.cmpi eq, %rank, %c1 : index
  %u = scf.if %is_one -> tensor<4xf32> {
    %one = arith.constant 1 : i32
    %niced = func.call @nice(%one) : (i32) -> i32
    %v = func.call @spin(%x) : (f32) -> f32
    %s = tensor.splat %v : tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  } else {
    scf.yield %t : tensor<4xf32>
  }
  %r = tp.all_reduce %u on @tp axes = [0] reduce = sum : tensor<4xf32>
  return %r : tensor<4xf32>
}
