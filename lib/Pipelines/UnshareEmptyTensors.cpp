//===- UnshareEmptyTensors.cpp - tp-unshare-empty-tensors -----------------===//
//
// CSE leaves one tensor.empty for every op of a shape that writes a fresh
// result, and One-Shot Bufferize then weighs each of those writes against
// every other use of that one value: time quadratic in the number of uses
// (in a model written out layer by layer, in its depth). An empty tensor
// has no contents to share, so each use can have its own.
//
//===----------------------------------------------------------------------===//

#include "tp/Pipelines/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPUNSHAREEMPTYTENSORS
#include "tp/Pipelines/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;

namespace {
struct UnshareEmptyTensorsPass
    : mlir::tp::impl::TPUnshareEmptyTensorsBase<UnshareEmptyTensorsPass> {
  void runOnOperation() override {
    SmallVector<tensor::EmptyOp> shared;
    getOperation()->walk([&](tensor::EmptyOp empty) {
      if (!empty->use_empty() && !empty->hasOneUse())
        shared.push_back(empty);
    });
    // Each use gets a copy made just before its user, where the sizes
    // (defined before the original) are available too.
    for (tensor::EmptyOp empty : shared) {
      for (OpOperand &use : llvm::make_early_inc_range(empty->getUses())) {
        OpBuilder builder(use.getOwner());
        use.set(builder.clone(*empty)->getResult(0));
      }
      empty->erase();
    }
  }
};
} // namespace
