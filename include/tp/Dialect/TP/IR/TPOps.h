//===- TPOps.h - tp dialect ops, attributes and enums ------------*- C++
//-*-===//
#ifndef TP_DIALECT_TP_IR_TPOPS_H
#define TP_DIALECT_TP_IR_TPOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "tp/Dialect/TP/IR/TPDialect.h"

#include "tp/Dialect/TP/IR/TPEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tp/Dialect/TP/IR/TPAttrs.h.inc"

namespace mlir::tp {

/// The ranks a collective spans: the grid, the axes along it, and the number
/// of ranks (ShapedType::kDynamic when some axis has a dynamic size).
struct GroupInfo {
  shard::GridOp grid;
  SmallVector<int16_t> axes;
  int64_t size = 1;

  bool isStatic() const { return !ShapedType::isDynamic(size); }
};

/// Resolves `gridRef` and checks `axes` against it, reporting problems on
/// `op`.
FailureOr<GroupInfo> resolveGroup(Operation *op, FlatSymbolRefAttr gridRef,
                                  ArrayRef<int16_t> axes,
                                  SymbolTableCollection &symbolTable);

/// The group size of `op` (any op of the dialect that names a grid), or
/// std::nullopt when the grid cannot be resolved or has a dynamic size.
std::optional<int64_t> getStaticGroupSize(Operation *op);

/// Multiplies a static extent by the group size; dynamic stays dynamic. For
/// extents of verified ops, whose products fit in int64.
int64_t scaleExtent(int64_t extent, int64_t groupSize);

/// a * b, or std::nullopt when it overflows int64.
std::optional<int64_t> checkedMul(int64_t a, int64_t b);

/// Reports a static tensor operand or result of `op` whose element count or
/// byte size does not fit in int64.
LogicalResult verifyTensorSizesFit(Operation *op);

template <typename ConcreteType>
class TensorSizesFit : public OpTrait::TraitBase<ConcreteType, TensorSizesFit> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifyTensorSizesFit(op);
  }
};

} // namespace mlir::tp

#define GET_OP_CLASSES
#include "tp/Dialect/TP/IR/TPOps.h.inc"

#endif // TP_DIALECT_TP_IR_TPOPS_H
