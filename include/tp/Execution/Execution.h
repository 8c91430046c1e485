//===- Execution.h - compile per-rank programs and run them on N ranks -*- C++
//-*-===//
//
// The compile-and-run driver tp-run and the C API share. A function of
// per-rank IR is lowered with `tp-lower-to-llvm`, compiled once by LLVM's
// ORC JIT (lib/Execution/Jit.h), and called by every rank with its own
// context (tp/Runtime/RankContext.h): ranks are threads calling a runtime
// Backend, or one process of a multi-process run.
//
//===----------------------------------------------------------------------===//

#ifndef TP_EXECUTION_EXECUTION_H
#define TP_EXECUTION_EXECUTION_H

#include "tp/Runtime/ABI.h"
#include "tp/Runtime/Backend.h"
#include "tp/Runtime/Status.h"
#include "tp/Runtime/StepReport.h"
#include "tp/Runtime/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
class OpPassManager;
} // namespace mlir

namespace mlir::tp {

/// The runtime lives in ::mlir::tp::rt (it does not depend on MLIR).

/// The element type of a tensor or scalar MLIR type, if the runtime has it.
std::optional<rt::DType> toDType(Type type);

/// A lowering of the glue for other than the host CPU (tp-run --glue gpu):
/// the passes before and after the driver gives the entry its calling
/// convention, the dialects and translations they produce, and the entry
/// points their code calls beyond the runtime's. A tool that links those
/// libraries provides it, so this library does not.
struct GlueLowering {
  std::string name;
  std::function<void(OpPassManager &)> bufferize, lower;
  std::function<void(DialectRegistry &)> registerDialects;
  std::vector<std::pair<std::string, void *>> symbols;
};

struct ExecutionOptions {
  int ranks = 1;
  std::string backend = "cpu";
  /// A rank that waits longer than this for its peers fails, and so does a
  /// run (after compiling) that lasts longer.
  std::chrono::milliseconds timeout{60000};
  rt::TraceRecorder *trace = nullptr;
  /// Upstream's runtime verification in the compiled code.
  bool runtimeChecks = true;
  /// Longer functions are compiled as functions of at most this many
  /// top-level ops (tp-split-long-functions; 0: as written).
  int64_t maxFunctionOps = 256;
  /// Loop-free functions of this many LLVM dialect ops or more are compiled
  /// without LLVM's optimizations (tp-unoptimized-straight-code; 0: never).
  int64_t unoptimizedStraightOps = 4096;
  /// Verify the program after each lowering pass, not only after the last
  /// (to find a pass that breaks it; compiling then takes about twice as
  /// long).
  bool verifyEachPass = false;
  /// A rank that dies from a signal (a failed runtime check's abort, an
  /// integer division by zero) prints its rank and entry and ends the
  /// process with status 1. For tools; embedders keep their own handlers.
  bool reportCrashes = false;
  /// When a run has failed or timed out and a rank still does not stop (it
  /// is inside compiled code, which cannot be interrupted), executeSPMD
  /// returns the error and leaves that rank's thread running, detached, with
  /// the state it uses; the caller should then end the process. Otherwise
  /// executeSPMD waits for every rank. `trace` must outlive abandoned ranks.
  bool abandonRunawayRanks = false;
  /// Ranks sharing this node's cores in a run of one process per rank
  /// (executeOneRank): the BLAS thread pool is sized for them.
  int ranksPerNode = 1;
  /// Runs of the program in a row on every rank, each on the same inputs
  /// (a training or serving loop's steps); the results are the last run's.
  /// The run's time limit grows with them.
  int steps = 1;
  /// Where glue runs: the host CPU (null) or what this lowering targets.
  const GlueLowering *glue = nullptr;
  /// The first step runs as usual; the next are replays of one CUDA graph
  /// of every rank's step, captured after it (executeSPMD, CUDA builds; the
  /// cuda backend over loopback with glue on the GPU).
  bool cudaGraph = false;
};

/// How long the ranks' runs may take in all: the timeout per step.
std::chrono::milliseconds runLimit(const ExecutionOptions &options);

/// One rank's inputs (scalars as rank-0 tensors) and, after a run, results.
struct RankValues {
  std::vector<rt::Tensor> args;
  std::vector<rt::Tensor> results;
  /// Each run's time and the last run's host-device copies.
  rt::StepReport steps;
  /// With ExecutionOptions::cudaGraph (rank 0): the graph's nodes, and the
  /// bytes its capture allocated for every rank's buffers.
  size_t graphNodes = 0, graphBytes = 0;
};

/// The backends this build has, for --help and validation.
std::vector<std::string> availableBackends();

/// A function compiled to native code, callable by any number of ranks at
/// once.
class CompiledProgram {
public:
  ~CompiledProgram();

