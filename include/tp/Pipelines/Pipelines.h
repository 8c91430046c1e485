//===- Pipelines.h - the one-flag async-TP pipeline -------------*- C++ -*-===//
#ifndef TP_PIPELINES_PIPELINES_H
#define TP_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class DialectRegistry;
class OpPassManager;
namespace tp {

/// Options of `tp-async-tp-pipeline`, typed for embedders.
struct AsyncTPPipelineOptions
    : public PassPipelineOptions<AsyncTPPipelineOptions> {
  Option<bool> emitRemarks{
      *this, "emit-remarks",
      llvm::cl::desc("Remark on every op not raised and collective not fused"),
      llvm::cl::init(false)};
  Option<int> tensorParallelAxis{
      *this, "tp-axis",
      llvm::cl::desc("Fuse only collectives along this grid axis (-1: any "
                     "single axis)"),
      llvm::cl::init(-1)};
  Option<bool> reportCounts{
      *this, "stats",
      llvm::cl::desc("Emit one remark counting fusions by kind and the "
                     "collectives left unfused, and one counting the "
                     "collectives removed and zero addends dropped"),
      llvm::cl::init(false)};
  Option<std::string> target{
      *this, "target",
      llvm::cl::desc("Target description for the cost model (preset "
                     "h100-nvlink, h200-nvlink, pcie-node, cpu, or a JSON "
                     "file): fuse only where it predicts a gain, with its "
                     "schedule; empty: fuse every candidate"),
      llvm::cl::init("")};
  Option<bool> sequenceParallel{
      *this, "sequence-parallel",
      llvm::cl::desc("Split all-reduces of matmul partial sums into "
                     "reduce-scatter + all-gather and run the glue between "
                     "them on this rank's rows (tp-sequence-parallel), so both "
                     "halves fuse"),
      llvm::cl::init(false)};
};

/// Appends import, tp.linear lowering, canonicalize, cse,
/// tp-simplify-collectives (unread collectives and zero addends removed),
/// loop-invariant-code-motion (e.g. weight quantization out of microbatch
/// loops), with `sequence-parallel` tp-sequence-parallel, canonicalize and
/// cse, then fuse, cse to `pm` (any op; usually a module).
void buildAsyncTPPipeline(OpPassManager &pm,
                          const AsyncTPPipelineOptions &options);

/// Registers `tp-async-tp-pipeline` with the global pass registry.
void registerAsyncTPPipeline();

/// The dialects a tp pipeline reads and writes: tp, shard, func, arith, math,
/// tensor, linalg, scf (with func's inliner extension), tosa, dlti, and those
/// tp-lower-to-llvm produces (registerLoweringDialects).
void registerTPDialects(DialectRegistry &registry);

/// Every tp pass and pipeline, plus the upstream passes the pipeline uses
/// (canonicalize, cse, loop-invariant-code-motion).
void registerTPPassesAndPipelines();

} // namespace tp
} // namespace mlir

#endif // TP_PIPELINES_PIPELINES_H
