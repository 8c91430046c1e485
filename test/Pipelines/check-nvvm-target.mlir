// tp-check-nvvm-target, the first pass of tp-lower-glue-to-nvvm, on its own:
// each option it refuses, with the reason, and a target it accepts.
// RUN: tp-opt %s --tp-check-nvvm-target='chip=sm_90 features=+ptx80 opt-level=2' | FileCheck %s
// RUN: tp-opt %s --tp-check-nvvm-target='chip=sm_42' -verify-diagnostics -split-input-file
// RUN: not tp-opt %s --tp-check-nvvm-target='opt-level=4' 2>&1 | FileCheck %s --check-prefix=LEVEL
// RUN: not tp-opt %s --tp-check-nvvm-target='chip=sm_90 features=+ptx70' 2>&1 | FileCheck %s --check-prefix=PTX
// RUN: not tp-opt %s --tp-check-nvvm-target='cuda-path=/nonexistent' 2>&1 | FileCheck %s --check-prefix=CUDA

// CHECK: module
// LEVEL: error: tp-lower-glue-to-nvvm: 'opt-level' must be 0 to 3, got 4
// PTX: error: tp-lower-glue-to-nvvm: chip 'sm_90' needs PTX 7.8 or newer, but 'features' asks for +ptx70
// CUDA: error: tp-lower-glue-to-nvvm: 'cuda-path' /nonexistent has no nvvm/libdevice

// expected-error @below {{tp-lower-glue-to-nvvm: unknown chip 'sm_42'; known: sm_60}}
module {
  func.func @f() {
    return
  }
}
