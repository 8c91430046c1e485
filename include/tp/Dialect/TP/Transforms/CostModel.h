//===- CostModel.h - predicted times of fused and unfused schedules -*- C++ -*-===//
//
// Whether fusing a collective with its matmul pays, and with which schedule,
// from a target description: GEMM throughput by element type (on GPUs, a
// tile-and-wave model of the GEMM kernels), the links' bandwidth and latency
// per algorithm, what overlapping costs the GEMMs, and launch overheads.
// docs/CostModel.md gives the equations and where each preset's constants
// come from.
//
//===----------------------------------------------------------------------===//

#ifndef TP_DIALECT_TP_TRANSFORMS_COSTMODEL_H
#define TP_DIALECT_TP_TRANSFORMS_COSTMODEL_H

#include "tp/Dialect/TP/IR/TPOps.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <optional>
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

/// A collective costs `latency` once (the handshake), `stepLatency` per
/// peer (a ring step of a library collective), and `bytes` cost
/// `bytes / bandwidth` seconds.
struct LinkCost {
  double bandwidth = 0, latency = 0, stepLatency = 0;
};

/// One output tile a GPU GEMM kernel computes on an SM: `rows x cols`, at
/// `efficiency` of the best tile's per-SM rate (docs/CostModel.md derives it
/// from the SM's shared-memory bandwidth).
struct GpuTile {
  int64_t rows = 0, cols = 0;
  double efficiency = 1;
};

/// A GPU's GEMM kernels for one input type: the dense tensor-core peak of
/// the whole GPU, the element size, and the tiles the library chooses among.
struct GpuGemmType {
  double denseFlops = 0;
  int64_t elementBytes = 2;
  llvm::SmallVector<GpuTile> tiles;
};

/// The tile-and-wave model of a GPU's GEMMs: a GEMM is ceil(tiles / SMs)
/// waves, each one tile's K loop at the SM's share of the peak, and never
/// faster than moving its operands through HBM.
struct GpuModel {
  int64_t sms = 0;
  /// Fraction of the dense peak the best tile sustains on large GEMMs.
  double sustained = 1;
  /// Bytes per second.
  double hbmBandwidth = 0;
  /// The most compute streams a fused schedule's GEMM pieces may run on at
  /// once (their tiles share the SMs' waves); the chooser tries 1 to this.
  int64_t computeStreams = 1;
  /// How the fused schedules move data: "copy_engine" or "nccl".
  std::string transport = "copy_engine";
  /// SMs each transport takes from the GEMM pieces while it overlaps them.
  llvm::StringMap<int64_t> commSms;
  /// CTAs (one SM each) NCCL wants for its full bandwidth; with fewer SMs
  /// left to it, it moves data proportionally slower. 0: never limited.
  int64_t ncclChannels = 0;
  llvm::StringMap<GpuGemmType> types;
};

struct TargetDescription {
  std::string name;
  /// By GEMM input type: "f32", "f16", "bf16", "f8" (FP8/FP4 scaled); a
  /// missing type runs at f32's rate (or any listed one's).
  llvm::StringMap<GemmRate> gemm;
  /// The fused schedules' transfers, per algorithm, and the unfused
  /// collective op (a library collective on GPUs; it defaults to per_peer's).
  LinkCost perPeer, ring, collective;
  /// The collective's low-latency protocol (NCCL's LL), which the library
  /// picks where it is faster (small messages); bandwidth 0: none.
  LinkCost collectiveLowLatency;
  /// Fraction of GEMM throughput lost while communication overlaps it (SMs
  /// or cores reserved for moving data).
  double overlapSlowdown = 0;
  /// Seconds per GEMM or transfer launched.
  double launchOverhead = 0;
  /// Fuse only where the fused time is predicted at least this fraction
  /// below the unfused one: the model's margin of error (0: any gain).
  double minGain = 0;
  /// GPU targets: the tile model replaces `gemm`'s FLOP-only curve.
  std::optional<GpuModel> gpu;

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
  /// Bits of an element that moves, when not elementBytes * 8 (a runtime
  /// that packed FP4 would move 4).
  int64_t elementBits = 0;
  /// Bytes of scales that move with each rank's rows (row-wise and block
  /// scales of a gathered low-precision A).
  int64_t scaleBytesPerPeer = 0;
  std::string gemmType = "f32";
  /// An all-to-all's blocks (each peer takes a different one): per_peer or
  /// coalesced, never ring.
  bool exchange = false;
};

/// How a GPU GEMM runs in the tile model.
struct GpuGemmEstimate {
  GpuTile tile;
  int64_t rows = 0, tiles = 0, waves = 0, sms = 0;
  /// One wave: one tile's K loop. Seconds.
  double waveSeconds = 0;
  /// Whether moving the operands through HBM takes longer than the waves.
  bool memoryBound = false;
};

struct SchedulePrediction {
  Algorithm algorithm = Algorithm::PerPeer;
  int64_t chunks = 1;
  /// GPU compute streams the pieces run on at once.
  int64_t streams = 1;
  /// Seconds.
  double unfused = 0, fused = 0;
  /// The unfused collective and GEMM; the fused schedule's GEMM pieces (all
  /// of them) and transfers. Seconds.
  double unfusedComm = 0, unfusedGemm = 0, fusedCompute = 0, fusedComm = 0;
  /// Of the unfused communication time, the fraction the fused schedule
  /// hides behind GEMMs (0..1).
  double hidden = 0;
  /// GPU targets: the whole GEMM and one piece (coalesced: the largest
  /// GEMM), in the tile model.
  std::optional<GpuGemmEstimate> wholeGemm, piece;
  /// GPU targets: how many GEMM pieces the fused schedule runs, and their
  /// time with every SM (no transport taking any) and in launches alone, to
  /// tell what a loss comes from. Seconds.
  int64_t pieces = 0;
  double fusedComputeAllSms = 0, fusedLaunches = 0;
  /// GPU targets: the waves of all GEMM pieces together, with every SM.
  int64_t fusedWaves = 0;
};

/// Whether `p` predicts enough of a gain to fuse on `target` (its min_gain).
bool predictsGain(const TargetDescription &target, const SchedulePrediction &p);

/// What makes the fused schedule of `p` slower than it would need to be to
/// pay, for a remark: on GPU targets, "waves: ...", "launches: ..." or
/// "contention: ..."; empty where the target has no GPU model.
std::string explainLoss(const TargetDescription &target,
                        const SchedulePrediction &p);

/// The predicted times of one schedule, its pieces on up to `streams` GPU
/// compute streams at once (ignored on targets without a GPU model, and by
/// coalesced, whose steps wait for one another).
SchedulePrediction predictSchedule(const TargetDescription &target,
                                   const CollectiveMatmulShape &shape,
                                   Algorithm algorithm, int64_t chunks,
                                   int64_t streams = 1);

/// The schedule with the smallest predicted fused time: ring and per_peer
/// with 1, 2, 4 or 8 pieces per rank on 1 to gpu.computeStreams streams,
/// and coalesced with the remote shards in 1, 2, 4 or 8 GEMMs (fewer than
/// the group).
SchedulePrediction chooseSchedule(const TargetDescription &target,
                                  const CollectiveMatmulShape &shape);

} // namespace mlir::tp

#endif // TP_DIALECT_TP_TRANSFORMS_COSTMODEL_H
