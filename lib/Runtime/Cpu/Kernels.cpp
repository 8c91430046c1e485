//===- Kernels.cpp - GEMM and layout helpers of the CPU backend -----------===//

#include "Kernels.h"
#include "tp/Runtime/Numerics.h"

#include <cblas.h>
#include <cstring>

using namespace mlir::tp::rt;
using namespace mlir::tp::rt::cpu;

DimSplit cpu::splitAt(const std::vector<int64_t> &shape, int64_t dim) {
  DimSplit split;
  for (int64_t i = 0; i < static_cast<int64_t>(shape.size()); ++i) {
    if (i < dim)
      split.outer *= shape[i];
    else if (i == dim)
      split.extent = shape[i];
    else
      split.inner *= shape[i];
  }
  return split;
}

void cpu::copySlabs(const uint8_t *src, int64_t srcExtent, int64_t srcStart,
                    uint8_t *dst, int64_t dstExtent, int64_t dstStart,
                    int64_t count, const DimSplit &split, size_t bytes) {
  size_t slab = split.inner * bytes;
  if (count == 0 || slab == 0)
    return;
  for (int64_t o = 0; o < split.outer; ++o)
    std::memcpy(dst + (o * dstExtent + dstStart) * slab,
                src + (o * srcExtent + srcStart) * slab, count * slab);
}

/// C *= beta: the GEMM of an empty contraction (BLAS rejects lda = 0).
template <typename T>
static void scaleOnly(int64_t m, int64_t n, T *c, int64_t ldc, T beta) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      c[i * ldc + j] *= beta;
}

/// The BLAS routine of each element type.
static void blasGemm(CBLAS_TRANSPOSE transB, int64_t m, int64_t n, int64_t k,
                     const float *a, int64_t lda, const float *b, int64_t ldb,
                     float beta, float *c, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, transB, m, n, k, 1.0f, a, lda, b,
              ldb, beta, c, ldc);
}
static void blasGemm(CBLAS_TRANSPOSE transB, int64_t m, int64_t n, int64_t k,
                     const double *a, int64_t lda, const double *b, int64_t ldb,
                     double beta, double *c, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, CblasNoTrans, transB, m, n, k, 1.0, a, lda, b, ldb,
              beta, c, ldc);
}

template <typename T>
void cpu::gemm(bool transposeB, int64_t m, int64_t n, int64_t k, const T *a,
               int64_t lda, const T *b, int64_t ldb, T *c, int64_t ldc,
               T beta) {
  if (m == 0 || n == 0)
    return;
  if (k == 0)
    return scaleOnly(m, n, c, ldc, beta);
  blasGemm(transposeB ? CblasTrans : CblasNoTrans, m, n, k, a, lda, b, ldb,
           beta, c, ldc);
}

static void blasGemm(CBLAS_TRANSPOSE transA, CBLAS_TRANSPOSE transB, int64_t m,
                     int64_t n, int64_t k, const float *a, int64_t lda,
                     const float *b, int64_t ldb, float *c, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, transA, transB, m, n, k, 1.0f, a, lda, b, ldb,
              1.0f, c, ldc);
}
static void blasGemm(CBLAS_TRANSPOSE transA, CBLAS_TRANSPOSE transB, int64_t m,
                     int64_t n, int64_t k, const double *a, int64_t lda,
                     const double *b, int64_t ldb, double *c, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, transA, transB, m, n, k, 1.0, a, lda, b, ldb, 1.0,
              c, ldc);
}

template <typename T>
void cpu::gemmAccumulate(bool transposeA, bool transposeB, int64_t m,
                         int64_t n, int64_t k, const T *a, int64_t lda,
                         const T *b, int64_t ldb, T *c, int64_t ldc) {
  if (m == 0 || n == 0 || k == 0)
    return;
  blasGemm(transposeA ? CblasTrans : CblasNoTrans,
           transposeB ? CblasTrans : CblasNoTrans, m, n, k, a, lda, b, ldb, c,
           ldc);
}

/// The dequantization factor of element (row, col) of a scaled operand.
static double scaleAt(const Operand &op, int64_t row, int64_t col,
                      int64_t cols) {
  double global = op.globalScale ? op.globalScale->get(0) : 1.0;
  switch (*op.scaling) {
  case Scaling::PerTensor:
    return op.scale->get(0);
  case Scaling::RowWise:
    return op.scale->get(row);
  case Scaling::MXFP8:
    return op.scale->get(row * (cols / 32) + col / 32);
  case Scaling::NVFP4:
    return op.scale->get(row * (cols / 16) + col / 16) * global;
  }
  return 1.0;
}

template <typename T>
void cpu::loadBlock(const Operand &op, int64_t row0, int64_t rows, int64_t col0,
                    int64_t cols, T *out) {
  const Tensor &data = *op.data;
  int64_t width = data.shape().back();
  for (int64_t r = 0; r < rows; ++r) {
    int64_t base = (row0 + r) * width + col0;
    T *dst = out + r * cols;
    if (!op.isScaled() && data.dtype() == DType::F32 && sizeof(T) == 4) {
      std::memcpy(dst, data.as<float>() + base, cols * sizeof(float));
      continue;
    }
    for (int64_t c = 0; c < cols; ++c) {
      double v = data.get(base + c);
      if (op.isScaled())
        v *= scaleAt(op, row0 + r, col0 + c, width);
      dst[c] = static_cast<T>(v);
    }
  }
}

