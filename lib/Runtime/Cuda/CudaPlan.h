//===- CudaPlan.h - the CUDA backend's host-side decisions ------*- C++ -*-===//
//
// What the CUDA backend decides before it calls CUDA, cuBLASLt or NCCL:
// pointer alignments and the cuBLASLt preferences they become, where an FP8
// GEMM's bias is added, the order of a scaled GEMM's fallbacks, which element
// types the kernels handle, the GEMM of each K run of an
// all_gather_contract, which workspace a stream uses, slots NCCL may
// fill late, and the counters of fallbacks to slower paths. No CUDA header is
// included, so all of it is tested where there is no GPU
// (test/Unit/CudaPlanTest.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_RUNTIME_CUDA_CUDAPLAN_H
#define TP_LIB_RUNTIME_CUDA_CUDAPLAN_H

#include "tp/Runtime/Contract.h"
#include "tp/Runtime/DType.h"
#include "tp/Runtime/Quantize.h"
#include "tp/Runtime/Schedule.h"
#include "tp/Runtime/Status.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace mlir::tp::rt::cuda {

//===----------------------------------------------------------------------===//
// Alignment and cuBLASLt preferences
//===----------------------------------------------------------------------===//

/// cuBLASLt's heuristic assumes this alignment unless told otherwise.
constexpr int kLtDefaultAlignment = 256;
/// Every matrix pointer of an FP8 GEMM must be 16-byte aligned.
constexpr int kFp8MatrixAlignment = 16;
/// Outer-vector (row-wise) FP8 scale pointers must be 16-byte aligned.
constexpr int kScaleVectorAlignment = 16;

/// The largest power of two, up to 256, dividing `address`.
inline int alignmentOf(uintptr_t address) {
  int alignment = kLtDefaultAlignment;
  while (alignment > 1 && address % alignment != 0)
    alignment /= 2;
  return alignment;
}
inline int alignmentOf(const void *ptr) {
  return alignmentOf(reinterpret_cast<uintptr_t>(ptr));
}

inline bool isFp8(DType type) {
  return type == DType::F8E4M3FN || type == DType::F8E5M2;
}

/// The preferences of one heuristic query, in cuBLASLt's operand order: it
/// computes D^T = op(B)^T A^T on our row-major operands, so our B is its A,
/// our A its B, and our D both its C and D.
struct LtPreferences {
  uint64_t maxWorkspaceBytes = 0;
  uint32_t minAlignmentA = kLtDefaultAlignment,
           minAlignmentB = kLtDefaultAlignment,
           minAlignmentC = kLtDefaultAlignment,
           minAlignmentD = kLtDefaultAlignment;
};

/// Preferences for pointers of our alignments alignA / alignB / alignD.
/// Without them the heuristic may pick a kernel that needs 256-byte pointers
/// and cublasLtMatmul refuses pieces at smaller offsets.
inline LtPreferences ltPreferences(int alignA, int alignB, int alignD,
                                   uint64_t workspaceBytes) {
  LtPreferences p;
  p.maxWorkspaceBytes = workspaceBytes;
  p.minAlignmentA = static_cast<uint32_t>(alignB);
  p.minAlignmentB = static_cast<uint32_t>(alignA);
  p.minAlignmentC = p.minAlignmentD = static_cast<uint32_t>(alignD);
  return p;
}

/// Whether cuBLASLt can take matrices of `aType` at these alignments at all:
/// FP8 needs 16 bytes everywhere (asking anyway may find no algorithm, or
/// one cublasLtMatmul then refuses).
inline bool matrixPointersUsable(DType aType, int alignA, int alignB,
                                 int alignD) {
  if (!isFp8(aType))
    return true;
  return std::min({alignA, alignB, alignD}) >= kFp8MatrixAlignment;
}

/// Where a GEMM's bias (of D's type) is added.
enum class BiasRoute { None, LtEpilogue, Kernel };

