//===- tp-opt.cpp - mlir-opt for the tp dialect ---------------------------===//
//
// An explicit registry: the tp dialect, the upstream dialects users bring
// (func, arith, math, tensor, linalg, scf, shard, tosa), standard passes and
// ours (tp-lower-tosa among them), upstream's sharding-propagation and
// shard-partition with the sharding models they need (tp's for loops over
// layers among them), and the GPU and NVVM dialects with the
// NVPTX target for tp-lower-glue-to-nvvm, and the analyses' test passes
// (test/lib). Nothing else, so the tool stays
// small and quick to link.
//
// The input is read before upstream's driver parses it, so text nested
// deeper than the parser's stack allows is refused with a message.
//
// --tp-print-target=NAME prints a cost-model target description (a preset
// or a JSON file, checked) as JSON and reads no input: a starting point for
// a description of one's own machine.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"
#include "tp/Dialect/TP/Transforms/CostModel.h"
#include "tp/Pipelines/GlueToNVVM.h"
#include "tp/Pipelines/Pipelines.h"
#include "tp/Sharding/Sharding.h"
#include "tp/Support/Nesting.h"

#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

static llvm::cl::opt<std::string> printTarget(
    "tp-print-target",
    llvm::cl::desc("Print a cost-model target description (a preset name or "
                   "a JSON file) as JSON and exit"),
    llvm::cl::value_desc("target"), llvm::cl::init(""));

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::tp::registerTPDialects(registry);
  mlir::tp::registerTPPassesAndPipelines();
  // Upstream's sharding flow, with tp's model for loops over layers.
  mlir::tp::registerShardingModels(registry);
  mlir::tp::registerShardingPasses();
  // Glue as GPU kernels (PTX), which only tp-opt carries.
  mlir::tp::registerGlueToNVVMDialects(registry);
  mlir::tp::registerGlueToNVVMPipeline();
  // Analyses' test passes (test/lib).
  mlir::tp::test::registerTestPasses();
  mlir::registerInlinerPass();
  mlir::registerSymbolDCEPass();
  // To test tp's bufferization models on their own.
  mlir::bufferization::registerOneShotBufferizePass();
  // To test the ops' result shapes (ReifyRankedShapedTypeOpInterface).
  mlir::memref::registerResolveRankedShapeTypeResultDimsPass();

  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "tp: async tensor parallelism optimizer driver\n", registry);
  if (!printTarget.empty()) {
    std::string error;
    std::optional<mlir::tp::TargetDescription> target =
        mlir::tp::TargetDescription::load(printTarget, error);
    if (!target) {
      llvm::errs() << "tp-opt: --tp-print-target: " << error << "\n";
      return 1;
    }
    llvm::outs() << target->toJSON() << "\n";
    return 0;
  }
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  // Listing dialects or passes reads no input: upstream's driver does it.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(mlir::MlirOptMain(
        argc, argv, inputFilename, outputFilename, registry));

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << error << "\n";
    return 1;
  }
  int depth = mlir::tp::nestingDepth(input->getBuffer());
  if (depth > mlir::tp::kDeepestNesting) {
    llvm::errs() << "tp-opt: '" << inputFilename
                 << "' nests regions, attributes or types " << depth
                 << " levels deep; tp-opt parses at most "
                 << mlir::tp::kDeepestNesting
                 << " (the parser recurses once per level)\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (mlir::failed(mlir::MlirOptMain(output->os(), std::move(input), registry,
                                     config)))
    return 1;
  output->keep();
  return 0;
}
