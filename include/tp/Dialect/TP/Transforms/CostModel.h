//===- CostModel.h - predicted times of fused and unfused schedules -*- C++ -*-===//
//
// Whether fusing a collective with its matmul pays, and with which schedule,
// from a target description: GEMM throughput by element type as a function
// of problem size, the links' bandwidth and latency per algorithm, what
// overlapping costs the GEMMs, and launch overheads. docs/CostModel.md
// gives the equations and where each preset's constants come from.
//
//===----------------------------------------------------------------------===//

#ifndef TP_DIALECT_TP_TRANSFORMS_COSTMODEL_H
#define TP_DIALECT_TP_TRANSFORMS_COSTMODEL_H

#include "tp/Dialect/TP/IR/TPOps.h"

#include "llvm/ADT/StringMap.h"

#include <string>

namespace mlir::tp {

/// GEMM throughput of one element type: `peakFlops` for large problems, half
/// of it at `halfFlops` (2*M*N*K) — small GEMMs leave the machine idle.
/// On a CPU, every GEMM call also takes in its whole B operand (K x N) at
/// `bOperandBandwidth` bytes per second before its math (BLAS packs it), so
/// splitting a GEMM into pieces pays that again per piece; 0 leaves it out
/// (GPUs overlap re-reading B with the math).
struct GemmRate {
  double peakFlops = 0, halfFlops = 0, bOperandBandwidth = 0;
};

/// A collective costs `latency` once (the handshake), and `bytes` cost
/// `bytes / bandwidth` seconds.
struct LinkCost {
  double bandwidth = 0, latency = 0;
};

struct TargetDescription {
  std::string name;
  /// By GEMM input type: "f32", "f16", "bf16", "f8" (FP8/FP4 scaled); a
  /// missing type runs at f32's rate (or any listed one's).
  llvm::StringMap<GemmRate> gemm;
  /// The fused schedules' transfers, per algorithm, and the unfused
  /// collective op (a library collective on GPUs; it defaults to per_peer's).
  LinkCost perPeer, ring, collective;
  /// Fraction of GEMM throughput lost while communication overlaps it (SMs
  /// or cores reserved for moving data).
  double overlapSlowdown = 0;
  /// Seconds per GEMM or transfer launched.
  double launchOverhead = 0;

  /// From JSON (the format docs/CostModel.md describes); `error` says what
  /// is missing or malformed.
  static std::optional<TargetDescription> fromJSON(llvm::StringRef text,
                                                   std::string &error);
  /// A preset name ("h100-nvlink", "h200-nvlink", "pcie-node", "cpu") or
  /// the path of a JSON file.
  static std::optional<TargetDescription> load(llvm::StringRef nameOrPath,
                                               std::string &error);
  std::string toJSON() const;
  /// The presets' names, for messages.
  static llvm::SmallVector<llvm::StringRef> presetNames();
};

/// One collective-matmul candidate. For an all-gather, A's rows are
/// gathered: each rank sends `rowsPerRank * k` elements of `elementBytes`.
/// For a reduce-scatter, the product is scattered: each rank sends
/// `rowsPerRank * n` elements of `elementBytes` per peer.
struct CollectiveMatmulShape {
  bool gather = true;
  int64_t rowsPerRank = 0, n = 0, k = 0, groupSize = 1;
  int64_t elementBytes = 4;
  std::string gemmType = "f32";
};

struct SchedulePrediction {
  Algorithm algorithm = Algorithm::PerPeer;
  int64_t chunks = 1;
  /// Seconds.
  double unfused = 0, fused = 0;
  /// Of the unfused communication time, the fraction the fused schedule
  /// hides behind GEMMs (0..1).
  double hidden = 0;
};

/// The predicted times of one schedule.
SchedulePrediction predictSchedule(const TargetDescription &target,
                                   const CollectiveMatmulShape &shape,
                                   Algorithm algorithm, int64_t chunks);

/// The schedule with the smallest predicted fused time, over both
/// algorithms and 1, 2, 4 or 8 pieces per rank.
SchedulePrediction chooseSchedule(const TargetDescription &target,
                                  const CollectiveMatmulShape &shape);

} // namespace mlir::tp

#endif // TP_DIALECT_TP_TRANSFORMS_COSTMODEL_H
