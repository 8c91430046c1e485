// RUN: tp-opt %s --tp-sequence-parallel=emit-remarks -split-input-file -verify-diagnostics | FileCheck %s

// A row-parallel layer, the residual add and an RMSNorm-style scale, then a
// column-parallel matmul: the all-reduce becomes a reduce-scatter, the glue
// runs on this rank's 4 of 16 rows (the replicated residual sliced at
// group_rank * 4), and the all-gather moves down to the next matmul.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @residual_norm_matmul
// CHECK-SAME:    (%[[X:.*]]: tensor<16x32xf32> {tp.replicated}, %[[H:.*]]: tensor<16x8xf32>, %[[W1:.*]]: tensor<8x32xf32>, %[[G:.*]]: tensor<32xf32> {tp.replicated}, %[[W2:.*]]: tensor<32x8xf32>)
func.func @residual_norm_matmul(%x: tensor<16x32xf32> {tp.replicated}, %h: tensor<16x8xf32>, %w1: tensor<8x32xf32>,
                                %gamma: tensor<32xf32> {tp.replicated}, %w2: tensor<32x8xf32>) -> tensor<16x8xf32> {
  // CHECK-NEXT: %[[P:.*]] = tp.matmul %[[H]], %[[W1]]
  // CHECK-NEXT: %[[RS:.*]] = tp.reduce_scatter %[[P]] on @tp axes = [0] dim = 0 reduce = sum : tensor<16x32xf32> -> tensor<4x32xf32>
  // CHECK-NEXT: %[[RANK:.*]] = tp.group_rank on @tp axes = [0]
  // CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : index
  // CHECK-NEXT: %[[OFF:.*]] = arith.muli %[[RANK]], %[[C4]] : index
  // CHECK-NEXT: %[[XS:.*]] = tensor.extract_slice %[[X]][%[[OFF]], 0] [4, 32] [1, 1] : tensor<16x32xf32> to tensor<4x32xf32>
  // CHECK-NEXT: %[[R:.*]] = arith.addf %[[RS]], %[[XS]] : tensor<4x32xf32>
  // CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<4x32xf32>
  // CHECK-NEXT: %[[N:.*]] = linalg.generic {{.*}} ins(%[[R]], %[[G]] : tensor<4x32xf32>, tensor<32xf32>) outs(%[[E]] : tensor<4x32xf32>)
  // CHECK:      %[[AG:.*]] = tp.all_gather %[[N]] on @tp axes = [0] dim = 0 : tensor<4x32xf32> -> tensor<16x32xf32>
  // CHECK-NEXT: %[[Y:.*]] = tp.matmul %[[AG]], %[[W2]]
  // CHECK-NEXT: return %[[Y]]
  %p = tp.matmul %h, %w1 : tensor<16x8xf32>, tensor<8x32xf32> -> tensor<16x32xf32>
  // expected-remark @+1 {{sequence parallelism: all-reduce split into reduce-scatter + all-gather along dim 0}}
  %ar = tp.all_reduce %p on @tp axes = [0] reduce = sum : tensor<16x32xf32>
  %r = arith.addf %ar, %x : tensor<16x32xf32>
  %e = tensor.empty() : tensor<16x32xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%r, %gamma : tensor<16x32xf32>, tensor<32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%a: f32, %g: f32, %o: f32):
    %m = arith.mulf %a, %g : f32
    linalg.yield %m : f32
  } -> tensor<16x32xf32>
  %y = tp.matmul %n, %w2 : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %y : tensor<16x8xf32>
}

// -----

