//===- Kernels.cu - CUDA kernels of the CUDA backend ----------------------===//

#include "Kernels.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

using namespace mlir::tp::rt;

namespace {

__device__ float load(const void *p, DType type, int64_t i) {
  switch (type) {
  case DType::F32:
    return static_cast<const float *>(p)[i];
  case DType::F64:
    return static_cast<float>(static_cast<const double *>(p)[i]);
  case DType::BF16:
    return __bfloat162float(static_cast<const __nv_bfloat16 *>(p)[i]);
  case DType::F16:
    return __half2float(static_cast<const __half *>(p)[i]);
  case DType::F8E4M3FN: {
    __nv_fp8_e4m3 v;
    v.__x = static_cast<const uint8_t *>(p)[i];
    return static_cast<float>(v);
  }
  case DType::F8E5M2: {
    __nv_fp8_e5m2 v;
    v.__x = static_cast<const uint8_t *>(p)[i];
    return static_cast<float>(v);
  }
  case DType::F8E8M0FNU: {
    uint8_t bits = static_cast<const uint8_t *>(p)[i];
    return bits == 0xFF ? __int_as_float(0x7FC00000)
                        : exp2f(float(bits) - 127.0f);
  }
  case DType::F4E2M1FN: {
    const float table[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
    uint8_t bits = static_cast<const uint8_t *>(p)[i];
    float v = table[bits & 7];
    return bits & 8 ? -v : v;
  }
  default:
    return 0.0f;
  }
}

__device__ void store(void *p, DType type, int64_t i, float v) {
  switch (type) {
  case DType::F32:
    static_cast<float *>(p)[i] = v;
    break;
  case DType::F64:
    static_cast<double *>(p)[i] = v;
    break;
  case DType::BF16:
    static_cast<__nv_bfloat16 *>(p)[i] = __float2bfloat16_rn(v);
    break;
  case DType::F16:
    static_cast<__half *>(p)[i] = __float2half_rn(v);
    break;
  default:
    break;
  }
}

__global__ void reduceKernel(const void *const *inputs, int count, DType inType,
                             int64_t n, Reduction reduction, const void *bias,
                             DType biasType, int64_t biasSize, void *out,
                             DType outType) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    float acc = load(inputs[0], inType, i);
    for (int p = 1; p < count; ++p) {
      float v = load(inputs[p], inType, i);
      acc = reduction == Reduction::Max   ? fmaxf(acc, v)
            : reduction == Reduction::Min ? fminf(acc, v)
                                          : acc + v;
    }
    if (reduction == Reduction::Avg)
      acc /= count;
    if (bias)
      acc += load(bias, biasType, i % biasSize);
    store(out, outType, i, acc);
  }
}

__global__ void convertKernel(const float *in, int64_t n, const void *bias,
                              DType biasType, int64_t biasSize, void *out,
                              DType outType) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    float v = in[i];
    if (bias)
      v += load(bias, biasType, i % biasSize);
    store(out, outType, i, v);
  }
}

__global__ void addBiasKernel(void *d, DType dType, int64_t batch,
                              int64_t batchStride, int64_t rows, int64_t cols,
                              int64_t ld, const void *bias, DType biasType) {
  int64_t n = batch * rows * cols;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t col = i % cols, row = i / cols % rows, block = i / cols / rows;
    int64_t at = block * batchStride + row * ld + col;
    store(d, dType, at, load(d, dType, at) + load(bias, biasType, col));
  }
}

__global__ void scaleRowsColsKernel(float *d, int64_t rows, int64_t cols,
                                    const float *rowScale,
                                    const float *colScale) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
       i < rows * cols; i += int64_t(gridDim.x) * blockDim.x)
    d[i] *= rowScale[i / cols] * colScale[i % cols];
}

__global__ void dequantizeKernel(const uint8_t *data, DType dataType,
                                 const void *scale, DType scaleType,
                                 const float *globalScale, Scaling mode,
                                 int64_t rows, int64_t cols,
                                 __nv_bfloat16 *out) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
       i < rows * cols; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t row = i / cols, col = i % cols;
    float s = 1.0f;
    switch (mode) {
    case Scaling::PerTensor:
      s = load(scale, scaleType, 0);
      break;
    case Scaling::RowWise:
      s = load(scale, scaleType, row);
      break;
    case Scaling::MXFP8:
      s = load(scale, scaleType, row * (cols / 32) + col / 32);
      break;
    case Scaling::NVFP4:
      s = load(scale, scaleType, row * (cols / 16) + col / 16) * *globalScale;
      break;
    }
    out[i] = __float2bfloat16_rn(load(data, dataType, i) * s);
  }
}

