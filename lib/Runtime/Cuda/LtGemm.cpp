//===- LtGemm.cpp - row-major GEMMs through cuBLASLt ----------------------===//

#include "LtGemm.h"
#include "Kernels.h"

using namespace mlir::tp::rt;
using namespace mlir::tp::rt::cuda;

cudaDataType_t cuda::toCudaType(DType type) {
  switch (type) {
  case DType::F64:
    return CUDA_R_64F;
  case DType::F16:
    return CUDA_R_16F;
  case DType::BF16:
    return CUDA_R_16BF;
  case DType::F8E4M3FN:
    return CUDA_R_8F_E4M3;
  case DType::F8E5M2:
    return CUDA_R_8F_E5M2;
  default:
    return CUDA_R_32F;
  }
}

LtGemm::~LtGemm() {
  for (void *workspace : workspaces)
    cudaFree(workspace);
  if (!lt) // init never ran, or could not load cuBLASLt: nothing of it exists
    return;
  for (auto &[key, p] : plans) {
    lt->cublasLtMatmulDescDestroy(p.desc);
    lt->cublasLtMatrixLayoutDestroy(p.layoutA);
    lt->cublasLtMatrixLayoutDestroy(p.layoutB);
    lt->cublasLtMatrixLayoutDestroy(p.layoutD);
  }
  if (handle)
    lt->cublasLtDestroy(handle);
}

Status LtGemm::init(const std::string &context) {
  TP_RETURN_IF_ERROR(loadCublasLt(lt, context));
  TP_CUDA(lt->cublasLtCreate(&handle));
  return Status::ok();
}

Status LtGemm::workspaceFor(cudaStream_t stream, void *&workspace,
                            const std::string &context) {
  bool fresh = false;
  size_t slot = workspaceOwners.slotOf(stream, fresh);
  if (fresh)
    workspaces.push_back(nullptr);
  if (!workspaces[slot]) // new, or its allocation failed before
    TP_CUDA(cudaMalloc(&workspaces[slot], workspaceSize));
  workspace = workspaces[slot];
  return Status::ok();
}

Status LtGemm::reserveWorkspace(cudaStream_t stream,
                                const std::string &context) {
  void *workspace;
  return workspaceFor(stream, workspace, context);
}

