/*===- tp-c/TP.h - C API of the tp dialect and its pipeline --------*- C
-*-===*\
|*                                                                            *|
|* Follows MLIR's C API conventions: a dialect handle, registration calls,    *|
|* and functions over MlirModule / MlirOpPassManager that report failure as   *|
|* MlirLogicalResult. Diagnostics go to the context's handlers.               *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TP_C_TP_H
#define TP_C_TP_H

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/* mlirGetDialectHandle__tp__() */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(TP, tp);

/* Inserts tp and the upstream dialects tp pipelines read (shard, func, arith,
 * math, tensor, linalg, scf, tosa, dlti) and those the lowering to LLVM produces, with
 * their interface models, into `registry`. */
MLIR_CAPI_EXPORTED void tpRegisterDialects(MlirDialectRegistry registry);

/* Registers every tp pass and `tp-async-tp-pipeline` with the global pass
 * registry, so textual pipelines (mlirParsePassPipeline) can name them. */
MLIR_CAPI_EXPORTED void tpRegisterPasses(void);

/* Options of the async-TP pipeline. */
typedef struct TPAsyncTPPipelineOptions {
  /* Remark on every op not raised and every collective not fused. */
  bool emitRemarks;
  /* Fuse only collectives along this grid axis; -1 for any single axis. */
  int tensorParallelAxis;
  /* Emit one remark per pass counting what it did (fusions, misses). */
  bool reportCounts;
  /* Split all-reduces of matmul partial sums into reduce-scatter +
     all-gather and run the glue between them on this rank's rows
     (tp-sequence-parallel) before fusing. */
  bool sequenceParallel;
} TPAsyncTPPipelineOptions;

/* The defaults: no remarks, any single axis. */
MLIR_CAPI_EXPORTED TPAsyncTPPipelineOptions
tpAsyncTPPipelineOptionsDefault(void);

/* Appends import, canonicalize, cse, fuse, cse to `pm`. */
MLIR_CAPI_EXPORTED void tpAddAsyncTPPipeline(MlirOpPassManager pm,
                                             TPAsyncTPPipelineOptions options);

/* Runs the pipeline on `module` in place. */
MLIR_CAPI_EXPORTED MlirLogicalResult
tpRunAsyncTPPipeline(MlirModule module, TPAsyncTPPipelineOptions options);

/* Options of the lowering to the LLVM dialect (tp-lower-to-llvm). */
typedef struct TPLowerToLLVMOptions {
  /* Upstream's runtime verification in the compiled code. */
  bool runtimeChecks;
} TPLowerToLLVMOptions;

/* The defaults: runtime checks on. */
MLIR_CAPI_EXPORTED TPLowerToLLVMOptions tpLowerToLLVMOptionsDefault(void);

/* Appends tp-lower-to-llvm to `pm` (a module pass manager): tp ops become
 * calls of the runtime ABI (docs/RuntimeABI.md), everything else lowers
 * through upstream passes. The registry of the module's context needs
 * tpRegisterDialects. */
MLIR_CAPI_EXPORTED void tpAddLowerToLLVMPipeline(MlirOpPassManager pm,
                                                 TPLowerToLLVMOptions options);

/* Runs the lowering on `module` in place. */
MLIR_CAPI_EXPORTED MlirLogicalResult
tpRunLowerToLLVMPipeline(MlirModule module, TPLowerToLLVMOptions options);

#ifdef __cplusplus
}
#endif

#endif /* TP_C_TP_H */
