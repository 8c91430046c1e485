//===- CpuBackendTest.cpp - collectives and fused schedules on CPU --------===//
//
// Every rank is a thread with its own CPU backend; the ranks meet in a World.
//
// - Collectives are checked element by element against references computed
//   here from all ranks' inputs (concatenation, elementwise reduction, slice).
// - Fused collective-GEMMs are checked, on seeded random cases, against the
//   composition of the backend's own unfused ops: all_gather + matmul (+ bias)
//   and matmul (+ addend) + reduce_scatter (+ bias), plain and scaled.
// - Faults (mismatched calls, absent ranks, failed ranks) must end every
//   rank's wait with an error, never hang.
//
//===----------------------------------------------------------------------===//

#include "CpuHarness.h"
#include "tp/Runtime/Backend.h"
#include "tp/Runtime/Quantize.h"
#include "tp/Runtime/Trace.h"
#include "tp/Runtime/World.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iterator>
#include <random>
#include <sstream>
#include <thread>

using namespace mlir::tp::rt;
using namespace mlir::tp::rt::cputest;

namespace {

/// f32 values in [-1, 1] times a random power of two per row, so per-tensor,
/// row and block scales differ.
Tensor randomRowScaledTensor(std::vector<int64_t> shape, Rng &rng) {
  Tensor t(DType::F32, std::move(shape));
  const int64_t row = t.shape().back();
  double magnitude = 1;
  for (int64_t i = 0, e = t.numElements(); i < e; ++i) {
    if (i % row == 0)
      magnitude = std::ldexp(1.0, int(rng.uniform(-3, 3)));
    t.set(i, rng.real(-1, 1) * magnitude);
  }
  return t;
}

//===----------------------------------------------------------------------===//
// Reference computations, element by element through coordinates.
//===----------------------------------------------------------------------===//

std::vector<int64_t> coordsOf(int64_t flat, const std::vector<int64_t> &shape) {
  std::vector<int64_t> coords(shape.size());
  for (int64_t i = int64_t(shape.size()) - 1; i >= 0; --i) {
    coords[i] = flat % shape[i];
    flat /= shape[i];
  }
  return coords;
}

int64_t flatOf(const std::vector<int64_t> &coords,
               const std::vector<int64_t> &shape) {
  int64_t flat = 0;
  for (size_t i = 0; i < shape.size(); ++i)
    flat = flat * shape[i] + coords[i];
  return flat;
}

/// all_gather's meaning: the parts concatenated along `dim`.
Tensor concatenate(const std::vector<Tensor> &parts, int64_t dim) {
  std::vector<int64_t> shape = parts[0].shape();
  const int64_t extent = shape[dim];
  shape[dim] *= int64_t(parts.size());
  Tensor out(parts[0].dtype(), shape);
  for (int64_t i = 0, e = out.numElements(); i < e; ++i) {
    std::vector<int64_t> c = coordsOf(i, shape);
    const Tensor &part = parts[c[dim] / extent];
    c[dim] %= extent;
    out.set(i, part.get(flatOf(c, part.shape())));
  }
  return out;
}

/// Elements [start, start + count) of `t` along `dim`.
Tensor sliceAlong(const Tensor &t, int64_t dim, int64_t start, int64_t count) {
  std::vector<int64_t> shape = t.shape();
  shape[dim] = count;
  Tensor out(t.dtype(), shape);
  for (int64_t i = 0, e = out.numElements(); i < e; ++i) {
    std::vector<int64_t> c = coordsOf(i, shape);
    c[dim] += start;
    out.set(i, t.get(flatOf(c, t.shape())));
  }
  return out;
}

/// Rank `index`'s share of `t` cut into `parts` along `dim`.
Tensor shardOf(const Tensor &t, int64_t dim, int parts, int index) {
  const int64_t extent = t.dim(dim) / parts;
  return sliceAlong(t, dim, index * extent, extent);
}

/// The elementwise reduction of equal-shaped inputs, in double, in input
/// order, rounded once to their type.
Tensor reduceElementwise(const std::vector<Tensor> &inputs,
                         Reduction reduction) {
  Tensor out(inputs[0].dtype(), inputs[0].shape());
  for (int64_t i = 0, e = out.numElements(); i < e; ++i) {
    double acc = inputs[0].get(i);
    for (size_t r = 1; r < inputs.size(); ++r) {
      double v = inputs[r].get(i);
      switch (reduction) {
      case Reduction::Sum:
      case Reduction::Avg:
        acc += v;
        break;
      case Reduction::Max:
        acc = std::max(acc, v);
        break;
      case Reduction::Min:
        acc = std::min(acc, v);
        break;
      }
    }
    if (reduction == Reduction::Avg)
      acc /= double(inputs.size());
    out.set(i, acc);
  }
  return out;
}

/// t + addend elementwise in double, rounded to t's type; t when no addend.
Tensor plusAddend(const Tensor &t, const Tensor *addend) {
  if (!addend)
    return t;
  Tensor out(t.dtype(), t.shape());
  for (int64_t i = 0, e = t.numElements(); i < e; ++i)
    out.set(i, t.get(i) + addend->get(i));
  return out;
}

/// t + bias over the last dim in double, rounded to t's type; t when no bias.
Tensor plusBias(const Tensor &t, const Tensor *bias) {
  if (!bias)
    return t;
  Tensor out(t.dtype(), t.shape());
  const int64_t n = bias->numElements();
  for (int64_t i = 0, e = t.numElements(); i < e; ++i)
    out.set(i, t.get(i) + bias->get(i % n));
  return out;
}

//===----------------------------------------------------------------------===//
// Comparisons
//===----------------------------------------------------------------------===//

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? "," : "") + std::to_string(shape[i]);
  return text + "]";
}

/// Same type and shape, and every element within `relTolerance` times the
/// largest |expected| (0: exactly equal).
::testing::AssertionResult tensorsMatch(const Tensor &actual,
                                        const Tensor &expected,
                                        double relTolerance) {
  if (actual.empty() || actual.dtype() != expected.dtype() ||
      actual.shape() != expected.shape())
    return ::testing::AssertionFailure()
           << "got " << (actual.empty() ? "no tensor" : actual.typeString())
           << ", expected " << expected.typeString();
  double largest = 0;
  for (int64_t i = 0, e = expected.numElements(); i < e; ++i)
    largest = std::max(largest, std::fabs(expected.get(i)));
  const double tolerance = relTolerance * largest;
  for (int64_t i = 0, e = expected.numElements(); i < e; ++i) {
    double a = actual.get(i), x = expected.get(i);
    if (!(std::fabs(a - x) <= tolerance))
      return ::testing::AssertionFailure()
             << std::setprecision(9) << "element "
             << shapeText(coordsOf(i, expected.shape())) << " of "
             << expected.typeString() << ": got " << a << ", expected " << x
             << " (tolerance " << tolerance << ")";
  }
  return ::testing::AssertionSuccess();
}

/// Every rank's results against its expected ones; result i within
/// tolerances[i].
::testing::AssertionResult
resultsMatch(const std::vector<std::vector<Tensor>> &actual,
             const std::vector<std::vector<Tensor>> &expected,
             const std::vector<double> &tolerances) {
  for (size_t r = 0; r < expected.size(); ++r) {
    if (actual[r].size() != expected[r].size())
      return ::testing::AssertionFailure()
             << "rank " << r << ": " << actual[r].size()
             << " results, expected " << expected[r].size();
    for (size_t i = 0; i < expected[r].size(); ++i) {
      ::testing::AssertionResult match =
          tensorsMatch(actual[r][i], expected[r][i], tolerances[i]);
      if (!match)
        return ::testing::AssertionFailure()
               << "rank " << r << ", result " << i << ": " << match.message();
    }
  }
  return ::testing::AssertionSuccess();
}

/// How far a fused result may be from the unfused composition: unfused bf16
/// paths round intermediate products to bf16, fused ones do not.
double fusedTolerance(DType type) { return type == DType::BF16 ? 3e-2 : 1e-4; }