Status LtGemm::plan(const GemmProblem &p, Plan *&result,
                    const std::string &context) {
  Key key{p.m,
          p.n,
          p.k,
          p.batch,
          p.strideA,
          p.strideD,
          p.strideB,
          p.lda,
          p.ldb,
          p.ldd,
          int(p.aType),
          int(p.bType),
          int(p.dType),
          p.transposeA,
          p.transposeB,
          p.aScale != nullptr,
          p.rowWise,
          p.bias != nullptr,
          p.beta != 0.0f,
          p.smCountTarget,
          p.alignA,
          p.alignB,
          p.alignD};
  auto it = plans.find(key);
  if (it != plans.end()) {
    result = &it->second;
    return Status::ok();
  }
  Plan &plan = plans[key];
  result = &plan;
  bool fp8 = isFp8(p.aType);
  cublasComputeType_t compute =
      p.dType == DType::F64 ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
  cudaDataType_t scaleType = p.dType == DType::F64 ? CUDA_R_64F : CUDA_R_32F;
  TP_CUDA(lt->cublasLtMatmulDescCreate(&plan.desc, compute, scaleType));
  // Column-major view: D^T[N, M] = op(B)^T [N, K] x op(A)^T [K, M].
  cublasOperation_t opB = p.transposeB ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t opA = p.transposeA ? CUBLAS_OP_T : CUBLAS_OP_N;
  TP_CUDA(lt->cublasLtMatmulDescSetAttribute(
      plan.desc, CUBLASLT_MATMUL_DESC_TRANSA, &opB, sizeof(opB)));
  TP_CUDA(lt->cublasLtMatmulDescSetAttribute(
      plan.desc, CUBLASLT_MATMUL_DESC_TRANSB, &opA, sizeof(opA)));
  if (p.smCountTarget > 0)
    TP_CUDA(lt->cublasLtMatmulDescSetAttribute(
        plan.desc, CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET, &p.smCountTarget,
        sizeof(p.smCountTarget)));
  if (fp8 && p.rowWise) {
    // One fp32 scale per row of B (cuBLAS's A) and per row of A (its B).
    cublasLtMatmulMatrixScale_t mode =
        CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F;
    TP_CUDA(lt->cublasLtMatmulDescSetAttribute(
        plan.desc, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &mode, sizeof(mode)));
    TP_CUDA(lt->cublasLtMatmulDescSetAttribute(
        plan.desc, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &mode, sizeof(mode)));
  }
  plan.bias = biasRoute(p.bias != nullptr, p.aType, p.dType);
  if (plan.bias == BiasRoute::LtEpilogue) {
    cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
    cudaDataType_t biasType = toCudaType(p.dType);
    TP_CUDA(lt->cublasLtMatmulDescSetAttribute(
        plan.desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue)));
    TP_CUDA(lt->cublasLtMatmulDescSetAttribute(
        plan.desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &biasType,
        sizeof(biasType)));
  }
  // B (cuBLAS A): [K, N] row-major is column-major [N, K] with ld N, or with
  // transposeB [N, K] row-major is column-major [K, N] with ld K.
  TP_CUDA(lt->cublasLtMatrixLayoutCreate(&plan.layoutB, toCudaType(p.bType),
                                         p.transposeB ? p.k : p.n,
                                         p.transposeB ? p.n : p.k, p.ldb));
  // A (cuBLAS B): [M, K] row-major is column-major [K, M] with ld K, or with
  // transposeA [K, M] row-major is column-major [M, K] with ld M.
  TP_CUDA(lt->cublasLtMatrixLayoutCreate(&plan.layoutA, toCudaType(p.aType),
                                         p.transposeA ? p.m : p.k,
                                         p.transposeA ? p.k : p.m, p.lda));
  TP_CUDA(lt->cublasLtMatrixLayoutCreate(&plan.layoutD, toCudaType(p.dType),
                                         p.n, p.m, p.ldd));
  if (p.batch > 1) {
    int32_t batch = static_cast<int32_t>(p.batch);
    for (auto [layout, stride] : {std::pair{plan.layoutB, p.strideB},
                                  std::pair{plan.layoutA, p.strideA},
                                  std::pair{plan.layoutD, p.strideD}}) {
      TP_CUDA(lt->cublasLtMatrixLayoutSetAttribute(
          layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof(batch)));
      TP_CUDA(lt->cublasLtMatrixLayoutSetAttribute(
          layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
          sizeof(stride)));
    }
  }
  if (!matrixPointersUsable(p.aType, p.alignA, p.alignB, p.alignD)) {
    plan.refusal = "FP8 needs 16-byte aligned matrices, these are aligned to " +
                   std::to_string(p.alignA) + "/" + std::to_string(p.alignB) +
                   "/" + std::to_string(p.alignD) + " bytes";
    return Status::ok();
  }
  // The heuristic must know how the pointers are aligned: it assumes 256
  // bytes otherwise, and cublasLtMatmul refuses pieces at smaller offsets.
  LtPreferences wanted =
      ltPreferences(p.alignA, p.alignB, p.alignD, workspaceSize);
  cublasLtMatmulPreference_t preference;
  TP_CUDA(lt->cublasLtMatmulPreferenceCreate(&preference));
  Status set = Status::ok();
  auto prefer = [&](cublasLtMatmulPreferenceAttributes_t attribute,
                    const auto &value) {
    if (set.isOk())
      set = check(lt->cublasLtMatmulPreferenceSetAttribute(
                      preference, attribute, &value, sizeof(value)),
                  "cublasLtMatmulPreferenceSetAttribute", context);
  };
  prefer(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, wanted.maxWorkspaceBytes);
  prefer(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, wanted.minAlignmentA);
  prefer(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, wanted.minAlignmentB);
  prefer(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, wanted.minAlignmentC);
  prefer(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, wanted.minAlignmentD);
  if (!set.isOk()) {
    lt->cublasLtMatmulPreferenceDestroy(preference);
    return set;
  }
  cublasLtMatmulHeuristicResult_t heuristic{};
  int found = 0;
  cublasStatus_t status = lt->cublasLtMatmulAlgoGetHeuristic(
      handle, plan.desc, plan.layoutB, plan.layoutA, plan.layoutD, plan.layoutD,
      preference, 1, &heuristic, &found);
  lt->cublasLtMatmulPreferenceDestroy(preference);
  plan.found = status == CUBLAS_STATUS_SUCCESS && found > 0;
  if (plan.found)
    plan.algo = heuristic.algo;
  else
    plan.refusal = status == CUBLAS_STATUS_SUCCESS
                       ? std::string("the heuristic found no algorithm")
                       : std::string("cublasLtMatmulAlgoGetHeuristic: ") +
                             lt->cublasLtGetStatusName(status);
  return Status::ok();
}

