//===- CollectiveOps.cpp - gather, scatter, reduce, all_to_all, rank ------===//

#include "VerifyHelpers.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::rules;

/// Every op that names a grid resolves it the same way.
#define TP_DEFINE_RESOLVE_GROUP(OP)                                            \
  FailureOr<GroupInfo> OP::resolveGroup(SymbolTableCollection &symbolTable) {  \
    return mlir::tp::resolveGroup(getOperation(), getGridAttr(),               \
                                  getGridAxes(), symbolTable);                 \
  }
TP_DEFINE_RESOLVE_GROUP(AllGatherOp)
TP_DEFINE_RESOLVE_GROUP(ReduceScatterOp)
TP_DEFINE_RESOLVE_GROUP(AllReduceOp)
TP_DEFINE_RESOLVE_GROUP(AllToAllOp)
TP_DEFINE_RESOLVE_GROUP(GroupRankOp)
TP_DEFINE_RESOLVE_GROUP(LinearOp)
TP_DEFINE_RESOLVE_GROUP(AllGatherMatmulOp)
TP_DEFINE_RESOLVE_GROUP(AllGatherContractOp)
TP_DEFINE_RESOLVE_GROUP(AllToAllMatmulOp)
TP_DEFINE_RESOLVE_GROUP(MatmulReduceScatterOp)
TP_DEFINE_RESOLVE_GROUP(MatmulAllToAllOp)
TP_DEFINE_RESOLVE_GROUP(AllGatherScaledMatmulOp)
TP_DEFINE_RESOLVE_GROUP(ScaledMatmulReduceScatterOp)
#undef TP_DEFINE_RESOLVE_GROUP

/// A collective over a single rank is the identity.
static OpFoldResult foldSingleRank(Operation *op, Value input) {
  if (input.getType() != op->getResult(0).getType())
    return {};
  std::optional<int64_t> size = getStaticGroupSize(op);
  return size && *size == 1 ? input : OpFoldResult();
}

//===----------------------------------------------------------------------===//
// all_gather
//===----------------------------------------------------------------------===//

LogicalResult AllGatherOp::verify() {
  auto input = getInput().getType();
  if (failed(
          verifyDimInRange(*this, "dim", getDim(), "input", input.getRank())))
    return failure();
  return verifyGatheredShape(*this, "input", input, "result", getType(),
                             getDim(), ShapedType::kDynamic);
}

LogicalResult AllGatherOp::verifySymbolUses(SymbolTableCollection &table) {
  FailureOr<GroupInfo> group = resolveGroup(table);
  if (failed(group))
    return failure();
  return verifyGatheredShape(*this, "input", getInput().getType(), "result",
                             getType(), getDim(), group->size);
}

OpFoldResult AllGatherOp::fold(FoldAdaptor) {
  return foldSingleRank(*this, getInput());
}

//===----------------------------------------------------------------------===//
// reduce_scatter
//===----------------------------------------------------------------------===//

LogicalResult ReduceScatterOp::verify() {
  auto input = getInput().getType();
  if (failed(
          verifyDimInRange(*this, "dim", getDim(), "input", input.getRank())))
    return failure();
  return verifyGatheredShape(*this, "result", getType(), "input", input,
                             getDim(), ShapedType::kDynamic,
                             /*localIsDerived=*/true);
}

LogicalResult ReduceScatterOp::verifySymbolUses(SymbolTableCollection &table) {
  FailureOr<GroupInfo> group = resolveGroup(table);
  if (failed(group))
    return failure();
  return verifyGatheredShape(*this, "result", getType(), "input",
                             getInput().getType(), getDim(), group->size,
                             /*localIsDerived=*/true);
}

OpFoldResult ReduceScatterOp::fold(FoldAdaptor) {
  return foldSingleRank(*this, getInput());
}

//===----------------------------------------------------------------------===//
// all_to_all
//===----------------------------------------------------------------------===//

