//===- CpuBackend.h - the CPU backend ---------------------------*- C++ -*-===//

#ifndef TP_LIB_RUNTIME_CPU_CPUBACKEND_H
#define TP_LIB_RUNTIME_CPU_CPUBACKEND_H

#include "tp/Runtime/Backend.h"
#include "tp/Runtime/Trace.h"

#include <functional>
#include <thread>

namespace tp::rt::cpu {

class CpuBackend final : public Backend {
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

private:
  /// Copies slabs [lo, hi) of `origin`'s shard into this rank's gathered
  /// buffer from what rank `published` published: its shard when
  /// `fromShard`, else its gathered buffer.
  using CopyPiece = std::function<void(const void *published, bool fromShard,
                                       int origin, int64_t lo, int64_t hi)>;
  /// The communication half of a pipelined all-gather, on its own thread:
  /// every other rank's shard (cut into `chunks` pieces) in schedule order,
  /// advancing this rank's progress counter once per piece. This rank's own
  /// pieces must already be counted. The first error lands in `commStatus`.
  std::thread gatherInBackground(const Group &group, Exchange &ex, bool ring,
                                 int chunks, int64_t shardExtent,
                                 const std::string &site,
                                 const CopyPiece &copyPiece,
                                 Status &commStatus);
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
  /// Reduces `input` over the group into `result` (whole tensor, or this
  /// rank's slice along `dim` when scatter).
  Status reduce(const Group &group, const Tensor &input, int64_t dim,
                bool scatter, Reduction reduction, const std::string &what,
                Tensor &result);

  World &world;
  int rank;
};

} // namespace tp::rt::cpu

#endif // TP_LIB_RUNTIME_CPU_CPUBACKEND_H
