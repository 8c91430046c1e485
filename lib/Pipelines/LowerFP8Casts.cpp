//===- LowerFP8Casts.cpp - tp-lower-fp8-casts -----------------------------===//

#include "tp/Conversion/TPToRuntime/RuntimeCalls.h"
#include "tp/Conversion/TPToRuntime/TPToRuntime.h"
#include "tp/Pipelines/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPLOWERFP8CASTS
#include "tp/Pipelines/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;
using namespace mlir::tp;

static bool isRuntimeFP8(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

/// `value` (a scalar float) as `type`, through arith.extf / arith.truncf.
static Value convertFloat(OpBuilder &b, Location loc, Value value,
                          FloatType type) {
  auto from = cast<FloatType>(value.getType());
  if (from == type)
    return value;
  if (from.getWidth() < type.getWidth())
    return arith::ExtFOp::create(b, loc, type, value);
  return arith::TruncFOp::create(b, loc, type, value);
}

namespace {
struct TPLowerFP8CastsPass
    : mlir::tp::impl::TPLowerFP8CastsBase<TPLowerFP8CastsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> casts;
    getOperation().walk([&](Operation *op) {
      if (auto ext = dyn_cast<arith::ExtFOp>(op);
          ext && isRuntimeFP8(ext.getIn().getType()))
        casts.push_back(op);
      if (auto trunc = dyn_cast<arith::TruncFOp>(op);
          trunc && isRuntimeFP8(trunc.getType()))
        casts.push_back(op);
    });
    for (Operation *op : casts) {
      OpBuilder b(op);
      Location loc = op->getLoc();
      auto f32 = b.getF32Type();
      auto i8 = b.getI8Type();
      Value result;
      if (auto ext = dyn_cast<arith::ExtFOp>(op)) {
        Value bits = arith::BitcastOp::create(b, loc, i8, ext.getIn());
        int64_t code = *runtimeDTypeOf(ext.getIn().getType());
        Value wide = runtime::call(b, loc, op, "tp_rt_extf_f8", {f32},
                                   {bits, runtime::constantI32(b, loc, code)})
                         .getResult(0);
        result = convertFloat(b, loc, wide, cast<FloatType>(ext.getType()));
      } else {
        auto trunc = cast<arith::TruncFOp>(op);
        Value narrow = convertFloat(b, loc, trunc.getIn(), f32);
        int64_t code = *runtimeDTypeOf(trunc.getType());
        Value bits = runtime::call(b, loc, op, "tp_rt_truncf_f8", {i8},
                                   {narrow, runtime::constantI32(b, loc, code)})
                         .getResult(0);
        result = arith::BitcastOp::create(b, loc, trunc.getType(), bits);
      }
      op->getResult(0).replaceAllUsesWith(result);
      op->erase();
    }
  }
};
} // namespace