bool LtGemm::supports(const GemmProblem &problem, const void *a, const void *b,
                      const void *d) {
  GemmProblem p = problem;
  p.alignA = alignmentOf(a);
  p.alignB = alignmentOf(b);
  p.alignD = alignmentOf(d);
  Plan *planned = nullptr;
  return plan(p, planned, "cuBLASLt heuristic").isOk() && planned->found;
}

static std::string describe(const GemmProblem &p) {
  return std::string(name(p.aType)) + " GEMM of " + std::to_string(p.m) + "x" +
         std::to_string(p.n) + "x" + std::to_string(p.k) + " (batch " +
         std::to_string(p.batch) + ")";
}

Attempt LtGemm::attempt(const GemmProblem &problem, const void *a,
                        const void *b, void *d, cudaStream_t stream,
                        const std::string &context, Status &error) {
  GemmProblem p = problem;
  p.alignA = alignmentOf(a);
  p.alignB = alignmentOf(b);
  p.alignD = alignmentOf(d);
  auto failed = [&](Status status) {
    error = std::move(status);
    return Attempt::Failed;
  };
  Plan *planned = nullptr;
  if (Status s = plan(p, planned, context); !s.isOk())
    return failed(std::move(s));
  if (!planned->found) {
    error = Status::error(context + ": cuBLASLt has no algorithm for a " +
                          describe(p) + ": " + planned->refusal);
    return Attempt::Refused;
  }
  void *workspace;
  if (Status s = workspaceFor(stream, workspace, context); !s.isOk())
    return failed(std::move(s));
  // Per-call pointers: scales (swapped: our B is cuBLAS's A) and bias.
  auto setPointer = [&](cublasLtMatmulDescAttributes_t attribute,
                        const void *value) {
    return check(lt->cublasLtMatmulDescSetAttribute(planned->desc, attribute,
                                                    &value, sizeof(value)),
                 "cublasLtMatmulDescSetAttribute", context);
  };
  if (p.aScale) {
    if (Status s = setPointer(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, p.bScale);
        !s.isOk())
      return failed(std::move(s));
    if (Status s = setPointer(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, p.aScale);
        !s.isOk())
      return failed(std::move(s));
  }
  if (planned->bias == BiasRoute::LtEpilogue)
    if (Status s = setPointer(CUBLASLT_MATMUL_DESC_BIAS_POINTER, p.bias);
        !s.isOk())
      return failed(std::move(s));
  double alpha64 = 1.0, beta64 = p.beta;
  float alpha32 = 1.0f, beta32 = p.beta;
  bool wide = p.dType == DType::F64;
  const void *alpha = wide ? static_cast<const void *>(&alpha64) : &alpha32;
  const void *beta = wide ? static_cast<const void *>(&beta64) : &beta32;
  cublasStatus_t status = lt->cublasLtMatmul(
      handle, planned->desc, alpha, b, planned->layoutB, a, planned->layoutA,
      beta, d, planned->layoutD, d, planned->layoutD, &planned->algo, workspace,
      workspaceSize, stream);
  if (status == CUBLAS_STATUS_NOT_SUPPORTED) {
    // Refused despite the heuristic (e.g. scale pointers it never saw): the
    // caller's next path takes over.
    note(Fallback::NotSupportedRetry);
    error = check(status, "cublasLtMatmul", context + " (" + describe(p) + ")");
    return Attempt::Refused;
  }
  if (Status s = check(status, "cublasLtMatmul", context); !s.isOk())
    return failed(std::move(s));
  if (planned->bias == BiasRoute::Kernel) {
    note(Fallback::Fp8BiasKernel);
    if (Status s = check(launchAddBias(d, p.dType, p.batch, p.strideD, p.m, p.n,
                                       p.ldd, p.bias, p.dType, stream),
                         "bias kernel", context);
        !s.isOk())
      return failed(std::move(s));
  }
  return Attempt::Done;
}

Status LtGemm::run(const GemmProblem &problem, const void *a, const void *b,
                   void *d, cudaStream_t stream, const std::string &context) {
  Status error;
  Attempt outcome = attempt(problem, a, b, d, stream, context, error);
  return outcome == Attempt::Done ? Status::ok() : error;
}
