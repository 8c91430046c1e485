//===- RunState.h - what a TPRtRun holds ------------------------*- C++ -*-===//
//
// Shared by the thread runs of Run.cpp and the MPI runs of MpiRun.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_RUNTIME_ABI_RUNSTATE_H
#define TP_LIB_RUNTIME_ABI_RUNSTATE_H

#include "tp/Runtime/Embedding.h"
#include "tp/Runtime/RankContext.h"

#include <functional>
#include <memory>
#include <vector>

struct TPRtRun {
  TPRtRun(int ranks, std::chrono::milliseconds timeout)
      : world(ranks, timeout) {}
  ~TPRtRun() {
    contexts.clear();
    backends.clear();
    if (afterDestroy)
      afterDestroy();
  }

  mlir::tp::rt::World world;
  std::vector<std::unique_ptr<mlir::tp::rt::Backend>> backends;
  std::vector<std::unique_ptr<TPRtContext>> contexts;
  /// The rank of contexts[0]: 0 for threads, this process's for MPI.
  int firstRank = 0;
  /// Runs once the backends are gone (an MPI run finalizes MPI).
  std::function<void()> afterDestroy;
};

#endif // TP_LIB_RUNTIME_ABI_RUNSTATE_H
