// Loop-free functions compiled without LLVM's optimizations compute what
// optimized ones compute. Cut into functions of at most 2 ops, the program
// has loop-free pieces (runtime calls only) and pieces with glue loops;
// --unoptimized-straight-ops 1 leaves every loop-free one unoptimized, 0
// none. The lowering marks exactly the loop-free pieces.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tp-run %s --ranks 2 --max-function-ops 2 --unoptimized-straight-ops 0 --pipeline tp-async-tp-pipeline | grep checksum > %t/optimized.sums
// RUN: tp-run %s --ranks 2 --max-function-ops 2 --unoptimized-straight-ops 1 --pipeline tp-async-tp-pipeline | grep checksum | diff %t/optimized.sums -
// RUN: tp-opt %s --tp-async-tp-pipeline --tp-lower-to-llvm="max-function-ops=2 unoptimized-straight-ops=1" | FileCheck %s
// The JIT generates the unoptimized functions' machine code at LLVM's -O0
// (its fast register allocator) and the rest at -O2 (the greedy one).
// RUN: tp-run %s --ranks 2 --max-function-ops 2 --unoptimized-straight-ops 1 --pipeline tp-async-tp-pipeline --time-passes 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: tp-run %s --ranks 2 --max-function-ops 2 --unoptimized-straight-ops 0 --pipeline tp-async-tp-pipeline --time-passes 2>&1 | FileCheck %s --check-prefix=WHOLE
// RUN: not tp-run %s --ranks 2 --unoptimized-straight-ops -1 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// NEGATIVE: tp-run: --unoptimized-straight-ops must not be negative, got -1

// SPLIT-DAG: Greedy Register Allocator
// SPLIT-DAG: Fast Register Allocator
// WHOLE-NOT: Fast Register Allocator
// WHOLE: Greedy Register Allocator
// WHOLE-NOT: Fast Register Allocator

shard.grid @tp(shape = 2)
func.func @chain(%x: tensor<2x8xf32>, %w: tensor<8x8xf32>) -> (tensor<2x8xf32>, tensor<4x8xf32>) {
  %half = arith.constant dense<0.5> : tensor<4x8xf32>
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<2x8xf32> -> tensor<4x8xf32>
  %m = tp.matmul %g, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %t = math.tanh %m : tensor<4x8xf32>
  %a = arith.addf %t, %half : tensor<4x8xf32>
  %n = tp.matmul %a, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %s = tp.reduce_scatter %n on @tp axes = [0] dim = 0 reduce = sum : tensor<4x8xf32> -> tensor<2x8xf32>
  %g2 = tp.all_gather %s on @tp axes = [0] dim = 0 : tensor<2x8xf32> -> tensor<4x8xf32>
  %o = tp.matmul %g2, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %p = arith.addf %o, %t : tensor<4x8xf32>
  return %s, %p : tensor<2x8xf32>, tensor<4x8xf32>
}

// The pieces with glue loops keep LLVM's optimizations; the function that
// calls them in order (a branch frees a buffer, no loop) is left unoptimized.
// CHECK-LABEL: llvm.func internal @chain_part(
// CHECK-SAME:      attributes {passthrough = ["noinline"], sym_visibility = "private"} {
// CHECK:         llvm.cond_br
// CHECK-LABEL: llvm.func internal @chain_part_0(
// CHECK-SAME:      attributes {passthrough = ["noinline"], sym_visibility = "private"} {
// CHECK-LABEL: llvm.func internal @chain_part_1(
// CHECK-SAME:      attributes {passthrough = ["noinline"], sym_visibility = "private"} {
// CHECK-LABEL: llvm.func @chain(
// CHECK-SAME:      attributes {llvm.emit_c_interface, no_inline, optimize_none} {
// CHECK:         llvm.call @chain_part(
// CHECK:         llvm.call @chain_part_0(
// CHECK:         llvm.call @chain_part_1(
