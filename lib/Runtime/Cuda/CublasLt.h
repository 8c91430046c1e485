//===- CublasLt.h - cuBLASLt, opened on first use ---------------*- C++ -*-===//
//
// cuBLASLt is opened with dlopen by the first GEMM's LtGemm::init, not linked:
// its loader relocations touch ~100 MB of pages and cost ~70 ms of system
// time in every process that links it, and every tp-run process (a rank, a
// launcher, one of a test's thousands) would pay that although only runs on
// the cuda backend multiply with it. The CUDA runtime and NCCL stay linked:
// they load in under a millisecond.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_RUNTIME_CUDA_CUBLASLT_H
#define TP_LIB_RUNTIME_CUDA_CUBLASLT_H

#include "tp/Runtime/Status.h"

#include <cublasLt.h>

#include <string>
#include <vector>

namespace mlir::tp::rt::cuda {

/// The cuBLASLt entry points the backend calls.
#define TP_CUBLASLT_FUNCTIONS(X)                                               \
  X(cublasLtCreate)                                                            \
  X(cublasLtDestroy)                                                           \
  X(cublasLtGetStatusName)                                                     \
  X(cublasLtGetStatusString)                                                   \
  X(cublasLtMatmul)                                                            \
  X(cublasLtMatmulAlgoGetHeuristic)                                            \
  X(cublasLtMatmulDescCreate)                                                  \
  X(cublasLtMatmulDescDestroy)                                                 \
  X(cublasLtMatmulDescSetAttribute)                                            \
  X(cublasLtMatmulPreferenceCreate)                                            \
  X(cublasLtMatmulPreferenceDestroy)                                           \
  X(cublasLtMatmulPreferenceSetAttribute)                                      \
  X(cublasLtMatrixLayoutCreate)                                                \
  X(cublasLtMatrixLayoutDestroy)                                               \
  X(cublasLtMatrixLayoutSetAttribute)

/// The library's functions, each named as cuBLASLt names it.
struct CublasLtApi {
#define TP_CUBLASLT_POINTER(name) decltype(&::name) name = nullptr;
  TP_CUBLASLT_FUNCTIONS(TP_CUBLASLT_POINTER)
#undef TP_CUBLASLT_POINTER
};

/// Opens cuBLASLt once per process (later calls return the same table), or
/// fails naming the library and dlerror's reason.
Status loadCublasLt(const CublasLtApi *&api, const std::string &context);

/// What loadCublasLt does once: opens the first of `candidates` (sonames or
/// paths) that loads and resolves every function into `api`. The error
/// names every candidate tried and why, or the functions a library lacks.
Status openCublasLt(const std::vector<std::string> &candidates,
                    CublasLtApi &api);

/// "CUBLAS_STATUS_... (description)", or the bare code when cuBLASLt is not
/// loaded.
std::string cublasStatusText(cublasStatus_t status);

} // namespace mlir::tp::rt::cuda

#endif // TP_LIB_RUNTIME_CUDA_CUBLASLT_H
