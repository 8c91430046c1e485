//===- Run.cpp - ranks for ahead-of-time compiled code --------------------===//

#include "RunState.h"

using namespace mlir::tp::rt;

extern "C" {

TPRtRun *tpRtRunCreate(int32_t ranks, int64_t timeoutMs) {
  if (ranks < 1 || timeoutMs < 1)
    return nullptr;
  auto *run = new TPRtRun(ranks, std::chrono::milliseconds(timeoutMs));
  configureCpuThreads(ranks);
  for (int r = 0; r < ranks; ++r) {
    run->backends.push_back(createCpuBackend(run->world, r));
    run->contexts.push_back(
        std::make_unique<TPRtContext>(*run->backends.back(), run->world, r));
  }
  return run;
}

TPRtContext *tpRtRunContext(TPRtRun *run, int32_t rank) {
  if (!run)
    return nullptr;
  int32_t index = rank - run->firstRank;
  if (index < 0 || index >= static_cast<int32_t>(run->contexts.size()))
    return nullptr;
  return run->contexts[index].get();
}

const char *tpRtContextError(TPRtContext *ctx) {
  if (!ctx)
    return "no context (tpRtRunContext returned null)";
  return ctx->error.isOk() ? nullptr : ctx->error.message().c_str();
}

void tpRtRunDestroy(TPRtRun *run) { delete run; }

int32_t tpRtRunSize(TPRtRun *run) { return run ? run->world.numRanks() : 0; }

void tpRtContextHostTransfers(TPRtContext *ctx, int64_t *hostToDevice,
                              int64_t *deviceToHost) {
  Backend::HostTransfers t;
  if (ctx)
    t = ctx->backend.hostTransfers();
  if (hostToDevice)
    *hostToDevice = t.hostToDevice;
  if (deviceToHost)
    *deviceToHost = t.deviceToHost;
}

} // extern "C"
