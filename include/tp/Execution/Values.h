//===- Values.h - a run's inputs, dumps, printouts and comparisons -*- C++ -*-//
//
// Inputs come from `.npy` files (rank<R>/arg<I>.npy), dumps go to the same
// layout, results are printed as a sum and a checksum, and a second run is
// compared result by result: what tp-run and the C API (tp-c/Runtime.h) do
// with a run's values. Files follow docs/Robustness.md: inputs must be
// regular files, dumps never follow links and never overwrite the inputs.
//
//===----------------------------------------------------------------------===//

#ifndef TP_EXECUTION_VALUES_H
#define TP_EXECUTION_VALUES_H

#include "tp/Execution/Execution.h"

#include <string>
#include <vector>

namespace mlir::tp {

/// Rank `rank`'s arguments of `entry` from `dir`/rank<R>/arg<I>.npy, of the
/// resolved `shapes`, converted to the argument types (integers exactly).
rt::Status readInputs(mlir::func::FuncOp entry,
                      const std::vector<std::vector<int64_t>> &shapes,
                      const std::string &dir, int rank,
                      std::vector<rt::Tensor> &args);

/// An error naming the argument, rank and first element when an argument
/// marked `tp.replicated` differs between ranks: rewrites such as sequence
/// parallelism rely on the mark, so data that breaks it would be a silent
/// wrong answer.
rt::Status
checkReplicatedInputs(mlir::func::FuncOp entry,
                      const std::vector<mlir::tp::RankValues> &perRank);

/// Marks the dump in `dir` (which exists) incomplete: a file named
/// INCOMPLETE that dumpValues removes once every file is written, so a run
/// that fails or is stopped leaves a dump that says so.
rt::Status markDumpIncomplete(const std::string &dir);

/// Writes every rank's arguments and results below `dir` (which exists):
/// rank<R>/arg<I>.npy and rank<R>/result<J>.npy, then removes the
/// INCOMPLETE marker.
rt::Status dumpValues(const std::string &dir,
                      const std::vector<mlir::tp::RankValues> &perRank);

/// An error when the dump folder is the input folder or contains it, or the
/// other way round, after resolving `..` and links.
rt::Status checkFoldersDisjoint(const std::string &inputDir,
                                const std::string &dumpDir);

/// Prints "rank R result J: TYPE sum=S checksum=C" for every result.
void printResults(const std::vector<mlir::tp::RankValues> &perRank);

/// Prints the step times of a run with several steps (the slowest rank's
/// per step: the first, the best and the median) and the bytes the last
/// step copied between host and device on all ranks together.
void printSteps(const std::vector<mlir::tp::RankValues> &perRank);

/// Compares every result on every rank; `mismatches` gets a line per
/// mismatch ("mismatch: rank R result J: ..."). Floats pass within
/// `tolerance` of the normalized error (negative: by element type);
/// integers must be equal. `worst` is the largest normalized error seen.
bool compareResults(const std::vector<mlir::tp::RankValues> &actual,
                    const std::vector<mlir::tp::RankValues> &expected,
                    double tolerance, double &worst, std::string &mismatches);

} // namespace mlir::tp

#endif // TP_EXECUTION_VALUES_H
