//===- CudaBackendTest.cpp - the CUDA backend against the CPU backend -----===//
//
// Every case runs on both backends with the same inputs and compares. Without
// a usable CUDA device every test is skipped (CI has none) with the device
// query's error, unless TP_REQUIRE_CUDA_DEVICE says a GPU is there: then a
// skip would hide a broken setup, and every test fails with that error.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/CudaBackend.h"
#include "tp/Runtime/Embedding.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <thread>

using namespace mlir::tp::rt;

namespace {

using RankFn =
    std::function<Status(Backend &, const Group &, int, std::vector<Tensor> &)>;

/// Runs `fn` on `ranks` threads with backends made by `make`.
std::vector<std::vector<Tensor>> runRanks(
    int ranks,
    const std::function<Status(World &, int, std::unique_ptr<Backend> &)> &make,
    const RankFn &fn) {
  World world(ranks, std::chrono::milliseconds(20000));
  std::vector<std::vector<Tensor>> results(ranks);
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      std::unique_ptr<Backend> backend;
      Status s = make(world, r, backend);
      if (s.isOk())
        s = fn(*backend, makeGroup({ranks}, {0}, r), r, results[r]);
      if (!s.isOk())
        world.fail(r, s.message());
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_FALSE(world.failed()) << world.firstFailure();
  return results;
}

using MakeBackend =
    std::function<Status(World &, int, std::unique_ptr<Backend> &)>;

/// The CUDA backend over NCCL as a run of one process: every op runs on a
/// group of one, through real (non-blocking) NCCL communicators.
Status createOneRankNccl(World &world, int rank,
                         std::unique_ptr<Backend> &backend) {
  NcclRankSetup setup;
  setup.timeout = std::chrono::milliseconds(20000);
  TP_RETURN_IF_ERROR(createNcclUniqueId(setup.uniqueId));
  return createCudaNcclBackend(setup, backend);
}

/// Runs on both backends and compares every result of every rank.
void compareBackends(int ranks, const RankFn &fn, double tolerance,
                     const MakeBackend &makeCuda = createCudaBackend) {
  auto cpu = runRanks(
      ranks,
      [](World &w, int r, std::unique_ptr<Backend> &b) {
        b = createCpuBackend(w, r);
        return Status::ok();
      },
      fn);
  auto gpu = runRanks(ranks, makeCuda, fn);
  for (int r = 0; r < ranks; ++r) {
    ASSERT_EQ(cpu[r].size(), gpu[r].size());
    for (size_t i = 0; i < cpu[r].size(); ++i) {
      const Tensor &x = gpu[r][i], &y = cpu[r][i];
      ASSERT_EQ(x.shape(), y.shape());
      double maxErr = 0, maxRef = 0;
      for (int64_t e = 0; e < x.numElements(); ++e) {
        maxErr = std::max(maxErr, std::fabs(x.get(e) - y.get(e)));
        maxRef = std::max(maxRef, std::fabs(y.get(e)));
      }
      EXPECT_LE(maxErr, tolerance * std::max(maxRef, 1e-30))
          << "rank " << r << " result " << i;
    }
  }
}

Tensor random(DType type, std::vector<int64_t> shape, unsigned seed) {
  Tensor t(type, std::move(shape));
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.set(i, dist(gen));
  return t;
}

class CudaBackendTest : public ::testing::Test {
protected:
  void SetUp() override {
    int count = 0;
    Status query = queryCudaDevices(count);
    if (query.isOk())
      return;
    if (cudaDeviceRequired())
      FAIL() << query.message()
             << " (TP_REQUIRE_CUDA_DEVICE is set: a GPU must be usable)";
    GTEST_SKIP() << query.message();
  }
};

Status collectives(Backend &b, const Group &g, int r,
                   std::vector<Tensor> &out) {
  Tensor x = random(DType::BF16, {8, 6, 16}, 10 + r), y;
  out.resize(6);
  TP_RETURN_IF_ERROR(b.allGather(g, x, 1, "ag", out[0]));
  TP_RETURN_IF_ERROR(b.reduceScatter(g, x, 0, Reduction::Sum, "rs", out[1]));
  TP_RETURN_IF_ERROR(b.allReduce(g, x, Reduction::Avg, "ar", out[2]));
  // all_to_all: split outer / concat inner (packed sends, interleaved
  // receives), split inner / concat outer, and split == concat.
  TP_RETURN_IF_ERROR(b.allToAll(g, x, 0, 2, "a2a", out[3]));
  TP_RETURN_IF_ERROR(b.allToAll(g, x, 2, 1, "a2a", out[4]));
  return b.allToAll(g, x, 0, 0, "a2a", out[5]);
}

TEST_F(CudaBackendTest, CollectivesMatchCpu) {
  compareBackends(4, collectives, 1e-2);
}

TEST_F(CudaBackendTest, NcclCollectivesOnOneRankMatchCpu) {
  compareBackends(1, collectives, 1e-2, createOneRankNccl);
}

void compareFused(int ranks, const MakeBackend &makeCuda) {
  for (auto algorithm :
       {Schedule::Algorithm::PerPeer, Schedule::Algorithm::Ring,
        Schedule::Algorithm::Coalesced})
    for (int chunks : {1, 3})
      compareBackends(
          ranks,
          [&](Backend &b, const Group &g, int r, std::vector<Tensor> &out) {
            Tensor a = random(DType::BF16, {2, 6, 64}, r),
                   w = random(DType::BF16, {32, 64}, 99);
            Tensor bias = random(DType::BF16, {32}, 7);
            AllGatherMatmulArgs ag;
            ag.a = Operand::plain(&a);
            ag.bs = {Operand::plain(&w)};
            ag.biases = {&bias};
            ag.outTypes = {DType::BF16};
            ag.dim = 1;
            ag.transposeB = true;
            ag.returnGathered = true;
            ag.schedule = {algorithm, chunks};
            // Pieces of 3 per rank on 2 compute streams at once.
            ag.schedule.streams = chunks == 3 ? 2 : 1;
            ag.site = "fused ag";
            std::vector<Tensor> first;
            TP_RETURN_IF_ERROR(b.allGatherMatmul(g, ag, first));
            Tensor h = random(DType::BF16, {2, 8, 64}, 20 + r);
            MatmulReduceScatterArgs rs;
            rs.a = Operand::plain(&h);
            rs.b = Operand::plain(&w);
            rs.bias = &bias;
            rs.outType = DType::BF16;
            rs.dim = 1;
            rs.transposeB = true;
            rs.returnUnreduced = true;
            rs.schedule = ag.schedule;
            rs.site = "fused rs";
            std::vector<Tensor> second;
            TP_RETURN_IF_ERROR(b.matmulReduceScatter(g, rs, second));
            out = first;
            out.insert(out.end(), second.begin(), second.end());
            return Status::ok();
          },
          3e-2, makeCuda);
}

TEST_F(CudaBackendTest, FusedSchedulesMatchCpu) {
  compareFused(4, createCudaBackend);
}

TEST_F(CudaBackendTest, NcclFusedSchedulesOnOneRankMatchCpu) {
  compareFused(1, createOneRankNccl);
}

/// all_gather_contract in its layouts: dY^T . X gathered (x as B), X^T . dY
/// (x as a transposed A) and a [B, S, H] activation gathered along S; bf16
/// and f32, every schedule.
void compareContract(int ranks, const MakeBackend &makeCuda) {
  struct Layout {
    std::vector<int64_t> x, other;
    int64_t dim;
    bool gatheredLhs, transposeA;
  };
  const Layout layouts[] = {{{8, 24}, {8 * 4, 16}, 0, false, true},
                            {{8, 24}, {8 * 4, 16}, 0, true, true},
                            {{2, 3, 24}, {2, 3 * 4, 16}, 1, false, true}};
  for (DType type : {DType::BF16, DType::F32})
    for (const Layout &layout : layouts)
      for (auto algorithm :
           {Schedule::Algorithm::PerPeer, Schedule::Algorithm::Ring,
            Schedule::Algorithm::Coalesced})
        for (int chunks : {1, 2})
          compareBackends(
              ranks,
              [&](Backend &b, const Group &g, int r, std::vector<Tensor> &out) {
                // The other operand spans the gathered K of this group.
                std::vector<int64_t> otherShape = layout.other;
                otherShape[layout.dim] = otherShape[layout.dim] / 4 * ranks;
                Tensor x = random(type, layout.x, 40 + r),
                       dy = random(type, otherShape, 50 + r);
                AllGatherContractArgs args;
                args.x = &x;
                args.others = {&dy};
                args.dim = layout.dim;
                args.gatheredLhs = layout.gatheredLhs;
                args.transposeA = layout.transposeA;
                args.returnGathered = true;
                args.schedule = {algorithm, chunks};
                args.site = "fused contract";
                return b.allGatherContract(g, args, out);
              },
              3e-2, makeCuda);
}

TEST_F(CudaBackendTest, ContractSchedulesMatchCpu) {
  compareContract(4, createCudaBackend);
}

TEST_F(CudaBackendTest, NcclContractOnOneRankMatchesCpu) {
  compareContract(1, createOneRankNccl);
}

TEST_F(CudaBackendTest, ScaledMatmulMatchesCpu) {
  for (Scaling mode :
       {Scaling::PerTensor, Scaling::RowWise, Scaling::MXFP8, Scaling::NVFP4})
    compareBackends(
        1,
        [&](Backend &b, const Group &, int, std::vector<Tensor> &out) {
          DType data =
              mode == Scaling::NVFP4 ? DType::F4E2M1FN : DType::F8E4M3FN;
          Quantized qa, qb;
          std::string error;
          if (!quantize(random(DType::F32, {32, 64}, 1), mode, data, qa,
                        error) ||
              !quantize(random(DType::F32, {48, 64}, 2), mode, data, qb, error))
            return Status::error(error);
          Operand a = Operand::plain(&qa.data), w = Operand::plain(&qb.data);
          a.scale = &qa.scale;
          w.scale = &qb.scale;
          if (mode == Scaling::NVFP4) {
            a.globalScale = &qa.globalScale;
            w.globalScale = &qb.globalScale;
          }
          a.scaling = w.scaling = mode;
          out.resize(1);
          return b.scaledMatmul(a, w, nullptr, DType::BF16, "scaled", out[0]);
        },
        2e-2);
}

/// The scaled fused ops (FP8 per-tensor and row-wise, MXFP8, NVFP4): A
/// gathered with its scales, and a scaled partial product reduce-scattered.
void compareScaledFused(int ranks, const MakeBackend &makeCuda) {
  for (Scaling mode :
       {Scaling::PerTensor, Scaling::RowWise, Scaling::MXFP8, Scaling::NVFP4})
    compareBackends(
        ranks,
        [&](Backend &b, const Group &g, int r, std::vector<Tensor> &out) {
          DType data =
              mode == Scaling::NVFP4 ? DType::F4E2M1FN : DType::F8E4M3FN;
          Quantized qa, qw, qh;
          std::string error;
          if (!quantize(random(DType::F32, {16, 64}, 30 + r), mode, data, qa,
                        error) ||
              !quantize(random(DType::F32, {32, 64}, 5), mode, data, qw,
                        error) ||
              !quantize(random(DType::F32, {16, 64}, 40 + r), mode, data, qh,
                        error))
            return Status::error(error);
          auto operand = [&](const Quantized &q) {
            Operand op = Operand::plain(&q.data);
            op.scale = &q.scale;
            if (mode == Scaling::NVFP4)
              op.globalScale = &q.globalScale;
            op.scaling = mode;
            return op;
          };
          AllGatherMatmulArgs ag;
          ag.a = operand(qa);
          ag.bs = {operand(qw)};
          ag.biases = {nullptr};
          ag.outTypes = {DType::BF16};
          ag.dim = 0;
          ag.returnGathered = true;
          ag.schedule = {Schedule::Algorithm::Ring, 2};
          ag.site = "scaled fused ag";
          std::vector<Tensor> first;
          TP_RETURN_IF_ERROR(b.allGatherMatmul(g, ag, first));
          MatmulReduceScatterArgs rs;
          rs.a = operand(qh);
          rs.b = operand(qw);
          rs.outType = DType::BF16;
          rs.dim = 0;
          rs.schedule = {Schedule::Algorithm::PerPeer, 2};
          rs.site = "scaled fused rs";
          std::vector<Tensor> second;
          TP_RETURN_IF_ERROR(b.matmulReduceScatter(g, rs, second));
          out = first;
          out.insert(out.end(), second.begin(), second.end());
          return Status::ok();
        },
        2e-2, makeCuda);
}

TEST_F(CudaBackendTest, ScaledFusedSchedulesMatchCpu) {
  compareScaledFused(4, createCudaBackend);
}

TEST_F(CudaBackendTest, NcclScaledFusedSchedulesOnOneRankMatchCpu) {
  compareScaledFused(1, createOneRankNccl);
}

} // namespace

// Ahead-of-time runs on the CUDA backend: bad arguments are refused; without
// a device the run is refused too (with a message), never half made.
TEST(CudaRun, RefusesBadArgumentsAndAMissingDevice) {
  EXPECT_EQ(tpRtCudaRunCreate(0, 1000), nullptr);
  EXPECT_EQ(tpRtCudaRunCreate(2, 0), nullptr);
  TPRtRun *run = tpRtCudaRunCreate(2, 1000);
  int count = 0;
  if (Status query = queryCudaDevices(count); !query.isOk()) {
    EXPECT_EQ(run, nullptr);
    // Where a GPU must be usable, no CUDA test passes without one.
    if (cudaDeviceRequired())
      FAIL() << query.message()
             << " (TP_REQUIRE_CUDA_DEVICE is set: a GPU must be usable)";
    return;
  }
  ASSERT_NE(run, nullptr);
  int64_t in = -1, out = -1;
  tpRtContextHostTransfers(tpRtRunContext(run, 1), &in, &out);
  EXPECT_EQ(in, 0);
  EXPECT_EQ(out, 0);
  tpRtRunDestroy(run);
}
