//===- CudaBackend.h - the CUDA backend (when built) ------------*- C++ -*-===//
//
// cuBLASLt GEMMs and fused schedules on CUDA streams, over one of two
// transports:
//  - loopback: ranks are threads of one process; on one GPU they share it
//    (copy-engine cudaMemcpyAsync between the ranks' device buffers), with N
//    GPUs rank r uses GPU r % N;
//  - NCCL: one process per rank and GPU (see Launch.h for how the processes
//    start and find each other).
// Available when the project is configured with TP_ENABLE_CUDA and a CUDA
// toolkit.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_CUDABACKEND_H
#define TP_RUNTIME_CUDABACKEND_H

#include "tp/Runtime/Backend.h"

#include <chrono>
#include <functional>
#include <memory>

namespace mlir::tp::rt {

/// Whether this build has the CUDA backend.
bool cudaBackendBuilt();

/// Number of visible CUDA devices (0 without a driver or device).
int cudaDeviceCount();

/// The number of visible CUDA devices; fails with cudaGetDeviceCount's error
/// (no driver, a driver older than the runtime...) or when it finds none, so
/// the reason a GPU is unusable can be printed.
Status queryCudaDevices(int &count);

/// Set (to anything but "0") where a GPU is known to be there (scripts/
/// gpu-check.sh, once nvidia-smi has listed one): the CUDA unit tests and
/// tp-gpu-bench then fail instead of skipping when the device query fails.
bool cudaDeviceRequired();

/// The CUDA backend of `rank` on the loopback transport; fails with a
/// message when there is no device.
Status createCudaBackend(World &world, int rank,
                         std::unique_ptr<Backend> &backend);

/// A fresh NCCL unique id (the bootstrap blob of an NCCL run). Needs no GPU.
Status createNcclUniqueId(std::string &blob);

/// This process's rank of an NCCL run.
struct NcclRankSetup {
  int rank = 0, size = 1;
  /// Its place among the ranks on its node: it runs on GPU localRank.
  int localRank = 0, localSize = 1;
  /// From createNcclUniqueId on one process, handed to every rank.
  std::string uniqueId;
  /// Any wait longer than this aborts the NCCL communicators and fails.
  std::chrono::milliseconds timeout{60000};
  TraceRecorder *trace = nullptr;
};

/// The CUDA backend of one process of an NCCL run; connects to the other
/// ranks (collective: every rank must call it).
Status createCudaNcclBackend(const NcclRankSetup &setup,
                             std::unique_ptr<Backend> &backend);

/// A whole step of every rank captured as one CUDA graph and replayed: ranks
/// as threads of this process on the CUDA backend over loopback, glue
/// compiled for the GPU. A replay is one launch: no host code between ops,
/// no allocation, no host-device copy; every buffer and workspace is the one
/// the capture saw. The ranks' threads share one StepGraph.
class StepGraph {
public:
  StepGraph(int ranks, std::chrono::milliseconds timeout);
  ~StepGraph();
  StepGraph(const StepGraph &) = delete;
  StepGraph &operator=(const StepGraph &) = delete;

  /// Copies `inputs` into device memory the graph keeps (a captured step
  /// reads no host memory); `onDevice` views them.
  Status deviceInputs(int rank, const std::vector<Tensor> &inputs,
                      std::vector<Tensor> &onDevice);

  /// Every rank's thread calls this with its backend, after the step ran once
  /// as usual (which loads the kernels and sizes the workspaces): `step` then
  /// only enqueues, into the graph. Returns when the graph is built or the
  /// capture failed (a rank's error, or one in `world`).
  Status capture(World &world, Backend &backend, int rank,
                 const std::function<Status()> &step);

  /// Launches the graph and waits for it (any one thread): fails when it
  /// does not finish within the timeout. `millis` is the launch to the end.
  Status replay(double &millis);

  /// Whether rank `rank`'s capture allocated `ptr` (the graph frees it).
  bool owns(int rank, const void *ptr) const;
  /// Nodes in the graph; bytes the capture allocated, all ranks.
  size_t nodeCount() const;
  size_t capturedBytes() const;

  struct Impl;

private:
  std::unique_ptr<Impl> impl;
};

} // namespace mlir::tp::rt

#endif // TP_RUNTIME_CUDABACKEND_H