/// How far a reduction may be from the reference's double sum.
double reductionTolerance(DType type) {
  switch (type) {
  case DType::F64:
    return 1e-12;
  case DType::BF16:
    return 8e-3; // about two bf16 ulps
  default:
    return 1e-6;
  }
}

const char *reductionName(Reduction reduction) {
  switch (reduction) {
  case Reduction::Sum:
    return "sum";
  case Reduction::Avg:
    return "avg";
  case Reduction::Max:
    return "max";
  case Reduction::Min:
    return "min";
  }
  return "?";
}


std::string scheduleText(const Schedule &schedule) {
  return schedule.name() + " chunks=" + std::to_string(schedule.chunks);
}

Schedule randomSchedule(Rng &rng) {
  Schedule schedule;
  schedule.algorithm =
      rng.pick({Schedule::Algorithm::Ring, Schedule::Algorithm::PerPeer,
                Schedule::Algorithm::Coalesced});
  schedule.chunks = rng.pick({1, 2, 3, 5});
  return schedule;
}

//===----------------------------------------------------------------------===//
// Collectives: every group size, dim and type
//===----------------------------------------------------------------------===//

constexpr Reduction kReductions[] = {Reduction::Sum, Reduction::Avg,
                                     Reduction::Max, Reduction::Min};

struct CollectiveParam {
  int groupSize;
  int64_t dim; // of a rank-3 tensor: first, middle, last
  DType type;
};

void PrintTo(const CollectiveParam &param, std::ostream *os) {
  *os << "group=" << param.groupSize << " dim=" << param.dim
      << " type=" << name(param.type);
}

std::string paramName(const ::testing::TestParamInfo<CollectiveParam> &info) {
  return "g" + std::to_string(info.param.groupSize) + "_dim" +
         std::to_string(info.param.dim) + "_" +
         std::string(name(info.param.type));
}

std::vector<CollectiveParam> collectiveParams() {
  std::vector<CollectiveParam> params;
  for (int g : {1, 2, 3, 4, 8})
    for (int64_t dim : {0, 1, 2})
      for (DType type : {DType::F32, DType::F64, DType::BF16})
        params.push_back({g, dim, type});
  return params;
}

class CpuCollectiveTest : public ::testing::TestWithParam<CollectiveParam> {
protected:
  int groupSize() const { return GetParam().groupSize; }
  int64_t dim() const { return GetParam().dim; }

  /// One input per rank, of `shape`.
  std::vector<Tensor> inputs(const std::vector<int64_t> &shape) {
    Rng rng(1000 + 10 * groupSize() + dim());
    std::vector<Tensor> result;
    for (int r = 0; r < groupSize(); ++r)
      result.push_back(randomTensor(GetParam().type, shape, rng));
    return result;
  }

  /// A shape whose `dim` divides by the group size.
  std::vector<int64_t> scatterableShape() const {
    std::vector<int64_t> shape = {2, 3, 4};
    shape[dim()] *= groupSize();
    return shape;
  }
};

TEST_P(CpuCollectiveTest, AllGatherConcatenatesInGroupOrder) {
  const int g = groupSize();
  std::vector<Tensor> in = inputs({2, 3, 4});
  std::vector<Tensor> out(g);
  ASSERT_TRUE(allOk(runRanks(g, [&](int r, Backend &backend) {
    return backend.allGather(wholeWorld(g, r), in[r], dim(), "all_gather",
                             out[r]);
  })));
  const Tensor expected = concatenate(in, dim());
  for (int r = 0; r < g; ++r)
    EXPECT_TRUE(tensorsMatch(out[r], expected, 0)) << "rank " << r;
}

TEST_P(CpuCollectiveTest, ReduceScatterReducesThenSlices) {
  const int g = groupSize();
  std::vector<Tensor> in = inputs(scatterableShape());
  std::vector<std::vector<Tensor>> out(g);
  ASSERT_TRUE(allOk(runRanks(g, [&](int r, Backend &backend) -> Status {
    for (Reduction reduction : kReductions) {
      Tensor result;
      TP_RETURN_IF_ERROR(backend.reduceScatter(
          wholeWorld(g, r), in[r], dim(), reduction, "reduce_scatter", result));
      out[r].push_back(result);
    }
    return Status::ok();
  })));
  for (size_t k = 0; k < std::size(kReductions); ++k) {
    const Reduction reduction = kReductions[k];
    const Tensor reduced = reduceElementwise(in, reduction);
    const bool ordered =
        reduction == Reduction::Max || reduction == Reduction::Min;
    for (int r = 0; r < g; ++r)
      EXPECT_TRUE(
          tensorsMatch(out[r][k], shardOf(reduced, dim(), g, r),
                       ordered ? 0 : reductionTolerance(GetParam().type)))
          << reductionName(reduction) << ", rank " << r;
  }
}

TEST_P(CpuCollectiveTest, AllReduceGivesEveryRankTheReduction) {
  const int g = groupSize();
  std::vector<Tensor> in = inputs(scatterableShape());
  std::vector<std::vector<Tensor>> out(g);
  ASSERT_TRUE(allOk(runRanks(g, [&](int r, Backend &backend) -> Status {
    for (Reduction reduction : kReductions) {
      Tensor result;
      TP_RETURN_IF_ERROR(backend.allReduce(wholeWorld(g, r), in[r], reduction,
                                           "all_reduce", result));
      out[r].push_back(result);
    }
    return Status::ok();
  })));
  for (size_t k = 0; k < std::size(kReductions); ++k) {
    const Reduction reduction = kReductions[k];
    const Tensor reduced = reduceElementwise(in, reduction);
    const bool ordered =
        reduction == Reduction::Max || reduction == Reduction::Min;
    for (int r = 0; r < g; ++r)
      EXPECT_TRUE(
          tensorsMatch(out[r][k], reduced,
                       ordered ? 0 : reductionTolerance(GetParam().type)))
          << reductionName(reduction) << ", rank " << r;
  }
}