/// cuBLASLt's FP8 epilogue takes only a bf16 bias when D is f32; ours has
/// D's type, so it is added in fp32 by a kernel after the GEMM instead of
/// rounding it to bf16 or falling back to a dequantized GEMM.
inline BiasRoute biasRoute(bool hasBias, DType aType, DType dType) {
  if (!hasBias)
    return BiasRoute::None;
  if (isFp8(aType) && dType == DType::F32)
    return BiasRoute::Kernel;
  return BiasRoute::LtEpilogue;
}

//===----------------------------------------------------------------------===//
// Fallbacks
//===----------------------------------------------------------------------===//

/// Slower paths taken instead of the fast one; each is counted and traced.
enum class Fallback {
  /// An FP8 GEMM with f32 output and a bias: the bias added by a kernel.
  Fp8BiasKernel,
  /// Row-wise FP8 as a unit-scaled FP8 GEMM, scales applied by a kernel.
  RowWiseUnitScaled,
  /// An FP8 GEMM (per-tensor or row-wise) run on bf16-dequantized operands.
  Dequantized,
  /// cublasLtMatmul refused an algorithm its heuristic had returned.
  NotSupportedRetry,
};
constexpr int kFallbackKinds = 4;

inline const char *name(Fallback fallback) {
  switch (fallback) {
  case Fallback::Fp8BiasKernel:
    return "fp8_bias_kernel";
  case Fallback::RowWiseUnitScaled:
    return "row_wise_unit_scaled";
  case Fallback::Dequantized:
    return "dequantized";
  case Fallback::NotSupportedRetry:
    return "not_supported_retry";
  }
  return "?";
}

struct FallbackCounters {
  std::array<uint64_t, kFallbackKinds> counts{};

  void add(Fallback fallback) { ++counts[static_cast<int>(fallback)]; }
  uint64_t operator[](Fallback fallback) const {
    return counts[static_cast<int>(fallback)];
  }
  uint64_t total() const {
    uint64_t sum = 0;
    for (uint64_t c : counts)
      sum += c;
    return sum;
  }
  /// "fp8_bias_kernel=0 row_wise_unit_scaled=2 ...", every kind listed.
  std::string summary() const {
    std::string text;
    for (int i = 0; i < kFallbackKinds; ++i)
      text += std::string(i ? " " : "") + name(static_cast<Fallback>(i)) + "=" +
              std::to_string(counts[i]);
    return text;
  }
};

/// The ways to run a scaled GEMM, fastest first.
enum class ScaledPath {
  /// cuBLASLt's FP8 GEMM with the real scales.
  Native,
  /// Row-wise: an FP8 GEMM with unit scales to fp32, then a scaling kernel.
  UnitScaled,
  /// Both operands dequantized to bf16, then a bf16 GEMM.
  Dequantize,
};

inline const char *name(ScaledPath path) {
  switch (path) {
  case ScaledPath::Native:
    return "native";
  case ScaledPath::UnitScaled:
    return "unit-scaled";
  case ScaledPath::Dequantize:
    return "dequantize";
  }
  return "?";
}

/// The paths to try for `mode`, in order. Native row-wise is tried only on
/// 16-byte aligned scale vectors (cublasLtMatmul refuses others, after a
/// heuristic that never saw the pointers). Block scales (MXFP8, NVFP4) have
/// no native GEMM before sm_100.
inline std::vector<ScaledPath> scaledGemmOrder(Scaling mode, int aScaleAlign,
                                               int bScaleAlign) {
  switch (mode) {
  case Scaling::PerTensor:
    return {ScaledPath::Native, ScaledPath::Dequantize};
  case Scaling::RowWise:
    if (std::min(aScaleAlign, bScaleAlign) >= kScaleVectorAlignment)
      return {ScaledPath::Native, ScaledPath::UnitScaled,
              ScaledPath::Dequantize};
    return {ScaledPath::UnitScaled, ScaledPath::Dequantize};
  case Scaling::MXFP8:
  case Scaling::NVFP4:
    return {ScaledPath::Dequantize};
  }
  return {ScaledPath::Dequantize};
}

