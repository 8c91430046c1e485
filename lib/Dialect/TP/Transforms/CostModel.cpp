//===- CostModel.cpp - predicted times of fused and unfused schedules -----===//

#include "tp/Dialect/TP/Transforms/CostModel.h"
#include "tp/Runtime/Schedule.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::tp;
/// The runtime's plan of a fused op's pieces (header-only).
namespace runtime = ::mlir::tp::rt;

//===----------------------------------------------------------------------===//
// The model (docs/CostModel.md)
//===----------------------------------------------------------------------===//

/// Seconds for one GEMM of `rows` x n x k in the FLOP-only model.
static double flopGemmSeconds(const TargetDescription &target,
                              const CollectiveMatmulShape &shape,
                              double rows) {
  // A type the description lacks runs at f32's rate, or any it has.
  auto it = target.gemm.find(shape.gemmType);
  if (it == target.gemm.end())
    it = target.gemm.find("f32");
  if (it == target.gemm.end())
    it = target.gemm.begin();
  const GemmRate &rate = it->getValue();
  double flops = 2.0 * rows * shape.n * shape.k;
  if (flops <= 0)
    return target.launchOverhead;
  double efficiency = flops / (flops + rate.halfFlops);
  double bOperand = rate.bOperandBandwidth > 0
                        ? static_cast<double>(shape.k) * shape.n *
                              shape.elementBytes / rate.bOperandBandwidth
                        : 0;
  return target.launchOverhead + flops / (rate.peakFlops * efficiency) +
         bOperand;
}

/// The GPU's kernels for `type`; a type the description lacks runs as f32,
/// or as any type it has.
static const GpuGemmType &gpuType(const GpuModel &gpu, llvm::StringRef type) {
  auto it = gpu.types.find(type);
  if (it == gpu.types.end())
    it = gpu.types.find("f32");
  if (it == gpu.types.end())
    it = gpu.types.begin();
  return it->getValue();
}

/// Seconds for `concurrent` GEMMs of `rows` x n x k, started together on as
/// many streams and sharing `sms` SMs, writing `outBytes` per product
/// element. As cuBLASLt does, the tile is chosen for one GEMM alone (it does
/// not see the other streams); the GEMMs' tiles then share the waves.
static double gpuGemmSeconds(const TargetDescription &target,
                             const CollectiveMatmulShape &shape, double rows,
                             int64_t sms, int64_t concurrent,
                             int64_t outBytes, GpuGemmEstimate &estimate) {
  const GpuModel &gpu = *target.gpu;
  const GpuGemmType &type = gpuType(gpu, shape.gemmType);
  const double m = std::max(1.0, std::ceil(rows)), n = shape.n, k = shape.k;
  // Each operand crosses HBM once; L2 catches the re-reads.
  double memory =
      (type.elementBytes * (m * k + k * n) + outBytes * m * n) /
      gpu.hbmBandwidth;
  double perSm = type.denseFlops / gpu.sms * gpu.sustained;
  std::optional<double> best;
  for (const GpuTile &tile : type.tiles) {
    double tiles = std::ceil(m / tile.rows) * std::ceil(n / tile.cols);
    double wave = 2.0 * tile.rows * tile.cols * k / (perSm * tile.efficiency);
    double alone = std::max(std::ceil(tiles / sms) * wave, memory);
    if (best && alone >= *best)
      continue;
    best = alone;
    estimate.tile = tile;
    estimate.tiles = static_cast<int64_t>(tiles);
    estimate.waveSeconds = wave;
  }
  estimate.rows = static_cast<int64_t>(m);
  estimate.sms = sms;
  estimate.waves = (concurrent * estimate.tiles + sms - 1) / sms;
  double waves = estimate.waves * estimate.waveSeconds;
  estimate.memoryBound = concurrent * memory > waves;
  return target.launchOverhead + std::max(waves, concurrent * memory);
}

/// Bytes one rank sends each peer: its rows of A (gather), with their scales,
/// or of the product (scatter); or, given `partialBytes`, of fp32 partials.
static double bytesPerPeer(const CollectiveMatmulShape &shape,
                           std::optional<int64_t> partialBytes = {}) {
  double rowsTimesWidth = static_cast<double>(shape.rowsPerRank) *
                          (shape.gather ? shape.k : shape.n);
  if (partialBytes)
    return rowsTimesWidth * *partialBytes;
  double bits = shape.elementBits ? shape.elementBits : shape.elementBytes * 8;
  return rowsTimesWidth * bits / 8 + shape.scaleBytesPerPeer;
}

