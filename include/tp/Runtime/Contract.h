//===- Contract.h - the layout of an all_gather_contract --------*- C++ -*-===//
//
// tp.all_gather_contract multiplies two operands whose contraction dim (K)
// is the dim the group gathers: each rank's shard of x covers some of K, so
// its product with the matching part of the other operand is a partial sum
// of the result. Every operand is seen as a row-major 2-D matrix:
//
//   K-leading  [K, free]  an A with transpose_a, or a B without transpose_b;
//                         a 3-D operand [P, Q, free] has K = P * Q
//   K-trailing [free, K]  an A without transpose_a, or a B with transpose_b;
//                         2-D only
//
// A shard's rows [lo, hi) along `dim` cover a few runs of K: one per block of
// the dims before `dim` (e.g. a [B, S, H] activation gathered along S covers
// one run of S / N rows in each of the B batches).
//
// Backends plan the op here, so the CPU and CUDA schedules and the ABI's
// operand checks agree on every shape.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_CONTRACT_H
#define TP_RUNTIME_CONTRACT_H

#include "tp/Runtime/Backend.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace mlir::tp::rt {

/// One operand as a 2-D matrix.
struct ContractView {
  bool kLeading = true;
  int64_t k = 0, free = 0;
  int64_t rows() const { return kLeading ? k : free; }
  int64_t cols() const { return kLeading ? free : k; }
};

struct ContractPlan {
  int groupSize = 1;
  /// x's shape gathered along `dim`, and x and the others as matrices (x's
  /// view has the gathered K).
  std::vector<int64_t> gatheredShape;
  ContractView x;
  std::vector<ContractView> others;
  /// Each product is [m, n]; m and n per other operand.
  std::vector<int64_t> m, n;
  /// A shard's extent along `dim`, and the K-runs' geometry: runOuter blocks
  /// of the gathered dim, each run `runInner` K-rows per slab.
  int64_t shardExtent = 0, runOuter = 1, runInner = 1;

  /// The K ranges [k0, k1) that slabs [lo, hi) of `origin`'s shard cover, in
  /// increasing order.
  std::vector<std::pair<int64_t, int64_t>> runs(int origin, int64_t lo,
                                                int64_t hi) const;
};

/// Plans `args` over a group of `groupSize`; an error naming the operand and
/// args.site when the shapes do not form a contraction over the gathered dim.
Status planContract(const AllGatherContractArgs &args, int groupSize,
                    ContractPlan &plan);

} // namespace mlir::tp::rt

#endif // TP_RUNTIME_CONTRACT_H
