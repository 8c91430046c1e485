//===- Kernels.h - GEMM and layout helpers of the CPU backend ---*- C++ -*-===//
//
// Tensors are viewed as row-major matrices [rows, cols] where cols is the
// last dim. A dim `d` splits a tensor into `outer` blocks (dims before d) of
// `extent` slabs of `inner` elements (dims after d): the unit of gathering
// and scattering.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_RUNTIME_CPU_KERNELS_H
#define TP_LIB_RUNTIME_CPU_KERNELS_H

#include "tp/Runtime/Backend.h"

#include <cstdint>
#include <vector>

namespace mlir::tp::rt::cpu {

/// outer x extent x inner around dim `dim` of `shape`.
struct DimSplit {
  int64_t outer = 1, extent = 1, inner = 1;
};
DimSplit splitAt(const std::vector<int64_t> &shape, int64_t dim);

/// Copies slabs [lo, hi) along the split dim of every outer block from `src`
/// (extent srcExtent, starting at srcStart) to `dst` (extent dstExtent,
/// starting at dstStart). Element size `bytes`.
void copySlabs(const uint8_t *src, int64_t srcExtent, int64_t srcStart,
               uint8_t *dst, int64_t dstExtent, int64_t dstStart, int64_t count,
               const DimSplit &split, size_t bytes);

/// C[M, N] = alpha * A[M, K] @ op(B) + beta * C, with leading dimensions;
/// op(B) is B[K, N], or B[N, K]^T when transposeB. T is float or double.
template <typename T>
void gemm(bool transposeB, int64_t m, int64_t n, int64_t k, const T *a,
          int64_t lda, const T *b, int64_t ldb, T *c, int64_t ldc, T beta);

/// C[M, N] += op(A) @ op(B): A is [M, K] (or [K, M] when transposeA), B is
/// [K, N] (or [N, K] when transposeB), with leading dimensions.
template <typename T>
void gemmAccumulate(bool transposeA, bool transposeB, int64_t m, int64_t n,
                    int64_t k, const T *a, int64_t lda, const T *b, int64_t ldb,
                    T *c, int64_t ldc);

/// Rows [row0, row0 + rows) and columns [col0, col0 + cols) of `op` seen as a
/// [.., cols] matrix, as T (dequantized when scaled). `out` is dense,
/// rows x cols.
template <typename T>
void loadBlock(const Operand &op, int64_t row0, int64_t rows, int64_t col0,
               int64_t cols, T *out);

/// The whole operand as a dense T matrix (no copy for a matching T tensor).
template <typename T> class DenseMatrix {
public:
  DenseMatrix(const Operand &op);
  const T *data() const { return ptr; }
  int64_t rows() const { return numRows; }
  int64_t cols() const { return numCols; }

private:
  std::vector<T> owned;
  const T *ptr = nullptr;
  int64_t numRows = 0, numCols = 0;
};

/// Stores a dense rows x cols block into `out` at (row0, col0), rounding.
template <typename T>
void storeBlock(const T *block, int64_t row0, int64_t rows, int64_t col0,
                int64_t cols, Tensor &out);

/// Adds bias[col0 + j] to every row of a dense rows x cols block.
template <typename T>
void addBias(const Tensor &bias, int64_t col0, int64_t rows, int64_t cols,
             T *block);

/// out[o * run + e] = sources[0][x] op sources[1][x] op ... with
/// x = o * stride + start + e, for o < outer and e < run: accumulated in
/// double in source order and rounded once (Avg divides by the count).
void reduceRuns(const std::vector<const void *> &sources, DType dtype,
                Reduction reduction, int64_t outer, int64_t run, int64_t stride,
                int64_t start, void *out);

/// Whether the operands ask for double precision (any f64).
bool needsDouble(const Operand &a, const Operand &b);

} // namespace mlir::tp::rt::cpu

#endif // TP_LIB_RUNTIME_CPU_KERNELS_H