/// The collective op of the unfused program, with the faster of the
/// library's protocols.
static double collectiveSeconds(const TargetDescription &target,
                                const CollectiveMatmulShape &shape) {
  const double peers = shape.groupSize - 1;
  if (peers <= 0)
    return 0;
  const double bytes = bytesPerPeer(shape);
  auto over = [&](const LinkCost &link) {
    return target.launchOverhead + link.latency +
           peers * (link.stepLatency + bytes / link.bandwidth);
  };
  double seconds = over(target.collective);
  if (target.collectiveLowLatency.bandwidth > 0)
    seconds = std::min(seconds, over(target.collectiveLowLatency));
  return seconds;
}

/// The fused schedule's transfers: (g - 1) * c messages of a piece each
/// after one handshake (the link's latency). per_peer launches a piece to
/// every peer at once (one launch per round of c) unless each message is a
/// launch of its own (`launchPerMessage`: copy engines); ring forwards it
/// peer by peer (one launch per message).
static double fusedCommSeconds(const TargetDescription &target,
                               const CollectiveMatmulShape &shape,
                               Algorithm algorithm, int64_t chunks,
                               double bytes, double bandwidthShare,
                               bool launchPerMessage) {
  const double peers = shape.groupSize - 1;
  if (peers <= 0)
    return 0;
  const LinkCost &link =
      algorithm == Algorithm::Ring ? target.ring : target.perPeer;
  double launches = algorithm == Algorithm::Ring || launchPerMessage
                        ? peers * chunks
                        : chunks;
  return link.latency + launches * target.launchOverhead +
         peers * bytes / (link.bandwidth * bandwidthShare);
}

/// The hidden fraction of the unfused communication.
static void setHidden(SchedulePrediction &p) {
  double exposed = std::max(0.0, p.fused - p.fusedCompute);
  p.hidden = p.unfusedComm > 0
                 ? std::clamp(1.0 - exposed / p.unfusedComm, 0.0, 1.0)
                 : 1.0;
}

/// The kernel that sums a reduce-scatter's staged fp32 partials and rounds
/// this rank's slice once.
static double reduceSeconds(const TargetDescription &target,
                            const CollectiveMatmulShape &shape,
                            int64_t typeBytes) {
  return target.launchOverhead +
         (static_cast<double>(shape.groupSize) * shape.rowsPerRank * shape.n *
              4 +
          static_cast<double>(shape.rowsPerRank) * shape.n * typeBytes) /
             target.gpu->hbmBandwidth;
}

/// The runtime's schedule for `algorithm` and `chunks`.
static runtime::Schedule runtimeSchedule(Algorithm algorithm, int64_t chunks) {
  runtime::Schedule schedule;
  schedule.algorithm = algorithm == Algorithm::Ring
                           ? runtime::Schedule::Algorithm::Ring
                       : algorithm == Algorithm::Coalesced
                           ? runtime::Schedule::Algorithm::Coalesced
                           : runtime::Schedule::Algorithm::PerPeer;
  schedule.chunks = static_cast<int>(chunks);
  return schedule;
}

namespace {
/// One GEMM of a coalesced schedule as the model times it.
struct TimedGemm {
  double seconds = 0, secondsAllSms = 0;
  int64_t waves = 0;
  std::optional<GpuGemmEstimate> estimate;
};
} // namespace

