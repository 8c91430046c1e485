//===- TP.cpp - C API of the tp dialect and its pipeline ------------------===//

#include "tp-c/TP.h"
#include "tp/Dialect/TP/IR/TPOps.h"
#include "tp/Pipelines/LowerToLLVM.h"
#include "tp/Pipelines/Pipelines.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(TP, tp, mlir::tp::TPDialect)

void tpRegisterDialects(MlirDialectRegistry registry) {
  mlir::tp::registerTPDialects(*unwrap(registry));
}

void tpRegisterPasses(void) { mlir::tp::registerTPPassesAndPipelines(); }

TPAsyncTPPipelineOptions tpAsyncTPPipelineOptionsDefault(void) {
  return TPAsyncTPPipelineOptions{/*emitRemarks=*/false,
                                  /*tensorParallelAxis=*/-1,
                                  /*reportCounts=*/false,
                                  /*sequenceParallel=*/false};
}

/// Pass options are not copyable: fill the caller's.
static void setPipelineOptions(mlir::tp::AsyncTPPipelineOptions &result,
                               TPAsyncTPPipelineOptions options) {
  result.emitRemarks = options.emitRemarks;
  result.tensorParallelAxis = options.tensorParallelAxis;
  result.reportCounts = options.reportCounts;
  result.sequenceParallel = options.sequenceParallel;
}

void tpAddAsyncTPPipeline(MlirOpPassManager pm,
                          TPAsyncTPPipelineOptions options) {
  mlir::tp::AsyncTPPipelineOptions pipelineOptions;
  setPipelineOptions(pipelineOptions, options);
  mlir::tp::buildAsyncTPPipeline(*unwrap(pm), pipelineOptions);
}

MlirLogicalResult tpRunAsyncTPPipeline(MlirModule module,
                                       TPAsyncTPPipelineOptions options) {
  ModuleOp op = unwrap(module);
  PassManager pm(op->getName());
  mlir::tp::AsyncTPPipelineOptions pipelineOptions;
  setPipelineOptions(pipelineOptions, options);
  mlir::tp::buildAsyncTPPipeline(pm, pipelineOptions);
  return wrap(pm.run(op));
}

TPLowerToLLVMOptions tpLowerToLLVMOptionsDefault(void) {
  return TPLowerToLLVMOptions{/*runtimeChecks=*/true};
}

void tpAddLowerToLLVMPipeline(MlirOpPassManager pm,
                              TPLowerToLLVMOptions options) {
  mlir::tp::LowerToLLVMOptions pipelineOptions;
  pipelineOptions.runtimeChecks = options.runtimeChecks;
  mlir::tp::buildLowerToLLVMPipeline(*unwrap(pm), pipelineOptions);
}

MlirLogicalResult tpRunLowerToLLVMPipeline(MlirModule module,
                                           TPLowerToLLVMOptions options) {
  ModuleOp op = unwrap(module);
  PassManager pm(op->getName());
  mlir::tp::LowerToLLVMOptions pipelineOptions;
  pipelineOptions.runtimeChecks = options.runtimeChecks;
  mlir::tp::buildLowerToLLVMPipeline(pm, pipelineOptions);
  return wrap(pm.run(op));
}
