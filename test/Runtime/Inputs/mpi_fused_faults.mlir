// Fused ops whose peers go missing or disagree, for mpi-cpu.test.
shard.grid @pair(shape = 2)

// Rank 1 never joins the fused all-gather: rank 0's communication thread
// times out waiting for its pieces.
func.func @rank_skips_fused(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %y: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %rank = tp.group_rank on @pair axes = [0]
  %c0 = arith.constant 0 : index
  %is0 = arith.cmpi eq, %rank, %c0 : index
  %r = scf.if %is0 -> (tensor<8x16xf32>) {
    %p = tp.all_gather_matmul %x, [%w] on @pair axes = [0] dim = 0 {algorithm = #tp.algorithm<ring>, chunks = 2 : i64} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    scf.yield %p : tensor<8x16xf32>
  } else {
    scf.yield %y : tensor<8x16xf32>
  }
  return %r : tensor<8x16xf32>
}

// The ranks run fused reduce-scatters with different schedules.
func.func @schedules_differ(%a: tensor<8x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %rank = tp.group_rank on @pair axes = [0]
  %c0 = arith.constant 0 : index
  %is0 = arith.cmpi eq, %rank, %c0 : index
  %r = scf.if %is0 -> (tensor<4x16xf32>) {
    %p = tp.matmul_reduce_scatter %a, %w on @pair axes = [0] dim = 0 reduce = sum {algorithm = #tp.algorithm<ring>} : (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    scf.yield %p : tensor<4x16xf32>
  } else {
    %p = tp.matmul_reduce_scatter %a, %w on @pair axes = [0] dim = 0 reduce = sum : (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    scf.yield %p : tensor<4x16xf32>
  }
  return %r : tensor<4x16xf32>
}
