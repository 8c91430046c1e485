//===- ImportPass.cpp - the tp-import pass --------------------------------===//

#include "Reasons.h"
#include "tp/Conversion/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPIMPORT
#include "tp/Conversion/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;
using namespace mlir::tp;

std::optional<std::string> mlir::tp::whyNotRaised(Operation *op) {
  if (!isa<shard::ShardDialect>(op->getDialect()))
    return import::whyContractionNotRaised(op);
  if (std::optional<std::string> why = import::whyCollectiveNotRaised(op))
    return why;
  // Ops tp has a form of are raised unless a reason above says otherwise; a
  // grid and sharding annotations are declarations, not work.
  if (isa<shard::ShardOp>(op))
    return std::string("it is a sharding annotation: the program is not "
                       "partitioned yet (run upstream's shard-partition "
                       "first)");
  if (isa<shard::GridOp, shard::ShardingOp>(op))
    return std::nullopt;
  if (isa<shard::UpdateHaloOp>(op))
    return std::string("tp has no halo exchange (a stencil's neighbour "
                       "rows); keep halo_sizes out of shardings tp runs");
  if (op->getName().getStringRef() == "shard.all_to_all" ||
      isa<shard::AllGatherOp, shard::ReduceScatterOp, shard::AllReduceOp,
          shard::AllSliceOp, shard::ProcessMultiIndexOp,
          shard::ProcessLinearIndexOp>(op))
    return std::nullopt;
  return std::string("tp has no equivalent of this op");
}

namespace {

struct TPImportPass : mlir::tp::impl::TPImportBase<TPImportPass> {
  using TPImportBase::TPImportBase;

  void runOnOperation() override {
    // Most modules on the fusion path are already tp: skip the rewrite driver
    // when nothing upstream is there to raise.
    bool hasUpstream =
        getOperation()
            ->walk([](Operation *op) {
              return isa<shard::ShardDialect, linalg::LinalgDialect>(
                         op->getDialect())
                         ? WalkResult::interrupt()
                         : WalkResult::advance();
            })
            .wasInterrupted();
    if (!hasUpstream)
      return;
    RewritePatternSet patterns(&getContext());
    populateShardToTPPatterns(patterns);
    populateLinalgToTPPatterns(patterns);
    // Leave everything the patterns do not raise exactly as it was.
    GreedyRewriteConfig config;
    config.enableFolding(false).enableConstantCSE(false);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();
    if (!emitRemarks)
      return;
    getOperation()->walk([](Operation *op) {
      if (std::optional<std::string> why = whyNotRaised(op))
        emitRemark(op->getLoc())
            << "'" << op->getName() << "' not raised: " << *why;
    });
  }
};

} // namespace
