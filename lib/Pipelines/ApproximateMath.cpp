//===- ApproximateMath.cpp - tp-approximate-math --------------------------===//

#include "tp/Pipelines/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPAPPROXIMATEMATH
#include "tp/Pipelines/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;

namespace {
struct TPApproximateMathPass
    : mlir::tp::impl::TPApproximateMathBase<TPApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns);
    // Upstream's patterns expect scalars and vectors: math ops on tensors
    // (glue not yet lowered to loops) are left alone.
    SmallVector<Operation *> scalarMath;
    getOperation()->walk([&](Operation *op) {
      if (isa<math::MathDialect>(op->getDialect()) &&
          !llvm::any_of(op->getResultTypes(), llvm::IsaPred<TensorType>))
        scalarMath.push_back(op);
    });
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    if (failed(
            applyOpPatternsGreedily(scalarMath, std::move(patterns), config)))
      signalPassFailure();
  }
};
} // namespace
