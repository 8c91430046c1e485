//===- AsyncTPPass.cpp - the tp-async-tp pass and its patterns ------------===//
//
// The pass visits every collective once, in program order (all-gathers
// first, so a matmul between an all-gather and a reduce-scatter goes to the
// all-gather), and reports misses as remarks when asked.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"
#include "tp/Dialect/TP/Transforms/AsyncTP.h"
#include "tp/Dialect/TP/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/DenseSet.h"

#include <functional>

namespace mlir::tp {
#define GEN_PASS_DEF_TPASYNCTP
#include "tp/Dialect/TP/Transforms/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;
using namespace mlir::tp;

namespace {

template <typename CollectiveOp>
struct FuseCollectivePattern : OpRewritePattern<CollectiveOp> {
  FuseCollectivePattern(MLIRContext *context, const AsyncTPOptions &options)
      : OpRewritePattern<CollectiveOp>(context), options(options) {}

  LogicalResult matchAndRewrite(CollectiveOp op,
                                PatternRewriter &rewriter) const override {
    FusionReport report;
    if constexpr (std::is_same_v<CollectiveOp, AllGatherOp>)
      report = fuseAllGather(rewriter, op, options);
    else
      report = fuseReduceScatter(rewriter, op, options);
    if (report.fused)
      return success();
    return rewriter.notifyMatchFailure(op, [&](Diagnostic &diag) {
      llvm::interleave(report.misses, diag, "; ");
    });
  }

  AsyncTPOptions options;
};

/// Whether every use of `op`'s result is a scale of a scaled matmul (directly
/// or through a reshape): it is fused along with its data's all-gather.
static bool onlyGathersScales(AllGatherOp op) {
  std::function<bool(Value)> isScale = [&](Value v) {
    return llvm::all_of(v.getUses(), [&](OpOperand &use) {
      Operation *user = use.getOwner();
      if (auto smm = dyn_cast<ScaledMatmulOp>(user))
        return use.get() == smm.getAScale() || use.get() == smm.getBScale();
      auto collapse = dyn_cast<tensor::CollapseShapeOp>(user);
      return collapse && isScale(collapse.getResult());
    });
  };
  return !op->use_empty() && isScale(op.getResult());
}

/// Fusions by kind, reported with the `stats` option.
struct FusionCounts {
  unsigned allGatherMatmul = 0, matmulReduceScatter = 0;
  unsigned allGatherScaledMatmul = 0, scaledMatmulReduceScatter = 0;
  unsigned fusedConsumers = 0, missed = 0;

  void add(Operation *fused) {
    if (!fused) {
      ++missed;
    } else if (auto op = dyn_cast<AllGatherMatmulOp>(fused)) {
      ++allGatherMatmul;
      fusedConsumers += op.getBs().size();
    } else if (auto op = dyn_cast<AllGatherScaledMatmulOp>(fused)) {
      ++allGatherScaledMatmul;
      fusedConsumers += op.getBs().size();
    } else if (isa<MatmulReduceScatterOp>(fused)) {
      ++matmulReduceScatter;
    } else if (isa<ScaledMatmulReduceScatterOp>(fused)) {
      ++scaledMatmulReduceScatter;
    }
  }
};

/// Remembers erased ops, so the pass skips collectives a fusion removed.
struct ErasedOps : RewriterBase::Listener {
  void notifyOperationErased(Operation *op) override { erased.insert(op); }
  llvm::DenseSet<Operation *> erased;
};

struct TPAsyncTPPass : tp::impl::TPAsyncTPBase<TPAsyncTPPass> {
  using TPAsyncTPBase::TPAsyncTPBase;

  void setSchedule(Operation *fused, std::optional<Algorithm> schedule) {
    Builder b(&getContext());
    if (schedule)
      fused->setAttr("algorithm", AlgorithmAttr::get(&getContext(), *schedule));
    if (chunks > 0)
      fused->setAttr("chunks", b.getI64IntegerAttr(chunks));
  }

