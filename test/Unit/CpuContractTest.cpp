//===- CpuContractTest.cpp - all_gather_contract on the CPU backend -------===//
//
// Seeded random cases over every layout (x on either side, each side
// transposed or not, 3-D operands gathered along dim 0 or 1), group sizes,
// schedules and element types, checked against the product of the gathered
// x computed here in double precision.
//
//===----------------------------------------------------------------------===//

#include "CpuHarness.h"
#include "tp/Runtime/Contract.h"

#include <cmath>

using namespace mlir::tp::rt;
using namespace mlir::tp::rt::cputest;

namespace {

struct ContractCase {
  int groupSize = 1;
  DType type = DType::F32;
  AllGatherContractArgs args;
  Tensor fullX; // gathered, for the reference
  std::vector<Tensor> shards, others;
  std::string text;
};

/// `full` cut into `parts` along `dim`: part `index`.
Tensor shardAlong(const Tensor &full, int64_t dim, int parts, int index) {
  std::vector<int64_t> shape = full.shape();
  int64_t extent = shape[dim] / parts;
  shape[dim] = extent;
  Tensor part(full.dtype(), shape);
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < full.rank(); ++i)
    (i < dim ? outer : inner) *= i == dim ? 1 : full.dim(i);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < extent; ++j)
      for (int64_t i = 0; i < inner; ++i)
        part.set((o * extent + j) * inner + i,
                 full.get(((o * parts + index) * extent + j) * inner + i));
  return part;
}

ContractCase makeCase(int index) {
  Rng rng(0xC0417AC7ull * 1000003 + index);
  ContractCase c;
  c.groupSize = int(rng.uniform(1, 4));
  c.type = rng.pick({DType::F32, DType::BF16, DType::F16, DType::F64});
  AllGatherContractArgs &a = c.args;
  a.gatheredLhs = rng.coin();
  a.transposeA = rng.coin();
  a.transposeB = rng.coin();
  a.returnGathered = rng.coin();
  a.schedule.algorithm =
      rng.pick({Schedule::Algorithm::Ring, Schedule::Algorithm::PerPeer,
                Schedule::Algorithm::Coalesced});
  a.schedule.chunks = int(rng.uniform(1, 4));
  a.site = "case " + std::to_string(index);
  bool xKLeading = a.gatheredLhs ? a.transposeA : !a.transposeB;
  bool otherKLeading = a.gatheredLhs ? !a.transposeB : a.transposeA;
  int g = c.groupSize;
  int64_t xFree = rng.uniform(1, 9);
  std::vector<int64_t> kDims;
  if (xKLeading && rng.coin()) {
    kDims = {rng.uniform(1, 3), rng.uniform(1, 4)};
    a.dim = rng.uniform(0, 1);
  } else {
    kDims = {rng.uniform(1, 5)};
    a.dim = xKLeading ? 0 : 1;
  }
  int64_t &gatheredDim = kDims[xKLeading ? a.dim : 0];
  gatheredDim *= g;
  std::vector<int64_t> xShape = kDims;
  if (xKLeading)
    xShape.push_back(xFree);
  else
    xShape.insert(xShape.begin(), xFree);
  c.fullX = randomTensor(c.type, xShape, rng);
  for (int r = 0; r < g; ++r)
    c.shards.push_back(shardAlong(c.fullX, a.dim, g, r));
  int64_t k = 1;
  for (int64_t d : kDims)
    k *= d;
  for (int i = 0, n = int(rng.uniform(1, 3)); i < n; ++i) {
    int64_t free = rng.uniform(1, 7);
    std::vector<int64_t> shape;
    if (otherKLeading && kDims.size() == 2 && rng.coin())
      shape = {kDims[0], kDims[1], free};
    else
      shape = otherKLeading ? std::vector<int64_t>{k, free}
                            : std::vector<int64_t>{free, k};
    c.others.push_back(randomTensor(c.type, shape, rng));
  }
  std::ostringstream text;
  text << a.site << ": g=" << g << " " << name(c.type) << " x "
       << c.fullX.typeString() << " dim " << a.dim
       << (a.gatheredLhs ? " lhs" : " rhs") << (a.transposeA ? " tA" : "")
       << (a.transposeB ? " tB" : "") << " chunks " << a.schedule.chunks << " "
       << a.schedule.name();
  c.text = text.str();
  return c;
}

