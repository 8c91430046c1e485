//===- RaiseCollectives.cpp - shard collectives and rank queries to tp ----===//
//
// shard.all_reduce followed by shard.all_slice on the same group is the
// reduce-scatter upstream writes as two ops; it becomes one tp.reduce_scatter.
// A lone all_slice becomes this rank's tensor.extract_slice; all_to_all is
// tp.all_to_all with the same split and concat axes.
//
//===----------------------------------------------------------------------===//

#include "Reasons.h"
#include "tp/Conversion/ShardToTP/ShardToTP.h"
#include "tp/Dialect/TP/IR/TPOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::tp;

static std::optional<ReductionKind> raiseReduction(shard::ReductionKind kind) {
  switch (kind) {
  case shard::ReductionKind::Sum:
    return ReductionKind::Sum;
  case shard::ReductionKind::Average:
    return ReductionKind::Avg;
  case shard::ReductionKind::Max:
    return ReductionKind::Max;
  case shard::ReductionKind::Min:
    return ReductionKind::Min;
  default:
    return std::nullopt;
  }
}

/// Rules every raised collective shares.
static std::optional<std::string> checkCollective(Operation *op, Value input,
                                                  Value result,
                                                  ArrayRef<int16_t> axes) {
  if (!isa<RankedTensorType>(input.getType()) ||
      !isa<RankedTensorType>(result.getType()))
    return "it does not operate on ranked tensors";
  if (getElementTypeOrSelf(input.getType()) !=
      getElementTypeOrSelf(result.getType()))
    return "it changes the element type";
  if (axes.empty())
    return "it names no grid axis";
  // Upstream accepts grids with empty axes; a tp group needs a rank, and
  // its size must be countable.
  auto gridRef = op->getAttrOfType<FlatSymbolRefAttr>("grid");
  auto grid = gridRef ? SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(
                            op, gridRef)
                      : shard::GridOp();
  if (!grid)
    return "its grid is not a shard.grid";
  int64_t size = 1;
  for (int16_t axis : axes) {
    if (axis < 0 || axis >= grid.getRank())
      return "it names grid axis " + std::to_string(axis) +
             ", which its grid does not have";
    int64_t extent = grid.getShape()[axis];
    if (ShapedType::isDynamic(extent))
      continue;
    if (extent < 1)
      return "grid axis " + std::to_string(axis) + " of @" +
             gridRef.getValue().str() + " has extent " +
             std::to_string(extent) + ", so the group has no rank";
    std::optional<int64_t> product = checkedMul(size, extent);
    if (!product)
      return std::string("its group has more ranks than int64 holds");
    size = *product;
  }
  return std::nullopt;
}

static std::optional<std::string> checkReduction(shard::ReductionKind kind) {
  if (raiseReduction(kind))
    return std::nullopt;
  return ("its reduction '" + shard::stringifyReductionKind(kind) +
          "' is not one tp has (sum, average, max, min)")
      .str();
}

/// The shard.all_slice that turns `op` into a reduce-scatter, if any.
static shard::AllSliceOp getSliceOf(shard::AllReduceOp op) {
  if (!op->hasOneUse())
    return {};
  auto slice = dyn_cast<shard::AllSliceOp>(*op->user_begin());
  if (!slice || slice.getGridAttr() != op.getGridAttr() ||
      slice.getGridAxes() != op.getGridAxes())
    return {};
  return slice;
}

std::optional<std::string> import::whyCollectiveNotRaised(Operation *op) {
  if (auto gather = dyn_cast<shard::AllGatherOp>(op))
    return checkCollective(op, gather.getInput(), gather.getResult(),
                           gather.getGridAxes());
  if (auto scatter = dyn_cast<shard::ReduceScatterOp>(op)) {
    if (auto why = checkReduction(scatter.getReduction()))
      return why;
    return checkCollective(op, scatter.getInput(), scatter.getResult(),
                           scatter.getGridAxes());
  }
  if (auto reduce = dyn_cast<shard::AllReduceOp>(op)) {
    if (auto why = checkReduction(reduce.getReduction()))
      return why;
    if (reduce.getInput().getType() != reduce.getResult().getType())
      return std::string("its result type differs from its input type");
    return checkCollective(op, reduce.getInput(), reduce.getResult(),
                           reduce.getGridAxes());
  }
  if (auto exchange = dyn_cast<shard::AllToAllOp>(op)) {
    if (auto why = checkCollective(op, exchange.getInput(),
                                   exchange.getResult(),
                                   exchange.getGridAxes()))
      return why;
    // Upstream's verifier checks these; generic IR may still hold others.
    auto input = cast<RankedTensorType>(exchange.getInput().getType());
    int64_t rank = input.getRank();
    int64_t split = exchange.getSplitAxis().getSExtValue();
    int64_t concat = exchange.getConcatAxis().getSExtValue();
    if (split < 0 || split >= rank || concat < 0 || concat >= rank)
      return "its split or concat axis is not a dim of its input";
    if (cast<RankedTensorType>(exchange.getResult().getType()).getRank() !=
        rank)
      return std::string("it changes the rank");
    return std::nullopt;
  }
  if (auto slice = dyn_cast<shard::AllSliceOp>(op)) {
    if (auto why = checkCollective(op, slice.getInput(), slice.getResult(),
                                   slice.getGridAxes()))
      return why;
    int64_t axis = slice.getSliceAxis().getSExtValue();
    if (slice.getResult().getType().isDynamicDim(axis))
      return std::string("the sliced dim is dynamic");
    return std::nullopt;
  }
  return std::nullopt;
}