/// What came of trying one path: it ran (enqueued), cuBLASLt has no
/// algorithm for it or refused it (try the next), or it failed (stop).
enum class Attempt { Done, Refused, Failed };

/// Tries the paths of `order` until one is done. `attempt` runs a path and
/// sets `error` when it is refused or fails. A path other than the fastest
/// of an FP8 mode is reported to `note`. `used` (optional) gets the path
/// that ran.
inline Status
runFirstAccepted(const std::vector<ScaledPath> &order,
                 const std::function<Attempt(ScaledPath, Status &)> &attempt,
                 const std::function<void(Fallback)> &note,
                 const std::string &context, ScaledPath *used = nullptr) {
  std::string refusals;
  for (size_t i = 0; i < order.size(); ++i) {
    Status error;
    Attempt outcome = attempt(order[i], error);
    if (outcome == Attempt::Failed)
      return error.isOk()
                 ? Status::error(context + ": the " +
                                 std::string(name(order[i])) + " GEMM failed")
                 : error;
    if (outcome == Attempt::Done) {
      if (order[i] == ScaledPath::UnitScaled)
        note(Fallback::RowWiseUnitScaled);
      else if (order[i] == ScaledPath::Dequantize && order.size() > 1)
        note(Fallback::Dequantized);
      if (used)
        *used = order[i];
      return Status::ok();
    }
    refusals += std::string(refusals.empty() ? "" : "; ") + name(order[i]) +
                ": " + (error.isOk() ? "refused" : error.message());
  }
  return Status::error(context + ": no way to run this scaled GEMM (" +
                       refusals + ")");
}

//===----------------------------------------------------------------------===//
// Element types of the kernels
//===----------------------------------------------------------------------===//

/// Types the element-wise kernels (Kernels.cu) read.
inline bool kernelsLoad(DType type) {
  switch (type) {
  case DType::F32:
  case DType::F64:
  case DType::F16:
  case DType::BF16:
  case DType::F8E4M3FN:
  case DType::F8E5M2:
  case DType::F8E8M0FNU:
  case DType::F4E2M1FN:
    return true;
  default:
    return false;
  }
}

/// Types the element-wise kernels write; any other would be left untouched.
inline bool kernelsStore(DType type) {
  switch (type) {
  case DType::F32:
  case DType::F64:
  case DType::F16:
  case DType::BF16:
    return true;
  default:
    return false;
  }
}

/// A reduction kernel over `type` (read and written as `type`) would return
/// zeros for any type it cannot both load and store: refuse those by name,
/// as the NCCL transport does for types NCCL cannot reduce.
inline Status checkKernelReduction(DType type, const std::string &context) {
  if (kernelsLoad(type) && kernelsStore(type))
    return Status::ok();
  return Status::error(context +
                       ": the loopback transport reduces f32, f64, "
                       "f16 and bf16, not " +
                       std::string(name(type)));
}

/// A kernel writes results of `type` (a fused op's output).
inline Status checkKernelOutput(DType type, const std::string &context) {
  if (kernelsStore(type))
    return Status::ok();
  return Status::error(context +
                       ": the CUDA backend writes fused results as "
                       "f32, f64, f16 or bf16, not " +
                       std::string(name(type)));
}

//===----------------------------------------------------------------------===//
// all_gather_contract
//===----------------------------------------------------------------------===//

/// One K run's contribution to a contraction product, in LtGemm's row-major
/// terms: D[m, n] += op(A)[m, k] @ op(B)[k, n], A and B read at element
/// offsets into the whole operands with their own leading dims.
struct ContractGemm {
  int64_t m = 0, n = 0, k = 0;
  int64_t lda = 0, ldb = 0, ldd = 0;
  bool transposeA = false, transposeB = false;
  int64_t offsetA = 0, offsetB = 0;
};

