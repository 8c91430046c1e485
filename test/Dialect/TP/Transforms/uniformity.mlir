// RUN: tp-opt %s --split-input-file --verify-diagnostics --tp-test-uniformity -o /dev/null

// isUniformAcrossGroup (Uniformity.h): which values every rank of a group
// holds identically, and where a proof stops. Each marked op asks about its
// results for the group test.grid / test.axes.

shard.grid @tp(shape = 2x4)

func.func @sources(%x: tensor<4x8xf32>, %w: tensor<8x8xf32> {tp.replicated}) {
  // expected-remark @+1 {{result #0 is uniform}}
  %c = arith.constant {test.grid = @tp, test.axes = array<i16: 1>} dense<1.0> : tensor<4x8xf32>
  // expected-remark @+1 {{result #0 is uniform}}
  %r = tp.all_reduce %x on @tp axes = [1] reduce = sum {test.grid = @tp, test.axes = array<i16: 1>} : tensor<4x8xf32>
  // A sum over axis 1 is not the same across axis 0.
  // expected-remark @+1 {{result #0 is not proven uniform: 'tp.all_reduce' over a group that does not contain this one}}
  %r1 = tp.all_reduce %x on @tp axes = [1] reduce = sum {test.grid = @tp, test.axes = array<i16: 0, 1>} : tensor<4x8xf32>
  // expected-remark @+1 {{result #0 is uniform}}
  %g = tp.all_gather %x on @tp axes = [1] dim = 0 {test.grid = @tp, test.axes = array<i16: 1>} : tensor<4x8xf32> -> tensor<16x8xf32>
  // expected-remark @+1 {{result #0 is uniform}}
  %m = arith.mulf %c, %r {test.grid = @tp, test.axes = array<i16: 1>} : tensor<4x8xf32>
  // expected-remark @+1 {{result #0 is uniform}}
  %wt = arith.negf %w {test.grid = @tp, test.axes = array<i16: 1>} : tensor<8x8xf32>
  return
}

// -----

shard.grid @tp(shape = 2x4)

func.func @differs(%x: tensor<4x8xf32>, %i: index) {
  // expected-remark @+1 {{result #0 is not proven uniform: argument #0 of @differs, which is not marked tp.replicated}}
  %n = arith.negf %x {test.grid = @tp, test.axes = array<i16: 1>} : tensor<4x8xf32>
  // The proof names the first value it stopped at, however deep.
  // expected-remark @+1 {{result #0 is not proven uniform: argument #0 of @differs, which is not marked tp.replicated}}
  %a = arith.addf %n, %n {test.grid = @tp, test.axes = array<i16: 1>} : tensor<4x8xf32>
  // expected-remark @+1 {{result #0 is not proven uniform: 'tp.reduce_scatter', whose result differs across the group}}
  %s = tp.reduce_scatter %x on @tp axes = [1] dim = 0 reduce = sum {test.grid = @tp, test.axes = array<i16: 1>} : tensor<4x8xf32> -> tensor<1x8xf32>
  // The rank along axis 1 differs across axis 1, and is the same across axis 0.
  // expected-remark @+1 {{result #0 is not proven uniform: 'tp.group_rank', which differs across the group}}
  %k = tp.group_rank on @tp axes = [1] {test.grid = @tp, test.axes = array<i16: 1>}
  // expected-remark @+1 {{result #0 is uniform}}
  %k0 = tp.group_rank on @tp axes = [1] {test.grid = @tp, test.axes = array<i16: 0>}
  return
}

// -----

shard.grid @tp(shape = 4)

func.func @loops(%x: tensor<4xf32> {tp.replicated}, %n: index) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // A loop over uniform bounds yields the same on every rank.
  %y = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> tensor<4xf32> {
    // expected-remark @+1 {{result #0 is uniform}}
    %v = arith.index_cast %i {test.grid = @tp, test.axes = array<i16: 0>} : index to i64
    scf.yield %acc : tensor<4xf32>
  }
  %z = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> tensor<4xf32> {
    // expected-remark @+1 {{result #0 is not proven uniform: argument #1 of @loops, which is not marked tp.replicated}}
    %v = arith.index_cast %i {test.grid = @tp, test.axes = array<i16: 0>} : index to i64
    scf.yield %acc : tensor<4xf32>
  }
  return %z : tensor<4xf32>
}
