//===- ReshapeUtils.h - the reshapes around a linear layer ------*- C++ -*-===//
//
// `F.linear` on an activation [d0, ..., dn-2, K] multiplies it as a 2-D
// [d0 * ... * dn-2, K] matrix: collapse every leading dim into one, matmul,
// expand back. These helpers build and recognise exactly that pair.
//
//===----------------------------------------------------------------------===//

#ifndef TP_DIALECT_TP_UTILS_RESHAPEUTILS_H
#define TP_DIALECT_TP_UTILS_RESHAPEUTILS_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::tp {

/// [[0, ..., rank-2], [rank-1]].
SmallVector<ReassociationIndices> leadingDimsReassociation(int64_t rank);

/// Collapses the leading dims of `value` (rank >= 2) into one.
Value collapseLeadingDims(OpBuilder &builder, Location loc, Value value);

/// Expands the first dim of the 2-D `matrix` into the leading dims of
/// `shapeSource`, keeping `matrix`'s last dim.
Value expandLeadingDims(OpBuilder &builder, Location loc, Value matrix,
                        Value shapeSource);

/// Whether `op` merges all leading dims of its source and keeps the last.
bool isLeadingDimsCollapse(tensor::CollapseShapeOp op);

/// Whether `op` splits the first dim of a 2-D source and keeps the last.
bool isLeadingDimsExpand(tensor::ExpandShapeOp op);

/// Whether `expand` restores exactly the leading dims `collapse` merged: equal
/// static extents, and each dynamic one given as `tensor.dim` of the
/// collapse's source (a program may legally expand into other extents of the
/// same product, which a fused op would not reproduce).
bool restoresLeadingDims(tensor::ExpandShapeOp expand,
                         tensor::CollapseShapeOp collapse);

} // namespace mlir::tp

#endif // TP_DIALECT_TP_UTILS_RESHAPEUTILS_H
