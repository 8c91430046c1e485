//===- gpu_gemm_sweep.cpp - the GEMMs of every schedule, timed on one GPU -===//
//
//   tp-gpu-bench --sweep FILE [--repeat 3]
//
// For Llama-3 70B and 405B layers at TP 8 (the attention projections and
// the MLP's up and down projections, per rank) and global M from 512 to
// 16384 tokens, times on this GPU the GEMM calls each schedule makes: the
// unfused GEMM; per_peer (and ring, whose pieces are the same) with 1, 2 and
// 4 pieces per rank, on one compute stream and round robin on two
// ("per_peer:2:2"); coalesced with 1, 2 and 4 GEMMs for the remote shards.
// The calls come from the runtime's own plan (planGather / planScatter,
// include/tp/Runtime/Schedule.h) for every rank of the group; a schedule's
// time is its slowest rank's calls back to back with every SM, as the cost
// model's compute term assumes with copy engines (which take no SM). Writes one
// CSV row per point; scripts/bench/gpu_sweep.py puts the cost model's
// prediction next to each and fits the GPU tiles' efficiencies
// (--write-target).
//
// Transfers are not timed here: ranks on one GPU copy at HBM rates, not over
// NVLink (tp-gpu-bench's overlap table times them).
//
//===----------------------------------------------------------------------===//

#include "GpuSweep.h"

#include "CudaCheck.h"
#include "CudaPlan.h"
#include "LtGemm.h"
#include "tp/Runtime/Schedule.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

using namespace mlir::tp::rt;
using namespace mlir::tp::rt::cuda;

namespace {

constexpr int kRanks = 8;

/// A tensor-parallel layer: global K and N; column-parallel layers gather
/// their input (all_gather -> matmul), row-parallel ones scatter their
/// product (matmul -> reduce_scatter).
struct Layer {
  const char *name;
  bool gather;
  int64_t k, n;
};

const Layer kLayers[] = {
    {"70b.qkv", true, 8192, 10240},   {"70b.out", false, 8192, 8192},
    {"70b.up", true, 8192, 28672},    {"70b.down", false, 28672, 8192},
    {"405b.qkv", true, 16384, 18432}, {"405b.out", false, 16384, 16384},
    {"405b.up", true, 16384, 53248},  {"405b.down", false, 53248, 16384},
};

struct Sweep {
  LtGemm gemm;
  /// Call i runs on streams[i % count]; the second waits for the first's
  /// start and the first for the second's end.
  cudaStream_t streams[2] = {nullptr, nullptr};
  cudaEvent_t start = nullptr, stop = nullptr, joined = nullptr;
  int repeat = 3;
  void *a = nullptr, *b = nullptr, *d = nullptr;
  size_t aBytes = 0, bBytes = 0, dBytes = 0;

  Status init() {
    const char *context = "tp-gpu-bench --sweep";
    for (cudaStream_t &stream : streams)
      TP_RETURN_IF_ERROR(
          check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
                "cudaStreamCreateWithFlags", context));
    for (cudaEvent_t *event : {&start, &stop, &joined})
      TP_RETURN_IF_ERROR(
          check(cudaEventCreate(event), "cudaEventCreate", context));
    TP_RETURN_IF_ERROR(gemm.init(context));
    for (cudaStream_t stream : streams)
      TP_RETURN_IF_ERROR(gemm.reserveWorkspace(stream, context));
    return Status::ok();
  }

  /// Device buffers of at least these sizes (zeroed; reused).
  Status reserve(size_t needA, size_t needB, size_t needD) {
    auto grow = [](void *&ptr, size_t &have, size_t need) {
      if (need <= have)
        return Status::ok();
      cudaFree(ptr);
      ptr = nullptr;
      have = 0;
      TP_RETURN_IF_ERROR(
          check(cudaMalloc(&ptr, need), "cudaMalloc", "tp-gpu-bench --sweep"));
      have = need;
      return check(cudaMemset(ptr, 0, need), "cudaMemset",
                   "tp-gpu-bench --sweep");
    };
    TP_RETURN_IF_ERROR(grow(a, aBytes, needA));
    TP_RETURN_IF_ERROR(grow(b, bBytes, needB));
    return grow(d, dBytes, needD);
  }

  /// Milliseconds for GEMM calls (first row, rows) x n x k, round robin on
  /// `count` streams: the best of `repeat` after one warm-up.
  Status time(const std::vector<std::pair<int64_t, int64_t>> &calls, int64_t n,
              int64_t k, DType out, int count, double &best) {
    best = 1e30;
    for (int i = 0; i <= repeat; ++i) {
      TP_RETURN_IF_ERROR(check(cudaEventRecord(start, streams[0]),
                               "cudaEventRecord", "sweep"));
      if (count > 1)
        TP_RETURN_IF_ERROR(check(cudaStreamWaitEvent(streams[1], start, 0),
                                 "cudaStreamWaitEvent", "sweep"));
      for (size_t call = 0; call < calls.size(); ++call) {
        auto [row0, rows] = calls[call];
        cudaStream_t stream = streams[call % count];
        GemmProblem p;
        p.m = rows;
        p.n = n;
        p.k = k;
        p.lda = k;
        p.ldb = k;
        p.ldd = n;
        p.transposeB = true; // weights as [N, K]
        p.aType = p.bType = DType::BF16;
        p.dType = out;
        TP_RETURN_IF_ERROR(
            gemm.run(p, static_cast<uint8_t *>(a) + row0 * k * 2, b,
                     static_cast<uint8_t *>(d) + row0 * n * byteSize(out),
                     stream, "tp-gpu-bench --sweep"));
      }
      if (count > 1) {
        TP_RETURN_IF_ERROR(check(cudaEventRecord(joined, streams[1]),
                                 "cudaEventRecord", "sweep"));
        TP_RETURN_IF_ERROR(check(cudaStreamWaitEvent(streams[0], joined, 0),
                                 "cudaStreamWaitEvent", "sweep"));
      }
      TP_RETURN_IF_ERROR(
          check(cudaEventRecord(stop, streams[0]), "cudaEventRecord", "sweep"));
      TP_RETURN_IF_ERROR(
          check(cudaEventSynchronize(stop), "cudaEventSynchronize", "sweep"));
      float ms = 0;
      TP_RETURN_IF_ERROR(check(cudaEventElapsedTime(&ms, start, stop),
                               "cudaEventElapsedTime", "sweep"));
      if (i > 0)
        best = std::min(best, double(ms));
    }
    return Status::ok();
  }
};

