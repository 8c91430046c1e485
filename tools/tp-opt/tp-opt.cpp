//===- tp-opt.cpp - mlir-opt for the tp dialect ---------------------------===//
//
// An explicit registry: the tp dialect, the upstream dialects users bring
// (func, arith, math, tensor, linalg, scf, shard, tosa), standard passes and
// ours (tp-lower-tosa among them), and the GPU and NVVM dialects with the
// NVPTX target for tp-lower-glue-to-nvvm. Nothing else, so the tool stays
// small and quick to link.
//
//===----------------------------------------------------------------------===//

#include "tp/Pipelines/GlueToNVVM.h"
#include "tp/Pipelines/Pipelines.h"

#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::tp::registerTPDialects(registry);
  mlir::tp::registerTPPassesAndPipelines();
  // Glue as GPU kernels (PTX), which only tp-opt carries.
  mlir::tp::registerGlueToNVVMDialects(registry);
  mlir::tp::registerGlueToNVVMPipeline();
  mlir::registerInlinerPass();
  mlir::registerSymbolDCEPass();
  // To test tp's bufferization models on their own.
  mlir::bufferization::registerOneShotBufferizePass();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "tp: async tensor parallelism optimizer driver\n", registry));
}
