//===- CpuBackend.h - the CPU backend ---------------------------*- C++ -*-===//

#ifndef TP_LIB_RUNTIME_CPU_CPUBACKEND_H
#define TP_LIB_RUNTIME_CPU_CPUBACKEND_H

#include "CommThread.h"
#include "Pieces.h"
#include "tp/Runtime/Backend.h"
#include "tp/Runtime/Trace.h"

#include <memory>

namespace mlir::tp::rt::cpu {

/// What every rank of a fused op must agree on: the op, its schedule and
/// every operand's type (a peer with another B would read out of bounds).
std::string fusedSignature(const std::string &site, const Schedule &schedule,
                           std::initializer_list<const Tensor *> fixed,
                           const std::vector<Operand> &bs = {});

/// A GEMM step's trace label: "gemm r2 piece 1" (one piece), or the ranks
/// whose shares it merges, "gemm r2 r3 r0".
std::string gemmLabel(const Group &group, const GemmStep &step, int chunks);

/// Ranks are threads of `world`; MpiBackend derives from it with ranks as
/// processes, overriding the collectives and the two ways fused schedules
/// move pieces (Pieces.h).
class CpuBackend : public Backend {
public:
  CpuBackend(World &world, int rank) : world(world), rank(rank) {}

  std::string name() const override { return "cpu"; }

  Status allGather(const Group &group, const Tensor &input, int64_t dim,
                   const std::string &site, Tensor &result) override;
  Status reduceScatter(const Group &group, const Tensor &input, int64_t dim,
                       Reduction reduction, const std::string &site,
                       Tensor &result) override;
  Status allReduce(const Group &group, const Tensor &input, Reduction reduction,
                   const std::string &site, Tensor &result) override;
  Status allToAll(const Group &group, const Tensor &input, int64_t split,
                  int64_t concat, const std::string &site,
                  Tensor &result) override;
  Status matmul(const Tensor &a, const Tensor &b, bool transposeB,
                const std::string &site, Tensor &result) override;
  Status scaledMatmul(const Operand &a, const Operand &b, const Tensor *bias,
                      DType outType, const std::string &site,
                      Tensor &result) override;
  Status allGatherMatmul(const Group &group, const AllGatherMatmulArgs &args,
                         std::vector<Tensor> &results) override;
  Status matmulReduceScatter(const Group &group,
                             const MatmulReduceScatterArgs &args,
                             std::vector<Tensor> &results) override;
  Status allGatherContract(const Group &group,
                           const AllGatherContractArgs &args,
                           std::vector<Tensor> &results) override;

protected:
  /// Starts the all-gather half of a fused op: `buffers` (the operand, then
  /// its scales if they travel with it) arrive in pieces, each rank's shard
  /// cut along the gather dim (extent `shardExtent`) into `chunks`. Every
  /// member must call it with the same `signature`.
  virtual Status startGather(const Group &group, const std::string &signature,
                             const std::vector<GatherBuffer> &buffers,
                             int64_t shardExtent, bool ring, int chunks,
                             const std::string &site,
                             std::unique_ptr<PieceGather> &gather);
  /// Starts the reduce-scatter half of a fused op over `buffers` (g slices
  /// laid out by `layout`, see PartialReduce).
  virtual Status startReduce(const Group &group, const std::string &signature,
                             const std::vector<void *> &buffers,
                             const SliceLayout &layout, bool ring, int chunks,
                             const std::string &site,
                             std::unique_ptr<PartialReduce> &reduce);

  /// Reduces `input` over the group into `result` (whole tensor, or this
  /// rank's slice along `dim` when scatter): what reduceScatter and
  /// allReduce run, and all that moves data in them.
  virtual Status reduce(const Group &group, const Tensor &input, int64_t dim,
                        bool scatter, Reduction reduction,
                        const std::string &what, Tensor &result);

  /// Walks planGather's GEMM steps of a gather in flight: waits for each
  /// step's pieces, then calls multiply(run) for each contiguous run of the
  /// gathered dim the step covers, traced as one GEMM. The caller finishes
  /// `gather` with the status.
  template <typename Multiply>
  Status runGatherSteps(const Group &group, const Schedule &schedule,
                        int64_t shareExtent, int chunks, PieceGather &gather,
                        const std::string &site, Multiply &&multiply) {
    for (const GemmStep &gemmStep :
         planGather(group.size(), group.index, schedule, shareExtent)) {
      for (const PieceRef &piece : gemmStep.pieces)
        TP_RETURN_IF_ERROR(gather.waitFor(
            piece.ordinal, site + " waiting for its communication"));
      TraceScope scope(world.trace(), rank, Stream::Compute,
                       gemmLabel(group, gemmStep, chunks), "gemm");
      for (const ExtentRun &run : gemmStep.runs(shareExtent))
        multiply(run);
    }
    return Status::ok();
  }

  World &world;
  int rank;
  /// Moves fused ops' pieces beside this rank's GEMMs.
  CommThread commThread;

private:
  template <typename T>
  Status runAllGatherContract(const Group &group,
                              const AllGatherContractArgs &args,
                              std::vector<Tensor> &results);
  template <typename T>
  Status runAllGatherMatmul(const Group &group, const AllGatherMatmulArgs &args,
                            std::vector<Tensor> &results);
  template <typename T>
  Status runMatmulReduceScatter(const Group &group,
                                const MatmulReduceScatterArgs &args,
                                std::vector<Tensor> &results);
  /// The fused ops on empty contractions or outputs (K or N of 0): the
  /// unfused ops, which handle them, in the same rendezvous order.
  Status composeAllGatherMatmul(const Group &group,
                                const AllGatherMatmulArgs &args,
                                std::vector<Tensor> &results);
  Status composeMatmulReduceScatter(const Group &group,
                                    const MatmulReduceScatterArgs &args,
                                    std::vector<Tensor> &results);
};

} // namespace mlir::tp::rt::cpu

#endif // TP_LIB_RUNTIME_CPU_CPUBACKEND_H
