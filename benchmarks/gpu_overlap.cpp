//===- gpu_overlap.cpp - fused vs unfused async TP on one GPU -------------===//
//
//   tp-gpu-bench [--ranks 8] [--tokens 8192] [--fp8] [--chunks 1] [--repeat 5]
//   tp-gpu-bench --sweep FILE [--repeat 3]
//   tp-gpu-bench --devices
//
// Emulates `ranks` tensor-parallel ranks on one GPU (the loopback transport:
// copy-engine cudaMemcpyAsync between per-rank buffers, a high-priority comm
// stream and a low-priority compute stream per rank) for Llama-class layers,
// and prints, per layer: the unfused time (collective, then GEMM), the fused
// time (pieces moving while earlier pieces are multiplied), GEMM-only and
// transfer-only times, overlap efficiency max(T_gemm, T_comm) / T_fused and
// the speedup. Times are for the whole group, best of --repeat. Below the
// table: how often a GEMM took a slower path (cuBLASLt fallbacks). Every
// rank's compute stream has its own cuBLASLt workspace: split-K and stream-K
// kernels keep partial sums and flags there, so concurrent GEMMs must not
// share one.
//
// --sweep times the GEMM calls of every schedule instead, for Llama-class
// layers and M from 512 to 16384, into a CSV (gpu_gemm_sweep.cpp).
//
// --devices lists the GPUs, or prints the CUDA error and fails. Without a
// usable device the benchmark prints why and skips (exit 0), unless
// TP_REQUIRE_CUDA_DEVICE is set: then it fails.
//
//===----------------------------------------------------------------------===//

#include "GpuSweep.h"
#include "Kernels.h"
#include "LtGemm.h"
#include "tp/Runtime/CudaBackend.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace mlir::tp::rt;
using namespace mlir::tp::rt::cuda;

