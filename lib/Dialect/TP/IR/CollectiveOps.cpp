//===- CollectiveOps.cpp - all_gather, reduce_scatter, all_reduce, rank ---===//

#include "VerifyHelpers.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::rules;

/// Every op that names a grid resolves it the same way.
#define TP_DEFINE_RESOLVE_GROUP(OP)                                            \
  FailureOr<GroupInfo> OP::resolveGroup(SymbolTableCollection &symbolTable) {  \
    return tp::resolveGroup(getOperation(), getGridAttr(), getGridAxes(),      \
                            symbolTable);                                      \
  }
TP_DEFINE_RESOLVE_GROUP(AllGatherOp)
TP_DEFINE_RESOLVE_GROUP(ReduceScatterOp)
TP_DEFINE_RESOLVE_GROUP(AllReduceOp)
TP_DEFINE_RESOLVE_GROUP(GroupRankOp)
TP_DEFINE_RESOLVE_GROUP(LinearOp)
TP_DEFINE_RESOLVE_GROUP(AllGatherMatmulOp)
TP_DEFINE_RESOLVE_GROUP(MatmulReduceScatterOp)
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
