//===- Backend.h - what a runtime backend implements ------------*- C++ -*-===//
//
// One Backend object per rank. Compiled code calls it, through the runtime
// ABI (ABI.h), for every collective, GEMM and fused collective-GEMM; the CPU
// backend runs them on threads and a BLAS, the CUDA backend on cuBLASLt and
// NCCL. Every call names its `site` ("tp.all_gather at file:line") so errors
// and traces point at the IR.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_BACKEND_H
#define TP_RUNTIME_BACKEND_H

#include "tp/Runtime/Quantize.h"
#include "tp/Runtime/Status.h"
#include "tp/Runtime/Tensor.h"
#include "tp/Runtime/World.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tp::rt {

enum class Reduction { Sum, Avg, Max, Min };

/// A GEMM operand: a float tensor, or low-precision data with its
/// dequantization scales.
struct Operand {
  const Tensor *data = nullptr;
  const Tensor *scale = nullptr;
  const Tensor *globalScale = nullptr;
  std::optional<Scaling> scaling;

  bool isScaled() const { return scaling.has_value(); }
  static Operand plain(const Tensor *data) {
    Operand op;
    op.data = data;
    return op;
  }
};

/// How a fused op runs: the algorithm and how many pieces each rank's share
/// is cut into (more pieces: finer overlap, smaller GEMMs).
struct Schedule {
  enum class Algorithm { Ring, PerPeer };
  Algorithm algorithm = Algorithm::PerPeer;
  int chunks = 1;

  /// Pieces a share of `extent` is cut into: `chunks`, clamped to [1, extent].
  int pieces(int64_t extent) const {
    int64_t n = chunks < 1 ? 1 : chunks;
    return static_cast<int>(extent < 1 ? 1 : (n < extent ? n : extent));
  }
  /// [lo, hi) of piece `j` of `extent` cut into `count` near-equal parts.
  static std::pair<int64_t, int64_t> pieceRange(int64_t extent, int count,
                                                int j) {
    return {extent * j / count, extent * (j + 1) / count};
  }
};

/// The order in which a fused op's pieces move between the `g` members of
/// its group, seen from member `me` (indices within the group). It is the
/// one definition that every transport follows (CPU threads, MPI, CUDA
/// loopback, NCCL), so that they add the same partials in the same order and
/// agree bit for bit; a backend only moves, multiplies and reduces pieces.
///
/// Gathers run in g steps, step 0 being this member's own shard; reductions
/// make this member's partials in g steps, its own slice last.
struct PieceOrder {
  int g = 1, me = 0;
  bool ring = false;

  PieceOrder(int groupSize, int member, Schedule::Algorithm algorithm)
      : g(groupSize), me(member), ring(algorithm == Schedule::Algorithm::Ring) {
  }

  /// `member` taken around the group.
  int wrap(int member) const { return ((member % g) + g) % g; }
  /// The ring's neighbours: shards and running sums flow left to right.
  int left() const { return wrap(me - 1); }
  int right() const { return wrap(me + 1); }

  /// All-gather: the member whose shard this member takes at `step`. Ring:
  /// shards pass left to right, so step s brings the shard of the member s
  /// to the left; per_peer: the member s to the right, read directly.
  int gatherOrigin(int step) const {
    return ring ? wrap(me - step) : wrap(me + step);
  }
  /// Per_peer all-gather: the member that takes this member's shard at
  /// `step` (the one whose gatherOrigin(step) is `me`).
  int gatherReader(int step) const { return wrap(me - step); }

  /// Per_peer reduce-scatter: the member whose slice this member's partial
  /// at `step` (1 to g) belongs to: the next members first, its own last.
  int partialFor(int step) const { return wrap(me + step); }
  /// ... and the member whose partial of this member's slice arrives then.
  int partialFrom(int step) const { return wrap(me - step); }
  /// The step (1 to g) at which `member` makes its partial of this member's
  /// slice: the inverse of partialFrom.
  int stepOfPartialFrom(int member) const { return wrap(me - member - 1) + 1; }
  /// Ring reduce-scatter: the slice whose running sum this member extends at
  /// `step` (0 to g - 1), adding its left neighbour's sum of step - 1; the
  /// last step completes its own.
  int ringSliceAt(int step) const { return wrap(me - step - 1); }
};

