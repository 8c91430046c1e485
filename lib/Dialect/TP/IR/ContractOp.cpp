//===- ContractOp.cpp - tp.all_gather_contract ----------------------------===//
//
// Each operand is a matrix whose contraction dims (K) either lead
// ([K..., free], 2-D or 3-D) or trail ([free, K], 2-D); which one follows
// from the side it sits on and that side's transpose flag.
//
//===----------------------------------------------------------------------===//

#include "VerifyHelpers.h"

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::rules;

/// K (the product of the contraction dims; dynamic when one is) and the free
/// extent of an operand.
static std::pair<int64_t, int64_t> contractionExtents(RankedTensorType type,
                                                      bool kLeading) {
  int64_t rank = type.getRank();
  if (!kLeading)
    return {type.getDimSize(1), type.getDimSize(0)};
  int64_t k = 1;
  for (int64_t i = 0; i + 1 < rank; ++i) {
    int64_t extent = type.getDimSize(i);
    if (ShapedType::isDynamic(extent))
      return {ShapedType::kDynamic, type.getDimSize(rank - 1)};
    k *= extent;
  }
  return {k, type.getDimSize(rank - 1)};
}

static LogicalResult verifyContractRank(Operation *op, StringRef name,
                                        RankedTensorType type, bool kLeading) {
  int64_t rank = type.getRank();
  if (kLeading && (rank == 2 || rank == 3))
    return success();
  if (!kLeading && rank == 2)
    return success();
  if (kLeading)
    return op->emitOpError("'")
           << name << "' contracts over its leading dims, so it must be 2-D "
           << "[K, free] or 3-D [K0, K1, free], got " << type;
  return op->emitOpError("'")
         << name << "' contracts over its last dim, so it must be 2-D "
         << "[free, K], got " << type;
}

LogicalResult AllGatherContractOp::verify() {
  if (getOthers().empty())
    return emitOpError("needs at least one operand to contract the gathered "
                       "'x' with");
  auto x = getX().getType();
  if (failed(verifyContractRank(*this, "x", x, isXKLeading())))
    return failure();
  for (auto [i, other] : llvm::enumerate(getOthers()))
    if (failed(verifyContractRank(*this, indexed("others", i),
                                  cast<RankedTensorType>(other.getType()),
                                  isOtherKLeading())))
      return failure();
  int64_t dim = getDim();
  bool contracted = isXKLeading() ? dim < x.getRank() - 1 : dim == 1;
  if (!contracted)
    return emitOpError("'dim' (")
           << dim << ") must be a contraction dim of 'x' " << x
           << "; gathering its free dim is tp.all_gather_matmul's job";
  if (failed(verifyResultCount(*this,
                               getOthers().size() + getReturnGathered(),
                               "the gathered x if returned, then one per "
                               "other operand")))
    return failure();
  Type element = x.getElementType();
  for (Value v : llvm::concat<Value>(getOthers(), getResults()))
    if (getElementTypeOrSelf(v.getType()) != element)
      return emitOpError("every other operand and result must have 'x''s "
                         "element type ")
             << element << ", got " << v.getType();
  return success();
}

LogicalResult
AllGatherContractOp::verifySymbolUses(SymbolTableCollection &table) {
  FailureOr<GroupInfo> group = resolveGroup(table);
  if (failed(group))
    return failure();
  auto x = getX().getType();
  FailureOr<RankedTensorType> gathered =
      withDimScaled(*this, "x", x, getDim(), group->size);
  if (failed(gathered))
    return failure();
  if (Value result = getGathered())
    if (failed(verifyGatheredShape(*this, "x", x, "gathered",
                                   cast<RankedTensorType>(result.getType()),
                                   getDim(), group->size)))
      return failure();
  auto [k, xFree] = contractionExtents(*gathered, isXKLeading());
  for (auto [i, other, product] :
       llvm::enumerate(getOthers(), getProducts())) {
    std::string name = indexed("others", i);
    auto otherType = cast<RankedTensorType>(other.getType());
    auto [otherK, otherFree] = contractionExtents(otherType, isOtherKLeading());
    if (!ShapedType::isDynamic(k) && !ShapedType::isDynamic(otherK) &&
        k != otherK)
      return emitOpError("'")
             << name << "' " << otherType << " has K = " << otherK
             << ", the gathered 'x' " << *gathered << " has K = " << k;
    // Two 3-D operands pair their rows batch by batch.
    if (otherType.getRank() == 3 && gathered->getRank() == 3)
      for (int64_t d = 0; d < 2; ++d)
        if (!ShapedType::isDynamic(otherType.getDimSize(d)) &&
            !ShapedType::isDynamic(gathered->getDimSize(d)) &&
            otherType.getDimSize(d) != gathered->getDimSize(d))
          return emitOpError("'")
                 << name << "' " << otherType << " and the gathered 'x' "
                 << *gathered << " differ in dim " << d;
    SmallVector<int64_t, 2> shape =
        getGatheredLhs() ? SmallVector<int64_t, 2>{xFree, otherFree}
                         : SmallVector<int64_t, 2>{otherFree, xFree};
    if (failed(verifyTypeIs(*this, indexed("products", i),
                            cast<RankedTensorType>(product.getType()), shape,
                            x.getElementType())))
      return failure();
  }
  return success();
}
