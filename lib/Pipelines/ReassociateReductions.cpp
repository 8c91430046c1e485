//===- ReassociateReductions.cpp - tp-reassociate-reductions --------------===//
//
// Marks the op that folds each element into a linalg reduction's accumulator
// `reassoc`, so that LLVM's loop vectorizer may sum in vector lanes.
//
//===----------------------------------------------------------------------===//

#include "tp/Pipelines/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPREASSOCIATEREDUCTIONS
#include "tp/Pipelines/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;

/// The op of `op`'s body that combines the value it yields for `init` with
/// that init's accumulator block argument, when it is a floating-point op
/// that may be reassociated.
static arith::ArithFastMathInterface combinerOf(linalg::LinalgOp op,
                                                OpOperand &init) {
  Block *body = op.getBlock();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  unsigned index = init.getOperandNumber() - op.getNumDpsInputs();
  Value accumulator = op.getMatchingBlockArgument(&init);
  Operation *combiner = yield.getOperand(index).getDefiningOp();
  if (!isa_and_present<arith::AddFOp, arith::MulFOp, arith::MaximumFOp,
                       arith::MinimumFOp, arith::MaxNumFOp, arith::MinNumFOp>(
          combiner) ||
      !llvm::is_contained(combiner->getOperands(), accumulator))
    return nullptr;
  return cast<arith::ArithFastMathInterface>(combiner);
}

namespace {
struct ReassociateReductionsPass
    : mlir::tp::impl::TPReassociateReductionsBase<ReassociateReductionsPass> {
  void runOnOperation() override {
    getOperation().walk([](linalg::LinalgOp op) {
      if (op.getNumReductionLoops() == 0 || !op.getBlock())
        return;
      for (OpOperand &init : op.getDpsInitsMutable()) {
        auto combiner = combinerOf(op, init);
        if (!combiner)
          continue;
        auto flags = combiner.getFastMathFlagsAttr().getValue() |
                     arith::FastMathFlags::reassoc;
        combiner->setAttr(
            combiner.getFastMathAttrName(),
            arith::FastMathFlagsAttr::get(op.getContext(), flags));
      }
    });
  }
};
} // namespace
