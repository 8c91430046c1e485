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
#include "tp/Runtime/Schedule.h"
#include "tp/Runtime/Status.h"
#include "tp/Runtime/Tensor.h"
#include "tp/Runtime/World.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlir::tp::rt {

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
  /// Set for an all_to_all_matmul: instead of the whole A, member j takes
  /// block j of every rank's A cut into group-size blocks along this dim, and
  /// the blocks it takes are stacked along `dim` in group order (what
  /// tp.all_to_all does). A plain A only, and never the ring schedule (each
  /// member takes a different block). `returnGathered` returns the stacked
  /// blocks.
  std::optional<int64_t> exchangeSplit;
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
  /// Set for a matmul_all_to_all: instead of summing the blocks the group's
  /// members make for this one (block `dim` of their products), this rank
  /// stacks them along this dim in group order (what tp.all_to_all does).
  /// A plain A and B, no bias or addend, never the ring schedule. B may then
  /// be per batch (A's rank) when `dim` is the rows (rank - 2).
  std::optional<int64_t> exchangeConcat;
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

/// Packs `input`'s group-size blocks along `split` side by side into
/// `packed` (block j at j * blockBytes, each laid out as a tensor of the
/// block's shape), the send buffer of an all-to-all. Fails, naming `site`,
/// when the split dim does not divide.
Status packAllToAllBlocks(const Tensor &input, int64_t split, int groupSize,
                          const std::string &site, Tensor &packed,
                          std::vector<int64_t> &blockShape);

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

} // namespace mlir::tp::rt

#endif // TP_RUNTIME_BACKEND_H
