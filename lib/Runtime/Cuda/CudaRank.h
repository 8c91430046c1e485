//===- CudaRank.h - one rank's device: streams, workspaces, GEMMs -*- C++ -*-=//
//
// What the CUDA backend's transports share. A CudaRank owns a high-priority
// communication stream, a low-priority compute stream, reusable device
// workspaces and cuBLASLt; it runs the GEMMs, and the compute half of the
// fused schedules: a fused op is first laid out on the device (a plan), then
// a transport moves its pieces on the comm stream (LoopbackBackend.cpp:
// copy-engine copies between ranks' buffers in one process; NcclBackend.cpp:
// NCCL send/recv between processes) while the compute stream multiplies.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_RUNTIME_CUDA_CUDARANK_H
#define TP_LIB_RUNTIME_CUDA_CUDARANK_H

#include "CudaCheck.h"
#include "LtGemm.h"
#include "tp/Runtime/Backend.h"
#include "tp/Runtime/Contract.h"

#include <functional>
#include <map>

namespace mlir::tp::rt {
class TraceRecorder;
}

namespace mlir::tp::rt::cuda {

/// A tensor seen as [outer, extent, inner] around dim `dim`.
struct Split {
  int64_t outer = 1, extent = 1, inner = 1;
};
Split splitAt(const std::vector<int64_t> &shape, int64_t dim);

/// Copies slabs [srcStart, srcStart + count) along the split dim of every
/// outer block to [dstStart, ...) between device buffers of extents
/// srcExtent / dstExtent (one 2-D copy).
cudaError_t copySlabs(const void *src, int64_t srcExtent, int64_t srcStart,
                      void *dst, int64_t dstExtent, int64_t dstStart,
                      int64_t count, const Split &s, size_t elementBytes,
                      cudaStream_t stream);

/// How a fused op's gathered operand moves, which is all a transport needs:
/// the group's shards arrive in `g` steps (step s brings the shard of
/// originOf(s); step 0 is this rank's own), each cut into `chunks` pieces of
/// the gathered dim; event s * chunks + j of the rank marks piece j of step
/// s present in `data`. A second buffer (a gathered scale) may move along.
struct GatherLayout {
  int g = 1, me = 0, chunks = 1;
  bool ring = false;
  int64_t extL = 0, extG = 0;
  void *data = nullptr;
  Split split;
  size_t elementBytes = 0;
  void *scale = nullptr; // null: nothing moves along
  Split scaleSplit;
  size_t scaleElementBytes = 0;
  /// An all-to-all: this rank's blocks, packed side by side, the one for
  /// member m at blocks + m * blockBytes, laid out as a shard. Null for an
  /// all-gather, which sends every member the same shard.
  void *blocks = nullptr;
  size_t blockBytes = 0;

  PieceOrder order() const {
    return PieceOrder(
        g, me, ring ? Schedule::Algorithm::Ring : Schedule::Algorithm::PerPeer);
  }
  int originOf(int step) const { return order().gatherOrigin(step); }
};

/// An all_gather_matmul laid out on the device. Pieces: the group's shards
/// in `g` steps (step s holds the shard of originOf(s)), each cut into
/// `chunks` pieces along the gathered dim; event s * chunks + j of the rank
/// marks piece j of step s present in dG.
struct GatherMatmulPlan {
  int g = 1, me = 0, chunks = 1;
  int64_t dim = 0, extL = 0, extG = 0, k = 0, totalRows = 0, rowsPerSlab = 0;
  bool kSplit = false, scaled = false, gatherScale = false;
  Split local, scaleSplit;
  size_t elementBytes = 0, scaleElementBytes = 0;
  Tensor gathered, gatheredScale;
  std::vector<Tensor> products;
  std::vector<int64_t> ns;
  /// Gathered A (and scale), A's per-tensor scale, per-B buffers.
  void *dG = nullptr, *dGS = nullptr, *dAScale = nullptr;
  /// An all-to-all's packed blocks of A (GatherLayout::blocks).
  void *dBlocks = nullptr;
  size_t blockBytes = 0;
  std::vector<void *> dB, dBS, dBias, dD, dAcc;

