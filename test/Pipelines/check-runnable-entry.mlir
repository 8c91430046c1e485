// RUN: tp-opt %s --tp-check-runnable="entry=main ranks=2" | FileCheck %s --check-prefix=MAIN
// RUN: not tp-opt %s --tp-check-runnable=entry=external 2>&1 | FileCheck %s --check-prefix=DECLARED
// RUN: not tp-opt %s --tp-check-runnable=entry=missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not tp-opt %s --tp-check-runnable=entry=calls_elsewhere 2>&1 | FileCheck %s --check-prefix=UNLINKED
// RUN: tp-opt %s --tp-check-runnable="entry=calls_elsewhere resolve-declarations=false" | FileCheck %s --check-prefix=AHEAD
// RUN: not tp-opt %s --tp-check-runnable=ranks=-2 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// NEGATIVE: error: tp-check-runnable needs ranks >= 0, got -2

// The entry option: only what the named function reaches is checked. A
// program linked ahead of time may call functions this process lacks.

// MAIN-LABEL: func.func @main(
// MAIN:         return
// AHEAD-LABEL: func.func @calls_elsewhere(
// AHEAD:         call @linked_later

// DECLARED: check-runnable-entry.mlir:[[@LINE+1]]:1: error: @external is only declared; it has no body to run
func.func private @external(tensor<4xf32>) -> tensor<4xf32>

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// MISSING: error: no function @missing to run

func.func private @linked_later(f32) -> f32
func.func @calls_elsewhere(%x: f32) -> f32 {
  // UNLINKED: check-runnable-entry.mlir:[[@LINE+1]]:8: error: 'func.call' op @linked_later is only declared, and no function 'linked_later' is linked into this process
  %y = func.call @linked_later(%x) : (f32) -> f32
  return %y : f32
}
