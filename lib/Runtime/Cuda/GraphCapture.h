//===- GraphCapture.h - a rank thread's part of a step's CUDA graph -*- C++ -*-=//
//
// While StepGraph captures a step, each rank thread runs its compiled code
// with a CaptureScope: the GPU glue's mgpu* entries (GpuHost.cpp) enqueue on
// the rank's compute stream, which has joined the capture, instead of
// streams of their own that they wait for; and every allocation of the step
// (glue buffers, result buffers) comes from the rank's arena, which keeps it
// until the graph goes, because the captured kernels and copies keep the
// addresses they saw.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_RUNTIME_CUDA_GRAPHCAPTURE_H
#define TP_LIB_RUNTIME_CUDA_GRAPHCAPTURE_H

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace mlir::tp::rt::cuda {

/// Managed memory a captured step allocated, freed when the graph goes.
class CaptureArena {
public:
  CaptureArena() = default;
  CaptureArena(const CaptureArena &) = delete;
  CaptureArena &operator=(const CaptureArena &) = delete;
  ~CaptureArena();

  /// `size` bytes of managed memory aligned to `alignment` (null on failure).
  void *allocate(size_t alignment, size_t size);
  /// Whether the arena made `ptr` (its memory then stays until the arena
  /// goes: a free inside the step only ends the program's use of it).
  bool owns(void *ptr) const { return bases.count(ptr) != 0; }
  /// Bytes allocated so far.
  size_t bytes() const { return total; }

private:
  /// Aligned address -> what cudaMallocManaged returned.
  std::map<void *, void *> bases;
  size_t total = 0;
};

/// The capture the calling thread takes part in.
struct CaptureScope {
  cudaStream_t stream = nullptr;
  CaptureArena *arena = nullptr;
  /// The first CUDA error of an mgpu* entry while capturing (which would
  /// otherwise abort): the capture fails with it, and later entries enqueue
  /// nothing.
  std::string error;
};

/// Bytes the GPU glue's copies (mgpuMemcpy) moved between host memory and
/// the device on the calling thread: a rank's program inputs and results.
struct GlueTransfers {
  int64_t hostToDevice = 0, deviceToHost = 0;
};
GlueTransfers &glueTransfers();

/// The calling thread's capture (null outside one).
CaptureScope *currentCaptureScope();
void setCaptureScope(CaptureScope *scope);

} // namespace mlir::tp::rt::cuda

#endif // TP_LIB_RUNTIME_CUDA_GRAPHCAPTURE_H
