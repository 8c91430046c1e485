//===- ExpandShapeWorkaround.cpp - tp-expand-multi-dynamic-reshapes -------===//
//
// MLIR 22's expand-strided-metadata assumes at most one dynamic size per
// reassociation group of a memref.expand_shape and dereferences a null size
// otherwise (llvm/llvm-project#186830, fixed for LLVM 23 by #187844). Such
// expands come straight from user programs (a [B*S, N] product expanded to
// [B, S, N] with both dynamic), so they are rewritten first into what the
// fixed pass produces: a reinterpret_cast of the source's base with the
// output_shape as sizes and row-major strides within each group.
//
//===----------------------------------------------------------------------===//

#include "tp/Pipelines/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPEXPANDMULTIDYNAMICRESHAPES
#include "tp/Pipelines/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;

/// Whether some group of `op` has more than one dynamic size.
static bool hasGroupWithSeveralDynamicSizes(memref::ExpandShapeOp op) {
  MemRefType type = op.getResultType();
  for (const ReassociationIndices &group : op.getReassociationIndices())
    if (llvm::count_if(group, [&](int64_t d) { return type.isDynamicDim(d); }) >
        1)
      return true;
  return false;
}

namespace {
struct ExpandShapeToReinterpretCast
    : public OpRewritePattern<memref::ExpandShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(memref::ExpandShapeOp op,
                                PatternRewriter &rewriter) const override {
    if (!hasGroupWithSeveralDynamicSizes(op))
      return rewriter.notifyMatchFailure(op, "upstream handles it");
    Location loc = op.getLoc();
    auto metadata =
        memref::ExtractStridedMetadataOp::create(rewriter, loc, op.getSrc());
    SmallVector<OpFoldResult> sizes = op.getMixedOutputShape();
    SmallVector<OpFoldResult> strides(sizes.size());
    for (auto [source, group] : llvm::enumerate(op.getReassociationIndices())) {
      // The innermost dim of a group keeps the source dim's stride; each
      // outer one steps over the sizes inside it.
      Value stride = metadata.getStrides()[source];
      for (int64_t d : llvm::reverse(group)) {
        strides[d] = stride;
        Value size = getValueOrCreateConstantIndexOp(rewriter, loc, sizes[d]);
        stride = arith::MulIOp::create(rewriter, loc, stride, size);
      }
    }
    // reinterpret_cast wants the result type's static layout as attributes.
    MemRefType resultType = op.getResultType();
    SmallVector<int64_t> staticStrides;
    int64_t staticOffset;
    if (failed(resultType.getStridesAndOffset(staticStrides, staticOffset)))
      return rewriter.notifyMatchFailure(op, "the result is not strided");
    for (auto [stride, fixed] : llvm::zip_equal(strides, staticStrides))
      if (!ShapedType::isDynamic(fixed))
        stride = rewriter.getIndexAttr(fixed);
    OpFoldResult offset = ShapedType::isDynamic(staticOffset)
                              ? OpFoldResult(metadata.getOffset())
                              : rewriter.getIndexAttr(staticOffset);
    rewriter.replaceOpWithNewOp<memref::ReinterpretCastOp>(
        op, resultType, metadata.getBaseBuffer(), offset, sizes, strides);
    return success();
  }
};

struct TPExpandMultiDynamicReshapesPass
    : mlir::tp::impl::TPExpandMultiDynamicReshapesBase<
          TPExpandMultiDynamicReshapesPass> {
  void runOnOperation() override {
    // Only the expands to rewrite and what replaces them are visited (and
    // folded): folding every op of a deep model's entry took time
    // superlinear in its length.
    SmallVector<Operation *> expands;
    getOperation()->walk([&](memref::ExpandShapeOp op) {
      if (hasGroupWithSeveralDynamicSizes(op))
        expands.push_back(op);
    });
    if (expands.empty())
      return;
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandShapeToReinterpretCast>(&getContext());
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    if (failed(applyOpPatternsGreedily(expands, std::move(patterns), config)))
      signalPassFailure();
  }
};
} // namespace