  /// Lowers a copy of `entry`'s module and JIT-compiles it. The grids of its
  /// tp ops must be static and span `options.ranks` ranks.
  static rt::Status compile(func::FuncOp entry, const ExecutionOptions &options,
                            std::unique_ptr<CompiledProgram> &program);

  /// Runs the function as one rank on the calling thread: `backend` and
  /// `world` serve its tp ops.
  rt::Status run(rt::Backend &backend, rt::World &world, int rank,
                 RankValues &values) const;

  /// Runs the function as one rank on `args`, wherever their memory is,
  /// and leaves its results as compiled code returned them: descriptors
  /// and buffers the caller owns.
  rt::Status call(rt::Backend &backend, rt::World &world, int rank,
                  const std::vector<rt::Tensor> &args,
                  std::vector<TPRtUnrankedMemRef> &results) const;
  /// The element type of result `index`.
  rt::DType resultType(size_t index) const;

  /// Milliseconds spent lowering and JIT-compiling.
  double compileMs() const { return compileMillis; }

  /// The engine and the entry's signature (lib/Execution/Program.h).
  struct Impl;

private:
  explicit CompiledProgram(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
  double compileMillis = 0;
};

/// Compiles `entry` and runs it on options.ranks ranks (threads);
/// perRank[r].args are rank r's inputs. When a rank fails, every other rank
/// stops and the error names the rank that failed first. With
/// options.abandonRunawayRanks, `perRank` is left empty when ranks are
/// abandoned.
rt::Status executeSPMD(func::FuncOp entry, const ExecutionOptions &options,
                       std::vector<RankValues> &perRank);

/// Compiles `entry` and runs it as rank `rank` of options.ranks on the
/// calling thread, with a backend whose peers are other processes (the CUDA
/// backend over NCCL, the CPU backend over MPI).
rt::Status executeOneRank(func::FuncOp entry, const ExecutionOptions &options,
                          int rank, rt::Backend &backend, RankValues &values);

/// Runs tp-specialize-dynamic-grids for `entry` on `ranks` ranks, then
/// re-verifies the module: ops whose shape rules need a static size report
/// their location then. The error holds the diagnostics, a line each
/// ("file:line:col: message").
rt::Status specializeDynamicGrids(func::FuncOp entry, int ranks);

/// Runs tp-check-runnable for `entry` on `ranks` ranks: whether it can run.
/// The error holds its diagnostics, a line each ("file:line:col: message").
rt::Status checkProgram(func::FuncOp entry, int ranks);

/// Whether this machine can run `entry` on `ranks` thread ranks with
/// arguments of `argShapes`: threads the system allows, and memory for every
/// rank's inputs and the program's largest static tensor. Errors give the
/// numbers and where the limit comes from.
rt::Status checkResources(func::FuncOp entry, int ranks,
                          const std::vector<std::vector<int64_t>> &argShapes);

/// Shapes of `entry`'s arguments with dynamic dims resolved: `argShapes[i]`
/// when given, else every dynamic dim set to `dynamicSize` (> 0).
rt::Status
resolveArgumentShapes(func::FuncOp entry,
                      const std::map<unsigned, std::vector<int64_t>> &argShapes,
                      int64_t dynamicSize,
                      std::vector<std::vector<int64_t>> &shapes);

/// Seeded pseudo-random inputs, different per rank and argument: floats
/// uniform in [-1, 1), FP8/FP4 finite codes, e8m0 scales near 1, integers in
/// [0, 4), i1 0 or 1.
rt::Status makeRandomInputs(func::FuncOp entry,
                            const std::vector<std::vector<int64_t>> &shapes,
                            uint64_t seed, int rank,
                            std::vector<rt::Tensor> &args);

} // namespace mlir::tp

#endif // TP_EXECUTION_EXECUTION_H
