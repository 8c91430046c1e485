//===- LowerLinear.cpp - tp.linear to per-rank collectives and matmuls ----===//
//
// Mirrors a framework's tensor-parallel linear dispatch:
//   column: [all_gather on the input's shard dim] -> x @ W^T -> [+ b]
//   row:    x @ W^T -> all_reduce | reduce_scatter(sum) -> [+ b]
// A row-parallel bias is added once, after the reduction.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Dialect/TP/Utils/ReshapeUtils.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPLOWERLINEAR
#include "tp/Dialect/TP/Transforms/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;
using namespace mlir::tp;

namespace {

struct LowerLinear : OpRewritePattern<LinearOp> {
  LowerLinear(MLIRContext *context, LinearLoweringMode mode)
      : OpRewritePattern(context), mode(mode) {}

  LogicalResult matchAndRewrite(LinearOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inputType = op.getInput().getType();
    int64_t rank = inputType.getRank();
    if (mode == LinearLoweringMode::BatchedMatmul && rank != 2 && rank != 3)
      return rewriter.notifyMatchFailure(
          op, "the batched-matmul path takes 2-D or 3-D inputs only");
    bool column = op.getWeightSharding() == WeightSharding::Column;

    Value x = op.getInput();
    if (column && !op.getInputPlacement().isReplicated()) {
      int64_t dim = op.getInputPlacement().getShardDim();
      SmallVector<int64_t> shape(inputType.getShape());
      std::optional<int64_t> groupSize = getStaticGroupSize(op);
      shape[dim] = scaleExtent(shape[dim],
                               groupSize ? *groupSize : ShapedType::kDynamic);
      x = AllGatherOp::create(
          rewriter, loc,
          RankedTensorType::get(shape, inputType.getElementType()), x,
          op.getGridAttr(), op.getGridAxesAttr(),
          rewriter.getI64IntegerAttr(dim));
    }

    Value y = multiply(rewriter, loc, x, op.getWeight());
    if (!column) {
      auto reduce = ReductionKindAttr::get(getContext(), ReductionKind::Sum);
      if (op.getOutputPlacement().isReplicated())
        y = AllReduceOp::create(rewriter, loc, y, op.getGridAttr(),
                                op.getGridAxesAttr(), reduce);
      else
        y = ReduceScatterOp::create(
            rewriter, loc, op.getType(), y, op.getGridAttr(),
            op.getGridAxesAttr(),
            rewriter.getI64IntegerAttr(op.getOutputPlacement().getShardDim()),
            reduce);
    }
    if (op.getBias())
      y = BiasAddOp::create(rewriter, loc, y, op.getBias());
    rewriter.replaceOp(op, y);
    return success();
  }

  /// x[..., K] @ W[N, K]^T, as the lowering mode multiplies it.
  Value multiply(PatternRewriter &rewriter, Location loc, Value x,
                 Value weight) const {
    int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
    UnitAttr transposeB = rewriter.getUnitAttr();
    if (rank == 2)
      return MatmulOp::create(rewriter, loc, x, weight, transposeB);
    if (mode == LinearLoweringMode::BatchedMatmul)
      return BatchMatmulOp::create(rewriter, loc, x, weight, transposeB);
    Value matrix = collapseLeadingDims(rewriter, loc, x);
    Value product = MatmulOp::create(rewriter, loc, matrix, weight, transposeB);
    return expandLeadingDims(rewriter, loc, product, x);
  }

  LinearLoweringMode mode;
};

struct TPLowerLinearPass
    : mlir::tp::impl::TPLowerLinearBase<TPLowerLinearPass> {
  using TPLowerLinearBase::TPLowerLinearBase;

  void runOnOperation() override {
    LinearLoweringMode loweringMode;
    if (mode == "reshape") {
      loweringMode = LinearLoweringMode::Reshape;
    } else if (mode == "bmm") {
      loweringMode = LinearLoweringMode::BatchedMatmul;
    } else {
      emitError(getOperation()->getLoc(), "tp-lower-linear: unknown mode '")
          << static_cast<std::string>(mode) << "'; expected 'reshape' or 'bmm'";
      return signalPassFailure();
    }
    RewritePatternSet patterns(&getContext());
    populateLowerLinearPatterns(patterns, loweringMode);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // A linear the patterns could not lower is an error, not a silent leftover.
    WalkResult result = getOperation()->walk([](LinearOp op) {
      op.emitError("tp-lower-linear: the batched-matmul path takes 2-D or 3-D "
                   "inputs only; use mode=reshape for rank ")
          << op.getInput().getType().getRank();
      return WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

void mlir::tp::populateLowerLinearPatterns(RewritePatternSet &patterns,
                                           LinearLoweringMode mode) {
  patterns.add<LowerLinear>(patterns.getContext(), mode);
}