template <typename T> cpu::DenseMatrix<T>::DenseMatrix(const Operand &op) {
  const Tensor &data = *op.data;
  numCols = data.rank() ? data.shape().back() : 1;
  numRows = 1;
  for (int64_t i = 0; i + 1 < data.rank(); ++i)
    numRows *= data.dim(i);
  bool direct =
      !op.isScaled() && ((sizeof(T) == 4 && data.dtype() == DType::F32) ||
                         (sizeof(T) == 8 && data.dtype() == DType::F64));
  if (direct) {
    ptr = static_cast<const T *>(data.data());
    return;
  }
  owned.resize(numRows * numCols);
  loadBlock(op, 0, numRows, 0, numCols, owned.data());
  ptr = owned.data();
}

template <typename T>
void cpu::storeBlock(const T *block, int64_t row0, int64_t rows, int64_t col0,
                     int64_t cols, Tensor &out) {
  int64_t width = out.shape().back();
  void *base = out.mutableData();
  bool direct = (sizeof(T) == 4 && out.dtype() == DType::F32) ||
                (sizeof(T) == 8 && out.dtype() == DType::F64);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t at = (row0 + r) * width + col0;
    if (direct) {
      std::memcpy(static_cast<T *>(base) + at, block + r * cols,
                  cols * sizeof(T));
      continue;
    }
    for (int64_t c = 0; c < cols; ++c)
      storeElement(base, out.dtype(), at + c, block[r * cols + c]);
  }
}

template <typename T>
void cpu::addBias(const Tensor &bias, int64_t col0, int64_t rows, int64_t cols,
                  T *block) {
  std::vector<T> values(cols);
  for (int64_t c = 0; c < cols; ++c)
    values[c] = static_cast<T>(bias.get(col0 + c));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      block[r * cols + c] += values[c];
}

bool cpu::needsDouble(const Operand &a, const Operand &b) {
  return a.data->dtype() == DType::F64 || b.data->dtype() == DType::F64;
}

namespace mlir::tp::rt::cpu {
template void gemm<float>(bool, int64_t, int64_t, int64_t, const float *,
                          int64_t, const float *, int64_t, float *, int64_t,
                          float);
template void gemm<double>(bool, int64_t, int64_t, int64_t, const double *,
                           int64_t, const double *, int64_t, double *, int64_t,
                           double);
template void gemmAccumulate<float>(bool, bool, int64_t, int64_t, int64_t,
                                    const float *, int64_t, const float *,
                                    int64_t, float *, int64_t);
template void gemmAccumulate<double>(bool, bool, int64_t, int64_t, int64_t,
                                     const double *, int64_t, const double *,
                                     int64_t, double *, int64_t);
template void loadBlock<float>(const Operand &, int64_t, int64_t, int64_t,
                               int64_t, float *);
template void loadBlock<double>(const Operand &, int64_t, int64_t, int64_t,
                                int64_t, double *);
template class DenseMatrix<float>;
template class DenseMatrix<double>;
template void storeBlock<float>(const float *, int64_t, int64_t, int64_t,
                                int64_t, Tensor &);
template void storeBlock<double>(const double *, int64_t, int64_t, int64_t,
                                 int64_t, Tensor &);
template void addBias<float>(const Tensor &, int64_t, int64_t, int64_t,
                             float *);
template void addBias<double>(const Tensor &, int64_t, int64_t, int64_t,
                              double *);
} // namespace mlir::tp::rt::cpu

void mlir::tp::rt::cpu::reduceRuns(const std::vector<const void *> &sources,
                                   DType dtype, Reduction reduction,
                                   int64_t outer, int64_t run, int64_t stride,
                                   int64_t start, void *out) {
  auto combine = [&](double acc, double v) {
    switch (reduction) {
    case Reduction::Sum:
    case Reduction::Avg:
      return acc + v;
    case Reduction::Max:
      return std::max(acc, v);
    case Reduction::Min:
      return std::min(acc, v);
    }
    return acc;
  };
  const size_t count = sources.size();
  const bool f32 = dtype == DType::F32;
  for (int64_t o = 0; o < outer; ++o) {
    int64_t src0 = o * stride + start, dst0 = o * run;
    for (int64_t e = 0; e < run; ++e) {
      // f32, the common case, reads the buffers directly.
      auto at = [&](size_t i) {
        return f32 ? double(static_cast<const float *>(sources[i])[src0 + e])
                   : loadElement(sources[i], dtype, src0 + e);
      };
      double acc = at(0);
      for (size_t i = 1; i < count; ++i)
        acc = combine(acc, at(i));
      if (reduction == Reduction::Avg)
        acc /= static_cast<double>(count);
      if (f32)
        static_cast<float *>(out)[dst0 + e] = static_cast<float>(acc);
      else
        storeElement(out, dtype, dst0 + e, acc);
    }
  }
}
