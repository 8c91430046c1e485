//===- Kernels.h - CUDA kernels of the CUDA backend -------------*- C++ -*-===//
//
// The few element-wise kernels cuBLASLt and the copy engines do not cover:
// reductions of staged partials (fp32 accumulation), conversions, FP8/FP4
// dequantization, and row/column scaling; and the small writes (pointer
// tables, constants) that would otherwise be copies from host memory.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_RUNTIME_CUDA_KERNELS_H
#define TP_LIB_RUNTIME_CUDA_KERNELS_H

#include "tp/Runtime/Backend.h"

#include <cuda_runtime.h>

namespace mlir::tp::rt::cuda {

/// out[i] = reduce_p(inputs[p][i]) (/ count for avg) (+ bias[i % biasSize]),
/// accumulated in fp32 and rounded once to outType. `inputs` is a device
/// array of `count` device pointers holding `inType` elements.
cudaError_t launchReduce(const void *const *inputs, int count, DType inType,
                         int64_t n, Reduction reduction, const void *bias,
                         DType biasType, int64_t biasSize, void *out,
                         DType outType, cudaStream_t stream);

/// out[i] = in[i] (+ bias[i % biasSize]), converted from fp32 to outType.
cudaError_t launchConvert(const float *in, int64_t n, const void *bias,
                          DType biasType, int64_t biasSize, void *out,
                          DType outType, cudaStream_t stream);

/// d[b][i, j] += bias[j] for `batch` row-major [rows, cols] blocks of d,
/// rows `ld` elements apart and blocks `batchStride` apart, added in fp32
/// (the bias of an FP8 GEMM with f32 output, which cuBLASLt takes only in
/// bf16).
cudaError_t launchAddBias(void *d, DType dType, int64_t batch,
                          int64_t batchStride, int64_t rows, int64_t cols,
                          int64_t ld, const void *bias, DType biasType,
                          cudaStream_t stream);

/// d[i, j] *= rowScale[i] * colScale[j] for a row-major [rows, cols] fp32
/// matrix (row-wise FP8 scales applied after a unit-scaled GEMM).
cudaError_t launchScaleRowsCols(float *d, int64_t rows, int64_t cols,
                                const float *rowScale, const float *colScale,
                                cudaStream_t stream);

/// Dequantizes [rows, cols] low-precision data with its scales (any Scaling)
/// into bf16: the fallback operand of a block-scaled GEMM on GPUs without
/// native MXFP8/NVFP4 GEMMs.
cudaError_t launchDequantizeToBF16(const uint8_t *data, DType dataType,
                                   const void *scale, DType scaleType,
                                   const float *globalScale, Scaling mode,
                                   int64_t rows, int64_t cols, uint16_t *out,
                                   cudaStream_t stream);

/// out[i] = in[i] as fp32, for n elements of `inType`.
cudaError_t launchWiden(const void *in, DType inType, int64_t n, float *out,
                        cudaStream_t stream);

/// table[i] = base + i * stride bytes, for i < count: the device array of
/// pointers launchReduce takes, written on the stream rather than copied
/// from the host, so a captured CUDA graph reads no host memory.
cudaError_t launchPointerTable(const void **table, const void *base,
                               size_t stride, int count, cudaStream_t stream);

/// Sets `count` elements of 2 or 4 bytes (`elementBytes`) to `value` (its
/// low bits for 2): gpu.memset of the GPU glue.
cudaError_t launchFill(void *dst, uint32_t value, int elementBytes,
                       size_t count, cudaStream_t stream);

/// dst[0] = first, dst[1] = second (device constants, set on the stream).
cudaError_t launchSetFloats(float *dst, float first, float second,
                            cudaStream_t stream);

} // namespace mlir::tp::rt::cuda

#endif // TP_LIB_RUNTIME_CUDA_KERNELS_H
