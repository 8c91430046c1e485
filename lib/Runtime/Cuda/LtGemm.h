//===- LtGemm.h - row-major GEMMs through cuBLASLt --------------*- C++ -*-===//
//
// D[M, N] = scaleA * scaleB * (op(A) @ op(B)) + beta * D (+ bias[N]) on row-
// major operands, optionally batched over A's leading dims with B broadcast.
// cuBLASLt is column-major, so it computes D^T = op(B)^T A^T: our B is its
// first operand. FP8 needs the "TN" layout, i.e. B given as [N, K].
// Heuristic results are cached per problem and pointer alignment (which the
// heuristic is told: pieces sit at any offset); an SM-count target lets chunk
// GEMMs leave SMs to communication kernels. Every stream gets its own
// workspace, and every fallback to a slower path is counted.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_RUNTIME_CUDA_LTGEMM_H
#define TP_LIB_RUNTIME_CUDA_LTGEMM_H

#include "CublasLt.h"
#include "CudaCheck.h"
#include "CudaPlan.h"
#include "tp/Runtime/DType.h"

#include <functional>
#include <map>
#include <tuple>

namespace mlir::tp::rt::cuda {

struct GemmProblem {
  int64_t m = 0, n = 0, k = 0;
  /// Batched over `batch` A/D blocks of strides strideA/strideD; B shared
  /// when strideB is 0, else one B per block.
  int64_t batch = 1, strideA = 0, strideD = 0, strideB = 0;
  int64_t lda = 0, ldb = 0, ldd = 0;
  DType aType = DType::F32, bType = DType::F32, dType = DType::F32;
  /// A stored [K, M] (ld lda >= M) rather than [M, K]; B stored [N, K]
  /// rather than [K, N].
  bool transposeA = false, transposeB = false;
  /// FP8 scales: device fp32 pointers; per-tensor (one value) or outer vector
  /// (one per row of A / of B) when rowWise.
  const float *aScale = nullptr, *bScale = nullptr;
  bool rowWise = false;
  /// Device bias over N (same type as D), added by the epilogue (or by a
  /// kernel: see biasRoute).
  const void *bias = nullptr;
  float beta = 0.0f;
  /// 0: all SMs.
  int smCountTarget = 0;
  /// Byte alignment of the A, B and D pointers (set by LtGemm::run).
  int alignA = 256, alignB = 256, alignD = 256;
};

class LtGemm {
public:
  LtGemm() = default;
  ~LtGemm();
  LtGemm(const LtGemm &) = delete;
  LtGemm &operator=(const LtGemm &) = delete;

  Status init(const std::string &context);
  /// Allocates `stream`'s workspace now rather than at its first GEMM (which
  /// may be timed).
  Status reserveWorkspace(cudaStream_t stream, const std::string &context);
  /// Whether cuBLASLt has an algorithm for `problem` on these pointers
  /// (cached).
  bool supports(const GemmProblem &problem, const void *a, const void *b,
                const void *d);
  /// Enqueues the GEMM. Refused (with `error` set) when cuBLASLt has no
  /// algorithm for it or cublasLtMatmul refuses the one it has; Failed on
  /// any other error.
  Attempt attempt(const GemmProblem &problem, const void *a, const void *b,
                  void *d, cudaStream_t stream, const std::string &context,
                  Status &error);
  /// attempt(), with a refusal as an error.
  Status run(const GemmProblem &problem, const void *a, const void *b, void *d,
             cudaStream_t stream, const std::string &context);

  /// Counts a fallback and tells the observer (the trace).
  void note(Fallback fallback) {
    fallbacks.add(fallback);
    if (observer)
      observer(fallback);
  }
  const FallbackCounters &counters() const { return fallbacks; }
  void setObserver(std::function<void(Fallback)> callback) {
    observer = std::move(callback);
  }
  /// Workspaces allocated so far (one per stream that ran a GEMM).
  size_t workspaceCount() const { return workspaces.size(); }

private:
  struct Plan {
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t layoutB = nullptr, layoutA = nullptr,
                           layoutD = nullptr;
    cublasLtMatmulAlgo_t algo{};
    bool found = false;
    BiasRoute bias = BiasRoute::None;
    /// Why nothing was found, for the error.
    std::string refusal;
  };
  using Key =
      std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                 int64_t, int64_t, int64_t, int, int, int, bool, bool, bool,
                 bool, bool, bool, int, int, int, int>;
  Status plan(const GemmProblem &problem, Plan *&result,
              const std::string &context);
  Status workspaceFor(cudaStream_t stream, void *&workspace,
                      const std::string &context);

  /// Set by init: cuBLASLt, opened on first use (CublasLt.h).
  const CublasLtApi *lt = nullptr;
  cublasLtHandle_t handle = nullptr;
  size_t workspaceSize = 32u << 20;
  WorkspaceOwners workspaceOwners;
  std::vector<void *> workspaces;
  std::map<Key, Plan> plans;
  FallbackCounters fallbacks;
  std::function<void(Fallback)> observer;
};

cudaDataType_t toCudaType(DType type);

} // namespace mlir::tp::rt::cuda

#endif // TP_LIB_RUNTIME_CUDA_LTGEMM_H
