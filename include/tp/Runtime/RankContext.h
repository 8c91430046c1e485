//===- RankContext.h - one rank's context for compiled code -----*- C++ -*-===//
//
// What a driver (tp-run, the C API, an embedder's main) hands compiled code
// as its first argument: the rank's backend and world, the buffers staged
// for the next op, and the rank's first error. See tp/Runtime/ABI.h.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_RANKCONTEXT_H
#define TP_RUNTIME_RANKCONTEXT_H

#include "tp/Runtime/ABI.h"
#include "tp/Runtime/Backend.h"

#include <map>
#include <string>
#include <vector>

struct TPRtContext {
  TPRtContext(mlir::tp::rt::Backend &backend, mlir::tp::rt::World &world,
              int rank)
      : backend(backend), world(world), rank(rank) {}

  /// A buffer staged for the next op.
  struct Staged {
    int32_t role;
    int32_t index;
    TPRtUnrankedMemRef buffer;
    mlir::tp::rt::DType dtype;
  };

  mlir::tp::rt::Backend &backend;
  mlir::tp::rt::World &world;
  int rank;
  std::vector<Staged> staged;
  /// Groups by grid shape and axes.
  std::map<std::vector<int64_t>, mlir::tp::rt::Group> groups;
  /// The first error; every call after it returns at once.
  mlir::tp::rt::Status error;
  /// When compiled code last returned from the runtime: the time since is
  /// the compiled glue's, traced as such.
  double glueStartUs = 0;

  /// Records `message` as this rank's error (the first one wins) and fails
  /// the world, so peers stop waiting.
  void fail(const std::string &message);
  /// Traces the compiled glue that ran since the runtime last returned.
  void traceGlue(const std::string &until);
  /// Marks the start of compiled glue (the entry's start, a runtime return).
  void startGlue();
};

#endif // TP_RUNTIME_RANKCONTEXT_H
