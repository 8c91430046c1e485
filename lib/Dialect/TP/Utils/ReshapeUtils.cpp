//===- ReshapeUtils.cpp - the reshapes around a linear layer --------------===//

#include "tp/Dialect/TP/Utils/ReshapeUtils.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

SmallVector<ReassociationIndices>
mlir::tp::leadingDimsReassociation(int64_t rank) {
  ReassociationIndices leading;
  for (int64_t i = 0; i + 1 < rank; ++i)
    leading.push_back(i);
  return {leading, {rank - 1}};
}

Value mlir::tp::collapseLeadingDims(OpBuilder &builder, Location loc,
                                    Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  return tensor::CollapseShapeOp::create(
      builder, loc, value, leadingDimsReassociation(type.getRank()));
}

Value mlir::tp::expandLeadingDims(OpBuilder &builder, Location loc,
                                  Value matrix, Value shapeSource) {
  auto matrixType = cast<RankedTensorType>(matrix.getType());
  auto sourceType = cast<RankedTensorType>(shapeSource.getType());
  SmallVector<OpFoldResult> sizes =
      tensor::getMixedSizes(builder, loc, shapeSource);
  sizes.back() = tensor::getMixedSize(builder, loc, matrix, 1);
  SmallVector<int64_t> shape(sourceType.getShape());
  shape.back() = matrixType.getDimSize(1);
  auto resultType = RankedTensorType::get(shape, matrixType.getElementType());
  return tensor::ExpandShapeOp::create(
      builder, loc, resultType, matrix,
      leadingDimsReassociation(sourceType.getRank()), sizes);
}

bool mlir::tp::isLeadingDimsCollapse(tensor::CollapseShapeOp op) {
  int64_t rank = op.getSrcType().getRank();
  return rank >= 2 &&
         op.getReassociationIndices() == leadingDimsReassociation(rank);
}

bool mlir::tp::isLeadingDimsExpand(tensor::ExpandShapeOp op) {
  int64_t rank = op.getResultType().getRank();
  return op.getSrcType().getRank() == 2 && rank >= 2 &&
         op.getReassociationIndices() == leadingDimsReassociation(rank);
}

bool mlir::tp::restoresLeadingDims(tensor::ExpandShapeOp expand,
                                   tensor::CollapseShapeOp collapse) {
  Value source = collapse.getSrc();
  auto sourceType = cast<RankedTensorType>(source.getType());
  SmallVector<OpFoldResult> sizes = expand.getMixedOutputShape();
  if (static_cast<int64_t>(sizes.size()) != sourceType.getRank())
    return false;
  for (int64_t i = 0; i + 1 < sourceType.getRank(); ++i) {
    std::optional<int64_t> size = getConstantIntValue(sizes[i]);
    if (!sourceType.isDynamicDim(i)) {
      if (size != sourceType.getDimSize(i))
        return false;
      continue;
    }
    auto dim = dyn_cast_if_present<Value>(sizes[i])
                   ? cast<Value>(sizes[i]).getDefiningOp<tensor::DimOp>()
                   : tensor::DimOp();
    if (!dim || dim.getSource() != source || dim.getConstantIndex() != i)
      return false;
  }
  return true;
}