/// The GEMM calls (first row, rows) member `me` makes under `schedule`:
/// a gather multiplies runs of the gathered rows; a row scatter writes runs
/// of consecutive slices of its workspace (partialGemms).
std::vector<std::pair<int64_t, int64_t>>
callsOf(bool gather, int me, const Schedule &schedule, int64_t share) {
  std::vector<std::pair<int64_t, int64_t>> calls;
  if (gather) {
    for (const GemmStep &step : planGather(kRanks, me, schedule, share))
      for (const ExtentRun &run : step.runs(share))
        calls.push_back({run.begin, run.end - run.begin});
    return calls;
  }
  for (const GemmStep &step : planScatter(kRanks, me, schedule, share))
    for (const PartialGemm &call : partialGemms(step, share, true))
      calls.push_back({call.destination * share + call.lo, call.hi - call.lo});
  return calls;
}

} // namespace

int mlir::tp::bench::gemmSweep(const char *csvPath, int repeat) {
  Sweep sweep;
  sweep.repeat = repeat;
  if (Status s = sweep.init(); !s.isOk()) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 1;
  }
  std::FILE *csv = std::fopen(csvPath, "w");
  if (!csv) {
    std::fprintf(stderr, "tp-gpu-bench: cannot write %s\n", csvPath);
    return 1;
  }
  std::fprintf(csv, "layer,kind,m,rows_per_rank,k,n,schedule,calls,us\n");
  std::vector<Schedule> schedules;
  for (int streams : {1, 2})
    for (int chunks : {1, 2, 4}) {
      schedules.push_back({Schedule::Algorithm::PerPeer, chunks});
      schedules.back().streams = streams;
    }
  for (int chunks : {1, 2, 4})
    schedules.push_back({Schedule::Algorithm::Coalesced, chunks});
  int points = 0;
  for (const Layer &layer : kLayers)
    for (int64_t m = 512; m <= 16384; m *= 2) {
      // Per rank: a gather's GEMM is [m, k] x [k, n / 8]; a scatter's
      // [m, k / 8] x [k / 8, n], in fp32 partials.
      const int64_t share = m / kRanks;
      const int64_t k = layer.gather ? layer.k : layer.k / kRanks;
      const int64_t n = layer.gather ? layer.n / kRanks : layer.n;
      const DType out = layer.gather ? DType::BF16 : DType::F32;
      Status status = sweep.reserve(size_t(m) * k * 2, size_t(n) * k * 2,
                                    size_t(m) * n * byteSize(out));
      auto row = [&](const std::string &schedule, size_t calls, double ms) {
        std::fprintf(csv, "%s,%s,%lld,%lld,%lld,%lld,%s,%zu,%.2f\n", layer.name,
                     layer.gather ? "ag" : "rs", (long long)m, (long long)share,
                     (long long)k, (long long)n, schedule.c_str(), calls,
                     ms * 1e3);
        ++points;
      };
      double whole = 0;
      if (status.isOk())
        status = sweep.time({{0, m}}, n, k, out, 1, whole);
      if (status.isOk())
        row("unfused", 1, whole);
      for (const Schedule &schedule : schedules) {
        if (!status.isOk())
          break;
        // The slowest rank, as the cost model predicts it.
        double slowest = 0;
        size_t calls = 0;
        for (int me = 0; me < kRanks && status.isOk(); ++me) {
          auto list = callsOf(layer.gather, me, schedule, share);
          double ms = 0;
          status = sweep.time(list, n, k, out, schedule.streams, ms);
          if (ms > slowest) {
            slowest = ms;
            calls = list.size();
          }
        }
        if (status.isOk())
          row(schedule.name() + ":" + std::to_string(schedule.chunks) +
                  (schedule.streams > 1 ? ":" + std::to_string(schedule.streams)
                                        : std::string()),
              calls, slowest);
      }
      if (!status.isOk()) {
        std::fprintf(stderr, "tp-gpu-bench --sweep: %s at M = %lld: %s\n",
                     layer.name, (long long)m, status.message().c_str());
        std::fclose(csv);
        return 1;
      }
    }
  std::fclose(csv);
  std::printf("tp-gpu-bench --sweep: %d points written to %s; fallbacks: %s\n",
              points, csvPath, sweep.gemm.counters().summary().c_str());
  return 0;
}
