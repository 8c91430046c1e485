// RUN: tp-opt %s --tp-check-graph-capture --split-input-file --verify-diagnostics | FileCheck %s

// tp-check-graph-capture, on host code whose glue loops are GPU launches:
// what a kernel does, GPU copies and runtime calls pass; the host copies of
// constants tp-gpu-shared-buffers marks pass; any other host access to a
// buffer is refused with its location.

memref.global "private" constant @ones : memref<4xf32> = dense<1.0>
func.func private @tp_rt_all_reduce(memref<4xf32>)

// CHECK-LABEL: func.func @enqueues_only
func.func @enqueues_only(%x: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %g = memref.get_global @ones : memref<4xf32>
  %s = gpu.alloc host_shared () : memref<4xf32>
  memref.copy %g, %s {tp.constant_copy} : memref<4xf32> to memref<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %s[%c0] : memref<4xf32>
    memref.store %v, %x[%c0] : memref<4xf32>
    gpu.terminator
  }
  %t0 = gpu.wait async
  %t1 = gpu.memcpy async [%t0] %s, %x : memref<4xf32>, memref<4xf32>
  gpu.wait [%t1]
  func.call @tp_rt_all_reduce(%s) : (memref<4xf32>) -> ()
  return
}

// -----

func.func @host_copy(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{cannot be captured in a CUDA graph: 'memref.copy' copies a buffer on the host (it would run once, at capture, not on every replay)}}
  memref.copy %x, %y : memref<4xf32> to memref<4xf32>
  return
}

// -----

func.func @host_store(%x: memref<4xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{cannot be captured in a CUDA graph: 'memref.store' writes a buffer on the host}}
  memref.store %v, %x[%c0] : memref<4xf32>
  return
}

// -----

func.func private @tp_rt_dequantize(memref<4xf32>)

func.func @host_runtime_op(%x: memref<4xf32>) {
  // expected-error @+1 {{cannot be captured in a CUDA graph: 'func.call' calls tp_rt_dequantize, which computes on the host}}
  func.call @tp_rt_dequantize(%x) : (memref<4xf32>) -> ()
  return
}