/// The coalesced schedule, step by step, as the runtime plans it
/// (runtime::planGather / runtime::planScatter), on the member that finishes
/// last: whole shards move per_peer, one after another, `perShard` seconds each
/// after `startup` (the handshake); a GEMM step starts when its shards are
/// there (gather), and its partials leave when it ends (scatter). `gemm`
/// times `rows` rows, with transfers in flight or not.
static void simulateCoalesced(
    const CollectiveMatmulShape &shape, int64_t chunks, double startup,
    double perShard,
    llvm::function_ref<TimedGemm(double rows, bool overlapped)> gemm,
    SchedulePrediction &p) {
  const int g = static_cast<int>(shape.groupSize);
  const runtime::Schedule schedule =
      runtimeSchedule(Algorithm::Coalesced, chunks);
  const int64_t share = shape.rowsPerRank;
  std::optional<double> slowest;
  for (int me = 0; me < g; ++me) {
    double computed = 0, compute = 0, allSms = 0, sent = 0;
    int64_t calls = 0, waves = 0;
    std::optional<GpuGemmEstimate> largest;
    // Transfers run until `busy`; a GEMM started before shares the GPU.
    auto run = [&](const runtime::GemmStep &step, double start, double busy) {
      for (const runtime::ExtentRun &r : step.runs(share)) {
        TimedGemm t = gemm(static_cast<double>(r.end - r.begin), start < busy);
        computed = start = start + t.seconds;
        compute += t.seconds;
        allSms += t.secondsAllSms;
        waves += t.waves;
        ++calls;
        if (t.estimate && (!largest || t.estimate->rows > largest->rows))
          largest = t.estimate;
      }
    };
    if (shape.gather) {
      // Shard s (ordinal s) has arrived at startup + s * perShard.
      const double lastArrival = startup + (g - 1) * perShard;
      for (const runtime::GemmStep &step :
           runtime::planGather(g, me, schedule, share)) {
        double ready = 0;
        for (const runtime::PieceRef &piece : step.pieces)
          if (piece.ordinal > 0)
            ready = std::max(ready, startup + piece.ordinal * perShard);
        run(step, std::max(computed, ready), lastArrival);
      }
    } else {
      bool first = true;
      for (const runtime::GemmStep &step :
           runtime::planScatter(g, me, schedule, share)) {
        run(step, computed, sent);
        if (step.pieces.front().member == me)
          continue;
        sent = std::max(sent, computed + (first ? startup : 0)) +
               static_cast<double>(step.pieces.size()) * perShard;
        first = false;
      }
    }
    double finished = std::max(computed, sent);
    if (slowest && finished <= *slowest)
      continue;
    slowest = finished;
    p.fused = finished;
    p.fusedCompute = compute;
    p.fusedComputeAllSms = allSms;
    p.pieces = calls;
    p.fusedWaves = waves;
    if (largest)
      p.piece = largest;
  }
}

