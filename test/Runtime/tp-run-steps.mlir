// tp-run --steps N runs the program N times in a row on the same inputs and
// reports the step times (the slowest rank's) and the bytes the last step
// copied between host and device: none on the CPU backend, and how resident
// memory and open files grew after warm-up. The results are the last step's,
// the same as one step's.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tp-run %s --ranks 2 --pipeline tp-async-tp > %t/one.txt
// RUN: tp-run %s --ranks 2 --pipeline tp-async-tp --steps 3 --compare-pipeline '' > %t/three.txt
// RUN: FileCheck %s --check-prefix=STEPS --input-file=%t/three.txt
// RUN: grep checksum %t/one.txt > %t/one.sums
// RUN: grep checksum %t/three.txt | diff %t/one.sums -
// RUN: FileCheck %s --check-prefix=ONE --input-file=%t/one.txt
// Without --steps nothing is reported; an explicit --steps 1 reports.
// RUN: tp-run %s --ranks 2 --steps 1 | FileCheck %s --check-prefix=SINGLE
// RUN: not tp-run %s --ranks 2 --steps 0 2>&1 | FileCheck %s --check-prefix=RANGE0
// RUN: not tp-run %s --ranks 2 --steps 100001 2>&1 | FileCheck %s --check-prefix=RANGE100001

// STEPS: tp-run: @layer on 2 ranks (cpu)
// STEPS-NEXT: rank 0 result 0: tensor<8x16xf32>
// STEPS-NEXT: rank 1 result 0: tensor<8x16xf32>
// STEPS-NEXT: steps: 3; step time (slowest rank): first {{[0-9]+\.[0-9]+}} ms, best {{[0-9]+\.[0-9]+}} ms, median {{[0-9]+\.[0-9]+}} ms
// STEPS-NEXT: host-device copies in the last step (all ranks): 0 B to the device, 0 B back
// STEPS-NEXT: compiled code's buffers at their peak (activations and temporaries, without inputs): {{[0-9]+\.[0-9]+}} MiB ({{[0-9]+}} bytes) on rank {{[01]}}, the largest
// STEPS-NEXT: resident memory (largest rank process): {{[0-9]+\.[0-9]}} MiB after step 3, {{[0-9]+\.[0-9]}} MiB after step 3 (+0.0 MiB); open files: [[FDS:[0-9]+]], then [[FDS]]
// STEPS-NEXT: compare: every result on every rank matches

// ONE-NOT: steps:
// SINGLE: steps: 1; step time (slowest rank): first
// SINGLE-NOT: resident memory
// RANGE0: tp-run: --steps must be between 1 and 100000, got 0
// RANGE100001: tp-run: --steps must be between 1 and 100000, got 100001

shard.grid @tp(shape = 2)
func.func @layer(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<4x8xf32> -> tensor<8x8xf32>
  %y = tp.matmul %g, %w : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
