//===- Contract.cpp - the layout of an all_gather_contract ----------------===//

#include "tp/Runtime/Contract.h"

#include <string>

using namespace mlir::tp::rt;

std::vector<std::pair<int64_t, int64_t>>
ContractPlan::runs(int origin, int64_t lo, int64_t hi) const {
  std::vector<std::pair<int64_t, int64_t>> result;
  if (hi <= lo)
    return result;
  int64_t gatheredExtent = shardExtent * groupSize;
  for (int64_t o = 0; o < runOuter; ++o) {
    int64_t first = o * gatheredExtent + origin * shardExtent;
    result.push_back({(first + lo) * runInner, (first + hi) * runInner});
  }
  return result;
}

/// `t` as a matrix whose K leads (or trails); 3-D only with K leading.
static Status viewOf(const Tensor &t, bool kLeading, const std::string &name,
                     const std::string &site, ContractView &view) {
  int rank = t.rank();
  if (rank != 2 && !(rank == 3 && kLeading))
    return Status::error(site + ": " + name + " " + t.typeString() +
                         (kLeading ? " must be 2-D or 3-D"
                                   : " must be 2-D (its K trails)"));
  view.kLeading = kLeading;
  view.free = kLeading ? t.dim(rank - 1) : t.dim(0);
  view.k = kLeading ? 1 : t.dim(1);
  for (int i = 0; kLeading && i + 1 < rank; ++i)
    view.k *= t.dim(i);
  return Status::ok();
}

Status mlir::tp::rt::planContract(const AllGatherContractArgs &args,
                                  int groupSize, ContractPlan &plan) {
  const std::string &site = args.site;
  const Tensor &x = *args.x;
  plan = ContractPlan();
  plan.groupSize = groupSize;
  if (args.others.empty())
    return Status::error(site + ": no operand to contract with");
  // Which side's K leads: A's with transpose_a, B's without transpose_b.
  bool lhsKLeading = args.transposeA, rhsKLeading = !args.transposeB;
  bool xKLeading = args.gatheredLhs ? lhsKLeading : rhsKLeading;
  bool otherKLeading = args.gatheredLhs ? rhsKLeading : lhsKLeading;
  TP_RETURN_IF_ERROR(viewOf(x, xKLeading, "the gathered x", site, plan.x));
  int64_t kDims = xKLeading ? x.rank() - 1 : 1;
  int64_t kFirst = xKLeading ? 0 : 1;
  if (args.dim < kFirst || args.dim >= kFirst + kDims)
    return Status::error(site + ": dim " + std::to_string(args.dim) +
                         " is not a contraction dim of x " + x.typeString());
  plan.gatheredShape = x.shape();
  if (__builtin_mul_overflow(plan.gatheredShape[args.dim], int64_t(groupSize),
                             &plan.gatheredShape[args.dim]) ||
      __builtin_mul_overflow(plan.x.k, int64_t(groupSize), &plan.x.k))
    return Status::error(site + ": the gathered dim " +
                         std::to_string(args.dim) + " of " + x.typeString() +
                         " times the group size " + std::to_string(groupSize) +
                         " overflows int64");
  plan.shardExtent = x.dim(args.dim);
  plan.runOuter = plan.runInner = 1;
  for (int64_t i = kFirst; i < kFirst + kDims; ++i) {
    if (i < args.dim)
      plan.runOuter *= x.dim(i);
    else if (i > args.dim)
      plan.runInner *= x.dim(i);
  }
  for (size_t i = 0; i < args.others.size(); ++i) {
    const Tensor &other = *args.others[i];
    std::string name = "operand #" + std::to_string(i);
    ContractView view;
    TP_RETURN_IF_ERROR(viewOf(other, otherKLeading, name, site, view));
    if (view.k != plan.x.k)
      return Status::error(site + ": " + name + " " + other.typeString() +
                           " has K = " + std::to_string(view.k) +
                           ", the gathered x has K = " +
                           std::to_string(plan.x.k));
    // Two 3-D operands pair their rows batch by batch.
    if (other.rank() == 3 && x.rank() == 3)
      for (int d = 0; d < 2; ++d)
        if (other.dim(d) != plan.gatheredShape[d])
          return Status::error(site + ": " + name + " " + other.typeString() +
                               " and the gathered x differ in dim " +
                               std::to_string(d));
    plan.others.push_back(view);
    plan.m.push_back(args.gatheredLhs ? plan.x.free : view.free);
    plan.n.push_back(args.gatheredLhs ? view.free : plan.x.free);
  }
  return Status::ok();
}
