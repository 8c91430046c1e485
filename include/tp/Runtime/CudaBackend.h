//===- CudaBackend.h - the CUDA backend (when built) ------------*- C++ -*-===//
//
// cuBLASLt GEMMs and fused schedules on CUDA streams. Ranks are threads of
// one process; on one GPU they share it through the loopback transport
// (copy-engine cudaMemcpyAsync between the ranks' device buffers), with N
// GPUs rank r uses GPU r % N. Available when the project is configured with
// TP_ENABLE_CUDA and a CUDA toolkit.
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

/// The CUDA backend of `rank`; fails with a message when there is no device.
Status createCudaBackend(World &world, int rank,
                         std::unique_ptr<Backend> &backend);

} // namespace tp::rt

#endif // TP_RUNTIME_CUDABACKEND_H