/// op_a(L) @ op_b(R) in double, from 2-D views of the operands.
std::vector<double> reference(const ContractCase &c, const Tensor &other,
                              const ContractView &xView,
                              const ContractView &otherView, int64_t m,
                              int64_t n) {
  const Tensor &l = c.args.gatheredLhs ? c.fullX : other;
  const Tensor &r = c.args.gatheredLhs ? other : c.fullX;
  const ContractView &lv = c.args.gatheredLhs ? xView : otherView;
  const ContractView &rv = c.args.gatheredLhs ? otherView : xView;
  std::vector<double> out(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t kk = 0; kk < xView.k; ++kk) {
        double lhs = lv.kLeading ? l.get(kk * m + i) : l.get(i * lv.k + kk);
        double rhs = rv.kLeading ? r.get(kk * n + j) : r.get(j * rv.k + kk);
        out[i * n + j] += lhs * rhs;
      }
  return out;
}

double tolerance(DType type) {
  switch (type) {
  case DType::F64:
    return 1e-12;
  case DType::F32:
    return 1e-5;
  case DType::F16:
    return 2e-3;
  default:
    return 8e-3; // one bf16 rounding of the result
  }
}

TEST(CpuContract, MatchesTheProductOfTheGatheredOperand) {
  constexpr int kCases = 160;
  for (int index = 0; index < kCases; ++index) {
    ContractCase c = makeCase(index);
    SCOPED_TRACE(c.text);
    std::vector<std::vector<Tensor>> results(c.groupSize);
    ASSERT_TRUE(allOk(runRanks(c.groupSize, [&](int r, Backend &backend) {
      AllGatherContractArgs args = c.args;
      args.x = &c.shards[r];
      for (const Tensor &other : c.others)
        args.others.push_back(&other);
      return backend.allGatherContract(wholeWorld(c.groupSize, r), args,
                                       results[r]);
    })));
    AllGatherContractArgs planned = c.args;
    planned.x = &c.shards[0];
    for (const Tensor &other : c.others)
      planned.others.push_back(&other);
    ContractPlan plan;
    ASSERT_TRUE(planContract(planned, c.groupSize, plan).isOk());
    for (int r = 0; r < c.groupSize; ++r) {
      size_t first = c.args.returnGathered ? 1 : 0;
      ASSERT_EQ(results[r].size(), first + c.others.size());
      if (c.args.returnGathered) {
        ASSERT_EQ(results[r][0].shape(), c.fullX.shape());
        for (int64_t i = 0; i < c.fullX.numElements(); ++i)
          ASSERT_EQ(results[r][0].get(i), c.fullX.get(i)) << "gathered " << i;
      }
      for (size_t o = 0; o < c.others.size(); ++o) {
        const Tensor &product = results[r][first + o];
        int64_t m = plan.m[o], n = plan.n[o];
        ASSERT_EQ(product.shape(), (std::vector<int64_t>{m, n}));
        ASSERT_EQ(product.dtype(), c.type);
        std::vector<double> ref =
            reference(c, c.others[o], plan.x, plan.others[o], m, n);
        double largest = 1e-30, worst = 0;
        for (double v : ref)
          largest = std::max(largest, std::abs(v));
        for (int64_t i = 0; i < m * n; ++i)
          worst = std::max(worst, std::abs(product.get(i) - ref[i]));
        EXPECT_LE(worst / largest, tolerance(c.type))
            << "rank " << r << " product " << o;
      }
    }
  }
}

TEST(CpuContract, RefusesAGatherOfTheFreeDim) {
  Tensor x(DType::F32, {4, 3}), dy(DType::F32, {4, 5});
  AllGatherContractArgs args;
  args.x = &x;
  args.others = {&dy};
  args.dim = 1; // x's free dim: its K (dim 0) leads as a transposed A
  args.gatheredLhs = true;
  args.transposeA = true;
  args.site = "'tp.all_gather_contract' at t.mlir:1:1";
  ContractPlan plan;
  Status status = planContract(args, 2, plan);
  ASSERT_FALSE(status.isOk());
  EXPECT_EQ(status.message(),
            "'tp.all_gather_contract' at t.mlir:1:1: dim 1 is not a "
            "contraction dim of x tensor<4x3xf32>");
}

TEST(CpuContract, RefusesMismatchedContractionExtents) {
  Tensor x(DType::F32, {4, 3}), dy(DType::F32, {6, 5});
  AllGatherContractArgs args;
  args.x = &x;
  args.others = {&dy};
  args.transposeA = true; // dY^T @ gathered x: both K-leading
  args.site = "site";
  ContractPlan plan;
  Status status = planContract(args, 2, plan);
  ASSERT_FALSE(status.isOk());
  EXPECT_EQ(status.message(), "site: operand #0 tensor<6x5xf32> has K = 6, "
                              "the gathered x has K = 8");
}

} // namespace
