//===- GpuSweep.h - tp-gpu-bench's GEMM sweep -------------------*- C++ -*-===//

#ifndef TP_BENCHMARKS_GPUSWEEP_H
#define TP_BENCHMARKS_GPUSWEEP_H

namespace mlir::tp::bench {

/// Times the GEMM calls of every schedule for Llama-class layers on this
/// GPU and writes them to `csvPath` (gpu_gemm_sweep.cpp); 0 on success.
int gemmSweep(const char *csvPath, int repeat);

} // namespace mlir::tp::bench

#endif // TP_BENCHMARKS_GPUSWEEP_H