  /// How dG (and dGS) move under the ring or per_peer schedule.
  GatherLayout layout(bool ring) const {
    GatherLayout l;
    l.g = g;
    l.me = me;
    l.chunks = chunks;
    l.ring = ring;
    l.extL = extL;
    l.extG = extG;
    l.data = dG;
    l.split = local;
    l.elementBytes = elementBytes;
    l.blocks = dBlocks;
    l.blockBytes = blockBytes;
    if (gatherScale) {
      l.scale = dGS;
      l.scaleSplit = scaleSplit;
      l.scaleElementBytes = scaleElementBytes;
    }
    return l;
  }
};

/// An all_gather_contract laid out on the device: x gathered in gather.data
/// as an all_gather_matmul gathers A, the other operands in dOther, and one
/// accumulator per product (fp32, or f64 for f64 operands) that every
/// arriving piece adds its K runs to; dD holds the rounded products (the
/// accumulators themselves when no rounding is needed).
struct ContractDevicePlan {
  ContractPlan shapes;
  GatherLayout gather;
  DType type = DType::F32, accumulator = DType::F32;
  Tensor gathered;
  std::vector<Tensor> products;
  std::vector<void *> dOther, dAcc, dD;
};

/// A matmul_reduce_scatter laid out on the device: dW holds one fp32 partial
/// per destination rank (slice elements each), dStage this rank's slice of
/// every rank's partial, reduced once into dOut.
struct ReduceScatterPlan {
  int g = 1, me = 0, chunks = 1;
  /// The schedule as the GPU runs it: per_peer for ring, whole slices for a
  /// scaled N split.
  Schedule schedule;
  int64_t k = 0, n = 0, dim = 0, extL = 0, slice = 0, totalRows = 0,
          rowsPerSlab = 0;
  /// Elements between one batch's B and the next (0: one B for all rows).
  int64_t strideB = 0;
  /// An all-to-all's: where the blocks received are placed (not summed).
  std::optional<StackedBlocks> stacked;
  bool scaled = false, transposeB = false, nSplit = false;
  size_t elementBytes = 0, sliceBytes = 0;
  Split split;
  std::vector<int64_t> productShape;
  Tensor reduced;
  void *dA = nullptr, *dAS = nullptr, *dB = nullptr, *dBS = nullptr,
       *dAddend = nullptr, *dBias = nullptr, *dW = nullptr, *dStage = nullptr,
       *dOut = nullptr, *dPointers = nullptr;

  float *partial(int destination) const {
    return static_cast<float *>(dW) + int64_t(destination) * slice;
  }
  void *staged(int source) const {
    return static_cast<uint8_t *>(dStage) + source * sliceBytes;
  }
};

class CudaRank : public Backend {
public:
  CudaRank(TraceRecorder *trace, int rank) : trace(trace), rank(rank) {}
  ~CudaRank() override;

  /// Binds this rank to GPU `device` and makes its streams and cuBLASLt.
  Status init(int device);

  std::string name() const override { return "cuda"; }
  /// How often this rank's GEMMs took a slower path.
  const FallbackCounters &fallbackCounters() const { return gemm.counters(); }
  Status matmul(const Tensor &a, const Tensor &b, bool transposeB,
                const std::string &site, Tensor &result) override;
  Status scaledMatmul(const Operand &a, const Operand &b, const Tensor *bias,
                      DType outType, const std::string &site,
                      Tensor &result) override;
  /// The runtime's copies and, on the calling thread, the GPU glue's.
  HostTransfers hostTransfers() const override;
  bool capturingGraph() const override { return capturing; }

  /// Capture mode, for a whole step captured into one CUDA graph (StepGraph):
  /// everything is enqueued and joins the compute stream, which the capture
  /// started from; nothing is waited for on the host; operands and results
  /// must be device memory; workspaces must already be large enough (the
  /// step ran once before, outside the capture).
  Status beginCapture(const std::string &context);
  void endCapture() { capturing = false; }
  /// Why this transport cannot take part in a capture ("" when it can).
  virtual std::string whyNoGraphCapture() const { return ""; }
  cudaStream_t computeStream() const { return compute; }
  int deviceIndex() const { return device; }

protected:
  /// Makes `stream` wait for the work enqueued on the compute stream so far
  /// (capture mode: an op's communication starts after the glue before it).
  Status forkFromCompute(cudaStream_t stream, const std::string &context);
  /// Makes the compute stream wait for the work enqueued on `stream`.
  Status joinIntoCompute(cudaStream_t stream, const std::string &context);

