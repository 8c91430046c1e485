//===- Pipelines.cpp - the one-flag async-TP pipeline and registration ----===//

#include "tp/Pipelines/Pipelines.h"
#include "tp/Pipelines/LowerToLLVM.h"
#include "tp/Conversion/Passes.h"
#include "tp/Dialect/TP/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::tp::buildAsyncTPPipeline(OpPassManager &pm,
                                    const AsyncTPPipelineOptions &options) {
  TPImportOptions importOptions;
  importOptions.emitRemarks = options.emitRemarks;
  pm.addPass(createTPImport(importOptions));
  // Layers written as tp.linear (the dialect's own level) fuse too.
  pm.addPass(createTPLowerLinear());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Collectives of data nobody reads (upstream's gathered accumulator
  // tensor.empty) and zero addends (the rank-0 accumulator once that is
  // gone) would otherwise block or burden fusion.
  TPSimplifyCollectivesOptions simplifyOptions;
  simplifyOptions.emitRemarks = options.emitRemarks;
  simplifyOptions.reportCounts = options.reportCounts;
  pm.addPass(createTPSimplifyCollectives(simplifyOptions));
  // Work that does not change across a loop's iterations (quantizing a weight
  // and computing its scale inside a microbatch loop) runs once, above it.
  pm.addPass(createLoopInvariantCodeMotionPass());
  if (options.sequenceParallel) {
    TPSequenceParallelOptions sequenceOptions;
    sequenceOptions.emitRemarks = options.emitRemarks;
    sequenceOptions.reportCounts = options.reportCounts;
    pm.addPass(createTPSequenceParallel(sequenceOptions));
    // The slices' offsets (group_rank * rows) fold and merge.
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  TPAsyncTPOptions fuseOptions;
  fuseOptions.emitRemarks = options.emitRemarks;
  fuseOptions.tensorParallelAxis = options.tensorParallelAxis;
  fuseOptions.reportCounts = options.reportCounts;
  fuseOptions.target = options.target;
  pm.addPass(createTPAsyncTP(fuseOptions));
  pm.addPass(createCSEPass());
}

void mlir::tp::registerAsyncTPPipeline() {
  PassPipelineRegistration<AsyncTPPipelineOptions>(
      "tp-async-tp-pipeline",
      "Upstream per-rank IR or tp.linear layers to fused tp ops: tp-import, "
      "tp-lower-linear, canonicalize, cse, tp-simplify-collectives, "
      "loop-invariant-code-motion, [tp-sequence-parallel, canonicalize, "
      "cse,] tp-async-tp, cse",
      buildAsyncTPPipeline);
}

void mlir::tp::registerTPDialects(DialectRegistry &registry) {
  registry.insert<TPDialect, arith::ArithDialect, func::FuncDialect,
                  linalg::LinalgDialect, math::MathDialect, scf::SCFDialect,
                  shard::ShardDialect, tensor::TensorDialect>();
  // TOSA, what several frontends emit: parsed, carried through import and
  // fusion as glue, lowered by tp-lower-to-llvm (tp-lower-tosa).
  registry.insert<tosa::TosaDialect>();
  // Module attributes of upstream's sharding tests (data layout specs).
  registry.insert<DLTIDialect>();
  func::registerInlinerExtension(registry);
  registerLoweringDialects(registry);
}

void mlir::tp::registerTPPassesAndPipelines() {
  registerCanonicalizerPass();
  registerCSEPass();
  registerLoopInvariantCodeMotionPass();
  registerTPPasses();
  registerTPConversionPasses();
  registerAsyncTPPipeline();
  registerLowerToLLVMPipeline();
}
