// A failing rank stops every rank promptly and the report names the rank
// that failed first; disagreeing ranks and missing ranks end with a clear
// error, never a hang.
// RUN: not tp-run %s --entry one_rank_fails --ranks 4 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: not tp-run %s --entry one_rank_fails --ranks 4 --no-runtime-checks 2>&1 | FileCheck %s --check-prefix=ONE-UNCHECKED
// RUN: not tp-run %s --entry shapes_differ --ranks 2 2>&1 | FileCheck %s --check-prefix=SHAPES
// RUN: not tp-run %s --entry rank_skips_collective --ranks 2 --timeout-ms 300 2>&1 | FileCheck %s --check-prefix=SKIP
// RUN: not tp-run %s --entry unsupported --ranks 4 2>&1 | FileCheck %s --check-prefix=UNKNOWN-OP
// RUN: not tp-run %s --entry one_rank_fails --ranks 2 2>&1 | FileCheck %s --check-prefix=GRID
// RUN: not tp-run %s --entry dynamic_bias --ranks 4 --arg-shape 1=7 2>&1 | FileCheck %s --check-prefix=BIAS
// RUN: not tp-run %s --entry negative_amax --ranks 4 2>&1 | FileCheck %s --check-prefix=AMAX

shard.grid @tp(shape = 4)
shard.grid @pair(shape = 2)

// Rank 2 divides by zero in compiled code (the divisor is only known at run
// time): the process reports the rank and the function instead of dying
// silently; the runtime checks also name the division.
// ONE: 'arith.divsi' divides by zero
// ONE-NEXT: Location: loc("{{.*}}tp-run-faults.mlir":[[@LINE+10]]:8)
// ONE-NEXT: tp-run: rank 2 died running @one_rank_fails: SIGABRT: a runtime check failed
// ONE-UNCHECKED: tp-run: rank 2 died running @one_rank_fails: SIGFPE, an arithmetic fault
func.func @one_rank_fails(%x: tensor<2x4xf32>) -> (tensor<8x4xf32>, i64) {
  %rank = tp.group_rank on @tp axes = [0]
  %r = arith.index_cast %rank : index to i64
  %c2 = arith.constant 2 : i64
  %divisor = arith.subi %r, %c2 : i64
  %c7 = arith.constant 7 : i64
  %numerator = arith.addi %r, %c7 : i64
  %v = arith.divsi %numerator, %divisor : i64
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<2x4xf32> -> tensor<8x4xf32>
  return %g, %v : tensor<8x4xf32>, i64
}

// Rank 1 gathers a different shape than rank 0.
// SHAPES: tp-run: rank {{[01]}} failed first: ranks disagree on a collective: rank {{[01]}} runs 'tp.all_gather' at {{.*}} on tensor<{{[12]}}x4xf32> but rank {{[01]}} runs 'tp.all_gather' at {{.*}} on tensor<{{[12]}}x4xf32>
func.func @shapes_differ(%x: tensor<2x4xf32>) -> tensor<?x4xf32> {
  %rank = tp.group_rank on @pair axes = [0]
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %is1 = arith.cmpi eq, %rank, %c1 : index
  %rows = arith.select %is1, %c1, %c2 : index
  %s = tensor.extract_slice %x[0, 0] [%rows, 4] [1, 1] : tensor<2x4xf32> to tensor<?x4xf32>
  %g = tp.all_gather %s on @pair axes = [0] dim = 0 : tensor<?x4xf32> -> tensor<?x4xf32>
  return %g : tensor<?x4xf32>
}

// Only rank 0 enters the collective: it stops as soon as rank 1 has returned.
// SKIP: tp-run: rank 0 failed first: stopped in 'tp.all_gather' at {{.*}}: rank 1 finished its program without entering it
func.func @rank_skips_collective(%x: tensor<2x4xf32>, %y: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %rank = tp.group_rank on @pair axes = [0]
  %c0 = arith.constant 0 : index
  %is0 = arith.cmpi eq, %rank, %c0 : index
  %r = scf.if %is0 -> (tensor<4x4xf32>) {
    %g = tp.all_gather %x on @pair axes = [0] dim = 0 : tensor<2x4xf32> -> tensor<4x4xf32>
    scf.yield %g : tensor<4x4xf32>
  } else {
    scf.yield %y : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}

// An op that cannot be compiled is refused before anything runs.
// UNKNOWN-OP: tp-run: {{.*}}tp-run-faults.mlir:[[@LINE+2]]:8: 'shard.broadcast' op tp-import does not raise this op{{( \(.*\))?}}, and compiled programs cannot run shard ops
func.func @unsupported(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %y = shard.broadcast %x on @tp grid_axes = [0] root = [0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// GRID: tp-run: {{.*}}: 'tp.group_rank' op grid @tp has 4 ranks but the run has 2

// A dynamic bias that turns out the wrong length at run time: a runtime check
// reports the op and its location, then tp-run names the rank.
// BIAS: ERROR: Runtime op verification failed
// BIAS: Location: loc({{.*}}tp-run-faults.mlir":[[@LINE+4]]:8)
// BIAS: tp-run: rank {{[0-3]}} died running @dynamic_bias: SIGABRT: a runtime check failed
func.func @dynamic_bias(%x: tensor<2x4xf32>, %b: tensor<?xf32>) -> tensor<2x4xf32> {
  %d = tensor.cast %x : tensor<2x4xf32> to tensor<2x?xf32>
  %y = tp.bias_add %d, %b : tensor<2x?xf32>, tensor<?xf32>
  %r = tensor.cast %y : tensor<2x?xf32> to tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// A given amax must be a usable one: the quantize reports it and its site.
// AMAX: tp-run: rank {{[0-3]}} failed first: 'tp.quantize' at {{.*}}tp-run-faults.mlir:[[@LINE+3]]:12: the amax must be finite and non-negative, got -1{{$}}
func.func @negative_amax(%x: tensor<4x16xf32>) -> tensor<f32> {
  %m = arith.constant dense<-1.0> : tensor<f32>
  %q, %s = tp.quantize %x amax %m per_tensor : tensor<4x16xf32> -> tensor<4x16xf8E4M3FN>, tensor<f32>
  return %s : tensor<f32>
}