/// The shape rules of an all_to_all over a group of `groupSize` (dynamic:
/// only the rules that do not involve it). `split` and `concat` are in range.
static LogicalResult verifyAllToAllShape(AllToAllOp op, int64_t groupSize) {
  RankedTensorType input = op.getInput().getType(), result = op.getType();
  int64_t split = op.getSplit(), concat = op.getConcat();
  if (input.getRank() != result.getRank())
    return op.emitOpError("'result' rank ")
           << result.getRank() << " differs from 'input' rank "
           << input.getRank();
  if (input.getElementType() != result.getElementType())
    return op.emitOpError("'result' element type ")
           << result.getElementType() << " differs from 'input' element type "
           << input.getElementType();
  // Dims other than split and concat (and split == concat, which the
  // exchange leaves whole) keep their extent.
  for (int64_t i = 0, e = input.getRank(); i < e; ++i) {
    if (split != concat && (i == split || i == concat))
      continue;
    if (!extentsCompatible(input.getDimSize(i), result.getDimSize(i)))
      return op.emitOpError("'result' dim ")
             << i << " (" << result.getDimSize(i) << ") differs from 'input' dim "
             << i << " (" << input.getDimSize(i) << ")"
             << (i == split ? "; with split == concat the exchange keeps "
                              "the shape"
                            : "");
  }
  if (ShapedType::isDynamic(groupSize))
    return success();
  int64_t in = input.getDimSize(split);
  if (!ShapedType::isDynamic(in) && in % groupSize != 0)
    return op.emitOpError("'input' dim ")
           << split << " (" << in
           << ") is the split dim and is not divisible by the group size "
           << groupSize;
  if (split == concat)
    return success();
  int64_t out = result.getDimSize(split);
  if (!ShapedType::isDynamic(in) && !ShapedType::isDynamic(out) &&
      out * groupSize != in)
    return op.emitOpError("'result' dim ")
           << split << " (" << out << ") must be 'input' dim " << split << " ("
           << in << ") divided by the group size " << groupSize << " = "
           << in / groupSize;
  FailureOr<int64_t> gathered = scaleExtentChecked(
      op, "input", concat, input.getDimSize(concat), groupSize);
  if (failed(gathered))
    return failure();
  int64_t outConcat = result.getDimSize(concat);
  if (!ShapedType::isDynamic(*gathered) && !ShapedType::isDynamic(outConcat) &&
      outConcat != *gathered)
    return op.emitOpError("'result' dim ")
           << concat << " (" << outConcat << ") must be 'input' dim " << concat
           << " (" << input.getDimSize(concat) << ") times the group size "
           << groupSize << " = " << *gathered;
  return success();
}

LogicalResult AllToAllOp::verify() {
  int64_t rank = getInput().getType().getRank();
  if (failed(verifyDimInRange(*this, "split", getSplit(), "input", rank)) ||
      failed(verifyDimInRange(*this, "concat", getConcat(), "input", rank)))
    return failure();
  return verifyAllToAllShape(*this, ShapedType::kDynamic);
}

LogicalResult AllToAllOp::verifySymbolUses(SymbolTableCollection &table) {
  FailureOr<GroupInfo> group = resolveGroup(table);
  if (failed(group))
    return failure();
  return verifyAllToAllShape(*this, group->size);
}

OpFoldResult AllToAllOp::fold(FoldAdaptor) {
  return foldSingleRank(*this, getInput());
}

//===----------------------------------------------------------------------===//
// all_reduce and group_rank
//===----------------------------------------------------------------------===//

LogicalResult AllReduceOp::verifySymbolUses(SymbolTableCollection &table) {
  return resolveGroup(table);
}

OpFoldResult AllReduceOp::fold(FoldAdaptor) {
  return foldSingleRank(*this, getInput());
}

LogicalResult GroupRankOp::verifySymbolUses(SymbolTableCollection &table) {
  return resolveGroup(table);
}

OpFoldResult GroupRankOp::fold(FoldAdaptor) {
  std::optional<int64_t> size = getStaticGroupSize(*this);
  if (size && *size == 1)
    return Builder(getContext()).getIndexAttr(0);
  return {};
}
