//===- CheckIntegerDivision.cpp - tp-check-integer-division ---------------===//
//
// An integer division by zero, or INT_MIN / -1, is undefined behaviour in
// LLVM: with a constant divisor the optimizer folds it into any value at
// all, otherwise the CPU traps. Either way the user learns nothing about
// where. Like upstream's runtime verification, every scalar division gets a
// cf.assert that names the op and its location.
//
//===----------------------------------------------------------------------===//

#include "RuntimeCheckMessage.h"
#include "tp/Pipelines/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPCHECKINTEGERDIVISION
#include "tp/Pipelines/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;

/// Asserts `lhs / rhs` is defined before `op`: rhs != 0 and, when `isSigned`,
/// not (lhs == min && rhs == -1).
static void guard(Operation *op, Value lhs, Value rhs, bool isSigned) {
  Type type = rhs.getType();
  if (!type.isSignlessIntOrIndex())
    return;
  OpBuilder b(op);
  Location loc = op->getLoc();
  // Index is 64 bits on every target tp-run and the AOT path compile for.
  unsigned width = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
  auto constant = [&](const APInt &value) -> Value {
    return arith::ConstantOp::create(b, loc, type,
                                     b.getIntegerAttr(type, value));
  };
  Value zero = constant(APInt::getZero(width));
  Value nonZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, rhs, zero);
  cf::AssertOp::create(b, loc, nonZero,
                       mlir::tp::runtimeCheckFailure(op, "divides by zero"));
  // i1's minimum is -1 itself: -1 / -1 overflows too.
  if (!isSigned)
    return;
  Value isMin =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lhs,
                            constant(APInt::getSignedMinValue(width)));
  Value isMinusOne =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rhs,
                            constant(APInt::getAllOnes(width)));
  Value overflows = arith::AndIOp::create(b, loc, isMin, isMinusOne);
  Value fits = arith::XOrIOp::create(
      b, loc, overflows,
      arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
  cf::AssertOp::create(
      b, loc, fits,
      mlir::tp::runtimeCheckFailure(op, "overflows (the minimum over -1)"));
}

namespace {
struct TPCheckIntegerDivisionPass
    : mlir::tp::impl::TPCheckIntegerDivisionBase<TPCheckIntegerDivisionPass> {
  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      TypeSwitch<Operation *>(op)
          .Case<arith::DivSIOp, arith::RemSIOp, arith::CeilDivSIOp,
                arith::FloorDivSIOp>([](auto div) {
            guard(div, div.getLhs(), div.getRhs(), /*isSigned=*/true);
          })
          .Case<arith::DivUIOp, arith::RemUIOp, arith::CeilDivUIOp>(
              [](auto div) {
                guard(div, div.getLhs(), div.getRhs(), /*isSigned=*/false);
              });
    });
  }
};
} // namespace