/// The share of a dim of `extent` that each of `groupSize` members gets when
/// it is scattered over them; an error naming `site` and the dim when it does
/// not divide. Every transport's reduce-scatter and matmul-reduce-scatter
/// checks with this one definition.
inline Status scatterShare(int64_t extent, int64_t dim, int groupSize,
                           const std::string &site, int64_t &share) {
  if (groupSize < 1 || extent % groupSize != 0)
    return Status::error(
        site + ": dim " + std::to_string(dim) + " (" + std::to_string(extent) +
        ") is not divisible by the group size " + std::to_string(groupSize));
  share = extent / groupSize;
  return Status::ok();
}

/// all_gather(a, dim) then one product per B (B broadcast over A's leading
/// dims; B is [K, N], or [N, K] with transposeB, which scaled B always is).
struct AllGatherMatmulArgs {
  Operand a;
  std::vector<Operand> bs;
  std::vector<const Tensor *> biases; // one per B, null when absent
  std::vector<DType> outTypes;        // one per B
  int64_t dim = 0;
  bool transposeB = false;
  bool returnGathered = false;
  Schedule schedule;
  std::string site;
};

/// reduce_scatter(a @ b + addend, dim) + bias.
struct MatmulReduceScatterArgs {
  Operand a, b;
  const Tensor *bias = nullptr;
  const Tensor *addend = nullptr;
  DType outType = DType::F32;
  int64_t dim = 0;
  Reduction reduction = Reduction::Sum;
  bool transposeB = false;
  bool returnUnreduced = false;
  Schedule schedule;
  std::string site;
};

/// all_gather(x, dim) contracted with each of `others` over the gathered dim,
/// each product accumulated piece by piece as the shards arrive (the weight
/// gradient of a sequence-parallel layer). Product i is op_a(L) @ op_b(R)
/// with (L, R) = (G, others[i]) when gatheredLhs, else (others[i], G), where
/// G is the gathered x; see tp/Runtime/Contract.h for the layouts.
struct AllGatherContractArgs {
  const Tensor *x = nullptr;
  std::vector<const Tensor *> others;
  int64_t dim = 0;
  bool gatheredLhs = false;
  bool transposeA = false, transposeB = false;
  bool returnGathered = false;
  Schedule schedule;
  std::string site;
};

/// What `Backend::allToAll` makes of an input: the block each rank sends
/// each member (the split dim cut by the group size) and the result (the
/// blocks received, side by side along the concat dim).
struct AllToAllShapes {
  std::vector<int64_t> block, result;
};

/// The shapes of an all-to-all of `input` over `groupSize` ranks; an error
/// naming `site` when the split dim does not divide by the group size.
inline Status allToAllShapes(const std::vector<int64_t> &input, int64_t split,
                             int64_t concat, int groupSize,
                             const std::string &site, AllToAllShapes &shapes) {
  if (input[split] % groupSize != 0)
    return Status::error(site + ": the split dim " + std::to_string(split) +
                         " (" + std::to_string(input[split]) +
                         ") is not divisible by the group size " +
                         std::to_string(groupSize));
  shapes.block = input;
  shapes.block[split] /= groupSize;
  shapes.result = shapes.block;
  shapes.result[concat] *= groupSize;
  return Status::ok();
}

class Backend {
public:
  virtual ~Backend();
  virtual std::string name() const = 0;

  virtual Status allGather(const Group &group, const Tensor &input, int64_t dim,
                           const std::string &site, Tensor &result) = 0;
  virtual Status reduceScatter(const Group &group, const Tensor &input,
                               int64_t dim, Reduction reduction,
                               const std::string &site, Tensor &result) = 0;
  virtual Status allReduce(const Group &group, const Tensor &input,
                           Reduction reduction, const std::string &site,
                           Tensor &result) = 0;
  /// Cuts `input` into group-size blocks along `split`, sends block j to
  /// group member j and concatenates the blocks received, in group order,
  /// along `concat`. The split extent must divide by the group size.
  virtual Status allToAll(const Group &group, const Tensor &input,
                          int64_t split, int64_t concat,
                          const std::string &site, Tensor &result) = 0;

