//===- GlueGpuCheck.cpp - compiled glue on the GPU against the CPU -------===//
//
//   tp-glue-gpu-check [--no-device-check]
//
// test/Pipelines/Inputs/glue_mlp_block.mlir (norm, SiLU gate, residual
// around fused matmuls), compiled ahead of time twice and linked here:
//   mlp_cpu: tp-lower-to-llvm, all on the CPU;
//   mlp_gpu: tp-lower-glue-to-nvvm, the glue as PTX kernels launched through
//            the runtime's mgpu* entry points (GpuHost.cpp), every buffer
//            host-shared.
// Both run on 4 ranks (threads, CPU backend for the fused ops) on the same
// inputs; the results must agree. Then the GPU build runs with the fused ops
// on the CUDA backend too, which reads and writes the host-shared buffers in
// place: the check prints the bytes its ranks copied to and from the host
// (zero when everything stays on the device). Without a CUDA device it says
// so and exits 2 after the CPU run, unless --no-device-check, which runs the
// GPU half anyway: its first CUDA call then fails with a located report.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Embedding.h"

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

namespace {

constexpr int kRanks = 4, kRows = 4, kHidden = 32, kFfn = 16;

template <int Rank> struct Descriptor {
  float *allocated, *aligned;
  int64_t offset, sizes[Rank], strides[Rank];
};
using Buffer1D = Descriptor<1>;
using Buffer2D = Descriptor<2>;

Buffer2D wrap(std::vector<float> &data, int64_t rows, int64_t cols) {
  return {data.data(), data.data(), 0, {rows, cols}, {cols, 1}};
}
Buffer1D wrap(std::vector<float> &data) {
  return {data.data(), data.data(), 0, {int64_t(data.size())}, {1}};
}

} // namespace

/// The block, compiled for the CPU and with its glue for the GPU (the entry
/// renamed from @main when the objects were made).
extern "C" void _mlir_ciface_mlp_cpu(Buffer2D *result, TPRtContext *ctx,
                                     Buffer2D *x, Buffer1D *norm, Buffer2D *gate,
                                     Buffer2D *up, Buffer2D *down);
extern "C" void _mlir_ciface_mlp_gpu(Buffer2D *result, TPRtContext *ctx,
                                     Buffer2D *x, Buffer1D *norm, Buffer2D *gate,
                                     Buffer2D *up, Buffer2D *down);
using Entry = decltype(&_mlir_ciface_mlp_cpu);

namespace {

struct Inputs {
  std::vector<float> x, norm, gate, up, down;
};

/// Bytes the ranks' backends copied between host memory and the device.
struct HostTraffic {
  int64_t hostToDevice = 0, deviceToHost = 0;
};

/// Runs `entry` on every rank (fused ops on the CPU backend, or on the CUDA
/// backend with `cudaBackend`); each rank's [kRows, kHidden] result, or an
/// empty vector for a rank that failed (its error printed).
std::vector<std::vector<float>> runAll(Entry entry,
                                       std::vector<Inputs> &inputs,
                                       bool cudaBackend = false,
                                       HostTraffic *traffic = nullptr) {
  TPRtRun *run = cudaBackend ? tpRtCudaRunCreate(kRanks, 60000)
                             : tpRtRunCreate(kRanks, 60000);
  if (!run)
    return std::vector<std::vector<float>>(kRanks);
  std::vector<Buffer2D> results(kRanks);
  std::vector<std::thread> threads;
  for (int r = 0; r < kRanks; ++r)
    threads.emplace_back([&, r] {
      Inputs &in = inputs[r];
      Buffer2D x = wrap(in.x, kRows, kHidden);
      Buffer1D norm = wrap(in.norm);
      Buffer2D gate = wrap(in.gate, kHidden, kFfn);
      Buffer2D up = wrap(in.up, kHidden, kFfn);
      Buffer2D down = wrap(in.down, kFfn, kHidden);
      entry(&results[r], tpRtRunContext(run, r), &x, &norm, &gate, &up, &down);
    });
  for (std::thread &thread : threads)
    thread.join();
  std::vector<std::vector<float>> out(kRanks);
  for (int r = 0; r < kRanks; ++r) {
    if (const char *error = tpRtContextError(tpRtRunContext(run, r))) {
      std::printf("rank %d failed: %s\n", r, error);
      continue;
    }
    const Buffer2D &y = results[r];
    for (int i = 0; i < kRows; ++i)
      for (int j = 0; j < kHidden; ++j)
        out[r].push_back(
            y.aligned[y.offset + i * y.strides[0] + j * y.strides[1]]);
    // Results are plain host memory in both builds.
    std::free(y.allocated);
  }
  for (int r = 0; traffic && r < kRanks; ++r) {
    int64_t in = 0, out = 0;
    tpRtContextHostTransfers(tpRtRunContext(run, r), &in, &out);
    traffic->hostToDevice += in;
    traffic->deviceToHost += out;
  }
  tpRtRunDestroy(run);
  return out;
}

} // namespace

