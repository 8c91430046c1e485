/*===- tp-c/Runtime.h - C API of the tp runtime --------------------*- C
-*-===*\
|*                                                                            *|
|* Host tensors and SPMD execution of a tp function on N ranks with a runtime *|
|* backend ("cpu", or "cuda" in builds with it): as threads of this process,  *|
|* or as one process per rank started by mpirun; inputs read from and values  *|
|* dumped to .npy files in tp-run's layout, and runs compared. Errors come    *|
|* back as MlirLogicalResult plus a message through the callback.             *|
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

/* This process as one rank of a run with one process per rank, started by
 * mpirun (or by tp's own launcher). Null when `ptr` is null. */
typedef struct TPRankProcess {
  void *ptr;
} TPRankProcess;

/* Joins the run this process is one rank of; under mpirun this initializes
 * MPI. `*process` is null when this process was not started as a rank (run
 * the ranks as threads with tpRunSPMD then). Fails, with the reason, when
 * the launch environment is malformed or this build lacks MPI. */
MLIR_CAPI_EXPORTED MlirLogicalResult tpRankProcessJoin(
    TPRankProcess *process, MlirStringCallback onError, void *userData);
/* This process's rank and the run's number of ranks; -1 and 0 for a null
 * process. */
MLIR_CAPI_EXPORTED int tpRankProcessRank(TPRankProcess process);
MLIR_CAPI_EXPORTED int tpRankProcessSize(TPRankProcess process);
/* Leaves the run; under mpirun this finalizes MPI. */
MLIR_CAPI_EXPORTED void tpRankProcessDestroy(TPRankProcess process);

/* Runs `func` as this process's rank over `transport`: "mpi" (the cpu
 * backend, MPI messages) or, in CUDA builds, "nccl" (the cuda backend, one
 * GPU per rank). `inputs` holds this rank's arguments. Every rank's results
 * travel to the rank that reports the run (rank 0 under mpirun): there
 * `*reports` becomes 1 and `results` receives ranks x (number of results)
 * new tensors, rank-major, that the caller destroys; elsewhere `*reports` is
 * 0 and `results` is untouched.
 * A rank that fails (bad input included) ends every rank of the job, with
 * its message on standard error and a non-zero exit status, as a failed
 * collective must: its peers would otherwise wait for it. Only a null
 * `process` fails without ending the job. */
MLIR_CAPI_EXPORTED MlirLogicalResult
tpRunAsRank(MlirOperation func, TPRankProcess process, const char *transport,
            const TPTensor *inputs, TPTensor *results, int *reports,
            MlirStringCallback onError, void *userData);

/* Reads `dir`/rank<R>/arg<I>.npy for every rank and argument of `func` into
 * `inputs` (ranks x arguments, rank-major; new tensors the caller destroys),
 * converted to the argument types, as tp-run --input-dir does. A dynamic dim
 * of an argument type is `dynamicSize` (> 0). */
MLIR_CAPI_EXPORTED MlirLogicalResult tpReadInputs(
    MlirOperation func, int ranks, const char *dir, int64_t dynamicSize,
    TPTensor *inputs, MlirStringCallback onError, void *userData);

/* Writes every rank's arguments and results below `dir` (made if missing) as
 * rank<R>/arg<I>.npy and rank<R>/result<J>.npy, as tp-run --dump does:
 * `inputs` holds ranks x numArgs tensors, `results` ranks x numResults, both
 * rank-major. Until every file is written, `dir` holds a file INCOMPLETE. */
MLIR_CAPI_EXPORTED MlirLogicalResult tpDumpValues(
    const char *dir, int ranks, intptr_t numArgs, const TPTensor *inputs,
    intptr_t numResults, const TPTensor *results, MlirStringCallback onError,
    void *userData);

/* Compares two runs' results (ranks x numResults each, rank-major) as tp-run
 * --compare-pipeline does: floats within `tolerance` of the normalized error
 * (negative: by element type), integers equal. `worst` (if not null) gets the
 * largest normalized error. A mismatch fails, with a line per mismatch
 * through `onError`. */
MLIR_CAPI_EXPORTED MlirLogicalResult
tpCompareResults(int ranks, intptr_t numResults, const TPTensor *actual,
                 const TPTensor *expected, double tolerance, double *worst,
                 MlirStringCallback onError, void *userData);

#ifdef __cplusplus
}
#endif

#endif /* TP_C_RUNTIME_H */
