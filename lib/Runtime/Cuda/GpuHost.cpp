//===- GpuHost.cpp - the mgpu* entry points of GPU glue ------------------===//
//
// Host code lowered by upstream's GPU-to-LLVM conversion (what
// tp-lower-glue-to-nvvm emits) loads its kernels and launches them through
// `mgpu*` functions, which upstream ships in libmlir_cuda_runtime; Debian
// does not. These are ours, on the CUDA runtime's library API (the PTX is
// JIT-compiled by the driver). They use the calling thread's current device,
// so a rank thread of the CUDA backend launches on its own GPU.
//
// Compiled code has no way to take an error back, so a failing call prints
// the entry, the CUDA error and the rank, and aborts; tp-run's crash report
// then names the rank and the entry function.
//
// While a rank thread's step is captured into a CUDA graph (GraphCapture.h),
// its work goes on the rank's compute stream, which has joined the capture:
// a stream the code creates is that stream, waiting for it does nothing
// (the graph orders the work), and allocations come from the capture's
// arena, freed when the graph goes.
//
//===----------------------------------------------------------------------===//

#include "GraphCapture.h"
#include "Kernels.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace {

void check(cudaError_t error, const char *entry) {
  if (error == cudaSuccess)
    return;
  int device = -1;
  cudaGetDevice(&device);
  char text[512];
  std::snprintf(text, sizeof(text),
                "%s (GPU glue, device %d): CUDA error %s: %s", entry, device,
                cudaGetErrorName(error), cudaGetErrorString(error));
  // While capturing, the capture fails with the first error instead.
  if (mlir::tp::rt::cuda::CaptureScope *scope =
          mlir::tp::rt::cuda::currentCaptureScope()) {
    if (scope->error.empty())
      scope->error = text;
    return;
  }
  std::fprintf(stderr, "tp-runtime: %s\n", text);
  std::fflush(stderr);
  std::abort();
}

/// A kernel module, loaded on first use.
struct LazyModule {
  const void *image;
  bool jit;
  int optLevel;
  std::once_flag once;
  cudaLibrary_t library = nullptr;
  cudaError_t error = cudaSuccess;

  void load() {
    if (!jit) {
      error = cudaLibraryLoadData(&library, image, nullptr, nullptr, 0, nullptr,
                                  nullptr, 0);
      return;
    }
    // PTX: the driver compiles it for this GPU at the pipeline's level.
    char log[4096] = {0};
    cudaJitOption options[] = {cudaJitOptimizationLevel, cudaJitErrorLogBuffer,
                               cudaJitErrorLogBufferSizeBytes};
    void *values[] = {
        reinterpret_cast<void *>(static_cast<intptr_t>(optLevel)), log,
        reinterpret_cast<void *>(static_cast<intptr_t>(sizeof(log)))};
    error = cudaLibraryLoadData(&library, image, options, values, 3, nullptr,
                                nullptr, 0);
    if (error != cudaSuccess && log[0])
      std::fprintf(stderr, "tp-runtime: the driver's PTX JIT says: %s\n", log);
  }
};

cudaStream_t asStream(void *stream) {
  return static_cast<cudaStream_t>(stream);
}

/// The capture the calling rank thread takes part in, if any.
mlir::tp::rt::cuda::CaptureScope *capture() {
  return mlir::tp::rt::cuda::currentCaptureScope();
}

/// Whether `ptr` is host memory (pageable or pinned), not device or managed.
bool isHostMemory(const void *ptr) {
  cudaPointerAttributes attributes;
  if (cudaPointerGetAttributes(&attributes, ptr) != cudaSuccess) {
    cudaGetLastError();
    return true;
  }
  return attributes.type == cudaMemoryTypeUnregistered ||
         attributes.type == cudaMemoryTypeHost;
}

/// Whether this thread's capture has already failed: nothing more is
/// enqueued.
bool captureFailed() { return capture() && !capture()->error.empty(); }

/// Whether `stream` is the one a capture put this thread's work on.
bool isCaptureStream(void *stream) {
  return capture() && asStream(stream) == capture()->stream;
}

} // namespace

mlir::tp::rt::cuda::GlueTransfers &mlir::tp::rt::cuda::glueTransfers() {
  thread_local GlueTransfers moved;
  return moved;
}

