// RUN: tp-opt %s --split-input-file --tp-lower-glue-to-nvvm="cuda-graph=true" --verify-diagnostics | FileCheck %s

// With cuda-graph=true the pipeline refuses host code that touches buffer
// data: a CUDA graph of the step replays only the GPU work the host code
// enqueued. Glue that is all kernels, copies on streams and runtime calls
// passes (the attention and MLP blocks: test/Pipelines/glue-to-ptx.test
// compiles them this way too).

// Elementwise glue around a matmul: kernels, gpu.memcpy for the arguments
// and the result (which leaves in memory from the runtime's allocator, so a
// capture can keep it), the runtime call in between; no host copy left.
// CHECK-LABEL: llvm.func @capturable
//   CHECK-NOT:   llvm.call @memrefCopy
//       CHECK:   llvm.call @mgpuMemcpy
//       CHECK:   gpu.launch_func @capturable_kernel::
//       CHECK:   llvm.call @tp_rt_matmul
//       CHECK:   gpu.launch_func @capturable_kernel_0::
//       CHECK:   %[[OUT:.*]] = llvm.call @_mlir_memref_to_llvm_alloc
//       CHECK:   llvm.call @mgpuMemcpy(%[[OUT]],
//   CHECK-NOT:   llvm.call @memrefCopy
//       CHECK:   llvm.return
func.func @capturable(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %sq = linalg.mul ins(%x, %x : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = tp.matmul %sq, %w : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %e2 = tensor.empty() : tensor<8x4xf32>
  %z = linalg.add ins(%y, %y : tensor<8x4xf32>, tensor<8x4xf32>) outs(%e2 : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %z : tensor<8x4xf32>
}

// -----

// A reduction to a scalar has no parallel loop to map to threads: it stays
// on the host, which reads and writes the buffers.
func.func @total(%x: tensor<8xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<f32>
  // expected-error @+1 {{cannot be captured in a CUDA graph: 'memref.store' writes a buffer on the host (it would run once, at capture, not on every replay)}}
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
  // expected-error @+1 {{cannot be captured in a CUDA graph: 'memref.load' reads a buffer on the host}}
  %sum = linalg.reduce ins(%x : tensor<8xf32>) outs(%acc : tensor<f32>) dimensions = [0]
    (%in: f32, %out: f32) {
      %s = arith.addf %in, %out : f32
      linalg.yield %s : f32
    }
  return %sum : tensor<f32>
}

// -----

// An element read by the host.
func.func @first(%x: tensor<8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{cannot be captured in a CUDA graph: 'memref.load' reads a buffer on the host}}
  %v = tensor.extract %x[%c0] : tensor<8xf32>
  return %v : f32
}

// -----

// The runtime quantizes on the host.
func.func @quantized(%x: tensor<8x32xf32>) -> (tensor<8x32xf8E4M3FN>, tensor<8x1xf32>) {
  // expected-error @+1 {{cannot be captured in a CUDA graph: 'func.call' calls tp_rt_quantize, which computes on the host}}
  %q, %s = tp.quantize %x row_wise : tensor<8x32xf32> -> tensor<8x32xf8E4M3FN>, tensor<8x1xf32>
  return %q, %s : tensor<8x32xf8E4M3FN>, tensor<8x1xf32>
}
