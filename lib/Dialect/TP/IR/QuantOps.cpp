//===- QuantOps.cpp - quantize, dequantize, scaled_matmul -----------------===//

#include "VerifyHelpers.h"

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::rules;

static LogicalResult verifySameShape(Operation *op, StringRef aName,
                                     RankedTensorType a, StringRef bName,
                                     RankedTensorType b) {
  if (succeeded(mlir::verifyCompatibleShape(a, b)))
    return success();
  return op->emitOpError("'") << aName << "' shape must match '" << bName
                              << "': " << a << " vs " << b;
}

LogicalResult QuantizeOp::verify() {
  if (failed(verifySameShape(*this, "result", getResult().getType(), "input",
                             getInput().getType())))
    return failure();
  // Row-wise and block scales come from their own rows and blocks.
  if (getAmax() && getMode() != ScalingMode::PerTensor &&
      getMode() != ScalingMode::NVFP4)
    return emitOpError("'amax' sets one scale for the whole tensor: it "
                       "needs per_tensor or nvfp4 scaling, not ")
           << stringifyScalingMode(getMode());
  return verifyScaledOperand(*this, "result", getResult().getType(), "scale",
                             getScale().getType(), "global_scale",
                             getGlobalScale(), getMode());
}

LogicalResult DequantizeOp::verify() {
  if (failed(verifySameShape(*this, "result", getResult().getType(), "input",
                             getInput().getType())))
    return failure();
  return verifyScaledOperand(*this, "input", getInput().getType(), "scale",
                             getScale().getType(), "global_scale",
                             getGlobalScale(), getMode());
}

FailureOr<int64_t> rules::verifyScaledGemmOperands(Operation *op,
                                                   StringRef aName,
                                                   RankedTensorType a,
                                                   StringRef bName,
                                                   RankedTensorType b) {
  if (b.getRank() != 2) {
    op->emitOpError("'") << bName << "' must be 2-D [N, K], got " << b;
    return failure();
  }
  if (isa<Float8E5M2Type>(a.getElementType()) &&
      isa<Float8E5M2Type>(b.getElementType())) {
    op->emitOpError("'") << aName << "' and '" << bName
                         << "' cannot both be f8E5M2: FP8 GEMMs need an "
                            "f8E4M3FN operand";
    return failure();
  }
  int64_t k = lastDim(a), n = b.getDimSize(0);
  if (!extentsCompatible(k, b.getDimSize(1))) {
    op->emitOpError("contraction dims differ: '")
        << aName << "' has K = " << k << ", '" << bName
        << "' has K = " << b.getDimSize(1) << " (B is [N, K])";
    return failure();
  }
  for (auto [name, extent] : {std::pair<StringRef, int64_t>{"K", k}, {"N", n}})
    if (!ShapedType::isDynamic(extent) && extent % 16 != 0) {
      op->emitOpError("FP8/FP4 GEMM alignment: ")
          << name << " (" << extent << ") must be a multiple of 16";
      return failure();
    }
  return n;
}

LogicalResult ScaledMatmulOp::verify() {
  if (failed(verifyRequiredOperands(
          *this, {{0, "a"}, {1, "a_scale"}, {3, "b"}, {4, "b_scale"}})))
    return failure();
  auto a = getA().getType(), b = getB().getType();
  if (a.getRank() != 2)
    return emitOpError("'a' must be 2-D [M, K], got ") << a;
  if (failed(verifyScaledOperand(*this, "a", a, "a_scale",
                                 getAScale().getType(), "a_global_scale",
                                 getAGlobalScale(), getMode())) ||
      failed(verifyScaledOperand(*this, "b", b, "b_scale",
                                 getBScale().getType(), "b_global_scale",
                                 getBGlobalScale(), getMode())))
    return failure();
  FailureOr<int64_t> n = verifyScaledGemmOperands(*this, "a", a, "b", b);
  if (failed(n))
    return failure();
  Type out = getType().getElementType();
  if (!isa<Float32Type, BFloat16Type, Float16Type>(out))
    return emitOpError("'result' element type must be f32, bf16 or f16, got ")
           << out;
  SmallVector<int64_t> shape = {a.getDimSize(0), *n};
  if (failed(verifyTypeIs(*this, "result", getType(), shape, out)))
    return failure();
  return verifyBias(*this, "bias", getBias(), *n, out);
}