// The residual stream is also returned: the all-gather stays for the return,
// and the glue on the way to the next matmul moves anyway (its own gather is
// the one tp-async-tp fuses).

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @residual_returned
// CHECK-SAME:    (%[[X:.*]]: tensor<16x32xf32> {tp.replicated}, %[[H:.*]]: tensor<16x8xf32>, %[[W1:.*]]: tensor<8x32xf32>, %[[W2:.*]]: tensor<32x8xf32>)
func.func @residual_returned(%x: tensor<16x32xf32> {tp.replicated}, %h: tensor<16x8xf32>, %w1: tensor<8x32xf32>,
                             %w2: tensor<32x8xf32>) -> (tensor<16x8xf32>, tensor<16x32xf32>) {
  // CHECK:      %[[RS:.*]] = tp.reduce_scatter
  // CHECK:      %[[R:.*]] = arith.addf %[[RS]], %{{.*}} : tensor<4x32xf32>
  // CHECK-NEXT: %[[RG:.*]] = tp.all_gather %[[R]] on @tp axes = [0] dim = 0 : tensor<4x32xf32> -> tensor<16x32xf32>
  // CHECK-NEXT: %[[T:.*]] = math.tanh %[[R]] : tensor<4x32xf32>
  // CHECK-NEXT: %[[TG:.*]] = tp.all_gather %[[T]] on @tp axes = [0] dim = 0 : tensor<4x32xf32> -> tensor<16x32xf32>
  // CHECK-NEXT: %[[Y:.*]] = tp.matmul %[[TG]], %[[W2]]
  // CHECK-NEXT: return %[[Y]], %[[RG]]
  %p = tp.matmul %h, %w1 : tensor<16x8xf32>, tensor<8x32xf32> -> tensor<16x32xf32>
  // expected-remark @+1 {{all-reduce split}}
  %ar = tp.all_reduce %p on @tp axes = [0] reduce = sum : tensor<16x32xf32>
  // expected-remark @+1 {{sequence parallelism: the all-gather stays before 'func.return': 'func.return' needs the whole value}}
  %r = arith.addf %ar, %x : tensor<16x32xf32>
  %t = math.tanh %r : tensor<16x32xf32>
  %y = tp.matmul %t, %w2 : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %y, %r : tensor<16x8xf32>, tensor<16x32xf32>
}

// -----

// Two row-parallel layers of one block: the first residual feeds both the
// second layer's input and the second residual add, which joins the two
// gathered values on the slice. Only the block's output is gathered whole.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @two_layers
func.func @two_layers(%x: tensor<8x16xf32> {tp.replicated}, %h: tensor<8x4xf32>, %wo: tensor<4x16xf32>,
                      %w1: tensor<16x4xf32>, %w2: tensor<4x16xf32>) -> tensor<8x16xf32> {
  // CHECK:      %[[RS1:.*]] = tp.reduce_scatter %{{.*}} on @tp axes = [0] dim = 0 reduce = sum : tensor<8x16xf32> -> tensor<4x16xf32>
  // CHECK:      %[[R1:.*]] = arith.addf %[[RS1]], %{{.*}} : tensor<4x16xf32>
  // CHECK-NEXT: %[[N:.*]] = math.tanh %[[R1]] : tensor<4x16xf32>
  // CHECK-NEXT: %[[NG:.*]] = tp.all_gather %[[N]] on @tp axes = [0] dim = 0 : tensor<4x16xf32> -> tensor<8x16xf32>
  // CHECK-NEXT: %[[F:.*]] = tp.matmul %[[NG]], %{{.*}}
  // CHECK-NEXT: %[[F2:.*]] = tp.matmul %[[F]], %{{.*}}
  // CHECK-NEXT: %[[RS2:.*]] = tp.reduce_scatter %[[F2]] on @tp axes = [0] dim = 0 reduce = sum : tensor<8x16xf32> -> tensor<4x16xf32>
  // CHECK-NEXT: %[[OUT:.*]] = arith.addf %[[R1]], %[[RS2]] : tensor<4x16xf32>
  // CHECK-NEXT: %[[OG:.*]] = tp.all_gather %[[OUT]] on @tp axes = [0] dim = 0 : tensor<4x16xf32> -> tensor<8x16xf32>
  // CHECK-NEXT: return %[[OG]]
  %p = tp.matmul %h, %wo : tensor<8x4xf32>, tensor<4x16xf32> -> tensor<8x16xf32>
  // expected-remark @+1 {{all-reduce split}}
  %ar1 = tp.all_reduce %p on @tp axes = [0] reduce = sum : tensor<8x16xf32>
  %r1 = arith.addf %ar1, %x : tensor<8x16xf32>
  %n = math.tanh %r1 : tensor<8x16xf32>
  %f = tp.matmul %n, %w1 : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %f2 = tp.matmul %f, %w2 : tensor<8x4xf32>, tensor<4x16xf32> -> tensor<8x16xf32>
  // expected-remark @+1 {{all-reduce split}}
  %ar2 = tp.all_reduce %f2 on @tp axes = [0] reduce = sum : tensor<8x16xf32>
  // expected-remark @+1 {{the all-gather stays before 'func.return'}}
  %out = arith.addf %r1, %ar2 : tensor<8x16xf32>
  return %out : tensor<8x16xf32>
}

// -----