namespace {

template <typename OpTy> struct RaisePattern : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (auto why = import::whyCollectiveNotRaised(op))
      return rewriter.notifyMatchFailure(op, *why);
    return raise(op, rewriter);
  }

  LogicalResult raise(shard::AllGatherOp op, PatternRewriter &rewriter) const {
    rewriter.replaceOpWithNewOp<AllGatherOp>(
        op, op.getResult().getType(), op.getInput(), op.getGridAttr(),
        op.getGridAxesAttr(),
        rewriter.getI64IntegerAttr(op.getGatherAxis().getSExtValue()));
    return success();
  }

  LogicalResult raise(shard::ReduceScatterOp op,
                      PatternRewriter &rewriter) const {
    rewriter.replaceOpWithNewOp<ReduceScatterOp>(
        op, op.getResult().getType(), op.getInput(), op.getGridAttr(),
        op.getGridAxesAttr(),
        rewriter.getI64IntegerAttr(op.getScatterAxis().getSExtValue()),
        ReductionKindAttr::get(op.getContext(),
                               *raiseReduction(op.getReduction())));
    return success();
  }

  LogicalResult raise(shard::AllReduceOp op, PatternRewriter &rewriter) const {
    auto kind = ReductionKindAttr::get(op.getContext(),
                                       *raiseReduction(op.getReduction()));
    if (shard::AllSliceOp slice = getSliceOf(op)) {
      rewriter.replaceOpWithNewOp<ReduceScatterOp>(
          slice, slice.getResult().getType(), op.getInput(), op.getGridAttr(),
          op.getGridAxesAttr(),
          rewriter.getI64IntegerAttr(slice.getSliceAxis().getSExtValue()),
          kind);
      rewriter.eraseOp(op);
      return success();
    }
    rewriter.replaceOpWithNewOp<AllReduceOp>(
        op, op.getInput(), op.getGridAttr(), op.getGridAxesAttr(), kind);
    return success();
  }

  LogicalResult raise(shard::AllToAllOp op, PatternRewriter &rewriter) const {
    rewriter.replaceOpWithNewOp<AllToAllOp>(
        op, op.getResult().getType(), op.getInput(), op.getGridAttr(),
        op.getGridAxesAttr(),
        rewriter.getI64IntegerAttr(op.getSplitAxis().getSExtValue()),
        rewriter.getI64IntegerAttr(op.getConcatAxis().getSExtValue()));
    return success();
  }

  /// This rank's slice: offset group_rank * local extent along the axis.
  LogicalResult raise(shard::AllSliceOp op, PatternRewriter &rewriter) const {
    if (auto reduce =
            op.getInput().template getDefiningOp<shard::AllReduceOp>())
      if (getSliceOf(reduce) == op)
        return rewriter.notifyMatchFailure(op, "raised with its all_reduce");
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getResult().getType());
    int64_t axis = op.getSliceAxis().getSExtValue();
    Value rank = GroupRankOp::create(rewriter, loc, op.getGridAttr(),
                                     op.getGridAxesAttr());
    Value extent = arith::ConstantIndexOp::create(rewriter, loc,
                                                  resultType.getDimSize(axis));
    Value offset = arith::MulIOp::create(rewriter, loc, rank, extent);
    SmallVector<OpFoldResult> offsets(resultType.getRank(),
                                      rewriter.getIndexAttr(0));
    offsets[axis] = offset;
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, op.getInput());
    sizes[axis] = rewriter.getIndexAttr(resultType.getDimSize(axis));
    SmallVector<OpFoldResult> strides(resultType.getRank(),
                                      rewriter.getIndexAttr(1));
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, resultType, op.getInput(), offsets, sizes, strides);
    return success();
  }

  /// One tp.group_rank per requested axis (all axes when none are named).
  LogicalResult raise(shard::ProcessMultiIndexOp op,
                      PatternRewriter &rewriter) const {
    SmallVector<int16_t> axes(op.getAxes());
    if (axes.empty()) {
      auto grid = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(
          op, op.getGridAttr());
      if (!grid)
        return rewriter.notifyMatchFailure(op, "unknown grid");
      for (int16_t axis = 0; axis < grid.getRank(); ++axis)
        axes.push_back(axis);
    }
    SmallVector<Value> ranks;
    for (int16_t axis : axes)
      ranks.push_back(GroupRankOp::create(rewriter, op.getLoc(),
                                          op.getGridAttr(),
                                          rewriter.getDenseI16ArrayAttr(axis)));
    rewriter.replaceOp(op, ranks);
    return success();
  }

  LogicalResult raise(shard::ProcessLinearIndexOp op,
                      PatternRewriter &rewriter) const {
    auto grid = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(
        op, op.getGridAttr());
    if (!grid)
      return rewriter.notifyMatchFailure(op, "unknown grid");
    SmallVector<int16_t> axes;
    for (int16_t axis = 0; axis < grid.getRank(); ++axis)
      axes.push_back(axis);
    rewriter.replaceOpWithNewOp<GroupRankOp>(
        op, op.getGridAttr(), rewriter.getDenseI16ArrayAttr(axes));
    return success();
  }
};

} // namespace

void mlir::tp::populateShardToTPPatterns(RewritePatternSet &patterns) {
  patterns.add<
      RaisePattern<shard::AllGatherOp>, RaisePattern<shard::ReduceScatterOp>,
      RaisePattern<shard::AllReduceOp>, RaisePattern<shard::AllSliceOp>,
      RaisePattern<shard::AllToAllOp>,
      RaisePattern<shard::ProcessMultiIndexOp>,
      RaisePattern<shard::ProcessLinearIndexOp>>(patterns.getContext());
}