  /// 'tp-axis' is -1 or an axis of some grid the pass can see.
  LogicalResult checkTensorParallelAxis() {
    if (tensorParallelAxis == -1)
      return success();
    // Grids inside the op, and those of enclosing symbol tables (only their
    // top level: other functions may be transformed concurrently).
    int64_t largestRank = -1;
    auto note = [&](shard::GridOp grid) {
      largestRank = std::max(largestRank, grid.getRank());
    };
    getOperation()->walk(note);
    for (Operation *scope = getOperation()->getParentOp(); scope;
         scope = scope->getParentOp())
      if (scope->hasTrait<OpTrait::SymbolTable>())
        for (auto grid : scope->getRegion(0).getOps<shard::GridOp>())
          note(grid);
    if (tensorParallelAxis >= 0 && tensorParallelAxis < largestRank)
      return success();
    InFlightDiagnostic diag =
        emitError(getOperation()->getLoc(), "tp-async-tp: 'tp-axis' must be "
                                            "-1 or an axis of a grid, got ")
        << static_cast<int>(tensorParallelAxis);
    if (largestRank >= 0)
      diag << " (the largest grid has " << largestRank << " axes)";
    else
      diag << " (no grid is visible)";
    return diag;
  }

  void runOnOperation() override {
    AsyncTPOptions options;
    if (failed(checkTensorParallelAxis()))
      return signalPassFailure();
    if (tensorParallelAxis >= 0)
      options.tensorParallelAxis = static_cast<int16_t>(tensorParallelAxis);

    std::optional<Algorithm> schedule;
    if (!algorithm.empty()) {
      schedule = symbolizeAlgorithm(algorithm);
      if (!schedule) {
        emitError(getOperation()->getLoc(),
                  "tp-async-tp: 'algorithm' must be 'ring' or 'per_peer', "
                  "got '")
            << static_cast<std::string>(algorithm) << "'";
        return signalPassFailure();
      }
    }
    if (chunks < 0) {
      emitError(getOperation()->getLoc(),
                "tp-async-tp: 'chunks' must be positive or 0, got ")
          << static_cast<int>(chunks);
      return signalPassFailure();
    }

    SmallVector<Operation *> collectives;
    getOperation()->walk([&](AllGatherOp op) { collectives.push_back(op); });
    getOperation()->walk(
        [&](ReduceScatterOp op) { collectives.push_back(op); });

    FusionCounts counts;
    ErasedOps erased;
    IRRewriter rewriter(&getContext(), &erased);
    // A row-parallel layer without sequence parallelism: nothing overlaps an
    // all-reduce, but split in two, both halves fuse.
    getOperation()->walk([&](AllReduceOp op) {
      if (getStaticGroupSize(op) == 1 || !isMatmulProduct(op.getInput()))
        return;
      counts.add(nullptr);
      if (emitRemarks)
        emitRemark(op.getLoc())
            << "all-reduce not fused: async TP overlaps reduce-scatters and "
               "all-gathers with matmuls; tp-sequence-parallel (the "
               "pipeline's 'sequence-parallel' option) splits this one into "
               "both";
    });
    for (Operation *op : collectives) {
      if (erased.erased.contains(op))
        continue;
      Location loc = op->getLoc();
      bool gather = isa<AllGatherOp>(op);
      // An unused collective has nothing to fuse with, and a gather of
      // scales fuses with its data's gather: neither is a miss.
      if (op->use_empty())
        continue;
      if (auto ag = dyn_cast<AllGatherOp>(op); ag && onlyGathersScales(ag))
        continue;
      FusionReport report =
          gather
              ? fuseAllGather(rewriter, cast<AllGatherOp>(op), options)
              : fuseReduceScatter(rewriter, cast<ReduceScatterOp>(op), options);
      counts.add(report.fused);
      if (report.fused)
        setSchedule(report.fused, schedule);
      if (!emitRemarks)
        continue;
      StringRef what = gather ? "all-gather" : "reduce-scatter";
      for (const std::string &why : report.misses) {
        if (report.fused)
          emitRemark(loc) << what << " fused without one of its uses: " << why;
        else
          emitRemark(loc) << what << " not fused: " << why;
      }
    }
    if (reportCounts)
      emitRemark(getOperation()->getLoc(), "tp-async-tp: ")
          << counts.allGatherMatmul << " all-gather-matmul ("
          << counts.fusedConsumers << " matmuls absorbed), "
          << counts.matmulReduceScatter << " matmul-reduce-scatter, "
          << counts.allGatherScaledMatmul << " all-gather-scaled-matmul, "
          << counts.scaledMatmulReduceScatter
          << " scaled-matmul-reduce-scatter, " << counts.missed
          << " collectives left unfused";
  }
};

} // namespace

void tp::populateAsyncTPPatterns(RewritePatternSet &patterns,
                                 const AsyncTPOptions &options) {
  patterns.add<FuseCollectivePattern<AllGatherOp>,
               FuseCollectivePattern<ReduceScatterOp>>(patterns.getContext(),
                                                       options);
}