namespace {

#define CHECK(call)                                                            \
  do {                                                                         \
    Status _s = check((call), #call, "tp-gpu-bench");                          \
    if (!_s.isOk()) {                                                          \
      std::fprintf(stderr, "%s\n", _s.message().c_str());                      \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)
#define CHECK_STATUS(expr)                                                     \
  do {                                                                         \
    Status _s = (expr);                                                        \
    if (!_s.isOk()) {                                                          \
      std::fprintf(stderr, "%s\n", _s.message().c_str());                      \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

struct Rank {
  cudaStream_t compute, comm;
  std::vector<cudaEvent_t> pieces;
  cudaEvent_t done;
};

struct Bench {
  int ranks, chunks, repeat;
  bool fp8;
  LtGemm gemm;
  std::vector<Rank> rank;
  cudaStream_t origin;
  cudaEvent_t start, stop;
  float *unitScale;

  void init() {
    int lo, hi;
    CHECK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    CHECK(cudaStreamCreate(&origin));
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    rank.resize(ranks);
    for (Rank &r : rank) {
      CHECK(
          cudaStreamCreateWithPriority(&r.compute, cudaStreamNonBlocking, lo));
      CHECK(cudaStreamCreateWithPriority(&r.comm, cudaStreamNonBlocking, hi));
      r.pieces.resize(ranks * chunks);
      for (cudaEvent_t &e : r.pieces)
        CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
      CHECK(cudaEventCreateWithFlags(&r.done, cudaEventDisableTiming));
    }
    CHECK_STATUS(gemm.init("tp-gpu-bench"));
    for (Rank &r : rank)
      CHECK_STATUS(gemm.reserveWorkspace(r.compute, "tp-gpu-bench"));
    CHECK(cudaMalloc(&unitScale, sizeof(float)));
    float one = 1.0f;
    CHECK(cudaMemcpy(unitScale, &one, sizeof(one), cudaMemcpyHostToDevice));
  }

  /// Times `body` (which enqueues work on the ranks' streams), best of repeat.
  double time(const std::function<void()> &body) {
    double best = 1e30;
    for (int i = 0; i < repeat + 1; ++i) { // the first run warms up
      CHECK(cudaEventRecord(start, origin));
      for (Rank &r : rank) {
        CHECK(cudaStreamWaitEvent(r.compute, start, 0));
        CHECK(cudaStreamWaitEvent(r.comm, start, 0));
      }
      body();
      for (Rank &r : rank) {
        CHECK(cudaEventRecord(r.done, r.compute));
        CHECK(cudaStreamWaitEvent(origin, r.done, 0));
        CHECK(cudaEventRecord(r.done, r.comm));
        CHECK(cudaStreamWaitEvent(origin, r.done, 0));
      }
      CHECK(cudaEventRecord(stop, origin));
      CHECK(cudaEventSynchronize(stop));
      float ms;
      CHECK(cudaEventElapsedTime(&ms, start, stop));
      if (i > 0)
        best = std::min(best, double(ms));
    }
    return best;
  }

  GemmProblem problem(int64_t m, int64_t n, int64_t k, int64_t lda, DType out) {
    GemmProblem p;
    p.m = m;
    p.n = n;
    p.k = k;
    p.lda = lda;
    p.ldb = k;
    p.ldd = n;
    p.transposeB = true; // weights as [N, K], the layout FP8 needs
    p.aType = p.bType = fp8 ? DType::F8E4M3FN : DType::BF16;
    p.dType = out;
    if (fp8)
      p.aScale = p.bScale = unitScale;
    return p;
  }
};

void *alloc(size_t bytes) {
  void *p;
  CHECK(cudaMalloc(&p, bytes));
  CHECK(cudaMemset(p, 0, bytes));
  return p;
}

struct Row {
  std::string name;
  double unfused, fused, gemm, comm;
};

/// all_gather(x [M/g, K]) @ W [N/g, K]^T on every rank.
Row allGatherMatmul(Bench &b, int64_t m, int64_t k, int64_t n) {
  int g = b.ranks;
  size_t es = b.fp8 ? 1 : 2;
  int64_t shard = m / g, nl = n / g;
  std::vector<uint8_t *> gathered(g), weight(g), out(g);
  for (int r = 0; r < g; ++r) {
    gathered[r] = static_cast<uint8_t *>(alloc(m * k * es));
    weight[r] = static_cast<uint8_t *>(alloc(nl * k * es));
    out[r] = static_cast<uint8_t *>(alloc(m * nl * 2));
  }
  auto copyShard = [&](int r, int p, int64_t lo, int64_t hi) {
    size_t row = k * es;
    CHECK(cudaMemcpyAsync(gathered[r] + (p * shard + lo) * row,
                          gathered[p] + (p * shard + lo) * row, (hi - lo) * row,
                          cudaMemcpyDeviceToDevice, b.rank[r].comm));
  };
  auto gemmRows = [&](int r, int64_t row0, int64_t rows) {
    GemmProblem p = b.problem(rows, nl, k, k, DType::BF16);
    CHECK_STATUS(b.gemm.run(p, gathered[r] + row0 * k * es, weight[r],
                            out[r] + row0 * nl * 2, b.rank[r].compute, "gemm"));
  };
  int chunks = b.chunks;
  auto range = [&](int j) {
    return std::pair<int64_t, int64_t>{shard * j / chunks,
                                       shard * (j + 1) / chunks};
  };
  Row row;
  row.name =
      "all_gather+matmul K=" + std::to_string(k) + " N=" + std::to_string(n);
  row.comm = b.time([&] {
    for (int r = 0; r < g; ++r)
      for (int s = 1; s < g; ++s)
        copyShard(r, (r + s) % g, 0, shard);
  });
  row.gemm = b.time([&] {
    for (int r = 0; r < g; ++r)
      gemmRows(r, 0, m);
  });
  row.unfused = b.time([&] {
    for (int r = 0; r < g; ++r) {
      for (int s = 1; s < g; ++s)
        copyShard(r, (r + s) % g, 0, shard);
      CHECK(cudaEventRecord(b.rank[r].pieces[0], b.rank[r].comm));
      CHECK(cudaStreamWaitEvent(b.rank[r].compute, b.rank[r].pieces[0], 0));
      gemmRows(r, 0, m);
    }
  });
  row.fused = b.time([&] {
    for (int r = 0; r < g; ++r) {
      // Own shard first, then each peer's pieces as they land.
      gemmRows(r, r * shard, shard);
      for (int s = 1; s < g; ++s) {
        int p = (r + s) % g;
        for (int j = 0; j < chunks; ++j) {
          auto [lo, hi] = range(j);
          copyShard(r, p, lo, hi);
          cudaEvent_t e = b.rank[r].pieces[s * chunks + j];
          CHECK(cudaEventRecord(e, b.rank[r].comm));
          CHECK(cudaStreamWaitEvent(b.rank[r].compute, e, 0));
          gemmRows(r, p * shard + lo, hi - lo);
        }
      }
    }
  });
  for (int r = 0; r < g; ++r) {
    cudaFree(gathered[r]);
    cudaFree(weight[r]);
    cudaFree(out[r]);
  }
  return row;
}

/// reduce_scatter(h [M, K/g] @ W [N, K/g]^T, rows) on every rank.
Row matmulReduceScatter(Bench &b, int64_t m, int64_t k, int64_t n) {
  int g = b.ranks;
  size_t es = b.fp8 ? 1 : 2;
  int64_t kl = k / g, slice = m / g;
  std::vector<uint8_t *> act(g), weight(g);
  std::vector<float *> partials(g), staging(g);
  std::vector<void *> out(g), pointers(g);
  for (int r = 0; r < g; ++r) {
    act[r] = static_cast<uint8_t *>(alloc(m * kl * es));
    weight[r] = static_cast<uint8_t *>(alloc(n * kl * es));
    partials[r] = static_cast<float *>(alloc(m * n * sizeof(float)));
    staging[r] = static_cast<float *>(alloc(m * n * sizeof(float)));
    out[r] = alloc(slice * n * 2);
    std::vector<const void *> slots(g);
    for (int p = 0; p < g; ++p)
      slots[p] = staging[r] + p * slice * n;
    pointers[r] = alloc(sizeof(void *) * g);
    CHECK(cudaMemcpy(pointers[r], slots.data(), sizeof(void *) * g,
                     cudaMemcpyHostToDevice));
  }
  auto partialFor = [&](int r, int c) {
    GemmProblem p = b.problem(slice, n, kl, kl, DType::F32);
    CHECK_STATUS(b.gemm.run(p, act[r] + c * slice * kl * es, weight[r],
                            partials[r] + c * slice * n, b.rank[r].compute,
                            "gemm"));
  };
  auto stage = [&](int r, int p) {
    CHECK(cudaMemcpyAsync(
        staging[r] + p * slice * n, partials[p] + r * slice * n,
        slice * n * sizeof(float), cudaMemcpyDeviceToDevice, b.rank[r].comm));
  };
  auto reduce = [&](int r) {
    CHECK(launchReduce(static_cast<const void *const *>(pointers[r]), g,
                       DType::F32, slice * n, Reduction::Sum, nullptr,
                       DType::BF16, 1, out[r], DType::BF16, b.rank[r].comm));
  };
  Row row;
  row.name = "matmul+reduce_scatter K=" + std::to_string(k) +
             " N=" + std::to_string(n);
  row.gemm = b.time([&] {
    for (int r = 0; r < g; ++r)
      for (int c = 0; c < g; ++c)
        partialFor(r, c);
  });
  row.comm = b.time([&] {
    for (int r = 0; r < g; ++r) {
      for (int p = 0; p < g; ++p)
        stage(r, p);
      reduce(r);
    }
  });
  // Every rank's partials must exist before anyone stages them: the
  // unfused order is all GEMMs, then the collective.
  row.unfused = b.time([&] {
    for (int r = 0; r < g; ++r) {
      for (int c = 0; c < g; ++c)
        partialFor(r, c);
      CHECK(cudaEventRecord(b.rank[r].pieces[0], b.rank[r].compute));
    }
    for (int r = 0; r < g; ++r) {
      for (int p = 0; p < g; ++p) {
        CHECK(cudaStreamWaitEvent(b.rank[r].comm, b.rank[p].pieces[0], 0));
        stage(r, p);
      }
      reduce(r);
    }
  });
  row.fused = b.time([&] {
    for (int r = 0; r < g; ++r)
      for (int s = 1; s <= g; ++s) {
        int c = (r + s) % g;
        partialFor(r, c);
        CHECK(cudaEventRecord(b.rank[r].pieces[c], b.rank[r].compute));
      }
    for (int r = 0; r < g; ++r) {
      for (int p = 0; p < g; ++p) {
        CHECK(cudaStreamWaitEvent(b.rank[r].comm, b.rank[p].pieces[r], 0));
        stage(r, p);
      }
      reduce(r);
    }
  });
  for (int r = 0; r < g; ++r) {
    cudaFree(act[r]);
    cudaFree(weight[r]);
    cudaFree(partials[r]);
    cudaFree(staging[r]);
    cudaFree(out[r]);
    cudaFree(pointers[r]);
  }
  return row;
}

/// Writes a cost-model target description (docs/CostModel.md) from the
/// table: the GEMM rate of the largest layer, the transfer rate of all its
/// copies and how much slower overlapped GEMMs ran. Ranks share one GPU, so
/// the link is its copy engines' device-to-device rate, not NVLink; latency,
/// half-rate size and launch overhead keep the h100-nvlink preset's values.
int writeTarget(const char *path, const char *device, const Bench &b,
                int64_t tokens, const std::vector<Row> &rows) {
  const Row &big = rows.front(); // all_gather+matmul K=8192 N=28672
  double g = b.ranks, es = b.fp8 ? 1 : 2;
  double flops = 2.0 * tokens * (28672 / g) * 8192 * g;
  double bytes = g * (g - 1) * (tokens / g) * 8192 * es;
  double peak = flops / (big.gemm * 1e-3);
  double bandwidth = bytes / (big.comm * 1e-3) / g;
  double slowdown = std::max(0.0, big.fused / std::max(big.gemm, big.comm) - 1);
  std::FILE *file = std::fopen(path, "w");
  if (!file) {
    std::fprintf(stderr, "tp-gpu-bench: cannot write %s\n", path);
    return 1;
  }
  std::fprintf(file,
               "{\n  \"name\": \"%s (tp-gpu-bench, %d ranks on one GPU)\",\n"
               "  \"gemm\": {\"%s\": {\"peak_flops\": %.4g, \"half_flops\": "
               "1.0e9}},\n"
               "  \"links\": {\n"
               "    \"per_peer\": {\"bandwidth\": %.4g, \"latency\": 1.0e-5},\n"
               "    \"ring\": {\"bandwidth\": %.4g, \"latency\": 6.0e-6}\n  },\n"
               "  \"overlap_slowdown\": %.4g,\n  \"launch_overhead\": 4.0e-6\n}\n",
               device, b.ranks, b.fp8 ? "f8" : "bf16", peak, bandwidth,
               bandwidth, slowdown);
  std::fclose(file);
  std::printf("target description written to %s\n", path);
  return 0;
}

/// Lists the devices (--devices); fails with the CUDA error.
int listDevices() {
  int devices = 0;
  if (Status query = queryCudaDevices(devices); !query.isOk()) {
    std::fprintf(stderr, "tp-gpu-bench: %s\n", query.message().c_str());
    return 1;
  }
  for (int i = 0; i < devices; ++i) {
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, i));
    std::printf("GPU %d: %s, sm_%d%d, %d SMs, %.0f GiB\n", i, prop.name,
                prop.major, prop.minor, prop.multiProcessorCount,
                prop.totalGlobalMem / double(1ull << 30));
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  Bench b{8, 1, 5, false, {}, {}, nullptr, nullptr, nullptr, nullptr};
  int64_t tokens = 8192;
  const char *targetFile = nullptr, *sweepFile = nullptr;
  bool repeatGiven = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto next = [&] { return i + 1 < argc ? std::atol(argv[++i]) : 0L; };
    if (arg == "--ranks")
      b.ranks = static_cast<int>(next());
    else if (arg == "--tokens")
      tokens = next();
    else if (arg == "--chunks")
      b.chunks = static_cast<int>(next());
    else if (arg == "--repeat")
      b.repeat = static_cast<int>(next()), repeatGiven = true;
    else if (arg == "--fp8")
      b.fp8 = true;
    else if (arg == "--devices")
      return listDevices();
    else if (arg == "--write-target" && i + 1 < argc)
      targetFile = argv[++i];
    else if (arg == "--sweep" && i + 1 < argc)
      sweepFile = argv[++i];
    else {
      std::fprintf(stderr, "usage: tp-gpu-bench [--ranks 8] [--tokens 8192] "
                           "[--fp8] [--chunks 1] [--repeat 5] "
                           "[--write-target FILE] | --sweep FILE [--repeat 3] "
                           "| --devices\n");
      return 1;
    }
  }
  if (b.repeat < 1) {
    std::fprintf(stderr, "tp-gpu-bench: --repeat must be at least 1\n");
    return 1;
  }
  int devices = 0;
  if (Status query = queryCudaDevices(devices); !query.isOk()) {
    std::fprintf(stderr, "tp-gpu-bench: %s\n", query.message().c_str());
    if (cudaDeviceRequired()) {
      std::fprintf(stderr, "tp-gpu-bench: FAILED: TP_REQUIRE_CUDA_DEVICE is "
                           "set, so a GPU must be usable\n");
      return 1;
    }
    std::printf("tp-gpu-bench: no usable CUDA device; skipped\n");
    return 0;
  }
  if (sweepFile)
    return mlir::tp::bench::gemmSweep(sweepFile, repeatGiven ? b.repeat : 3);
  b.init();
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d ranks emulated on one GPU, %s, M = %lld tokens, %d "
              "piece(s) per rank\n",
              prop.name, b.ranks, b.fp8 ? "fp8 e4m3 (per-tensor)" : "bf16",
              static_cast<long long>(tokens), b.chunks);
  std::vector<Row> rows = {
      allGatherMatmul(b, tokens, 8192, 28672),
      allGatherMatmul(b, tokens, 8192, 8192),
      matmulReduceScatter(b, tokens, 28672, 8192),
      matmulReduceScatter(b, tokens, 8192, 8192),
  };
  std::printf("| layer | unfused ms | fused ms | GEMM ms | transfer ms | "
              "comm share | efficiency | speedup "
              "|\n|---|---|---|---|---|---|---|---|\n");
  for (const Row &r : rows)
    std::printf("| %s | %.3f | %.3f | %.3f | %.3f | %.0f%% | %.2f | %.2fx |\n",
                r.name.c_str(), r.unfused, r.fused, r.gemm, r.comm,
                100.0 * r.comm / r.unfused, std::max(r.gemm, r.comm) / r.fused,
                r.unfused / r.fused);
  std::printf("\ncuBLASLt workspaces: %zu (one per stream); fallbacks: %s\n",
              b.gemm.workspaceCount(), b.gemm.counters().summary().c_str());
  if (targetFile)
    return writeTarget(targetFile, prop.name, b, tokens, rows);
  return 0;
}