  /// a [..., M, K] @ b: b 2-D (broadcast over a's leading dims) or with a's
  /// leading dims (batched).
  virtual Status matmul(const Tensor &a, const Tensor &b, bool transposeB,
                        const std::string &site, Tensor &result) = 0;
  /// dequantize(a [M, K]) @ dequantize(b [N, K])^T + bias, rounded once.
  virtual Status scaledMatmul(const Operand &a, const Operand &b,
                              const Tensor *bias, DType outType,
                              const std::string &site, Tensor &result) = 0;

  /// Results: the gathered A (and its gathered scale when A is scaled) when
  /// args.returnGathered, then one product per B.
  virtual Status allGatherMatmul(const Group &group,
                                 const AllGatherMatmulArgs &args,
                                 std::vector<Tensor> &results) = 0;
  /// Results: the unreduced product when args.returnUnreduced, then this
  /// rank's reduced slice.
  virtual Status matmulReduceScatter(const Group &group,
                                     const MatmulReduceScatterArgs &args,
                                     std::vector<Tensor> &results) = 0;
  /// Results: the gathered x when args.returnGathered, then one product per
  /// other operand, each rounded once from a wide accumulator.
  virtual Status allGatherContract(const Group &group,
                                   const AllGatherContractArgs &args,
                                   std::vector<Tensor> &results) = 0;

  /// Compiled code's own buffers for the results of the op about to run
  /// (writable views, by result number; empty where none is offered). A
  /// result made with newResult() lands there, so the ABI copies nothing.
  /// The ABI withdraws them when the op returns.
  void offerResults(std::vector<Tensor> views) { offered = std::move(views); }
  void withdrawResults() { offered.clear(); }

  /// Host traffic of the CUDA backend (zero elsewhere): bytes copied from
  /// host memory to the device and back since the backend was made, plus
  /// what the GPU glue's copies moved on the calling thread (a rank's
  /// thread, for its program's inputs and results).
  struct HostTransfers {
    int64_t hostToDevice = 0, deviceToHost = 0;
  };
  virtual HostTransfers hostTransfers() const { return {}; }
  /// Whether the rank's step is being captured into a CUDA graph: ops must
  /// then only enqueue device work (the ABI refuses ops that compute on the
  /// host, and operands or results it would copy on the host).
  virtual bool capturingGraph() const { return false; }

  /// Returns once every rank of the run is ready to run its program (each
  /// has compiled it), or fails after `within`. Ranks that are processes
  /// (MPI) compile at their own pace: waiting here keeps a slow peer's
  /// compile out of the first collective's timeout. Threads of one process
  /// start together, so by default there is nothing to wait for.
  virtual Status waitForPeersToStart(std::chrono::milliseconds within) {
    (void)within;
    return Status::ok();
  }

protected:
  /// Result `index` of the running op, of `dtype` and `shape`: the offered
  /// buffer when it has that type and shape (handed out once), else new
  /// storage. Both start zero-filled unless `zeroed` is false, which a
  /// caller that writes every element passes.
  Tensor newResult(int index, DType dtype, std::vector<int64_t> shape,
                   bool zeroed = true);

private:
  std::vector<Tensor> offered;
};

/// The CPU backend of `rank`: ranks are threads of `world`, GEMMs go through
/// the BLAS, fused ops run a pipelined schedule (a communication thread moves
/// chunks while this thread multiplies the previous ones).
std::unique_ptr<Backend> createCpuBackend(World &world, int rank);

/// Sizes the BLAS thread pool so `ranks` concurrent ranks share the cores.
void configureCpuThreads(int ranks);

} // namespace tp::rt

#endif // TP_RUNTIME_BACKEND_H
