//===- CpuContract.cpp - the all_gather_contract schedule of the CPU backend
//===//
//
// The communication thread gathers x's shards piece by piece exactly as for
// all_gather_matmul (per_peer or ring). Each piece covers a few runs of the
// contraction dim, so this thread multiplies those K-runs of the gathered x
// with the same K-runs of every other operand and adds them into a wide
// accumulator per product; the products are rounded once at the end, as the
// unfused GEMM would.
//
//===----------------------------------------------------------------------===//

#include "CpuBackend.h"
#include "Kernels.h"
#include "tp/Runtime/Contract.h"

using namespace mlir::tp::rt;
using namespace mlir::tp::rt::cpu;

namespace {

/// A K-run [k0, k0 + count) of an operand seen as `view`, as a GEMM operand:
/// its first element and leading dimension.
template <typename T> struct RunOperand {
  const T *data;
  int64_t ld;
};

template <typename T>
RunOperand<T> runOf(const T *matrix, const ContractView &view, int64_t k0) {
  if (view.kLeading)
    return {matrix + k0 * view.free, view.free};
  return {matrix + k0, view.k};
}

} // namespace

Status CpuBackend::allGatherContract(const Group &group,
                                     const AllGatherContractArgs &args,
                                     std::vector<Tensor> &results) {
  bool wide = args.x->dtype() == DType::F64;
  for (const Tensor *other : args.others)
    wide |= other->dtype() == DType::F64;
  if (wide)
    return runAllGatherContract<double>(group, args, results);
  return runAllGatherContract<float>(group, args, results);
}

template <typename T>
Status CpuBackend::runAllGatherContract(const Group &group,
                                        const AllGatherContractArgs &args,
                                        std::vector<Tensor> &results) {
  const Tensor &x = *args.x;
  const int g = group.size();
  const bool ring = args.schedule.ring();
  ContractPlan plan;
  TP_RETURN_IF_ERROR(planContract(args, g, plan));
  const DimSplit local = splitAt(x.shape(), args.dim);
  const int64_t extL = local.extent;

  Tensor gathered = args.returnGathered
                        ? newResult(0, x.dtype(), plan.gatheredShape)
                        : Tensor(x.dtype(), plan.gatheredShape);
  std::vector<DenseMatrix<T>> others;
  std::vector<std::vector<T>> accumulators;
  std::string signature = args.site + " (" + args.schedule.name() + ") on ";
  signature += x.typeString();
  for (size_t i = 0; i < args.others.size(); ++i) {
    others.emplace_back(Operand::plain(args.others[i]));
    accumulators.emplace_back(plan.m[i] * plan.n[i], T(0));
    signature += " " + args.others[i]->typeString();
  }

  const int chunks = args.schedule.pieces(extL);
  std::unique_ptr<PieceGather> gather;
  TP_RETURN_IF_ERROR(
      startGather(group, signature,
                  {{static_cast<const uint8_t *>(x.data()),
                    static_cast<uint8_t *>(gathered.mutableData()), local,
                    byteSize(x.dtype())}},
                  extL, ring, chunks, args.site, gather));

  // The gathered x as T, filled run by run (no copy for f32/f64 data).
  const bool direct = (sizeof(T) == 4 && x.dtype() == DType::F32) ||
                      (sizeof(T) == 8 && x.dtype() == DType::F64);
  std::vector<T> converted;
  if (!direct)
    converted.resize(plan.x.rows() * plan.x.cols());
  const T *xMatrix =
      direct ? static_cast<const T *>(gathered.data()) : converted.data();
  const Operand gatheredOperand = Operand::plain(&gathered);
  std::vector<T> block;
  auto multiply = [&](const ExtentRun &run) {
    for (auto [k0, k1] : plan.runs(0, run.begin, run.end)) {
      int64_t count = k1 - k0;
      if (!direct) {
        // K-leading: rows [k0, k1); K-trailing: columns [k0, k1).
        bool rows = plan.x.kLeading;
        block.resize(count * plan.x.free);
        loadBlock(gatheredOperand, rows ? k0 : 0, rows ? count : plan.x.free,
                  rows ? 0 : k0, rows ? plan.x.free : count, block.data());
        for (int64_t r = 0; r < (rows ? count : plan.x.free); ++r)
          std::copy_n(block.data() + r * (rows ? plan.x.free : count),
                      rows ? plan.x.free : count,
                      converted.data() +
                          (rows ? (k0 + r) * plan.x.free : r * plan.x.k + k0));
      }
      RunOperand<T> xRun = runOf(xMatrix, plan.x, k0);
      for (size_t i = 0; i < others.size(); ++i) {
        RunOperand<T> oRun = runOf(others[i].data(), plan.others[i], k0);
        // A transposes when its K leads; B when its K trails.
        RunOperand<T> a = args.gatheredLhs ? xRun : oRun;
        RunOperand<T> b = args.gatheredLhs ? oRun : xRun;
        const ContractView &aView = args.gatheredLhs ? plan.x : plan.others[i];
        const ContractView &bView = args.gatheredLhs ? plan.others[i] : plan.x;
        gemmAccumulate<T>(aView.kLeading, !bView.kLeading, plan.m[i], plan.n[i],
                          count, a.data, a.ld, b.data, b.ld,
                          accumulators[i].data(), plan.n[i]);
      }
    }
  };
  Status status = runGatherSteps(group, args.schedule, extL, chunks, *gather,
                                 args.site, multiply);
  TP_RETURN_IF_ERROR(gather->finish(status));

  results.clear();
  if (args.returnGathered)
    results.push_back(gathered);
  for (size_t i = 0; i < others.size(); ++i) {
    Tensor product =
        newResult(static_cast<int>(i) + (args.returnGathered ? 1 : 0),
                  x.dtype(), {plan.m[i], plan.n[i]}, /*zeroed=*/false);
    storeBlock(accumulators[i].data(), 0, plan.m[i], 0, plan.n[i], product);
    results.push_back(std::move(product));
  }
  return Status::ok();
}
