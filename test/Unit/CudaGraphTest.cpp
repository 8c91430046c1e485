//===- CudaGraphTest.cpp - a step of every rank as one CUDA graph ---------===//
//
// Two loopback ranks run a step (all-gather, matmul, reduce-scatter) on
// managed buffers, results written in place, once as usual; then StepGraph
// captures it. Replays must recompute from the inputs as they are at each
// replay: the inputs change between replays, and every replay's results are
// checked against the host. Skipped without a usable CUDA device (CI has
// none), unless TP_REQUIRE_CUDA_DEVICE says a GPU is there.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/CudaBackend.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <thread>

using namespace mlir::tp::rt;

namespace {

constexpr int kRanks = 2, kRows = 2, kK = 4, kN = 3;

/// A managed f32 buffer of `shape`, seen as a tensor that borrows it.
struct Managed {
  explicit Managed(std::vector<int64_t> shape) : shape(std::move(shape)) {
    int64_t n = 1;
    for (int64_t d : this->shape)
      n *= d;
    if (cudaMallocManaged(&data, sizeof(float) * n) != cudaSuccess)
      data = nullptr;
    count = n;
  }
  ~Managed() { cudaFree(data); }
  Tensor view() const { return Tensor::wrap(DType::F32, shape, data); }
  float *values() const { return static_cast<float *>(data); }

  std::vector<int64_t> shape;
  void *data = nullptr;
  int64_t count = 0;
};

/// One rank's buffers: x [2, 4] and w [4, 3] in; the gathered x [4, 4], y =
/// gathered @ w [4, 3] and its reduce-scatter z [2, 3] out.
struct RankBuffers {
  Managed x{{kRows, kK}}, w{{kK, kN}};
  Managed gathered{{kRanks * kRows, kK}}, y{{kRanks * kRows, kN}};
  Managed z{{kRows, kN}};
};

/// The step: every result offered in place, as compiled code offers them.
Status step(Backend &backend, const Group &group, RankBuffers &b) {
  Tensor out;
  backend.offerResults({b.gathered.view()});
  Status s = backend.allGather(group, b.x.view(), 0, "ag", out);
  backend.withdrawResults();
  TP_RETURN_IF_ERROR(s);
  backend.offerResults({b.y.view()});
  s = backend.matmul(b.gathered.view(), b.w.view(), false, "mm", out);
  backend.withdrawResults();
  TP_RETURN_IF_ERROR(s);
  backend.offerResults({b.z.view()});
  s = backend.reduceScatter(group, b.y.view(), 0, Reduction::Sum, "rs", out);
  backend.withdrawResults();
  TP_RETURN_IF_ERROR(s);
  if (out.data() != b.z.data)
    return Status::error("the reduce-scatter did not write in place");
  return Status::ok();
}

/// Sets rank r's inputs from `seed` (small integers: exact in any GEMM).
void fill(RankBuffers &b, int r, int seed) {
  for (int64_t i = 0; i < b.x.count; ++i)
    b.x.values()[i] = float((seed + 3 * r + i) % 7) - 3;
  for (int64_t i = 0; i < b.w.count; ++i)
    b.w.values()[i] = float((seed * 5 + r + 2 * i) % 5) - 2;
}

/// z of rank r: rows [2r, 2r + 2) of gathered @ (w_0 + w_1), on the host.
void expectResults(std::vector<std::unique_ptr<RankBuffers>> &ranks,
                   const std::string &when) {
  for (int r = 0; r < kRanks; ++r)
    for (int i = 0; i < kRows; ++i)
      for (int j = 0; j < kN; ++j) {
        int row = r * kRows + i;
        const float *xRow = ranks[row / kRows]->x.values() + (row % kRows) * kK;
        double expected = 0;
        for (int k = 0; k < kK; ++k)
          for (int s = 0; s < kRanks; ++s)
            expected += xRow[k] * ranks[s]->w.values()[k * kN + j];
        EXPECT_NEAR(ranks[r]->z.values()[i * kN + j], expected,
                    1e-2 * (1 + std::fabs(expected)))
            << when << ": rank " << r << " z[" << i << ", " << j << "]";
      }
}

TEST(CudaGraph, ReplaysFollowTheInputsOfEachReplay) {
  int count = 0;
  if (Status query = queryCudaDevices(count); !query.isOk()) {
    if (cudaDeviceRequired())
      FAIL() << query.message()
             << " (TP_REQUIRE_CUDA_DEVICE is set: a GPU must be usable)";
    GTEST_SKIP() << query.message();
  }
  World world(kRanks, std::chrono::milliseconds(20000));
  StepGraph graph(kRanks, std::chrono::milliseconds(20000));
  std::vector<std::unique_ptr<RankBuffers>> buffers(kRanks);
  // The backends outlive the graph's replays: it uses their workspaces.
  std::vector<std::unique_ptr<Backend>> backends(kRanks);
  std::vector<std::thread> threads;
  for (int r = 0; r < kRanks; ++r)
    threads.emplace_back([&, r] {
      Status s = createCudaBackend(world, r, backends[r]);
      if (!s.isOk()) {
        world.fail(r, s.message());
        return;
      }
      {
        buffers[r] = std::make_unique<RankBuffers>();
        if (!buffers[r]->z.data)
          s = Status::error("cannot allocate managed memory");
        else
          fill(*buffers[r], r, 0);
      }
      Group group = makeGroup({kRanks}, {0}, r);
      // The first step as usual (it sizes the workspaces), then the capture.
      if (s.isOk())
        s = step(*backends[r], group, *buffers[r]);
      s = graph.capture(world, *backends[r], r, [&]() -> Status {
        TP_RETURN_IF_ERROR(s);
        return step(*backends[r], group, *buffers[r]);
      });
      if (!s.isOk())
        world.fail(r, s.message());
    });
  for (std::thread &t : threads)
    t.join();
  ASSERT_FALSE(world.failed()) << world.firstFailure();
  EXPECT_GT(graph.nodeCount(), 0u);
  // Capturing ran nothing: the results are still the first step's.
  expectResults(buffers, "the first step");

  for (int seed = 1; seed <= 3; ++seed) {
    for (int r = 0; r < kRanks; ++r) {
      fill(*buffers[r], r, seed);
      std::fill(buffers[r]->z.values(), buffers[r]->z.values() + kRows * kN,
                -999.0f);
    }
    double millis = 0;
    Status replayed = graph.replay(millis);
    ASSERT_TRUE(replayed.isOk()) << replayed.message();
    expectResults(buffers, "replay " + std::to_string(seed));
  }
}

} // namespace
