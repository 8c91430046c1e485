//===- VerifyHelpers.h - shape rules shared by tp verifiers -----*- C++ -*-===//
//
// Every helper reports on `op` and names operands by their ODS names, so the
// messages of all ops read alike.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_DIALECT_TP_IR_VERIFYHELPERS_H
#define TP_LIB_DIALECT_TP_IR_VERIFYHELPERS_H

#include "tp/Dialect/TP/IR/TPOps.h"

namespace mlir::tp::rules {

/// Each named operand group of an op with AttrSizedOperandSegments holds
/// exactly one value. ODS only checks that the segment sizes add up, so
/// generic-form IR can leave a required operand empty (and the op's getters
/// would read past its operands).
template <typename OpT>
LogicalResult
verifyRequiredOperands(OpT op,
                       ArrayRef<std::pair<unsigned, StringRef>> groups) {
  for (auto [index, name] : groups) {
    size_t count = op.getODSOperands(index).size();
    if (count != 1)
      return op.emitOpError("operand '")
             << name << "' must be exactly one value, got " << count;
  }
  return success();
}

/// `dim` must index a dim of a tensor of rank `rank`.
LogicalResult verifyDimInRange(Operation *op, StringRef dimName, int64_t dim,
                               StringRef tensorName, int64_t rank);

/// `full` is `local` concatenated over a group of `groupSize` along `dim`:
/// same rank and element type, equal dims but `dim`, and
/// full[dim] == local[dim] * groupSize. A dynamic group size or extent skips
/// the size check. `localIsDerived` says which side a message blames: the
/// local one (a scatter's result) or the full one (a gather's result).
LogicalResult verifyGatheredShape(Operation *op, StringRef localName,
                                  RankedTensorType local, StringRef fullName,
                                  RankedTensorType full, int64_t dim,
                                  int64_t groupSize,
                                  bool localIsDerived = false);

/// `extent` (dim `dim` of `name`) times the group size; reports an overflow.
FailureOr<int64_t> scaleExtentChecked(Operation *op, StringRef name,
                                      int64_t dim, int64_t extent,
                                      int64_t groupSize);

/// The shape of `a @ b` where the leading dims of `a` are batch dims and `b`
/// is 2-D ([K, N], or [N, K] when `transposeB`). Reports a K mismatch.
FailureOr<SmallVector<int64_t>>
inferProductShape(function_ref<InFlightDiagnostic()> emitError, StringRef aName,
                  RankedTensorType a, StringRef bName, RankedTensorType b,
                  bool transposeB);

/// `name[i]`, for messages about one of a variadic operand group.
std::string indexed(StringRef name, unsigned i);

/// The op has `expected` results (described by `what`).
LogicalResult verifyResultCount(Operation *op, size_t expected, StringRef what);

/// `type` (operand `name`) gathered along `dim` over a group of `groupSize`.
FailureOr<RankedTensorType> withDimScaled(Operation *op, StringRef name,
                                          RankedTensorType type, int64_t dim,
                                          int64_t groupSize);

/// `actual` must be `expected` (shape and element type).
LogicalResult verifyTypeIs(Operation *op, StringRef name,
                           RankedTensorType actual, ArrayRef<int64_t> shape,
                           Type elementType, const Twine &why = "");

/// A low-precision operand and its scales under `mode` (see tp.quantize).
LogicalResult verifyScaledOperand(Operation *op, StringRef dataName,
                                  RankedTensorType data, StringRef scaleName,
                                  RankedTensorType scale, StringRef globalName,
                                  Value globalScale, ScalingMode mode);

/// A bias over the last dim: 1-D with `n` elements of `elementType`.
LogicalResult verifyBias(Operation *op, StringRef name, Value bias, int64_t n,
                         Type elementType);

/// Rules every scaled GEMM shares: not both f8E5M2, B as [N, K] with A's K,
/// and FP8 GEMM alignment (K and N multiples of 16). Returns N.
FailureOr<int64_t> verifyScaledGemmOperands(Operation *op, StringRef aName,
                                            RankedTensorType a, StringRef bName,
                                            RankedTensorType b);

/// Fused ops reduce-scatter with sum or avg only.
LogicalResult verifyFusableReduction(Operation *op, ReductionKind kind);

/// The extent of the last dim.
inline int64_t lastDim(RankedTensorType type) { return type.getShape().back(); }

/// Whether two extents may be equal (either is dynamic, or they match).
inline bool extentsCompatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

} // namespace mlir::tp::rules

#endif // TP_LIB_DIALECT_TP_IR_VERIFYHELPERS_H
