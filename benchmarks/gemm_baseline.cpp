//===- gemm_baseline.cpp - the BLAS called directly, for comparison -------===//
//
//   tp-bench-gemm M N K [repeats]
//
// Prints the best time of cblas_sgemm on f32 [M, K] x [K, N] (the baseline
// tp-run's tp.matmul is measured against), with the BLAS threads tp-run uses
// for one rank.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Backend.h"

#include <cblas.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: tp-bench-gemm M N K [repeats]\n");
    return 1;
  }
  long m = std::atol(argv[1]), n = std::atol(argv[2]), k = std::atol(argv[3]);
  int repeats = argc > 4 ? std::atoi(argv[4]) : 5;
  mlir::tp::rt::configureCpuThreads(1);
  std::vector<float> a(m * k), b(k * n), c(m * n);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<float>(i % 13) / 13.0f - 0.5f;
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = static_cast<float>(i % 7) / 7.0f - 0.5f;
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    auto start = std::chrono::steady_clock::now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f,
                a.data(), k, b.data(), n, 0.0f, c.data(), n);
    double us = std::chrono::duration<double, std::micro>(
                    std::chrono::steady_clock::now() - start)
                    .count();
    best = std::min(best, us);
  }
  std::printf("sgemm %ldx%ldx%ld best_us=%.1f gflops=%.2f\n", m, n, k, best,
              2.0 * m * n * k / best / 1e3);
  return 0;
}