// [batch, sequence, hidden] with a batch of 2 on 4 ranks: the split goes
// along the sequence dim; a splat constant operand is rebuilt at the
// slice's shape and a bias broadcast along rows stays whole.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @sequence_dim
func.func @sequence_dim(%h: tensor<2x8x4xf32>, %w: tensor<4x16xf32>, %b: tensor<16xf32> {tp.replicated}) -> tensor<2x8x16xf32> {
  // CHECK:      %[[RS:.*]] = tp.reduce_scatter %{{.*}} on @tp axes = [0] dim = 1 reduce = sum : tensor<2x8x16xf32> -> tensor<2x2x16xf32>
  // CHECK-NEXT: %[[C:.*]] = arith.constant dense<5.000000e-01> : tensor<2x2x16xf32>
  // CHECK-NEXT: %[[M:.*]] = arith.mulf %[[RS]], %[[C]] : tensor<2x2x16xf32>
  // CHECK-NEXT: %[[B:.*]] = tp.bias_add %[[M]], %{{.*}} : tensor<2x2x16xf32>, tensor<16xf32>
  // CHECK-NEXT: %[[G:.*]] = tp.all_gather %[[B]] on @tp axes = [0] dim = 1 : tensor<2x2x16xf32> -> tensor<2x8x16xf32>
  // CHECK-NEXT: return %[[G]]
  %p = tp.batch_matmul %h, %w : tensor<2x8x4xf32>, tensor<4x16xf32> -> tensor<2x8x16xf32>
  // expected-remark @+1 {{all-reduce split into reduce-scatter + all-gather along dim 1}}
  %ar = tp.all_reduce %p on @tp axes = [0] reduce = sum : tensor<2x8x16xf32>
  %half = arith.constant dense<0.5> : tensor<2x8x16xf32>
  %m = arith.mulf %ar, %half : tensor<2x8x16xf32>
  // expected-remark @+1 {{the all-gather stays before 'func.return'}}
  %y = tp.bias_add %m, %b : tensor<2x8x16xf32>, tensor<16xf32>
  return %y : tensor<2x8x16xf32>
}

// -----

