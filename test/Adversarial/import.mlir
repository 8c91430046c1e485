// Upstream per-rank IR that upstream accepts but tp cannot run: grids with
// an empty axis or more ranks than int64 counts. tp-import leaves such
// collectives unraised and says why; tp-run refuses them with the reason.
// RUN: tp-opt %s --tp-import=emit-remarks --verify-diagnostics -o /dev/null
// RUN: not tp-run %s --entry reduce_empty 2>&1 | FileCheck %s --check-prefix=RUN-EMPTY
// RUN: not tp-run %s --entry gather_huge 2>&1 | FileCheck %s --check-prefix=RUN-HUGE

shard.grid @empty(shape = 0)
shard.grid @huge(shape = 9223372036854775807x4)
shard.grid @fine(shape = 2x0)

// RUN-EMPTY: tp-run: {{.*}}import.mlir:[[@LINE+3]]:8: 'shard.all_reduce' op tp-import does not raise this op (grid axis 0 of @empty has extent 0, so the group has no rank), and compiled programs cannot run shard ops
func.func @reduce_empty(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-remark @+1 {{'shard.all_reduce' not raised: grid axis 0 of @empty has extent 0, so the group has no rank}}
  %r = shard.all_reduce %x on @empty grid_axes = [0] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

func.func @gather_empty(%x: tensor<4x8xf32>) -> tensor<0x8xf32> {
  // expected-remark @+1 {{'shard.all_gather' not raised: grid axis 0 of @empty has extent 0, so the group has no rank}}
  %g = shard.all_gather %x on @empty grid_axes = [0] gather_axis = 0 : tensor<4x8xf32> -> tensor<0x8xf32>
  return %g : tensor<0x8xf32>
}

// RUN-HUGE: tp-run: {{.*}}import.mlir:[[@LINE+3]]:8: 'shard.all_reduce' op tp-import does not raise this op (its group has more ranks than int64 holds)
func.func @gather_huge(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-remark @+1 {{'shard.all_reduce' not raised: its group has more ranks than int64 holds}}
  %r = shard.all_reduce %x on @huge grid_axes = [0, 1] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// An empty axis the collective does not name is no obstacle.
func.func @other_axis(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = shard.all_reduce %x on @fine grid_axes = [0] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