/// Rank r gets block r (along split) of every rank, in group order along
/// concat; split == concat stacks the blocks along that one dim.
TEST_P(CpuCollectiveTest, AllToAllExchangesBlocksInGroupOrder) {
  const int g = groupSize();
  const int64_t split = dim();
  std::vector<Tensor> in = inputs(scatterableShape());
  for (int64_t concat : {(split + 1) % 3, split}) {
    SCOPED_TRACE("concat " + std::to_string(concat));
    std::vector<Tensor> out(g);
    ASSERT_TRUE(allOk(runRanks(g, [&](int r, Backend &backend) {
      return backend.allToAll(wholeWorld(g, r), in[r], split, concat,
                              "all_to_all", out[r]);
    })));
    for (int r = 0; r < g; ++r) {
      std::vector<Tensor> blocks;
      for (int i = 0; i < g; ++i)
        blocks.push_back(shardOf(in[i], split, g, r));
      EXPECT_TRUE(tensorsMatch(out[r], concatenate(blocks, concat), 0))
          << "rank " << r;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cpu, CpuCollectiveTest,
                         ::testing::ValuesIn(collectiveParams()), paramName);

TEST(CpuCollectives, ReduceScatterRejectsAnIndivisibleDim) {
  Tensor in(DType::F32, {3, 5});
  std::vector<Status> statuses = runRanks(2, [&](int r, Backend &backend) {
    Tensor out;
    return backend.reduceScatter(wholeWorld(2, r), in, 1, Reduction::Sum,
                                 "odd reduce_scatter", out);
  });
  for (const Status &status : statuses) {
    ASSERT_FALSE(status.isOk());
    EXPECT_NE(status.message().find("not divisible by the group size 2"),
              std::string::npos)
        << status.message();
  }
}

TEST(CpuCollectives, AllToAllRejectsAnIndivisibleSplitDim) {
  Tensor in(DType::F32, {3, 5});
  std::vector<Status> statuses = runRanks(2, [&](int r, Backend &backend) {
    Tensor out;
    return backend.allToAll(wholeWorld(2, r), in, 1, 0, "odd all_to_all", out);
  });
  for (const Status &status : statuses) {
    ASSERT_FALSE(status.isOk());
    EXPECT_NE(status.message().find("odd all_to_all: the split dim 1 (5) is "
                                    "not divisible by the group size 2"),
              std::string::npos)
        << status.message();
  }
}

/// Many collectives in a row on one group: each call gets a fresh exchange.
TEST(CpuCollectives, BackToBackCollectivesStayInStep) {
  constexpr int g = 4, kRounds = 60;
  Rng rng(7);
  std::vector<std::vector<Tensor>> in(kRounds);
  for (auto &round : in)
    for (int r = 0; r < g; ++r)
      round.push_back(randomTensor(DType::F32, {4, 3}, rng));
  std::vector<std::vector<Tensor>> out(g, std::vector<Tensor>(kRounds));
  auto opOf = [](int round) { return round % 3; };
  ASSERT_TRUE(allOk(runRanks(g, [&](int r, Backend &backend) -> Status {
    Group group = wholeWorld(g, r);
    for (int k = 0; k < kRounds; ++k) {
      const Tensor &x = in[k][r];
      switch (opOf(k)) {
      case 0:
        TP_RETURN_IF_ERROR(backend.allGather(group, x, 1, "ag", out[r][k]));
        break;
      case 1:
        TP_RETURN_IF_ERROR(backend.reduceScatter(group, x, 0, Reduction::Sum,
                                                 "rs", out[r][k]));
        break;
      default:
        TP_RETURN_IF_ERROR(
            backend.allReduce(group, x, Reduction::Max, "ar", out[r][k]));
      }
    }
    return Status::ok();
  })));
  for (int k = 0; k < kRounds; ++k)
    for (int r = 0; r < g; ++r) {
      Tensor expected =
          opOf(k) == 0 ? concatenate(in[k], 1)
          : opOf(k) == 1
              ? shardOf(reduceElementwise(in[k], Reduction::Sum), 0, g, r)
              : reduceElementwise(in[k], Reduction::Max);
      EXPECT_TRUE(tensorsMatch(out[r][k], expected, 1e-6))
          << "round " << k << ", rank " << r;
    }
}

//===----------------------------------------------------------------------===//
// Groups on a 2-D grid
//===----------------------------------------------------------------------===//

TEST(CpuGroups, MakeGroupOrdersRanksRowMajor) {
  // Grid 2x3: world rank = 3 * row + column.
  for (int r = 0; r < 6; ++r) {
    const int row = r / 3, column = r % 3;
    Group rowGroup = makeGroup({2, 3}, {1}, r);
    EXPECT_EQ(rowGroup.ranks,
              (std::vector<int>{3 * row, 3 * row + 1, 3 * row + 2}));
    EXPECT_EQ(rowGroup.index, column);
    Group columnGroup = makeGroup({2, 3}, {0}, r);
    EXPECT_EQ(columnGroup.ranks, (std::vector<int>{column, 3 + column}));
    EXPECT_EQ(columnGroup.index, row);
    Group all = makeGroup({2, 3}, {0, 1}, r);
    EXPECT_EQ(all.ranks, (std::vector<int>{0, 1, 2, 3, 4, 5}));
    EXPECT_EQ(all.index, r);
    EXPECT_EQ(all.worldRank(), r);
  }
  // Grid 2x2x2 along the outer and inner axes: the middle coordinate fixed,
  // the outer one slowest.
  for (int r = 0; r < 8; ++r) {
    const int middle = (r / 2) % 2;
    Group group = makeGroup({2, 2, 2}, {0, 2}, r);
    std::vector<int> expected;
    for (int outer = 0; outer < 2; ++outer)
      for (int inner = 0; inner < 2; ++inner)
        expected.push_back(4 * outer + 2 * middle + inner);
    EXPECT_EQ(group.ranks, expected) << "rank " << r;
    EXPECT_EQ(group.worldRank(), r);
  }
  Group group = makeGroup({2, 3}, {1}, 4);
  EXPECT_EQ(group.member(-1), 5);
  EXPECT_EQ(group.member(3), 3);
}

/// Grid 2x3: rows gather and columns sum, in opposite orders on the two grid
/// rows, so row and column exchanges are in flight together.
TEST(CpuGroups, RowAndColumnGroupsDoNotInterfere) {
  const std::vector<int64_t> grid = {2, 3};
  std::vector<Tensor> in;
  for (int r = 0; r < 6; ++r) {
    Tensor t(DType::F32, {2, 2});
    for (int64_t i = 0; i < 4; ++i)
      t.set(i, 100 * r + i);
    in.push_back(t);
  }
  std::vector<Tensor> gathered(6), summed(6), scattered(6);
  ASSERT_TRUE(allOk(runRanks(6, [&](int r, Backend &backend) -> Status {
    Group row = makeGroup(grid, {1}, r), column = makeGroup(grid, {0}, r);
    auto gather = [&] {
      return backend.allGather(row, in[r], 0, "row gather", gathered[r]);
    };
    auto sum = [&] {
      return backend.allReduce(column, in[r], Reduction::Sum, "column sum",
                               summed[r]);
    };
    if (r / 3 == 0) {
      TP_RETURN_IF_ERROR(gather());
      TP_RETURN_IF_ERROR(sum());
    } else {
      TP_RETURN_IF_ERROR(sum());
      TP_RETURN_IF_ERROR(gather());
    }
    return backend.reduceScatter(column, in[r], 1, Reduction::Max, "column max",
                                 scattered[r]);
  })));
  for (int r = 0; r < 6; ++r) {
    const int row = r / 3, column = r % 3;
    EXPECT_TRUE(tensorsMatch(
        gathered[r],
        concatenate({in[3 * row], in[3 * row + 1], in[3 * row + 2]}, 0), 0))
        << "rank " << r;
    const std::vector<Tensor> columnInputs = {in[column], in[3 + column]};
    EXPECT_TRUE(tensorsMatch(
        summed[r], reduceElementwise(columnInputs, Reduction::Sum), 0))
        << "rank " << r;
    EXPECT_TRUE(tensorsMatch(
        scattered[r],
        shardOf(reduceElementwise(columnInputs, Reduction::Max), 1, 2, row), 0))
        << "rank " << r;
  }
}

//===----------------------------------------------------------------------===//
// Fused schedules against the unfused composition, on random cases
//===----------------------------------------------------------------------===//

constexpr int kFusedCases = 200;
constexpr uint64_t kFusedSeed = 0x7e57'c0de;

/// Case `index` draws from its own generator, so it reproduces alone.
Rng caseRng(uint64_t salt, int index) {
  return Rng(kFusedSeed ^ (salt << 32) ^ uint64_t(index));
}

/// Runs `fused` then `unfused` on every rank of a one-axis group of
/// `groupSize` and compares each rank's results, result i within
/// tolerances[i].
using FusedBody = std::function<Status(int rank, Backend &, const Group &,
                                       std::vector<Tensor> &)>;
void expectFusedMatchesUnfused(int groupSize, const FusedBody &fused,
                               const FusedBody &unfused,
                               const std::vector<double> &tolerances,
                               TraceRecorder *trace = nullptr) {
  std::vector<std::vector<Tensor>> actual(groupSize), expected(groupSize);
  World world(groupSize, kTimeout, trace);
  ASSERT_TRUE(allOk(runRanks(world, [&](int r, Backend &backend) -> Status {
    Group group = wholeWorld(groupSize, r);
    TP_RETURN_IF_ERROR(fused(r, backend, group, actual[r]));
    return unfused(r, backend, group, expected[r]);
  })));
  EXPECT_TRUE(resultsMatch(actual, expected, tolerances));
}

/// Which corners of the case space a test reached.
struct Coverage {
  int lastDim = 0, unevenPieces = 0, chunksOverExtent = 0, ring = 0,
      bigGroup = 0, mergedShares = 0;

  void count(int groupSize, int64_t dim, int64_t rank, int64_t extent,
             const Schedule &schedule) {
    lastDim += dim == rank - 1;
    unevenPieces += extent % schedule.chunks != 0 && schedule.chunks < extent;
    chunksOverExtent += schedule.chunks > extent;
    ring += schedule.algorithm == Schedule::Algorithm::Ring;
    bigGroup += groupSize == 8;
    // A coalesced GEMM that merges shares (more than one remote shard).
    mergedShares += schedule.algorithm == Schedule::Algorithm::Coalesced &&
                    groupSize > 2 && schedule.chunks < groupSize - 1;
  }
  void expectAllReached() const {
    EXPECT_GT(lastDim, 0);
    EXPECT_GT(unevenPieces, 0);
    EXPECT_GT(chunksOverExtent, 0);
    EXPECT_GT(ring, 0);
    EXPECT_GT(bigGroup, 0);
    EXPECT_GT(mergedShares, 0);
  }
};

//===-- all_gather_matmul -------------------------------------------------===//

struct AllGatherMatmulCase {
  int index = 0;
  int groupSize = 1;
  DType type = DType::F32;
  std::vector<int64_t> shape; // each rank's A
  int64_t dim = 0;
  Schedule schedule;
  bool transposeB = false, withBias = false, returnGathered = false;
  std::vector<int64_t> ns; // one per B

  int64_t rank() const { return int64_t(shape.size()); }
  /// The contraction size: the gathered A's last dim.
  int64_t k() const {
    return dim == rank() - 1 ? shape.back() * groupSize : shape.back();
  }

  std::string describe() const {
    std::ostringstream os;
    os << "all_gather_matmul case #" << index << ": group=" << groupSize
       << " type=" << name(type) << " a=" << shapeText(shape) << " dim=" << dim
       << " " << scheduleText(schedule) << " transposeB=" << transposeB
       << " bias=" << withBias << " returnGathered=" << returnGathered
       << " ns=" << shapeText(ns);
    return os.str();
  }

  static AllGatherMatmulCase draw(int index) {
    Rng rng = caseRng(1, index);
    AllGatherMatmulCase c;
    c.index = index;
    c.groupSize = rng.pick({1, 2, 3, 4, 5, 8});
    c.type = rng.coin() ? DType::F32 : DType::BF16;
    const int64_t rank = rng.uniform(2, 4);
    const int64_t maxExtent = rank == 2 ? 7 : rank == 3 ? 5 : 3;
    for (int64_t i = 0; i < rank; ++i)
      c.shape.push_back(rng.uniform(1, maxExtent));
    c.shape.back() = rng.uniform(1, 9);
    c.dim = rng.uniform(0, rank - 1);
    c.schedule = randomSchedule(rng);
    c.transposeB = rng.coin();
    c.withBias = rng.coin();
    c.returnGathered = rng.coin();
    for (int64_t i = 0, e = rng.uniform(1, 3); i < e; ++i)
      c.ns.push_back(rng.uniform(1, 9));
    return c;
  }
};

/// One rank's operands.
struct AllGatherMatmulInputs {
  Tensor a;
  std::vector<Tensor> bs, biases;
};

std::vector<AllGatherMatmulInputs> makeInputs(const AllGatherMatmulCase &c) {
  Rng rng = caseRng(2, c.index);
  std::vector<AllGatherMatmulInputs> inputs(c.groupSize);
  for (AllGatherMatmulInputs &in : inputs) {
    in.a = randomTensor(c.type, c.shape, rng);
    for (int64_t n : c.ns) {
      in.bs.push_back(randomTensor(c.type,
                                   c.transposeB
                                       ? std::vector<int64_t>{n, c.k()}
                                       : std::vector<int64_t>{c.k(), n},
                                   rng));
      in.biases.push_back(randomTensor(c.type, {n}, rng));
    }
  }
  return inputs;
}

Status fusedAllGatherMatmul(const AllGatherMatmulCase &c,
                            const AllGatherMatmulInputs &in, Backend &backend,
                            const Group &group, std::vector<Tensor> &results) {
  AllGatherMatmulArgs args;
  args.a = Operand::plain(&in.a);
  for (size_t i = 0; i < c.ns.size(); ++i) {
    args.bs.push_back(Operand::plain(&in.bs[i]));
    args.biases.push_back(c.withBias ? &in.biases[i] : nullptr);
    args.outTypes.push_back(c.type);
  }
  args.dim = c.dim;
  args.transposeB = c.transposeB;
  args.returnGathered = c.returnGathered;
  args.schedule = c.schedule;
  args.site = "fused all_gather_matmul";
  return backend.allGatherMatmul(group, args, results);
}

Status unfusedAllGatherMatmul(const AllGatherMatmulCase &c,
                              const AllGatherMatmulInputs &in, Backend &backend,
                              const Group &group,
                              std::vector<Tensor> &results) {
  Tensor gathered;
  TP_RETURN_IF_ERROR(
      backend.allGather(group, in.a, c.dim, "reference all_gather", gathered));
  if (c.returnGathered)
    results.push_back(gathered);
  for (size_t i = 0; i < c.ns.size(); ++i) {
    Tensor product;
    TP_RETURN_IF_ERROR(backend.matmul(gathered, in.bs[i], c.transposeB,
                                      "reference matmul", product));
    results.push_back(plusBias(product, c.withBias ? &in.biases[i] : nullptr));
  }
  return Status::ok();
}

void checkAllGatherMatmul(const AllGatherMatmulCase &c,
                          TraceRecorder *trace = nullptr) {
  SCOPED_TRACE(c.describe());
  std::vector<AllGatherMatmulInputs> inputs = makeInputs(c);
  std::vector<double> tolerances;
  if (c.returnGathered)
    tolerances.push_back(0);
  tolerances.resize(tolerances.size() + c.ns.size(), fusedTolerance(c.type));
  expectFusedMatchesUnfused(
      c.groupSize,
      [&](int r, Backend &backend, const Group &group,
          std::vector<Tensor> &out) {
        return fusedAllGatherMatmul(c, inputs[r], backend, group, out);
      },
      [&](int r, Backend &backend, const Group &group,
          std::vector<Tensor> &out) {
        return unfusedAllGatherMatmul(c, inputs[r], backend, group, out);
      },
      tolerances, trace);
}

TEST(CpuFused, AllGatherMatmulMatchesAllGatherThenMatmul) {
  Coverage coverage;
  int kSplits = 0;
  for (int i = 0; i < kFusedCases; ++i) {
    AllGatherMatmulCase c = AllGatherMatmulCase::draw(i);
    coverage.count(c.groupSize, c.dim, c.rank(), c.shape[c.dim], c.schedule);
    kSplits += c.dim == c.rank() - 1 && c.groupSize > 1;
    checkAllGatherMatmul(c);
    if (::testing::Test::HasFailure())
      break; // the first failing case is the repro
  }
  coverage.expectAllReached();
  EXPECT_GT(kSplits, 0);
}

//===-- matmul_reduce_scatter ---------------------------------------------===//

struct MatmulReduceScatterCase {
  int index = 0;
  int groupSize = 1;
  DType type = DType::F32;
  std::vector<int64_t> shape; // each rank's A
  int64_t n = 1;
  int64_t dim = 0; // of the product
  Reduction reduction = Reduction::Sum;
  Schedule schedule;
  bool transposeB = false, withBias = false, withAddend = false,
       returnUnreduced = false;

  int64_t rank() const { return int64_t(shape.size()); }
  std::vector<int64_t> productShape() const {
    std::vector<int64_t> p = shape;
    p.back() = n;
    return p;
  }
  /// Each rank's share of the scattered dim.
  int64_t sliceExtent() const { return productShape()[dim] / groupSize; }

  std::string describe() const {
    std::ostringstream os;
    os << "matmul_reduce_scatter case #" << index << ": group=" << groupSize
       << " type=" << name(type) << " a=" << shapeText(shape) << " n=" << n
       << " dim=" << dim << " reduce=" << reductionName(reduction) << " "
       << scheduleText(schedule) << " transposeB=" << transposeB
       << " bias=" << withBias << " addend=" << withAddend
       << " returnUnreduced=" << returnUnreduced;
    return os.str();
  }

  static MatmulReduceScatterCase draw(int index) {
    Rng rng = caseRng(3, index);
    MatmulReduceScatterCase c;
    c.index = index;
    c.groupSize = rng.pick({1, 2, 3, 4, 5, 8});
    c.type = rng.coin() ? DType::F32 : DType::BF16;
    const int64_t rank = rng.uniform(2, 4);
    const int64_t maxExtent = rank == 2 ? 7 : rank == 3 ? 4 : 3;
    for (int64_t i = 0; i < rank; ++i)
      c.shape.push_back(rng.uniform(1, maxExtent));
    c.shape.back() = rng.uniform(1, 9); // K
    c.n = rng.uniform(1, 9);
    // The scattered dim of the product: this rank's share times the group.
    c.dim = rng.uniform(0, rank - 1);
    const int64_t scattered = rng.uniform(1, 4) * c.groupSize;
    if (c.dim == rank - 1)
      c.n = scattered;
    else
      c.shape[c.dim] = scattered;
    c.reduction = rng.coin() ? Reduction::Sum : Reduction::Avg;
    c.schedule = randomSchedule(rng);
    c.transposeB = rng.coin();
    // A bias is over the whole N, added after the reduction: never N-split.
    c.withBias = c.dim != rank - 1 && rng.coin();
    c.withAddend = rng.coin();
    c.returnUnreduced = rng.coin();
    return c;
  }
};

struct MatmulReduceScatterInputs {
  Tensor a, b, bias, addend;
};

std::vector<MatmulReduceScatterInputs>
makeInputs(const MatmulReduceScatterCase &c) {
  Rng rng = caseRng(4, c.index);
  const int64_t k = c.shape.back();
  std::vector<MatmulReduceScatterInputs> inputs(c.groupSize);
  for (MatmulReduceScatterInputs &in : inputs) {
    in.a = randomTensor(c.type, c.shape, rng);
    in.b = randomTensor(c.type,
                        c.transposeB ? std::vector<int64_t>{c.n, k}
                                     : std::vector<int64_t>{k, c.n},
                        rng);
    in.bias = randomTensor(c.type, {c.n}, rng);
    in.addend = randomTensor(c.type, c.productShape(), rng);
  }
  return inputs;
}

Status fusedMatmulReduceScatter(const MatmulReduceScatterCase &c,
                                const MatmulReduceScatterInputs &in,
                                Backend &backend, const Group &group,
                                std::vector<Tensor> &results) {
  MatmulReduceScatterArgs args;
  args.a = Operand::plain(&in.a);
  args.b = Operand::plain(&in.b);
  args.bias = c.withBias ? &in.bias : nullptr;
  args.addend = c.withAddend ? &in.addend : nullptr;
  args.outType = c.type;
  args.dim = c.dim;
  args.reduction = c.reduction;
  args.transposeB = c.transposeB;
  args.returnUnreduced = c.returnUnreduced;
  args.schedule = c.schedule;
  args.site = "fused matmul_reduce_scatter";
  return backend.matmulReduceScatter(group, args, results);
}

Status unfusedMatmulReduceScatter(const MatmulReduceScatterCase &c,
                                  const MatmulReduceScatterInputs &in,
                                  Backend &backend, const Group &group,
                                  std::vector<Tensor> &results) {
  Tensor product, reduced;
  TP_RETURN_IF_ERROR(
      backend.matmul(in.a, in.b, c.transposeB, "reference matmul", product));
  product = plusAddend(product, c.withAddend ? &in.addend : nullptr);
  TP_RETURN_IF_ERROR(backend.reduceScatter(
      group, product, c.dim, c.reduction, "reference reduce_scatter", reduced));
  if (c.returnUnreduced)
    results.push_back(product);
  results.push_back(plusBias(reduced, c.withBias ? &in.bias : nullptr));
  return Status::ok();
}

void checkMatmulReduceScatter(const MatmulReduceScatterCase &c) {
  SCOPED_TRACE(c.describe());
  std::vector<MatmulReduceScatterInputs> inputs = makeInputs(c);
  expectFusedMatchesUnfused(
      c.groupSize,
      [&](int r, Backend &backend, const Group &group,
          std::vector<Tensor> &out) {
        return fusedMatmulReduceScatter(c, inputs[r], backend, group, out);
      },
      [&](int r, Backend &backend, const Group &group,
          std::vector<Tensor> &out) {
        return unfusedMatmulReduceScatter(c, inputs[r], backend, group, out);
      },
      std::vector<double>(c.returnUnreduced ? 2 : 1, fusedTolerance(c.type)));
}

TEST(CpuFused, MatmulReduceScatterMatchesMatmulThenReduceScatter) {
  Coverage coverage;
  for (int i = 0; i < kFusedCases; ++i) {
    MatmulReduceScatterCase c = MatmulReduceScatterCase::draw(i);
    coverage.count(c.groupSize, c.dim, c.rank(), c.sliceExtent(), c.schedule);
    checkMatmulReduceScatter(c);
    if (::testing::Test::HasFailure())
      break; // the first failing case is the repro
  }
  coverage.expectAllReached();
}

TEST(CpuFused, ReduceScatterRejectsMaxAndMin) {
  Tensor a(DType::F32, {2, 3}), b(DType::F32, {3, 4});
  for (Reduction reduction : {Reduction::Max, Reduction::Min}) {
    std::vector<Status> statuses = runRanks(2, [&](int r, Backend &backend) {
      MatmulReduceScatterArgs args;
      args.a = Operand::plain(&a);
      args.b = Operand::plain(&b);
      args.reduction = reduction;
      args.site = "fused max";
      std::vector<Tensor> results;
      return backend.matmulReduceScatter(wholeWorld(2, r), args, results);
    });
    for (const Status &status : statuses) {
      ASSERT_FALSE(status.isOk()) << reductionName(reduction);
      EXPECT_NE(status.message().find("sum or avg"), std::string::npos)
          << status.message();
    }
  }
}

//===-- Zero-sized dims ---------------------------------------------------===//

AllGatherMatmulCase gatherCase(std::vector<int64_t> shape, int64_t dim,
                               std::vector<int64_t> ns) {
  AllGatherMatmulCase c;
  c.groupSize = 2;
  c.shape = std::move(shape);
  c.dim = dim;
  c.ns = std::move(ns);
  c.schedule.chunks = 2;
  c.withBias = true;
  c.returnGathered = true;
  return c;
}

MatmulReduceScatterCase scatterCase(std::vector<int64_t> shape, int64_t n,
                                    int64_t dim) {
  MatmulReduceScatterCase c;
  c.groupSize = 2;
  c.shape = std::move(shape);
  c.n = n;
  c.dim = dim;
  c.schedule.chunks = 2;
  c.withAddend = true;
  c.returnUnreduced = true;
  return c;
}

/// Empty shards: nothing to gather or scatter, but the shapes still hold.
TEST(CpuFused, EmptyShardsMatchUnfused) {
  checkAllGatherMatmul(gatherCase({0, 3}, 0, {4}));    // M = 0
  checkAllGatherMatmul(gatherCase({2, 0, 3}, 1, {4})); // a batch of M = 0
  checkMatmulReduceScatter(scatterCase({0, 3}, 4, 0)); // M = 0
  checkMatmulReduceScatter(scatterCase({2, 0, 3}, 4, 1));
}

TEST(CpuFused, EmptyContractionMatchesUnfused) {
  // K = 0 is a valid empty contraction: zeros, plus the bias.
  checkAllGatherMatmul(gatherCase({3, 0}, 1, {4}));
  checkAllGatherMatmul(gatherCase({3, 0}, 0, {4}));
  checkMatmulReduceScatter(scatterCase({4, 0}, 4, 0));
  checkMatmulReduceScatter(scatterCase({4, 0}, 4, 1));
}

TEST(CpuFused, EmptyOutputDimMatchesUnfused) {
  // A B of shape [K, 0] gives empty products, as unfused.
  checkAllGatherMatmul(gatherCase({2, 3}, 0, {0}));
  checkMatmulReduceScatter(scatterCase({4, 3}, 0, 0));
}

/// A recorder on the World sees compute and communication slices of every
/// rank, and recording does not change the results.
TEST(CpuFused, TracedRunRecordsEveryRank) {
  AllGatherMatmulCase c;
  c.groupSize = 3;
  c.shape = {6, 4};
  c.ns = {5};
  c.schedule.algorithm = Schedule::Algorithm::Ring;
  c.schedule.chunks = 2;
  TraceRecorder trace;
  checkAllGatherMatmul(c, &trace);
  const std::string path = ::testing::TempDir() + "cpu-backend-trace.json";
  std::string error;
  ASSERT_TRUE(trace.writeJson(path, error)) << error;
  std::ifstream file(path);
  const std::string json((std::istreambuf_iterator<char>(file)),
                         std::istreambuf_iterator<char>());
  std::remove(path.c_str());
  // One thread name per (rank, stream): compute and comm on every rank.
  size_t threadNames = 0;
  for (size_t at = json.find("\"thread_name\""); at != std::string::npos;
       at = json.find("\"thread_name\"", at + 1))
    ++threadNames;
  EXPECT_EQ(threadNames, size_t(2 * c.groupSize)) << json;
  for (int r = 0; r < c.groupSize; ++r)
    EXPECT_NE(json.find("\"rank " + std::to_string(r) + "\""),
              std::string::npos)
        << json;
}

//===----------------------------------------------------------------------===//
// Scaled fused schedules
//===----------------------------------------------------------------------===//

constexpr int kScaledCases = 48;
constexpr Scaling kModes[] = {Scaling::PerTensor, Scaling::RowWise,
                              Scaling::MXFP8, Scaling::NVFP4};

DType dataTypeOf(Scaling mode) {
  return mode == Scaling::NVFP4 ? DType::F4E2M1FN : DType::F8E4M3FN;
}

Quantized quantizeOrFail(const Tensor &input, Scaling mode) {
  Quantized q;
  std::string error;
  EXPECT_TRUE(quantize(input, mode, dataTypeOf(mode), q, error)) << error;
  return q;
}

/// A scaled operand over tensors that outlive it.
Operand scaledOperand(const Tensor &data, const Tensor &scale,
                      const Tensor &globalScale, Scaling mode) {
  Operand op;
  op.data = &data;
  op.scale = &scale;
  op.globalScale = globalScale.empty() ? nullptr : &globalScale;
  op.scaling = mode;
  return op;
}
Operand scaledOperand(const Quantized &q, Scaling mode) {
  return scaledOperand(q.data, q.scale, q.globalScale, mode);
}

/// The parts every scaled case draws alike.
struct ScaledCaseBase {
  int index = 0;
  int groupSize = 1;
  Scaling mode = Scaling::PerTensor;
  DType outType = DType::F32;
  std::vector<int64_t> shape; // each rank's A, [..., M, K]
  int64_t dim = 0;
  Schedule schedule;
  bool withBias = false, returnFirst = false;

  int64_t rank() const { return int64_t(shape.size()); }

  void drawBase(Rng &rng, int caseIndex) {
    index = caseIndex;
    mode = kModes[caseIndex % std::size(kModes)];
    groupSize = rng.pick({1, 2, 3, 4, 5, 8});
    outType = rng.coin() ? DType::F32 : DType::BF16;
    shape.clear();
    for (int64_t i = 0, e = rng.uniform(2, 3); i < e; ++i)
      shape.push_back(rng.uniform(1, 4));
    // K in whole blocks: 32 for MXFP8, 16 for NVFP4.
    shape.back() = mode == Scaling::MXFP8   ? 32 * rng.uniform(1, 2)
                   : mode == Scaling::NVFP4 ? 16 * rng.uniform(1, 3)
                                            : rng.uniform(1, 40);
    schedule = randomSchedule(rng);
    withBias = rng.coin();
    returnFirst = rng.coin();
  }
  std::string describeBase(const char *op) const {
    std::ostringstream os;
    os << op << " case #" << index << ": group=" << groupSize
       << " mode=" << name(mode) << " out=" << name(outType)
       << " a=" << shapeText(shape) << " dim=" << dim << " "
       << scheduleText(schedule) << " bias=" << withBias;
    return os.str();
  }
};

//===-- all_gather_scaled_matmul ------------------------------------------===//

struct ScaledAllGatherCase : ScaledCaseBase {
  std::vector<int64_t> ns;

  std::string describe() const {
    return describeBase("all_gather_scaled_matmul") +
           " returnGathered=" + std::to_string(returnFirst) +
           " ns=" + shapeText(ns);
  }

  static ScaledAllGatherCase draw(int index) {
    Rng rng = caseRng(5, index);
    ScaledAllGatherCase c;
    c.drawBase(rng, index);
    c.dim = rng.uniform(0, c.rank() - 2); // never K
    for (int64_t i = 0, e = rng.uniform(1, 2); i < e; ++i)
      c.ns.push_back(rng.uniform(1, 8));
    return c;
  }
};

/// One rank's shard of A (a per-tensor scale and the NVFP4 global scale are
/// the whole A's, shared by the group) and its B operands.
struct ScaledAllGatherInputs {
  Tensor a, aScale, aGlobalScale;
  std::vector<Quantized> bs;
  std::vector<Tensor> biases;
};

std::vector<ScaledAllGatherInputs> makeInputs(const ScaledAllGatherCase &c) {
  Rng rng = caseRng(6, c.index);
  std::vector<int64_t> wholeShape = c.shape;
  wholeShape[c.dim] *= c.groupSize;
  const Quantized whole =
      quantizeOrFail(randomRowScaledTensor(wholeShape, rng), c.mode);
  const int64_t k = c.shape.back();
  std::vector<ScaledAllGatherInputs> inputs(c.groupSize);
  for (int r = 0; r < c.groupSize; ++r) {
    ScaledAllGatherInputs &in = inputs[r];
    in.a = shardOf(whole.data, c.dim, c.groupSize, r);
    in.aScale = c.mode == Scaling::PerTensor
                    ? whole.scale
                    : shardOf(whole.scale, c.dim, c.groupSize, r);
    in.aGlobalScale = whole.globalScale;
    for (int64_t n : c.ns) {
      in.bs.push_back(
          quantizeOrFail(randomRowScaledTensor({n, k}, rng), c.mode));
      in.biases.push_back(randomTensor(DType::F32, {n}, rng));
    }
  }
  return inputs;
}

Status fusedScaledAllGather(const ScaledAllGatherCase &c,
                            const ScaledAllGatherInputs &in, Backend &backend,
                            const Group &group, std::vector<Tensor> &results) {
  AllGatherMatmulArgs args;
  args.a = scaledOperand(in.a, in.aScale, in.aGlobalScale, c.mode);
  for (size_t i = 0; i < c.ns.size(); ++i) {
    args.bs.push_back(scaledOperand(in.bs[i], c.mode));
    args.biases.push_back(c.withBias ? &in.biases[i] : nullptr);
    args.outTypes.push_back(c.outType);
  }
  args.dim = c.dim;
  args.transposeB = true;
  args.returnGathered = c.returnFirst;
  args.schedule = c.schedule;
  args.site = "fused all_gather_scaled_matmul";
  return backend.allGatherMatmul(group, args, results);
}

Status unfusedScaledAllGather(const ScaledAllGatherCase &c,
                              const ScaledAllGatherInputs &in, Backend &backend,
                              const Group &group,
                              std::vector<Tensor> &results) {
  Tensor data, scale = in.aScale;
  TP_RETURN_IF_ERROR(
      backend.allGather(group, in.a, c.dim, "reference all_gather", data));
  if (c.mode != Scaling::PerTensor)
    TP_RETURN_IF_ERROR(backend.allGather(group, in.aScale, c.dim,
                                         "reference all_gather", scale));
  if (c.returnFirst) {
    results.push_back(data);
    results.push_back(scale);
  }
  const Operand a = scaledOperand(data, scale, in.aGlobalScale, c.mode);
  for (size_t i = 0; i < c.ns.size(); ++i) {
    Tensor product;
    TP_RETURN_IF_ERROR(
        backend.scaledMatmul(a, scaledOperand(in.bs[i], c.mode),
                             c.withBias ? &in.biases[i] : nullptr, c.outType,
                             "reference scaled_matmul", product));
    results.push_back(product);
  }
  return Status::ok();
}

TEST(CpuFusedScaled, AllGatherScaledMatmulMatchesAllGatherThenScaledMatmul) {
  for (int i = 0; i < kScaledCases; ++i) {
    const ScaledAllGatherCase c = ScaledAllGatherCase::draw(i);
    SCOPED_TRACE(c.describe());
    std::vector<ScaledAllGatherInputs> inputs = makeInputs(c);
    std::vector<double> tolerances;
    if (c.returnFirst)
      tolerances = {0, 0}; // data and scale, exactly
    tolerances.resize(tolerances.size() + c.ns.size(),
                      fusedTolerance(c.outType));
    expectFusedMatchesUnfused(
        c.groupSize,
        [&](int r, Backend &backend, const Group &group,
            std::vector<Tensor> &out) {
          return fusedScaledAllGather(c, inputs[r], backend, group, out);
        },
        [&](int r, Backend &backend, const Group &group,
            std::vector<Tensor> &out) {
          return unfusedScaledAllGather(c, inputs[r], backend, group, out);
        },
        tolerances);
    if (::testing::Test::HasFailure())
      break; // the first failing case is the repro
  }
}

//===-- scaled_matmul_reduce_scatter --------------------------------------===//

struct ScaledReduceScatterCase : ScaledCaseBase {
  int64_t n = 1;
  Reduction reduction = Reduction::Sum;

  std::vector<int64_t> productShape() const {
    std::vector<int64_t> p = shape;
    p.back() = n;
    return p;
  }
  std::string describe() const {
    return describeBase("scaled_matmul_reduce_scatter") +
           " n=" + std::to_string(n) + " reduce=" + reductionName(reduction) +
           " returnUnreduced=" + std::to_string(returnFirst);
  }

  static ScaledReduceScatterCase draw(int index) {
    Rng rng = caseRng(7, index);
    ScaledReduceScatterCase c;
    c.drawBase(rng, index);
    c.n = rng.uniform(1, 8);
    c.dim = rng.uniform(0, c.rank() - 1);
    const int64_t scattered = rng.uniform(1, 3) * c.groupSize;
    if (c.dim == c.rank() - 1)
      c.n = scattered;
    else
      c.shape[c.dim] = scattered;
    c.withBias = c.withBias && c.dim != c.rank() - 1;
    c.reduction = rng.coin() ? Reduction::Sum : Reduction::Avg;
    return c;
  }
};

struct ScaledReduceScatterInputs {
  Quantized a, b;
  Tensor bias;
};

std::vector<ScaledReduceScatterInputs>
makeInputs(const ScaledReduceScatterCase &c) {
  Rng rng = caseRng(8, c.index);
  std::vector<ScaledReduceScatterInputs> inputs(c.groupSize);
  for (ScaledReduceScatterInputs &in : inputs) {
    in.a = quantizeOrFail(randomRowScaledTensor(c.shape, rng), c.mode);
    in.b = quantizeOrFail(randomRowScaledTensor({c.n, c.shape.back()}, rng),
                          c.mode);
    in.bias = randomTensor(DType::F32, {c.n}, rng);
  }
  return inputs;
}

Status fusedScaledReduceScatter(const ScaledReduceScatterCase &c,
                                const ScaledReduceScatterInputs &in,
                                Backend &backend, const Group &group,
                                std::vector<Tensor> &results) {
  MatmulReduceScatterArgs args;
  args.a = scaledOperand(in.a, c.mode);
  args.b = scaledOperand(in.b, c.mode);
  args.bias = c.withBias ? &in.bias : nullptr;
  args.outType = c.outType;
  args.dim = c.dim;
  args.reduction = c.reduction;
  args.transposeB = true;
  args.returnUnreduced = c.returnFirst;
  args.schedule = c.schedule;
  args.site = "fused scaled_matmul_reduce_scatter";
  return backend.matmulReduceScatter(group, args, results);
}

Status unfusedScaledReduceScatter(const ScaledReduceScatterCase &c,
                                  const ScaledReduceScatterInputs &in,
                                  Backend &backend, const Group &group,
                                  std::vector<Tensor> &results) {
  Tensor product, reduced;
  TP_RETURN_IF_ERROR(backend.scaledMatmul(
      scaledOperand(in.a, c.mode), scaledOperand(in.b, c.mode), nullptr,
      c.outType, "reference scaled_matmul", product));
  TP_RETURN_IF_ERROR(backend.reduceScatter(
      group, product, c.dim, c.reduction, "reference reduce_scatter", reduced));
  if (c.returnFirst)
    results.push_back(product);
  results.push_back(plusBias(reduced, c.withBias ? &in.bias : nullptr));
  return Status::ok();
}

TEST(CpuFusedScaled, ScaledMatmulReduceScatterMatchesScaledMatmulThenReduce) {
  for (int i = 0; i < kScaledCases; ++i) {
    const ScaledReduceScatterCase c = ScaledReduceScatterCase::draw(i);
    SCOPED_TRACE(c.describe());
    std::vector<ScaledReduceScatterInputs> inputs = makeInputs(c);
    expectFusedMatchesUnfused(
        c.groupSize,
        [&](int r, Backend &backend, const Group &group,
            std::vector<Tensor> &out) {
          return fusedScaledReduceScatter(c, inputs[r], backend, group, out);
        },
        [&](int r, Backend &backend, const Group &group,
            std::vector<Tensor> &out) {
          return unfusedScaledReduceScatter(c, inputs[r], backend, group, out);
        },
        std::vector<double>(c.returnFirst ? 2 : 1, fusedTolerance(c.outType)));
    if (::testing::Test::HasFailure())
      break; // the first failing case is the repro
  }
}

//===----------------------------------------------------------------------===//
// Faults: every rank returns an error, none hangs
//===----------------------------------------------------------------------===//

/// Each rank's status and how long its call took, in milliseconds.
struct TimedRun {
  std::vector<Status> statuses;
  std::vector<int64_t> elapsedMs;
};

/// Runs `body` on every rank of `world`, timing each rank.
TimedRun runTimed(World &world, const RankBody &body) {
  TimedRun run;
  run.elapsedMs.resize(world.numRanks());
  run.statuses = runRanks(world, [&](int r, Backend &backend) {
    auto start = Clock::now();
    Status status = body(r, backend);
    run.elapsedMs[r] =
        std::chrono::duration_cast<Milliseconds>(Clock::now() - start).count();
    return status;
  });
  return run;
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

TEST(CpuFaults, MismatchedShapesNameBothAndDoNotHang) {
  World world(3, kTimeout);
  // Rank 1 passes [2, 4]; ranks 0 and 2 pass [2, 3].
  std::vector<Tensor> in = {Tensor(DType::F32, {2, 3}),
                            Tensor(DType::F32, {2, 4}),
                            Tensor(DType::F32, {2, 3})};
  TimedRun run = runTimed(world, [&](int r, Backend &backend) {
    Tensor out;
    return backend.allGather(wholeWorld(3, r), in[r], 0, "gather here", out);
  });
  for (int r = 0; r < 3; ++r) {
    const Status &status = run.statuses[r];
    ASSERT_FALSE(status.isOk()) << "rank " << r;
    EXPECT_TRUE(contains(status.message(), "ranks disagree on a collective"))
        << status.message();
    EXPECT_TRUE(contains(status.message(), "tensor<2x3xf32>"))
        << status.message();
    EXPECT_TRUE(contains(status.message(), "tensor<2x4xf32>"))
        << status.message();
    EXPECT_LT(run.elapsedMs[r], kTimeout.count() / 2) << "rank " << r;
  }
}

TEST(CpuFaults, MismatchedFusedShapesNameBoth) {
  // Rank 1's A has 3 rows, rank 0's 2: both fused ops must refuse.
  std::vector<Tensor> as = {Tensor(DType::F32, {2, 4}),
                            Tensor(DType::F32, {3, 4})};
  Tensor b(DType::F32, {4, 4});
  World world(2, kTimeout);
  TimedRun run = runTimed(world, [&](int r, Backend &backend) -> Status {
    std::vector<Tensor> results;
    AllGatherMatmulArgs gather;
    gather.a = Operand::plain(&as[r]);
    gather.bs = {Operand::plain(&b)};
    gather.biases = {nullptr};
    gather.outTypes = {DType::F32};
    gather.site = "fused gather";
    Status first = backend.allGatherMatmul(wholeWorld(2, r), gather, results);
    if (first.isOk())
      return Status::error("all_gather_matmul accepted mismatched shapes");
    MatmulReduceScatterArgs scatter;
    scatter.a = Operand::plain(&as[r]);
    scatter.b = Operand::plain(&b);
    scatter.dim = 1;
    scatter.site = "fused scatter";
    Status second =
        backend.matmulReduceScatter(wholeWorld(2, r), scatter, results);
    if (second.isOk())
      return Status::error("matmul_reduce_scatter accepted mismatched shapes");
    return Status::error(first.message() + " | " + second.message());
  });
  for (int r = 0; r < 2; ++r) {
    const std::string &message = run.statuses[r].message();
    EXPECT_TRUE(contains(message, "fused gather")) << message;
    EXPECT_TRUE(contains(message, "fused scatter")) << message;
    EXPECT_TRUE(contains(message, "tensor<2x4xf32>")) << message;
    EXPECT_TRUE(contains(message, "tensor<3x4xf32>")) << message;
    EXPECT_LT(run.elapsedMs[r], kTimeout.count() / 2) << "rank " << r;
  }
}

TEST(CpuFaults, MismatchedFusedWeightsAreReported) {
  // Ranks whose B differ are told apart by the rendezvous signature (a peer
  // would otherwise read past the other's partials).
  std::vector<Tensor> bs = {Tensor(DType::F32, {3, 2}),
                            Tensor(DType::F32, {3, 6})};
  Tensor a(DType::F32, {4, 3});
  World world(2, kTimeout);
  TimedRun run = runTimed(world, [&](int r, Backend &backend) {
    MatmulReduceScatterArgs args;
    args.a = Operand::plain(&a);
    args.b = Operand::plain(&bs[r]);
    args.site = "fused scatter";
    std::vector<Tensor> results;
    return backend.matmulReduceScatter(wholeWorld(2, r), args, results);
  });
  for (int r = 0; r < 2; ++r) {
    const Status &status = run.statuses[r];
    ASSERT_FALSE(status.isOk()) << "rank " << r;
    EXPECT_TRUE(contains(status.message(), "tensor<3x2xf32>"))
        << status.message();
    EXPECT_TRUE(contains(status.message(), "tensor<3x6xf32>"))
        << status.message();
  }
}

/// Rank 2 never joins: every collective of the others times out.
TEST(CpuFaults, AbsentRankTimesOut) {
  const Milliseconds timeout(200);
  // [3, 4] @ [4, 2]: the product's rows divide by the group size.
  Tensor a(DType::F32, {3, 4}), b(DType::F32, {4, 2});
  using Op = std::function<Status(Backend &, const Group &)>;
  const std::vector<std::pair<std::string, Op>> ops = {
      {"all_gather",
       [&](Backend &backend, const Group &group) {
         Tensor out;
         return backend.allGather(group, a, 0, "all_gather", out);
       }},
      {"all_reduce",
       [&](Backend &backend, const Group &group) {
         Tensor out;
         return backend.allReduce(group, a, Reduction::Sum, "all_reduce", out);
       }},
      {"all_to_all",
       [&](Backend &backend, const Group &group) {
         Tensor out;
         return backend.allToAll(group, a, 0, 1, "all_to_all", out);
       }},
      {"all_gather_matmul",
       [&](Backend &backend, const Group &group) {
         AllGatherMatmulArgs args;
         args.a = Operand::plain(&a);
         args.bs = {Operand::plain(&b)};
         args.biases = {nullptr};
         args.outTypes = {DType::F32};
         args.site = "all_gather_matmul";
         std::vector<Tensor> results;
         return backend.allGatherMatmul(group, args, results);
       }},
      {"matmul_reduce_scatter",
       [&](Backend &backend, const Group &group) {
         MatmulReduceScatterArgs args;
         args.a = Operand::plain(&a);
         args.b = Operand::plain(&b);
         args.site = "matmul_reduce_scatter";
         std::vector<Tensor> results;
         return backend.matmulReduceScatter(group, args, results);
       }},
  };
  for (const auto &entry : ops) {
    const std::string &opName = entry.first;
    const Op &op = entry.second;
    SCOPED_TRACE(opName);
    World world(3, timeout);
    TimedRun run = runTimed(world, [&](int r, Backend &backend) {
      return r == 2 ? Status::ok() : op(backend, wholeWorld(3, r));
    });
    for (int r = 0; r < 2; ++r) {
      const Status &status = run.statuses[r];
      ASSERT_FALSE(status.isOk()) << "rank " << r;
      EXPECT_TRUE(contains(status.message(), "timed out")) << status.message();
      EXPECT_TRUE(contains(status.message(), opName)) << status.message();
      EXPECT_TRUE(contains(status.message(), "200 ms")) << status.message();
      EXPECT_GE(run.elapsedMs[r], timeout.count()) << "rank " << r;
      EXPECT_LT(run.elapsedMs[r], 5 * timeout.count()) << "rank " << r;
    }
  }
}

/// Rank 3 fails instead of joining: the others stop long before the timeout.
TEST(CpuFaults, FailedRankStopsTheOthersPromptly) {
  World world(4, kTimeout);
  Tensor in(DType::F32, {2, 2});
  TimedRun run = runTimed(world, [&](int r, Backend &backend) {
    if (r == 3) {
      std::this_thread::sleep_for(Milliseconds(50));
      world.fail(3, "rank 3 gave up");
      return Status::error("rank 3 gave up");
    }
    Tensor out;
    return backend.allGather(wholeWorld(4, r), in, 0, "gather", out);
  });
  for (int r = 0; r < 3; ++r) {
    const Status &status = run.statuses[r];
    ASSERT_FALSE(status.isOk()) << "rank " << r;
    EXPECT_TRUE(contains(status.message(), "another rank failed"))
        << status.message();
    EXPECT_LT(run.elapsedMs[r], 1000) << "rank " << r;
  }
  EXPECT_TRUE(world.failed());
  EXPECT_EQ(world.firstFailedRank(), 3);
  EXPECT_EQ(world.firstFailure(), "rank 3 gave up");
}

/// Of two failures the first one is the one reported.
TEST(CpuFaults, FirstFailureIsReported) {
  World world(3, kTimeout);
  Tensor in(DType::F32, {2, 2});
  TimedRun run = runTimed(world, [&](int r, Backend &backend) -> Status {
    if (r == 1) {
      world.fail(1, "first");
      return Status::error("first");
    }
    if (r == 2) {
      while (!world.failed())
        std::this_thread::yield();
      world.fail(2, "second");
      return Status::error("second");
    }
    Tensor out;
    return backend.allReduce(wholeWorld(3, r), in, Reduction::Sum, "sum", out);
  });
  EXPECT_TRUE(contains(run.statuses[0].message(), "another rank failed"))
      << run.statuses[0].message();
  EXPECT_LT(run.elapsedMs[0], 1000);
  EXPECT_EQ(world.firstFailedRank(), 1);
  EXPECT_EQ(world.firstFailure(), "first");
}

} // namespace