__global__ void widenKernel(const void *in, DType inType, int64_t n,
                            float *out) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    out[i] = load(in, inType, i);
}

__global__ void pointerTableKernel(const void **table, const uint8_t *base,
                                   size_t stride, int count) {
  for (int i = threadIdx.x; i < count; i += blockDim.x)
    table[i] = base + i * stride;
}

template <typename T>
__global__ void fillKernel(T *dst, T value, size_t count) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x)
    dst[i] = value;
}

__global__ void setFloatsKernel(float *dst, float first, float second) {
  dst[0] = first;
  dst[1] = second;
}

dim3 gridFor(int64_t n) {
  int64_t blocks = (n + 255) / 256;
  return dim3(
      static_cast<unsigned>(blocks < 4096 ? (blocks ? blocks : 1) : 4096));
}

} // namespace

cudaError_t mlir::tp::rt::cuda::launchReduce(
    const void *const *inputs, int count, DType inType, int64_t n,
    Reduction reduction, const void *bias, DType biasType, int64_t biasSize,
    void *out, DType outType, cudaStream_t stream) {
  reduceKernel<<<gridFor(n), 256, 0, stream>>>(inputs, count, inType, n,
                                               reduction, bias, biasType,
                                               biasSize, out, outType);
  return cudaGetLastError();
}

cudaError_t mlir::tp::rt::cuda::launchConvert(const float *in, int64_t n,
                                              const void *bias, DType biasType,
                                              int64_t biasSize, void *out,
                                              DType outType,
                                              cudaStream_t stream) {
  convertKernel<<<gridFor(n), 256, 0, stream>>>(in, n, bias, biasType, biasSize,
                                                out, outType);
  return cudaGetLastError();
}

cudaError_t mlir::tp::rt::cuda::launchAddBias(void *d, DType dType,
                                              int64_t batch,
                                              int64_t batchStride, int64_t rows,
                                              int64_t cols, int64_t ld,
                                              const void *bias, DType biasType,
                                              cudaStream_t stream) {
  addBiasKernel<<<gridFor(batch * rows * cols), 256, 0, stream>>>(
      d, dType, batch, batchStride, rows, cols, ld, bias, biasType);
  return cudaGetLastError();
}

cudaError_t mlir::tp::rt::cuda::launchScaleRowsCols(float *d, int64_t rows,
                                                    int64_t cols,
                                                    const float *rowScale,
                                                    const float *colScale,
                                                    cudaStream_t stream) {
  scaleRowsColsKernel<<<gridFor(rows * cols), 256, 0, stream>>>(
      d, rows, cols, rowScale, colScale);
  return cudaGetLastError();
}

cudaError_t mlir::tp::rt::cuda::launchDequantizeToBF16(
    const uint8_t *data, DType dataType, const void *scale, DType scaleType,
    const float *globalScale, Scaling mode, int64_t rows, int64_t cols,
    uint16_t *out, cudaStream_t stream) {
  dequantizeKernel<<<gridFor(rows * cols), 256, 0, stream>>>(
      data, dataType, scale, scaleType, globalScale, mode, rows, cols,
      reinterpret_cast<__nv_bfloat16 *>(out));
  return cudaGetLastError();
}

cudaError_t mlir::tp::rt::cuda::launchWiden(const void *in, DType inType,
                                            int64_t n, float *out,
                                            cudaStream_t stream) {
  widenKernel<<<gridFor(n), 256, 0, stream>>>(in, inType, n, out);
  return cudaGetLastError();
}

cudaError_t mlir::tp::rt::cuda::launchPointerTable(const void **table,
                                                   const void *base,
                                                   size_t stride, int count,
                                                   cudaStream_t stream) {
  pointerTableKernel<<<1, 32, 0, stream>>>(
      table, static_cast<const uint8_t *>(base), stride, count);
  return cudaGetLastError();
}

cudaError_t mlir::tp::rt::cuda::launchSetFloats(float *dst, float first,
                                                float second,
                                                cudaStream_t stream) {
  setFloatsKernel<<<1, 1, 0, stream>>>(dst, first, second);
  return cudaGetLastError();
}

cudaError_t mlir::tp::rt::cuda::launchFill(void *dst, uint32_t value,
                                           int elementBytes, size_t count,
                                           cudaStream_t stream) {
  if (count == 0)
    return cudaSuccess;
  if (elementBytes == 2)
    fillKernel<<<gridFor(int64_t(count)), 256, 0, stream>>>(
        static_cast<uint16_t *>(dst), static_cast<uint16_t>(value), count);
  else
    fillKernel<<<gridFor(int64_t(count)), 256, 0, stream>>>(
        static_cast<uint32_t *>(dst), value, count);
  return cudaGetLastError();
}
