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

namespace tp::rt {

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

} // namespace tp::rt

#endif // TP_RUNTIME_CUDABACKEND_H
