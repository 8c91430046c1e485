//===- CudaRun.cpp - ranks for ahead-of-time code on the CUDA backend -----===//
//
// tpRtCudaRunCreate: tpRtRunCreate's threads, each rank with the loopback
// CUDA backend, for compiled programs whose glue runs on the GPU too.
//
//===----------------------------------------------------------------------===//

#include "../ABI/RunState.h"
#include "tp/Runtime/CudaBackend.h"

#include <cstdio>

using namespace mlir::tp::rt;

extern "C" TPRtRun *tpRtCudaRunCreate(int32_t ranks, int64_t timeoutMs) {
  if (ranks < 1 || timeoutMs < 1)
    return nullptr;
  auto run = std::make_unique<TPRtRun>(ranks,
                                       std::chrono::milliseconds(timeoutMs));
  for (int r = 0; r < ranks; ++r) {
    std::unique_ptr<Backend> backend;
    if (Status made = createCudaBackend(run->world, r, backend);
        !made.isOk()) {
      std::fprintf(stderr, "tp-runtime: %s\n", made.message().c_str());
      return nullptr;
    }
    run->backends.push_back(std::move(backend));
    run->contexts.push_back(
        std::make_unique<TPRtContext>(*run->backends.back(), run->world, r));
  }
  return run.release();
}