int main(int argc, char **argv) {
  bool checkDevice = !(argc > 1 && std::strcmp(argv[1], "--no-device-check") == 0);
  std::vector<Inputs> inputs(kRanks);
  for (int r = 0; r < kRanks; ++r) {
    auto fill = [&](std::vector<float> &v, size_t n, float scale, float phase) {
      for (size_t i = 0; i < n; ++i)
        v.push_back(scale * std::sin(0.37f * float(i) + phase + 1.3f * r));
    };
    fill(inputs[r].x, kRows * kHidden, 1.0f, 0.1f);
    fill(inputs[r].norm, kHidden, 1.0f, 0.7f);
    fill(inputs[r].gate, kHidden * kFfn, 0.2f, 0.3f);
    fill(inputs[r].up, kHidden * kFfn, 0.2f, 0.9f);
    fill(inputs[r].down, kFfn * kHidden, 0.2f, 0.5f);
  }

  std::vector<std::vector<float>> cpu = runAll(_mlir_ciface_mlp_cpu, inputs);
  double sum = 0;
  for (const std::vector<float> &rank : cpu) {
    if (rank.empty())
      return 1;
    for (float v : rank)
      sum += v;
  }
  std::printf("glue-gpu-check: CPU glue on %d ranks: sum %.6e\n", kRanks, sum);
  std::fflush(stdout);

  int devices = 0;
  cudaError_t error = cudaGetDeviceCount(&devices);
  if (checkDevice && (error != cudaSuccess || devices == 0)) {
    std::printf("glue-gpu-check: no CUDA device (%s): the GPU glue did not "
                "run\n",
                error != cudaSuccess ? cudaGetErrorName(error) : "count 0");
    return 2;
  }
  std::vector<std::vector<float>> gpu = runAll(_mlir_ciface_mlp_gpu, inputs);
  double worst = 0, scale = 0;
  for (int r = 0; r < kRanks; ++r) {
    if (gpu[r].size() != cpu[r].size())
      return 1;
    for (size_t i = 0; i < cpu[r].size(); ++i) {
      worst = std::max(worst, double(std::fabs(gpu[r][i] - cpu[r][i])));
      scale = std::max(scale, double(std::fabs(cpu[r][i])));
    }
  }
  double relative = worst / std::max(scale, 1e-30);
  std::printf("glue-gpu-check: GPU glue vs CPU glue on %d ranks: max "
              "normalized error %.2e\n",
              kRanks, relative);
  if (relative >= 1e-5)
    return 1;

  // Everything on the device: GPU glue, and the fused ops on the CUDA
  // backend reading and writing the glue's host-shared buffers in place.
  HostTraffic traffic;
  std::vector<std::vector<float>> resident =
      runAll(_mlir_ciface_mlp_gpu, inputs, /*cudaBackend=*/true, &traffic);
  worst = 0;
  for (int r = 0; r < kRanks; ++r) {
    if (resident[r].size() != cpu[r].size())
      return 1;
    for (size_t i = 0; i < cpu[r].size(); ++i)
      worst = std::max(worst, double(std::fabs(resident[r][i] - cpu[r][i])));
  }
  relative = worst / std::max(scale, 1e-30);
  // TF32 tensor cores may round the GEMM inputs.
  std::printf("glue-gpu-check: GPU glue and CUDA fused ops vs CPU on %d "
              "ranks: max normalized error %.2e; the fused ops copied %lld "
              "bytes host to device and %lld back\n",
              kRanks, relative, static_cast<long long>(traffic.hostToDevice),
              static_cast<long long>(traffic.deviceToHost));
  return relative < 1e-2 ? 0 : 1;
}