/// The tile-and-wave model: pieces run on the SMs the transport leaves, a
/// reduce-scatter stages fp32 partials and sums them in one more kernel
/// (as the CUDA backend does).
static SchedulePrediction predictGpu(const TargetDescription &target,
                                     const CollectiveMatmulShape &shape,
                                     Algorithm algorithm, int64_t chunks,
                                     int64_t streams) {
  const GpuModel &gpu = *target.gpu;
  SchedulePrediction p;
  p.algorithm = algorithm;
  p.chunks = chunks;
  // Coalesced steps wait for one another: the runtime runs them on one
  // stream.
  if (algorithm == Algorithm::Coalesced)
    streams = 1;
  p.streams = streams;
  const int64_t g = shape.groupSize, peers = g - 1;
  const int64_t typeBytes = gpuType(gpu, shape.gemmType).elementBytes;
  p.unfusedComm = collectiveSeconds(target, shape);
  p.wholeGemm.emplace();
  p.unfusedGemm =
      gpuGemmSeconds(target, shape, static_cast<double>(g) * shape.rowsPerRank,
                     gpu.sms, 1, typeBytes, *p.wholeGemm);
  p.unfused = p.unfusedComm + p.unfusedGemm;

  int64_t commSms = peers > 0 ? gpu.commSms.lookup(gpu.transport) : 0;
  double bandwidthShare =
      gpu.transport == "nccl" && gpu.ncclChannels > 0
          ? std::min(1.0, static_cast<double>(commSms) / gpu.ncclChannels)
          : 1.0;
  double rows = std::ceil(static_cast<double>(shape.rowsPerRank) / chunks);
  int64_t outBytes = shape.gather ? typeBytes : 4;
  int64_t pieces = g * chunks;
  double rounds = std::ceil(static_cast<double>(pieces) / streams);
  double slowdown = peers > 0 ? 1 + target.overlapSlowdown : 1;
  auto computeOn = [&](int64_t sms, GpuGemmEstimate &piece) {
    GpuGemmEstimate group;
    double one = gpuGemmSeconds(target, shape, rows, sms, 1, outBytes, piece);
    double together =
        streams > 1 ? gpuGemmSeconds(target, shape, rows, sms, streams,
                                     outBytes, group)
                    : one;
    return std::make_pair(one * slowdown, rounds * together * slowdown);
  };
  if (algorithm == Algorithm::Coalesced) {
    // Whole shards per_peer; a copy engine launches one copy per shard.
    const bool copyEngine = gpu.transport == "copy_engine";
    double bytes = shape.gather ? bytesPerPeer(shape) : bytesPerPeer(shape, 4);
    double perShard = bytes / (target.perPeer.bandwidth * bandwidthShare) +
                      (copyEngine ? target.launchOverhead : 0);
    double startup =
        target.perPeer.latency + (copyEngine ? 0 : target.launchOverhead);
    p.fusedComm = fusedCommSeconds(target, shape, Algorithm::PerPeer, 1, bytes,
                                   bandwidthShare, copyEngine);
    auto gemm = [&](double gemmRows, bool overlapped) {
      TimedGemm t;
      GpuGemmEstimate estimate, alone;
      t.seconds = gpuGemmSeconds(target, shape, gemmRows,
                                 overlapped ? gpu.sms - commSms : gpu.sms, 1,
                                 outBytes, estimate) *
                  (overlapped ? slowdown : 1);
      t.secondsAllSms =
          gpuGemmSeconds(target, shape, gemmRows, gpu.sms, 1, outBytes, alone);
      t.waves = alone.waves;
      t.estimate = estimate;
      return t;
    };
    simulateCoalesced(shape, chunks, startup, perShard, gemm, p);
    p.fusedLaunches = p.pieces * target.launchOverhead;
    if (!shape.gather && peers > 0)
      p.fused += reduceSeconds(target, shape, typeBytes);
    setHidden(p);
    return p;
  }
  GpuGemmEstimate allSms;
  p.piece.emplace();
  auto [piece, compute] = computeOn(gpu.sms - commSms, *p.piece);
  p.fusedCompute = compute;
  p.fusedComputeAllSms = computeOn(gpu.sms, allSms).second;
  p.pieces = pieces;
  p.fusedWaves = pieces * p.piece->waves / std::max<int64_t>(streams, 1);
  p.fusedLaunches = rounds * target.launchOverhead;

  double bytes = shape.gather ? bytesPerPeer(shape) : bytesPerPeer(shape, 4);
  // A copy engine takes one cudaMemcpyAsync per peer; NCCL one group of
  // sends and receives per round. The CUDA backend runs a reduce-scatter's
  // ring as per_peer (running sums would serialize the steps).
  Algorithm moves = !shape.gather && algorithm == Algorithm::Ring
                        ? Algorithm::PerPeer
                        : algorithm;
  p.fusedComm =
      fusedCommSeconds(target, shape, moves, chunks, bytes, bandwidthShare,
                       gpu.transport == "copy_engine");
  // The last piece's GEMM waits for its data (gather), or the first piece's
  // data waits for its GEMM (scatter): either way one piece is not hidden.
  p.fused = std::max(compute, p.fusedComm + piece);
  if (!shape.gather && peers > 0)
    p.fused += reduceSeconds(target, shape, typeBytes);
  setHidden(p);
  return p;
}

SchedulePrediction mlir::tp::predictSchedule(const TargetDescription &target,
                                             const CollectiveMatmulShape &shape,
                                             Algorithm algorithm,
                                             int64_t chunks, int64_t streams) {
  if (target.gpu)
    return predictGpu(target, shape, algorithm, chunks,
                      std::max<int64_t>(streams, 1));
  SchedulePrediction p;
  p.algorithm = algorithm;
  p.chunks = chunks;
  const double g = static_cast<double>(shape.groupSize);
  const double peers = g - 1, c = static_cast<double>(chunks);

  // Unfused: the collective op, then one GEMM over every rank's rows.
  p.unfusedComm = collectiveSeconds(target, shape);
  p.unfusedGemm = flopGemmSeconds(target, shape, g * shape.rowsPerRank);
  p.unfused = p.unfusedComm + p.unfusedGemm;

  if (algorithm == Algorithm::Coalesced) {
    double bytes = bytesPerPeer(shape);
    p.fusedComm = fusedCommSeconds(target, shape, Algorithm::PerPeer, 1, bytes,
                                   1, /*launchPerMessage=*/false);
    auto gemm = [&](double gemmRows, bool overlapped) {
      TimedGemm t;
      t.secondsAllSms = flopGemmSeconds(target, shape, gemmRows);
      t.seconds =
          t.secondsAllSms * (overlapped ? 1 + target.overlapSlowdown : 1);
      return t;
    };
    simulateCoalesced(shape, chunks,
                      target.perPeer.latency + target.launchOverhead,
                      bytes / target.perPeer.bandwidth, gemm, p);
    p.fusedLaunches = p.pieces * target.launchOverhead;
    setHidden(p);
    return p;
  }

  // Fused: g * c GEMM pieces, slowed while data moves.
  double piece = flopGemmSeconds(target, shape, shape.rowsPerRank / c) *
                 (peers > 0 ? 1 + target.overlapSlowdown : 1);
  p.fusedComm =
      fusedCommSeconds(target, shape, algorithm, chunks, bytesPerPeer(shape), 1,
                       /*launchPerMessage=*/false);
  p.fusedCompute = g * c * piece;
  p.fused = std::max(p.fusedCompute, p.fusedComm + piece);
  setHidden(p);
  return p;
}

