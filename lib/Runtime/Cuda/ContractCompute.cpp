//===- ContractCompute.cpp - the compute half of all_gather_contract ------===//
//
// x is gathered exactly as an all_gather_matmul gathers A (same layout, same
// events, same transports), but the gathered dim is contracted: each piece's
// K runs add a partial sum to every product. The partials go, one cuBLASLt
// GEMM with beta = 1 per K run, into a wide accumulator per product (fp32;
// f64 for f64 operands), rounded once at the end, so the result does not
// depend on how many pieces the schedule cut the shards into.
//
//===----------------------------------------------------------------------===//

#include "CudaRank.h"
#include "Kernels.h"

using namespace mlir::tp::rt;
using namespace mlir::tp::rt::cuda;

constexpr auto pieceRange = Schedule::pieceRange;

Status CudaRank::prepareContract(const AllGatherContractArgs &args,
                                 int groupSize, int me, bool ring,
                                 ContractDevicePlan &plan) {
  const std::string &context = args.site;
  const Tensor &x = *args.x;
  ContractDevicePlan &p = plan;
  TP_RETURN_IF_ERROR(planContract(args, groupSize, p.shapes));
  p.type = x.dtype();
  TP_RETURN_IF_ERROR(contractAccumulator(p.type, context, p.accumulator));
  for (size_t i = 0; i < args.others.size(); ++i)
    if (args.others[i]->dtype() != p.type)
      return Status::error(context + ": operand #" + std::to_string(i) + " " +
                           args.others[i]->typeString() +
                           " does not have the element type of x " +
                           x.typeString());
  // cuBLASLt takes no empty matrices (and the ranks refuse alike, before any
  // of them joins the exchange).
  bool empty = x.numElements() == 0;
  for (const Tensor *other : args.others)
    empty = empty || other->numElements() == 0;
  if (empty)
    return Status::error(context + ": the CUDA backend does not run fused "
                                   "ops on empty operands");

  // The gathered x, laid out like an all_gather_matmul's gathered A.
  GatherLayout &l = p.gather;
  l = GatherLayout();
  l.g = groupSize;
  l.me = me;
  l.ring = ring;
  l.split = splitAt(x.shape(), args.dim);
  l.extL = l.split.extent;
  l.extG = l.extL * l.g;
  l.chunks = args.schedule.pieces(l.extL);
  l.elementBytes = byteSize(p.type);
  p.gathered = args.returnGathered
                   ? newResult(0, p.type, p.shapes.gatheredShape,
                               /*zeroed=*/false)
                   : Tensor(p.type, p.shapes.gatheredShape);
  TP_RETURN_IF_ERROR(buffer("agc.G", p.gathered.numBytes(), l.data, context));
  TP_RETURN_IF_ERROR(placeOwnShard(l, x.data(), nullptr, context));

  // The other operands, accumulators and products.
  size_t count = args.others.size();
  size_t accBytes = byteSize(p.accumulator);
  p.dOther.assign(count, nullptr);
  p.dAcc.assign(count, nullptr);
  p.dD.assign(count, nullptr);
  p.products.clear();
  for (size_t i = 0; i < count; ++i) {
    std::string id = std::to_string(i);
    p.products.push_back(
        newResult(static_cast<int>(i) + (args.returnGathered ? 1 : 0), p.type,
                  {p.shapes.m[i], p.shapes.n[i]}, /*zeroed=*/false));
    TP_RETURN_IF_ERROR(
        upload(*args.others[i], "agc.o" + id, p.dOther[i], compute, context));
    size_t bytes = accBytes * p.products.back().numElements();
    TP_RETURN_IF_ERROR(buffer("agc.acc" + id, bytes, p.dAcc[i], context));
    TP_CUDA(cudaMemsetAsync(p.dAcc[i], 0, bytes, compute));
    if (p.accumulator == p.type)
      p.dD[i] = p.dAcc[i];
    else
      TP_RETURN_IF_ERROR(buffer("agc.d" + id, p.products.back().numBytes(),
                                p.dD[i], context));
  }
  return Status::ok();
}

Status CudaRank::contractGatheredPieces(const AllGatherContractArgs &args,
                                        const ContractDevicePlan &p) {
  const std::string &context = args.site;
  const ContractPlan &shapes = p.shapes;
  const GatherLayout &l = p.gather;
  const size_t es = l.elementBytes;
  for (const GemmStep &step : planGather(l.g, l.me, args.schedule, l.extL)) {
    for (const PieceRef &piece : step.pieces)
      TP_CUDA(cudaStreamWaitEvent(compute, events[piece.ordinal], 0));
    for (const ExtentRun &run : step.runs(l.extL)) {
      for (auto [k0, k1] : shapes.runs(0, run.begin, run.end)) {
        for (size_t i = 0; i < args.others.size(); ++i) {
          const ContractView &lhs =
              args.gatheredLhs ? shapes.x : shapes.others[i];
          const ContractView &rhs =
              args.gatheredLhs ? shapes.others[i] : shapes.x;
          const auto *lData = static_cast<const uint8_t *>(
              args.gatheredLhs ? l.data : p.dOther[i]);
          const auto *rData = static_cast<const uint8_t *>(
              args.gatheredLhs ? p.dOther[i] : l.data);
          ContractGemm c = contractRunGemm(lhs, rhs, k0, k1);
          GemmProblem q;
          q.m = c.m;
          q.n = c.n;
          q.k = c.k;
          q.lda = c.lda;
          q.ldb = c.ldb;
          q.ldd = c.ldd;
          q.transposeA = c.transposeA;
          q.transposeB = c.transposeB;
          q.aType = q.bType = p.type;
          q.dType = p.accumulator;
          q.beta = 1.0f;
          q.smCountTarget = fusedGemmSms;
          TP_RETURN_IF_ERROR(gemm.run(q, lData + c.offsetA * es,
                                      rData + c.offsetB * es, p.dAcc[i],
                                      compute, context));
        }
      }
    }
  }
  return Status::ok();
}

Status CudaRank::finishContract(const AllGatherContractArgs &args,
                                ContractDevicePlan &p,
                                std::vector<Tensor> &results) {
  const std::string &context = args.site;
  for (size_t i = 0; i < p.products.size(); ++i) {
    if (p.dD[i] != p.dAcc[i])
      TP_CUDA(launchConvert(static_cast<const float *>(p.dAcc[i]),
                            p.products[i].numElements(), nullptr, p.type, 1,
                            p.dD[i], p.type, compute));
    TP_RETURN_IF_ERROR(download(p.dD[i], p.products[i], compute, context));
  }
  // The compute stream waited for every piece: the gathered x is complete.
  if (args.returnGathered)
    TP_RETURN_IF_ERROR(download(p.gather.data, p.gathered, compute, context));
  results.clear();
  if (args.returnGathered)
    results.push_back(std::move(p.gathered));
  for (Tensor &product : p.products)
    results.push_back(std::move(product));
  return Status::ok();
}