  /// Waits for `stream` (capture mode: joins it into the compute stream);
  /// transports that can time out override it.
  virtual Status synchronize(cudaStream_t stream, const std::string &context);

  /// A device buffer for `purpose`, grown when too small, reused otherwise.
  Status buffer(const std::string &purpose, size_t bytes, void *&ptr,
                const std::string &context);
  /// Whether this rank's kernels can use `ptr` where it is: memory of its
  /// GPU, or managed memory (compiled code's host-shared buffers).
  bool onDevice(const void *ptr) const;
  /// `t` on the device: in place when onDevice() (and 16-byte aligned), else
  /// copied into the workspace for `purpose`.
  Status upload(const Tensor &t, const std::string &purpose, void *&ptr,
                cudaStream_t stream, const std::string &context);
  /// Where a GEMM writes `result`: its own bytes when they are on the
  /// device (a result offered in place), else the workspace for `purpose`.
  Status resultBuffer(Tensor &result, const std::string &purpose, void *&ptr,
                      const std::string &context);
  /// Copies device bytes `ptr` into `t` (nothing when `t` is them) and waits.
  Status download(const void *ptr, Tensor &t, cudaStream_t stream,
                  const std::string &context);
  /// Counts a copy of `bytes` between the device and `hostSide` when that is
  /// host memory.
  void countCopy(const void *hostSide, size_t bytes, bool toDevice);
  /// At least `count` reusable events.
  Status eventPool(size_t count, const std::string &context);

  Status scaledGemm(const Operand &a, const void *aData, const void *aScale,
                    const Operand &b, const void *bData, const void *bScale,
                    int64_t m, int64_t n, int64_t k, const void *bias,
                    DType outType, void *d, cudaStream_t stream,
                    const std::string &context, int smCountTarget = 0);
  /// One scaledGemm call: its operands on the device and the GEMM as asked.
  struct ScaledGemmCall {
    const Operand &a, &b;
    const void *aData, *aScale, *bData, *bScale;
    void *d;
    cudaStream_t stream;
    const std::string &context;
    GemmProblem problem;
  };
  /// scaledGemm's paths (scaledGemmOrder): native FP8, a unit-scaled FP8
  /// GEMM with the row-wise scales applied after, and bf16 on dequantized
  /// operands.
  Attempt scaledGemmNative(const ScaledGemmCall &call, Status &error);
  Attempt scaledGemmUnitScaled(const ScaledGemmCall &call, Status &error);
  Attempt scaledGemmDequantized(const ScaledGemmCall &call, Status &error);

  /// Copies this rank's shard (and scale, when `l.scale`) from the host into
  /// its place in the gathered buffer on the comm stream and records the
  /// events of its pieces (step 0).
  /// An all_to_all_matmul's A, packed on the device into p.dBlocks (block j
  /// for member j); `block` views this rank's own block.
  Status packBlocks(const AllGatherMatmulArgs &args, int groupSize, int me,
                    GatherMatmulPlan &p, Tensor &block);
  Status placeOwnShard(const GatherLayout &l, const void *shard,
                       const void *scaleShard, const std::string &context);

  /// Uploads B operands, places this rank's shard (and scale) in dG on the
  /// comm stream and records the events of its pieces (step 0).
  Status prepareGatherMatmul(const AllGatherMatmulArgs &args, int groupSize,
                             int me, GatherMatmulPlan &plan);
  /// Enqueues on the compute stream, for every GEMM step of the schedule
  /// (planGather): wait for its pieces' events, multiply its runs into the
  /// products' final place.
  Status multiplyGatheredPieces(const AllGatherMatmulArgs &args,
                                const GatherMatmulPlan &plan);
  /// Downloads the products (and gathered A) and fills `results`.
  Status finishGatherMatmul(const AllGatherMatmulArgs &args,
                            GatherMatmulPlan &plan,
                            std::vector<Tensor> &results);

