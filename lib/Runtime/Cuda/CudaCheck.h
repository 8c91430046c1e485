//===- CudaCheck.h - CUDA, cuBLASLt and NCCL errors as Status ---*- C++ -*-===//
//
// Every call's failure becomes a runtime error naming the call (and, through
// `context`, the op and shapes), never an abort.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_RUNTIME_CUDA_CUDACHECK_H
#define TP_LIB_RUNTIME_CUDA_CUDACHECK_H

#include "CublasLt.h"
#include "tp/Runtime/Status.h"

#include <cuda_runtime.h>
#include <nccl.h>

#include <string>

namespace mlir::tp::rt::cuda {

inline Status check(cudaError_t error, const char *call,
                    const std::string &context) {
  if (error == cudaSuccess)
    return Status::ok();
  return Status::error(context + ": " + call +
                       " failed: " + cudaGetErrorName(error) + " (" +
                       cudaGetErrorString(error) + ")");
}

inline Status check(cublasStatus_t status, const char *call,
                    const std::string &context) {
  if (status == CUBLAS_STATUS_SUCCESS)
    return Status::ok();
  return Status::error(context + ": " + call +
                       " failed: " + cublasStatusText(status));
}

inline Status check(ncclResult_t result, const char *call,
                    const std::string &context) {
  if (result == ncclSuccess)
    return Status::ok();
  return Status::error(context + ": " + call +
                       " failed: " + ncclGetErrorString(result));
}

} // namespace mlir::tp::rt::cuda

/// Returns a runtime error from the enclosing function when a CUDA, cuBLASLt
/// or NCCL call fails; `context` is a std::string in scope naming the op.
#define TP_CUDA(call)                                                          \
  TP_RETURN_IF_ERROR(::mlir::tp::rt::cuda::check((call), #call, context))

#endif // TP_LIB_RUNTIME_CUDA_CUDACHECK_H