extern "C" {

/// Upstream's lowering loads every kernel module in a global constructor,
/// before main. Loading here waits for the first kernel the module is asked
/// for, so a program starts (and reports its errors where it runs) on any
/// machine, and a rank thread's first launch picks the module up on its own
/// device (a CUDA library is not tied to one context).
void *mgpuModuleLoad(void *data, size_t /*size*/) {
  return new LazyModule{data, /*jit=*/false, 0};
}

void *mgpuModuleLoadJIT(void *data, int optLevel) {
  return new LazyModule{data, /*jit=*/true, optLevel};
}

void mgpuModuleUnload(void *module) {
  auto *lazy = static_cast<LazyModule *>(module);
  // At exit, after the CUDA runtime may have shut down: errors are moot.
  if (lazy->library)
    cudaLibraryUnload(lazy->library);
  delete lazy;
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  auto *lazy = static_cast<LazyModule *>(module);
  std::call_once(lazy->once, [lazy] { lazy->load(); });
  check(lazy->error, lazy->jit ? "mgpuModuleLoadJIT" : "mgpuModuleLoad");
  cudaKernel_t kernel = nullptr;
  check(cudaLibraryGetKernel(&kernel, lazy->library, name),
        "mgpuModuleGetFunction");
  return kernel;
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t sharedMemBytes, void *stream,
                      void **params, void ** /*extra*/, size_t /*count*/) {
  if (captureFailed())
    return;
  // A cudaKernel_t stands for the function symbol in cudaLaunchKernel.
  check(cudaLaunchKernel(function,
                         dim3(static_cast<unsigned>(gridX),
                              static_cast<unsigned>(gridY),
                              static_cast<unsigned>(gridZ)),
                         dim3(static_cast<unsigned>(blockX),
                              static_cast<unsigned>(blockY),
                              static_cast<unsigned>(blockZ)),
                         params, static_cast<size_t>(sharedMemBytes),
                         asStream(stream)),
        "mgpuLaunchKernel");
}

void *mgpuStreamCreate() {
  if (capture())
    return capture()->stream;
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
        "mgpuStreamCreate");
  return stream;
}

void mgpuStreamDestroy(void *stream) {
  if (isCaptureStream(stream))
    return;
  check(cudaStreamDestroy(asStream(stream)), "mgpuStreamDestroy");
}

void mgpuStreamSynchronize(void *stream) {
  if (isCaptureStream(stream))
    return;
  check(cudaStreamSynchronize(asStream(stream)), "mgpuStreamSynchronize");
}

void mgpuStreamWaitEvent(void *stream, void *event) {
  if (captureFailed())
    return;
  check(cudaStreamWaitEvent(asStream(stream), static_cast<cudaEvent_t>(event),
                            0),
        "mgpuStreamWaitEvent");
}

void *mgpuEventCreate() {
  cudaEvent_t event = nullptr;
  check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming),
        "mgpuEventCreate");
  return event;
}

void mgpuEventDestroy(void *event) {
  check(cudaEventDestroy(static_cast<cudaEvent_t>(event)), "mgpuEventDestroy");
}

void mgpuEventSynchronize(void *event) {
  // Captured work is all on one stream: the graph orders it.
  if (capture())
    return;
  check(cudaEventSynchronize(static_cast<cudaEvent_t>(event)),
        "mgpuEventSynchronize");
}

void mgpuEventRecord(void *event, void *stream) {
  if (captureFailed())
    return;
  check(cudaEventRecord(static_cast<cudaEvent_t>(event), asStream(stream)),
        "mgpuEventRecord");
}

/// Host-shared buffers are managed memory: the host code, the runtime and
/// the kernels all reach them.
void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, bool isHostShared) {
  void *ptr = nullptr;
  if (sizeBytes == 0)
    return nullptr;
  if (capture()) {
    ptr = capture()->arena->allocate(256, sizeBytes);
    if (!ptr)
      check(cudaErrorMemoryAllocation, "mgpuMemAlloc (capturing)");
    return ptr;
  }
  if (isHostShared)
    check(cudaMallocManaged(&ptr, sizeBytes, cudaMemAttachGlobal),
          "mgpuMemAlloc");
  else
    check(cudaMallocAsync(&ptr, sizeBytes, asStream(stream)), "mgpuMemAlloc");
  return ptr;
}

void mgpuMemFree(void *ptr, void * /*stream*/) {
  // cudaFree frees managed and stream-ordered allocations alike, after the
  // work that uses them.
  // While capturing nothing is freed: the arena's memory stays with the
  // graph, and cudaFree of any other would synchronize the device, which
  // invalidates the capture (a step frees only what it allocated, so there
  // is no other).
  if (capture())
    return;
  if (ptr)
    check(cudaFree(ptr), "mgpuMemFree");
}

void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream) {
  if (captureFailed())
    return;
  // Host memory on one side (the program's inputs or results): counted for
  // the rank's report of what a step copies.
  mlir::tp::rt::cuda::GlueTransfers &moved =
      mlir::tp::rt::cuda::glueTransfers();
  if (isHostMemory(src))
    moved.hostToDevice += static_cast<int64_t>(sizeBytes);
  else if (isHostMemory(dst))
    moved.deviceToHost += static_cast<int64_t>(sizeBytes);
  check(cudaMemcpyAsync(dst, src, sizeBytes, cudaMemcpyDefault,
                        asStream(stream)),
        "mgpuMemcpy");
}

void mgpuMemset32(void *dst, unsigned int value, size_t count, void *stream) {
  if (captureFailed())
    return;
  check(mlir::tp::rt::cuda::launchFill(dst, value, 4, count, asStream(stream)),
        "mgpuMemset32");
}

void mgpuMemset16(void *dst, unsigned short value, size_t count,
                  void *stream) {
  if (captureFailed())
    return;
  check(mlir::tp::rt::cuda::launchFill(dst, value, 2, count, asStream(stream)),
        "mgpuMemset16");
}

void mgpuSetDefaultDevice(int32_t device) {
  check(cudaSetDevice(device), "mgpuSetDefaultDevice");
}

} // extern "C"