// Negative: the residual differs per rank as far as the program says, so the
// rows other ranks compute would use their residual, not this rank's.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @residual_not_replicated
func.func @residual_not_replicated(%x: tensor<16x32xf32>, %h: tensor<16x8xf32>, %w1: tensor<8x32xf32>) -> tensor<16x32xf32> {
  // CHECK:      %[[RS:.*]] = tp.reduce_scatter
  // CHECK-NEXT: %[[G:.*]] = tp.all_gather %[[RS]]
  // CHECK-NEXT: arith.addf %[[G]], %{{.*}} : tensor<16x32xf32>
  %p = tp.matmul %h, %w1 : tensor<16x8xf32>, tensor<8x32xf32> -> tensor<16x32xf32>
  // expected-remark @+2 {{all-reduce split}}
  // expected-remark @+1 {{sequence parallelism: the all-gather stays before 'arith.addf': operand #1 of 'arith.addf' is not known to be the same on every rank (argument #0 of @residual_not_replicated, which is not marked tp.replicated)}}
  %ar = tp.all_reduce %p on @tp axes = [0] reduce = sum : tensor<16x32xf32>
  %r = arith.addf %ar, %x : tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

// -----

// Negative: a norm weight that differs per rank (broadcast along rows, but
// read by every rank for its own rows).

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @weight_not_replicated
func.func @weight_not_replicated(%h: tensor<16x8xf32>, %w1: tensor<8x32xf32>, %gamma: tensor<32xf32>) -> tensor<16x32xf32> {
  // CHECK: tp.all_gather
  // CHECK: tp.bias_add
  %p = tp.matmul %h, %w1 : tensor<16x8xf32>, tensor<8x32xf32> -> tensor<16x32xf32>
  // expected-remark @+2 {{all-reduce split}}
  // expected-remark @+1 {{the all-gather stays before 'tp.bias_add': operand #1 of 'tp.bias_add' is not known to be the same on every rank (argument #2 of @weight_not_replicated, which is not marked tp.replicated)}}
  %ar = tp.all_reduce %p on @tp axes = [0] reduce = sum : tensor<16x32xf32>
  %r = tp.bias_add %ar, %gamma : tensor<16x32xf32>, tensor<32xf32>
  return %r : tensor<16x32xf32>
}

// -----

// Negatives of the split itself.

shard.grid @tp(shape = 4)
shard.grid @dyn(shape = ?)

// CHECK-LABEL: func.func @not_a_matmul
func.func @not_a_matmul(%x: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // CHECK-NEXT: tp.all_reduce
  // expected-remark @+1 {{sequence parallelism: all-reduce not split: its input is an argument, not a matmul's partial sums, so no fused reduce-scatter would hide it}}
  %ar = tp.all_reduce %x on @tp axes = [0] reduce = sum : tensor<16x32xf32>
  return %ar : tensor<16x32xf32>
}

// CHECK-LABEL: func.func @one_dim
func.func @one_dim(%a: tensor<8xf32>, %b: tensor<8x32xf32>) -> tensor<32xf32> {
  %e = tensor.empty() : tensor<1x32xf32>
  %a2 = tensor.expand_shape %a [[0, 1]] output_shape [1, 8] : tensor<8xf32> into tensor<1x8xf32>
  %p = tp.matmul %a2, %b : tensor<1x8xf32>, tensor<8x32xf32> -> tensor<1x32xf32>
  %v = tensor.collapse_shape %p [[0, 1]] : tensor<1x32xf32> into tensor<32xf32>
  // CHECK: tp.all_reduce
  // expected-remark @+1 {{all-reduce not split: a tensor of rank 1 has no row dim besides the last}}
  %ar = tp.all_reduce %v on @tp axes = [0] reduce = sum : tensor<32xf32>
  return %ar : tensor<32xf32>
}

// CHECK-LABEL: func.func @indivisible_rows
func.func @indivisible_rows(%h: tensor<6x8xf32>, %w: tensor<8x32xf32>) -> tensor<6x32xf32> {
  %p = tp.matmul %h, %w : tensor<6x8xf32>, tensor<8x32xf32> -> tensor<6x32xf32>
  // CHECK: tp.all_reduce
  // expected-remark @+1 {{all-reduce not split: no dim but the last has a static size divisible by the group size 4}}
  %ar = tp.all_reduce %p on @tp axes = [0] reduce = sum : tensor<6x32xf32>
  return %ar : tensor<6x32xf32>
}

// CHECK-LABEL: func.func @dynamic_group
func.func @dynamic_group(%h: tensor<16x8xf32>, %w: tensor<8x32xf32>) -> tensor<16x32xf32> {
  %p = tp.matmul %h, %w : tensor<16x8xf32>, tensor<8x32xf32> -> tensor<16x32xf32>
  // CHECK: tp.all_reduce
  // expected-remark @+1 {{all-reduce not split: its group size is not static}}
  %ar = tp.all_reduce %p on @dyn axes = [0] reduce = sum : tensor<16x32xf32>
  return %ar : tensor<16x32xf32>
}

// -----

// Glue that cannot run on a slice: a reduction over the rows, a payload that
// reads its row index, and a use inside a loop.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @column_sum
func.func @column_sum(%h: tensor<16x8xf32>, %w: tensor<8x32xf32>, %init: tensor<32xf32> {tp.replicated}) -> tensor<32xf32> {
  %p = tp.matmul %h, %w : tensor<16x8xf32>, tensor<8x32xf32> -> tensor<16x32xf32>
  // CHECK: tp.all_gather
  // CHECK-NEXT: linalg.generic
  // expected-remark @+2 {{all-reduce split}}
  // expected-remark @+1 {{the all-gather stays before 'linalg.generic': 'linalg.generic' does not walk the gathered dim with a parallel loop}}
  %ar = tp.all_reduce %p on @tp axes = [0] reduce = sum : tensor<16x32xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>],
                       iterator_types = ["reduction", "parallel"]}
      ins(%ar : tensor<16x32xf32>) outs(%init : tensor<32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %a, %o : f32
    linalg.yield %t : f32
  } -> tensor<32xf32>
  return %s : tensor<32xf32>
}

// CHECK-LABEL: func.func @row_index
func.func @row_index(%h: tensor<16x8xf32>, %w: tensor<8x32xf32>) -> tensor<16x32xf32> {
  %p = tp.matmul %h, %w : tensor<16x8xf32>, tensor<8x32xf32> -> tensor<16x32xf32>
  // expected-remark @+2 {{all-reduce split}}
  // expected-remark @+1 {{the all-gather stays before 'linalg.generic': 'linalg.generic' reads loop indices or works on buffers}}
  %ar = tp.all_reduce %p on @tp axes = [0] reduce = sum : tensor<16x32xf32>
  %e = tensor.empty() : tensor<16x32xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%ar : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %t = arith.addf %a, %f : f32
    linalg.yield %t : f32
  } -> tensor<16x32xf32>
  return %s : tensor<16x32xf32>
}

