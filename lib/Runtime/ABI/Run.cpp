//===- Run.cpp - ranks for ahead-of-time compiled code --------------------===//

#include "tp/Runtime/RankContext.h"

#include <memory>
#include <vector>

using namespace tp::rt;

struct TPRtRun {
  TPRtRun(int ranks, std::chrono::milliseconds timeout)
      : world(ranks, timeout) {
    configureCpuThreads(ranks);
    for (int r = 0; r < ranks; ++r) {
      backends.push_back(createCpuBackend(world, r));
      contexts.push_back(
          std::make_unique<TPRtContext>(*backends.back(), world, r));
    }
  }

  World world;
  std::vector<std::unique_ptr<Backend>> backends;
  std::vector<std::unique_ptr<TPRtContext>> contexts;
};

extern "C" {

TPRtRun *tpRtRunCreate(int32_t ranks, int64_t timeoutMs) {
  if (ranks < 1 || timeoutMs < 1)
    return nullptr;
  return new TPRtRun(ranks, std::chrono::milliseconds(timeoutMs));
}

TPRtContext *tpRtRunContext(TPRtRun *run, int32_t rank) {
  if (!run || rank < 0 || rank >= static_cast<int32_t>(run->contexts.size()))
    return nullptr;
  return run->contexts[rank].get();
}

const char *tpRtContextError(TPRtContext *ctx) {
  if (!ctx)
    return "no context (tpRtRunContext returned null)";
  return ctx->error.isOk() ? nullptr : ctx->error.message().c_str();
}

void tpRtRunDestroy(TPRtRun *run) { delete run; }

} // extern "C"