/// The GEMM of K range [k0, k1) of L @ R (L and R as planContract views
/// them: a K-leading L is transposed, a K-trailing R is). Row-major dense
/// operands need no copy: the range starts k0 rows into a K-leading matrix
/// and k0 columns into a K-trailing one, whose leading dims stay whole.
inline ContractGemm contractRunGemm(const ContractView &lhs,
                                    const ContractView &rhs, int64_t k0,
                                    int64_t k1) {
  ContractGemm q;
  q.m = lhs.free;
  q.n = rhs.free;
  q.k = k1 - k0;
  q.transposeA = lhs.kLeading;
  q.transposeB = !rhs.kLeading;
  q.lda = lhs.cols();
  q.ldb = rhs.cols();
  q.ldd = q.n;
  q.offsetA = lhs.kLeading ? k0 * lhs.cols() : k0;
  q.offsetB = rhs.kLeading ? k0 * rhs.cols() : k0;
  return q;
}

/// The type a contraction accumulates in: fp32 for f32, bf16 and f16 (one
/// rounding at the end), f64 for f64; an error naming `site` for any other.
inline Status contractAccumulator(DType type, const std::string &site,
                                  DType &accumulator) {
  switch (type) {
  case DType::F32:
  case DType::BF16:
  case DType::F16:
    accumulator = DType::F32;
    return Status::ok();
  case DType::F64:
    accumulator = DType::F64;
    return Status::ok();
  default:
    return Status::error(site + ": the CUDA backend contracts f32, f64, f16 "
                                "and bf16 operands, not " +
                         std::string(name(type)));
  }
}

//===----------------------------------------------------------------------===//
// Ownership
//===----------------------------------------------------------------------===//

/// Which cuBLASLt workspace each stream uses. Split-K and stream-K kernels
/// keep partial sums and flags in the workspace, so two streams that may run
/// GEMMs at once never share one. Streams are opaque handles here.
class WorkspaceOwners {
public:
  /// The slot of `stream`; `fresh` says the caller must allocate it (slots
  /// are numbered in order of first use).
  size_t slotOf(const void *stream, bool &fresh) {
    auto found = std::find(streams.begin(), streams.end(), stream);
    fresh = found == streams.end();
    if (!fresh)
      return static_cast<size_t>(found - streams.begin());
    streams.push_back(stream);
    return streams.size() - 1;
  }
  size_t size() const { return streams.size(); }

private:
  std::vector<const void *> streams;
};

/// Slots an asynchronous writer fills when it is done (ncclCommSplit on a
/// non-blocking communicator writes the new handle then, possibly after this
/// side stopped waiting). Each slot is its own allocation, so it never moves;
/// one released after its write is freed, one still pending when the owner
/// goes is deliberately never freed, since it may still be written.
template <typename T> class LateWriteSlots {
public:
  LateWriteSlots() = default;
  LateWriteSlots(const LateWriteSlots &) = delete;
  LateWriteSlots &operator=(const LateWriteSlots &) = delete;
  ~LateWriteSlots() = default;

  /// A fresh slot holding T{}.
  T *acquire() {
    pendingSlots.push_back(new T{});
    return pendingSlots.back();
  }
  /// The write into `slot` has happened (or can no longer): free it.
  void release(T *slot) {
    auto found = std::find(pendingSlots.begin(), pendingSlots.end(), slot);
    if (found == pendingSlots.end())
      return;
    pendingSlots.erase(found);
    delete slot;
  }
  size_t pending() const { return pendingSlots.size(); }

private:
  std::vector<T *> pendingSlots;
};

/// The most compute streams a fused op's GEMM steps run on at once.
constexpr int kMaxPieceStreams = 4;