// CHECK-LABEL: func.func @loop_carried
func.func @loop_carried(%h: tensor<16x8xf32>, %w: tensor<8x32xf32>, %n: index) -> tensor<16x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = tp.matmul %h, %w : tensor<16x8xf32>, tensor<8x32xf32> -> tensor<16x32xf32>
  // expected-remark @+2 {{all-reduce split}}
  // expected-remark @+1 {{the all-gather stays before 'scf.for': 'scf.for' is neither element-wise nor row-wise}}
  %ar = tp.all_reduce %p on @tp axes = [0] reduce = sum : tensor<16x32xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %ar) -> tensor<16x32xf32> {
    %t = math.tanh %acc : tensor<16x32xf32>
    scf.yield %t : tensor<16x32xf32>
  }
  return %r : tensor<16x32xf32>
}

// CHECK-LABEL: func.func @used_in_loop
func.func @used_in_loop(%h: tensor<16x8xf32>, %w: tensor<8x32xf32>, %n: index) -> tensor<16x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = tp.matmul %h, %w : tensor<16x8xf32>, tensor<8x32xf32> -> tensor<16x32xf32>
  // expected-remark @+2 {{all-reduce split}}
  // expected-remark @+1 {{the all-gather stays before 'math.tanh': 'math.tanh' is in another block (moving the all-gather into it would repeat it)}}
  %ar = tp.all_reduce %p on @tp axes = [0] reduce = sum : tensor<16x32xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %p) -> tensor<16x32xf32> {
    %t = math.tanh %ar : tensor<16x32xf32>
    %s = arith.addf %t, %acc : tensor<16x32xf32>
    scf.yield %s : tensor<16x32xf32>
  }
  return %r : tensor<16x32xf32>
}

// -----

// An RMSNorm's sum of squares moves onto the slice after the generic that
// divides by it: the slice of the sum the generic first took (this rank's
// rows of a gather of the moved sum) is the moved sum itself, so no gather
// and no slice are left in between.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @norm_sum_moves_after_its_user
// CHECK-SAME:    (%[[H:.*]]: tensor<16x8xf32>, %[[W1:.*]]: tensor<8x32xf32>, %[[W2:.*]]: tensor<32x8xf32>)
func.func @norm_sum_moves_after_its_user(%h: tensor<16x8xf32>, %w1: tensor<8x32xf32>, %w2: tensor<32x8xf32>) -> tensor<16x8xf32> {
  // CHECK:      %[[RS:.*]] = tp.reduce_scatter {{.*}} -> tensor<4x32xf32>
  // CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[RS]], %[[RS]] : tensor<4x32xf32>
  // CHECK-NOT:  tp.all_gather
  // CHECK:      %[[SUM:.*]] = linalg.reduce ins(%[[SQ]] : tensor<4x32xf32>)
  // CHECK-NOT:  tp.group_rank
  // CHECK-NOT:  tensor.extract_slice
  // CHECK:      %[[N:.*]] = linalg.generic {{.*}} ins(%[[RS]], %[[SUM]] : tensor<4x32xf32>, tensor<4xf32>)
  // CHECK:      %[[AG:.*]] = tp.all_gather %[[N]] on @tp axes = [0] dim = 0 : tensor<4x32xf32> -> tensor<16x32xf32>
  // CHECK-NEXT: %[[Y:.*]] = tp.matmul %[[AG]], %[[W2]]
  // CHECK-NEXT: return %[[Y]]
  %y = tp.matmul %h, %w1 : tensor<16x8xf32>, tensor<8x32xf32> -> tensor<16x32xf32>
  // expected-remark @+1 {{sequence parallelism: all-reduce split into reduce-scatter + all-gather along dim 0}}
  %r = tp.all_reduce %y on @tp axes = [0] reduce = sum : tensor<16x32xf32>
  %sq = arith.mulf %r, %r : tensor<16x32xf32>
  %e = tensor.empty() : tensor<16xf32>
  %z = arith.constant 0.0 : f32
  %fz = linalg.fill ins(%z : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %s = linalg.reduce ins(%sq : tensor<16x32xf32>) outs(%fz : tensor<16xf32>) dimensions = [1]
    (%a: f32, %b: f32) { %c = arith.addf %a, %b : f32
      linalg.yield %c : f32 }
  %o = tensor.empty() : tensor<16x32xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%r, %s : tensor<16x32xf32>, tensor<16xf32>) outs(%o : tensor<16x32xf32>) {
  ^bb0(%x: f32, %m: f32, %u: f32):
    %d = arith.divf %x, %m : f32
    linalg.yield %d : f32
  } -> tensor<16x32xf32>
  %y2 = tp.matmul %n, %w2 : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %y2 : tensor<16x8xf32>
}
