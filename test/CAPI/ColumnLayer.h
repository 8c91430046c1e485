/*===- ColumnLayer.h - the C API tests' program and its data -------------===*\
|* An upstream column-parallel layer on a grid of 4 ranks (all-gather, then *|
|* matmul: tp-async-tp fuses it), each rank's inputs, and the product every *|
|* rank must compute, shared by tp-capi-test and tp-capi-ranks-test.       *|
\*===----------------------------------------------------------------------===*/

#ifndef TP_TEST_CAPI_COLUMNLAYER_H
#define TP_TEST_CAPI_COLUMNLAYER_H

#include "tp-c/Runtime.h"

#include <stdio.h>

enum { kRanks = 4, kRows = 8, kK = 64, kN = 32 };

static const char *kUpstream =
    "shard.grid @tp(shape = 4)\n"
    "func.func @col(%x: tensor<8x64xf32>, %w: tensor<64x32xf32>) -> "
    "tensor<32x32xf32> {\n"
    "  %g = shard.all_gather %x on @tp grid_axes = [0] gather_axis = 0 : "
    "tensor<8x64xf32> -> tensor<32x64xf32>\n"
    "  %e = tensor.empty() : tensor<32x32xf32>\n"
    "  %y = linalg.matmul ins(%g, %w : tensor<32x64xf32>, tensor<64x32xf32>) "
    "outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>\n"
    "  return %y : tensor<32x32xf32>\n"
    "}\n";

static inline void printToStdout(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

/* Rank r's x [kRows, kK] and w [kK, kN], the same in every process. */
static inline void makeColumnInputs(int r, TPTensor *x, TPTensor *w) {
  int64_t xShape[2] = {kRows, kK}, wShape[2] = {kK, kN};
  *x = tpTensorCreate("f32", xShape, 2);
  *w = tpTensorCreate("f32", wShape, 2);
  for (int64_t i = 0; i < kRows * kK; ++i)
    tpTensorSet(*x, i, (double)((i * 7 + r * 13) % 11) / 11.0 - 0.5);
  for (int64_t i = 0; i < kK * kN; ++i)
    tpTensorSet(*w, i, (double)((i * 5 + r * 3) % 9) / 9.0 - 0.5);
}

/* The largest error of rank r's result against (x_0; ...; x_3) @ w_r;
 * `inputs` holds every rank's (x, w), rank-major. */
static inline double columnError(const TPTensor *inputs, TPTensor result,
                                 int r) {
  double worst = 0;
  for (int64_t row = 0; row < kRanks * kRows; ++row)
    for (int64_t col = 0; col < kN; ++col) {
      double expected = 0;
      for (int64_t k = 0; k < kK; ++k)
        expected +=
            tpTensorGet(inputs[2 * (row / kRows)], (row % kRows) * kK + k) *
            tpTensorGet(inputs[2 * r + 1], k * kN + col);
      double error = tpTensorGet(result, row * kN + col) - expected;
      error = error < 0 ? -error : error;
      worst = error > worst ? error : worst;
    }
  return worst;
}

#endif /* TP_TEST_CAPI_COLUMNLAYER_H */
