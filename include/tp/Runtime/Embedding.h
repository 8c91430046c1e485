/*===- Embedding.h - driving compiled tp programs from C -----------*- C
-*-===*\
|*                                                                            *|
|* What a program that embeds compiled tp code (ahead of time, without MLIR)  *|
|* calls around it: make a run of ranks on a backend, hand each rank's        *|
|* context to the compiled functions (their first argument), read a rank's    *|
|* error, destroy the run. The calls compiled code makes itself are ABI.h.    *|
|*                                                                            *|
|* See docs/RuntimeABI.md and examples/aot.                                   *|
\*===----------------------------------------------------------------------===*/

#ifndef TP_RUNTIME_EMBEDDING_H
#define TP_RUNTIME_EMBEDDING_H

#include "tp/Runtime/ABI.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Driving compiled code without MLIR (ahead-of-time programs): a run of N
 * ranks as threads of this process on the CPU backend, and each rank's
 * context to pass compiled functions first. */
typedef struct TPRtRun TPRtRun;
/// A run of `ranks` ranks whose collectives give up after `timeoutMs`.
TPRtRun *tpRtRunCreate(int32_t ranks, int64_t timeoutMs);
/// Rank `rank`'s context; owned by the run.
TPRtContext *tpRtRunContext(TPRtRun *run, int32_t rank);
/// Null while the rank has no error, else its message (owned by the context).
const char *tpRtContextError(TPRtContext *ctx);
void tpRtRunDestroy(TPRtRun *run);
/// The number of ranks of the run.
int32_t tpRtRunSize(TPRtRun *run);

/// A run of `ranks` ranks as threads of this process on the CUDA backend
/// (loopback transport: rank r on GPU r % devices), in library
/// AsyncTP::TPRuntimeCuda. Null, with a message on stderr, without a device.
/// Operands and results in device or managed memory (the host-shared
/// buffers of glue compiled by tp-lower-glue-to-nvvm) are used in place.
TPRtRun *tpRtCudaRunCreate(int32_t ranks, int64_t timeoutMs);
/// Bytes the rank's backend has copied between host memory and the device
/// since the run was made (zero on the CPU backend).
void tpRtContextHostTransfers(TPRtContext *ctx, int64_t *hostToDevice,
                              int64_t *deviceToHost);
/* A program started by mpirun, one rank per process, on the CPU backend over
 * MPI (library AsyncTP::TPRuntimeMpi). */
/// This process's rank of a run spanning MPI_COMM_WORLD. Initializes MPI
/// (MPI_THREAD_MULTIPLE) unless the program has, and then finalizes it in
/// tpRtRunDestroy. Null, with a message on stderr, when it cannot.
TPRtRun *tpRtMpiRunCreate(int64_t timeoutMs);
/// The rank whose context this process holds (tpRtRunContext(run, it)).
int32_t tpRtMpiRunRank(TPRtRun *run);
/// Ends every rank of the job after this one failed with `message`.
void tpRtMpiAbort(const char *message);

#ifdef __cplusplus
}
#endif

#endif /* TP_RUNTIME_EMBEDDING_H */
