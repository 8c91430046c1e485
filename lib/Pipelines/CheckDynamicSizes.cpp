//===- CheckDynamicSizes.cpp - tp-check-dynamic-sizes ---------------------===//
//
// A size or a loop step known only at run time can be anything: a negative
// size reaches the allocator as a huge unsigned count (two -1s multiply to a
// plausible +1), and scf.for with a step that is not positive is undefined.
// Like upstream's runtime verification, each gets a cf.assert that names the
// op and its location.
//
//===----------------------------------------------------------------------===//

#include "RuntimeCheckMessage.h"
#include "tp/Pipelines/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPCHECKDYNAMICSIZES
#include "tp/Pipelines/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;

/// Asserts, before `op`, that `value` compares to zero by `predicate`.
static void assertAgainstZero(Operation *op, Value value,
                              arith::CmpIPredicate predicate,
                              const Twine &what) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  Value zero = arith::ConstantOp::create(b, loc, value.getType(),
                                         b.getZeroAttr(value.getType()));
  Value holds = arith::CmpIOp::create(b, loc, predicate, value, zero);
  cf::AssertOp::create(b, loc, holds, mlir::tp::runtimeCheckFailure(op, what));
}

/// Asserts every size in `sizes` that is not a constant is not negative.
static void checkSizes(Operation *op, ValueRange sizes) {
  for (auto [i, size] : llvm::enumerate(sizes))
    if (!matchPattern(size, m_Constant()))
      assertAgainstZero(op, size, arith::CmpIPredicate::sge,
                        "has a negative size (dynamic size " + Twine(i) + ")");
}

namespace {
struct TPCheckDynamicSizesPass
    : mlir::tp::impl::TPCheckDynamicSizesBase<TPCheckDynamicSizesPass> {
  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      TypeSwitch<Operation *>(op)
          .Case<tensor::EmptyOp, tensor::SplatOp>(
              [](auto sized) { checkSizes(sized, sized.getDynamicSizes()); })
          .Case([](tensor::GenerateOp generate) {
            checkSizes(generate, generate.getDynamicExtents());
          })
          .Case([](scf::ForOp loop) {
            // A constant step is checked by the verifier.
            if (matchPattern(loop.getStep(), m_Constant()))
              return;
            assertAgainstZero(loop, loop.getStep(),
                              loop.getUnsignedCmp() ? arith::CmpIPredicate::ne
                                                    : arith::CmpIPredicate::sgt,
                              "has a step that is not positive");
          });
    });
  }
};
} // namespace