SchedulePrediction
mlir::tp::chooseSchedule(const TargetDescription &target,
                         const CollectiveMatmulShape &shape) {
  std::optional<SchedulePrediction> best;
  // Concurrent pieces only where a GPU runs them (not coalesced's steps).
  const int64_t maxStreams = target.gpu ? target.gpu->computeStreams : 1;
  for (Algorithm algorithm :
       {Algorithm::PerPeer, Algorithm::Ring, Algorithm::Coalesced})
    for (int64_t chunks : {1, 2, 4, 8})
      for (int64_t streams = 1; streams <= maxStreams; ++streams) {
        // A piece has at least one row; coalesced merges at most the g - 1
        // remote shards, on one stream.
        if (chunks > 1 &&
            (algorithm == Algorithm::Coalesced ? chunks >= shape.groupSize
                                               : shape.rowsPerRank < chunks))
          continue;
        if (streams > 1 && algorithm == Algorithm::Coalesced)
          continue;
        // A GPU runs a reduce-scatter's ring as per_peer, and no ring can
        // pass on an all-to-all's blocks.
        if (algorithm == Algorithm::Ring &&
            ((target.gpu && !shape.gather) || shape.exchange))
          continue;
        SchedulePrediction p =
            predictSchedule(target, shape, algorithm, chunks, streams);
        if (!best || p.fused < best->fused)
          best = p;
      }
  return *best;
}

bool mlir::tp::predictsGain(const TargetDescription &target,
                            const SchedulePrediction &p) {
  return p.fused < p.unfused * (1 - target.minGain);
}

/// "8 waves of 64x128 tiles (33.6 us each)".
static std::string describeWaves(int64_t waves, const GpuGemmEstimate &gemm) {
  return llvm::formatv("{0} wave{1} of {2}x{3} tiles ({4:F1} us each)", waves,
                       waves == 1 ? "" : "s", gemm.tile.rows, gemm.tile.cols,
                       gemm.waveSeconds * 1e6)
      .str();
}

std::string mlir::tp::explainLoss(const TargetDescription &target,
                                  const SchedulePrediction &p) {
  if (!target.gpu || !p.wholeGemm || !p.piece)
    return "";
  const GpuModel &gpu = *target.gpu;
  const GpuGemmEstimate &whole = *p.wholeGemm, &piece = *p.piece;
  const int64_t pieces = p.pieces;
  double launches = p.fusedLaunches - target.launchOverhead;
  double contention = p.fusedCompute - p.fusedComputeAllSms;
  double waves = p.fusedComputeAllSms - p.fusedLaunches -
                 (p.unfusedGemm - target.launchOverhead);
  double exposed = p.fused - p.fusedCompute;
  double worst = std::max({launches, contention, waves, exposed});
  if (worst == waves && p.algorithm == Algorithm::Coalesced)
    return llvm::formatv("waves: {0} GEMMs (the largest {1} rows) take {2} "
                         "waves where the whole GEMM takes {3}",
                         pieces, piece.rows, p.fusedWaves,
                         describeWaves(whole.waves, whole))
        .str();
  if (worst == waves)
    return llvm::formatv("waves: {0} pieces of {1} rows take {2} where the "
                         "whole GEMM takes {3}",
                         pieces, piece.rows, describeWaves(p.fusedWaves, piece),
                         describeWaves(whole.waves, whole))
        .str();
  if (worst == launches)
    return llvm::formatv("launches: {0} GEMM pieces cost {1:F1} us more in "
                         "launches than one GEMM",
                         pieces, launches * 1e6)
        .str();
  if (worst == contention)
    return llvm::formatv("contention: the {0} transport takes {1} of {2} SMs "
                         "from the pieces ({3:F1} us)",
                         gpu.transport, gpu.commSms.lookup(gpu.transport),
                         gpu.sms, contention * 1e6)
        .str();
  return llvm::formatv("exposed: {0:F1} us of transfers are not hidden "
                       "behind the pieces",
                       exposed * 1e6)
      .str();
}