  /// Plans `args`, uploads the other operands, zeroes the accumulators and
  /// places this rank's shard of x (step 0).
  Status prepareContract(const AllGatherContractArgs &args, int groupSize,
                         int me, bool ring, ContractDevicePlan &plan);
  /// Enqueues on the compute stream, for every step and piece: wait for its
  /// event, add each of its K runs' contribution to every accumulator.
  Status contractGatheredPieces(const AllGatherContractArgs &args,
                                const ContractDevicePlan &plan);
  /// Rounds the accumulators once, downloads the products (and the gathered
  /// x) and fills `results`.
  Status finishContract(const AllGatherContractArgs &args,
                        ContractDevicePlan &plan, std::vector<Tensor> &results);

  Status prepareReduceScatter(const MatmulReduceScatterArgs &args,
                              int groupSize, int me, ReduceScatterPlan &plan);
  /// Enqueues on the compute stream the partials of one GEMM step of
  /// planScatter (plus their part of the addend), in fp32: one GEMM per run
  /// where dW keeps the run's rows together, else one per piece.
  Status computePartialStep(const MatmulReduceScatterArgs &args,
                            const ReduceScatterPlan &plan, const GemmStep &step,
                            cudaStream_t stream);
  /// ... piece [lo, hi) of the partial destined to rank `destination`.
  Status computePartialPiece(const MatmulReduceScatterArgs &args,
                             const ReduceScatterPlan &plan, int destination,
                             int64_t lo, int64_t hi, cudaStream_t stream);
  /// The `count` streams a fused op's GEMM steps run on (step i on stream
  /// i % count): the compute stream, then more of its priority (made once,
  /// each with its cuBLASLt workspace), each waiting for the work enqueued
  /// on the compute stream so far.
  Status forkPieceStreams(int count, const std::string &context,
                          std::vector<cudaStream_t> &streams);
  /// Makes the compute stream wait for the work on `streams` (all but the
  /// compute stream itself): what follows sees every step's result.
  Status joinPieceStreams(const std::vector<cudaStream_t> &streams,
                          const std::string &context);
  /// Copies piece [lo, hi) of a slice-shaped fp32 (or `elemBytes`) buffer:
  /// slices of the product along the scattered dim, or column blocks for an
  /// N split. Pitches and starts count elements along that dim.
  cudaError_t copyPiece(const ReduceScatterPlan &plan, const void *src,
                        int64_t srcPitch, int64_t srcStart, void *dst,
                        int64_t dstPitch, int64_t dstStart, int64_t lo,
                        int64_t hi, size_t elemBytes, cudaMemcpyKind kind,
                        cudaStream_t stream) const;
  /// Sums the staged slices on the comm stream and downloads them.
  Status reduceStaged(const MatmulReduceScatterArgs &args,
                      ReduceScatterPlan &plan);
  /// This rank's whole product from its partials, rounded once.
  /// The exchanged result of a matmul_all_to_all from the staged blocks.
  Status placeStaged(const MatmulReduceScatterArgs &args, ReduceScatterPlan &p);
  Status unreducedProduct(const MatmulReduceScatterArgs &args,
                          const ReduceScatterPlan &plan, Tensor &product);

  TraceRecorder *trace;
  int rank;
  int device = 0, smCount = 0;
  /// SMs a chunk GEMM of a fused op may use (0: all): transports whose
  /// communication runs as kernels (NCCL) leave some to it.
  int fusedGemmSms = 0;
  cudaStream_t compute = nullptr, comm = nullptr;
  LtGemm gemm;
  std::map<std::string, std::pair<void *, size_t>> buffers;
  std::vector<cudaEvent_t> events;
  HostTransfers transfers;
  bool capturing = false;
  cudaEvent_t forkEvent = nullptr, joinEvent = nullptr;
  /// Compute streams beyond the first, for concurrent GEMM steps.
  std::vector<cudaStream_t> pieceStreams;
};

} // namespace mlir::tp::rt::cuda

#endif // TP_LIB_RUNTIME_CUDA_CUDARANK_H
