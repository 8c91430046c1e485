// RUN: tp-opt %s --split-input-file --verify-diagnostics --tp-specialize-dynamic-grids=ranks=6 | FileCheck %s
// RUN: not tp-opt %s --split-input-file --tp-specialize-dynamic-grids=ranks=0 2>&1 | FileCheck %s --check-prefix=ZERO

// A grid's one dynamic axis spans what the run's ranks leave; grids the
// program does not use, and static ones, are left as they are.

// ZERO: error: tp-specialize-dynamic-grids needs ranks >= 1, got 0

// CHECK:       shard.grid @whole(shape = 6)
// CHECK:       shard.grid @rows(shape = 2x3)
// CHECK:       shard.grid @unused(shape = ?)
// CHECK:       shard.grid @fixed(shape = 4)
shard.grid @whole(shape = ?)
shard.grid @rows(shape = 2x?)
shard.grid @unused(shape = ?)
shard.grid @fixed(shape = 4)
func.func @main() -> (index, index, index) {
  %a = tp.group_rank on @whole axes = [0]
  %b = tp.group_rank on @rows axes = [1]
  %c = func.call @helper() : () -> index
  return %a, %b, %c : index, index, index
}
func.func private @helper() -> index {
  %c = tp.group_rank on @fixed axes = [0]
  return %c : index
}

// -----

// expected-error @+1 {{grid @two has 2 dynamic axes; a run fixes only one from its rank count}}
shard.grid @two(shape = ?x?)
func.func @main() -> index {
  %r = tp.group_rank on @two axes = [0]
  return %r : index
}

// -----

// expected-error @+1 {{grid @five has static axes spanning 5 ranks, which does not divide the run's 6}}
shard.grid @five(shape = 5x?)
func.func @main() -> index {
  %r = tp.group_rank on @five axes = [0]
  return %r : index
}
