/*===- tp-c/Runtime.h - C API of the tp runtime --------------------*- C
-*-===*\
|*                                                                            *|
|* Host tensors and SPMD execution of a tp function on N ranks with a runtime *|
|* backend ("cpu", or "cuda" in builds with it). Errors come back as          *|
|* MlirLogicalResult plus a message through the callback.                     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TP_C_RUNTIME_H
#define TP_C_RUNTIME_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A host tensor; owns its storage. Null when `ptr` is null. */
typedef struct TPTensor {
  void *ptr;
} TPTensor;

/* A zero-filled tensor of `dtype` (MLIR's spelling: "f32", "bf16",
 * "f8E4M3FN", "i64", ...); null for an unknown dtype. */
MLIR_CAPI_EXPORTED TPTensor tpTensorCreate(const char *dtype,
                                           const int64_t *shape, intptr_t rank);
MLIR_CAPI_EXPORTED void tpTensorDestroy(TPTensor tensor);
MLIR_CAPI_EXPORTED intptr_t tpTensorRank(TPTensor tensor);
MLIR_CAPI_EXPORTED int64_t tpTensorDim(TPTensor tensor, intptr_t dim);
MLIR_CAPI_EXPORTED int64_t tpTensorNumElements(TPTensor tensor);
/* Element `index` (row-major) as a double; stores round to the dtype. */
MLIR_CAPI_EXPORTED double tpTensorGet(TPTensor tensor, int64_t index);
MLIR_CAPI_EXPORTED void tpTensorSet(TPTensor tensor, int64_t index,
                                    double value);

/* Runs `func` (a func.func of per-rank tp IR) on `ranks` ranks with
 * `backend`. `inputs` holds ranks x (number of arguments) tensors, rank-major;
 * on success `results` (ranks x number of results, rank-major) receives new
 * tensors the caller destroys. On failure the message (naming the rank that
 * failed first) goes to `onError`. */
MLIR_CAPI_EXPORTED MlirLogicalResult tpRunSPMD(
    MlirOperation func, int ranks, const char *backend, const TPTensor *inputs,
    TPTensor *results, MlirStringCallback onError, void *userData);

#ifdef __cplusplus
}
#endif

#endif /* TP_C_RUNTIME_H */
