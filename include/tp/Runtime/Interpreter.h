//===- Interpreter.h - run tp programs on N ranks ---------------*- C++ -*-===//
//
// Executes a function of per-rank IR as an SPMD program: one thread per rank,
// each interpreting the same function with its own inputs and calling a
// runtime Backend for collectives, GEMMs and fused ops. Besides the tp
// dialect it runs what tp-import leaves around it in upstream per-rank IR:
// arith and math (on scalars and element-wise on tensors), element-wise
// linalg.generic, linalg.fill, tensor.empty / reshapes / slices, scf.if and
// scf.for, func.call.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_INTERPRETER_H
#define TP_RUNTIME_INTERPRETER_H

#include "tp/Runtime/Backend.h"
#include "tp/Runtime/Status.h"
#include "tp/Runtime/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mlir::tp {

/// The runtime lives in ::tp::rt (it does not depend on MLIR).
namespace rt = ::tp::rt;

/// The element type of a tensor or scalar MLIR type, if the runtime has it.
std::optional<rt::DType> toDType(Type type);

struct ExecutionOptions {
  int ranks = 1;
  std::string backend = "cpu";
  std::chrono::milliseconds timeout{60000};
  rt::TraceRecorder *trace = nullptr;
};

/// One rank's inputs (scalars as rank-0 tensors) and, after a run, results.
struct RankValues {
  std::vector<rt::Tensor> args;
  std::vector<rt::Tensor> results;
};

/// The backends tp-run knows, for --help and validation.
std::vector<std::string> availableBackends();

/// Runs `entry` on options.ranks ranks; perRank[r].args are rank r's inputs.
/// When a rank fails, every other rank stops and the error names the rank
/// that failed first.
rt::Status executeSPMD(func::FuncOp entry, const ExecutionOptions &options,
                       std::vector<RankValues> &perRank);

/// Runs `entry` as rank `rank` of options.ranks on the calling thread, with a
/// backend whose peers are other processes (the CUDA backend over NCCL).
rt::Status executeOneRank(func::FuncOp entry, const ExecutionOptions &options,
                          int rank, rt::Backend &backend, RankValues &values);

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

#endif // TP_RUNTIME_INTERPRETER_H