/// How many compute streams the `steps` GEMM steps of `schedule` run on: its
/// `streams`, at most kMaxPieceStreams and `steps`; one where the steps wait
/// for one another (coalesced) or must not overlap (`serial`: they add into
/// one result, as a gather along K or a weight gradient does, or share a
/// workspace, as scaled GEMMs' fallbacks do).
inline int pieceStreamCount(const Schedule &schedule, size_t steps,
                            bool serial) {
  if (serial || schedule.algorithm == Schedule::Algorithm::Coalesced)
    return 1;
  int64_t count = std::min<int64_t>(schedule.streams, kMaxPieceStreams);
  count = std::min<int64_t>(count, static_cast<int64_t>(steps));
  return static_cast<int>(std::max<int64_t>(count, 1));
}

/// One GEMM of a matmul-reduce-scatter's partials: rows [lo, hi) of the
/// partial for `destination`; destination 0 with [lo, hi) past one slice is
/// a run of whole slices, written as consecutive rows of the workspace.
struct PartialGemm {
  int destination = 0;
  int64_t lo = 0, hi = 0;
  bool operator==(const PartialGemm &other) const {
    return destination == other.destination && lo == other.lo && hi == other.hi;
  }
};

/// The GEMMs of one scatter step (planScatter). The workspace holds one
/// partial per destination, slice after slice: where a slice is one block of
/// rows (`rowsTogether`: a row split with one outer block) a run of pieces
/// is one GEMM; else each piece is its own.
inline std::vector<PartialGemm> partialGemms(const GemmStep &step,
                                             int64_t share, bool rowsTogether) {
  std::vector<PartialGemm> gemms;
  if (rowsTogether) {
    for (const ExtentRun &run : step.runs(share))
      gemms.push_back({0, run.begin, run.end});
    return gemms;
  }
  for (const PieceRef &piece : step.pieces)
    gemms.push_back({piece.member, piece.lo, piece.hi});
  return gemms;
}

//===----------------------------------------------------------------------===//
// All-to-all blocks (all_to_all_matmul)
//===----------------------------------------------------------------------===//

/// One 2-D copy (cudaMemcpy2DAsync): `rows` runs of `width` bytes, from byte
/// `src` of the source (runs `srcPitch` apart) to byte `dst` of the
/// destination (runs `dstPitch` apart).
struct StridedCopy {
  size_t src = 0, dst = 0, width = 0, srcPitch = 0, dstPitch = 0;
  int64_t rows = 1;
};

/// The copies that pack an all-to-all's input, viewed as [outer, extent,
/// inner] around its split dim (`extent` divisible by `groupSize`), into
/// `groupSize` blocks side by side, block j at j * (its bytes) and laid out
/// as a tensor of the block's shape: one copy per block.
inline std::vector<StridedCopy> packBlockCopies(int64_t outer, int64_t extent,
                                                int64_t inner,
                                                size_t elementBytes,
                                                int groupSize) {
  const size_t width =
      size_t(extent / groupSize) * size_t(inner) * elementBytes;
  std::vector<StridedCopy> copies;
  for (int j = 0; j < groupSize; ++j)
    copies.push_back({/*src=*/j * width, /*dst=*/j * width * size_t(outer),
                      width, /*srcPitch=*/width * groupSize,
                      /*dstPitch=*/width, outer});
  return copies;
}

/// Piece [lo, hi) of the block an all-to-all sends member `to`, within the
/// packed blocks (`blockBytes` each, laid out as a shard of `extL` slabs of
/// `slabBytes` along the concat dim, in `outer` runs): what one send reads.
inline StridedCopy exchangeSendPiece(size_t blockBytes, int to, int64_t extL,
                                     int64_t lo, int64_t hi, size_t slabBytes,
                                     int64_t outer) {
  StridedCopy piece;
  piece.src = to * blockBytes + size_t(lo) * slabBytes;
  piece.width = size_t(hi - lo) * slabBytes;
  piece.srcPitch = size_t(extL) * slabBytes;
  piece.rows = outer;
  return piece;
}

} // namespace mlir::tp::rt::cuda

#endif // TP_LIB_RUNTIME_CUDA_CUDAPLAN_H
