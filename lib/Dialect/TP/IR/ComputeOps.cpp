//===- ComputeOps.cpp - matmul, batch_matmul, bias_add, linear ------------===//

#include "VerifyHelpers.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::rules;

/// Shared by matmul and batch_matmul: `lhs` has `lhsRank` dims, `rhs` is 2-D
/// (broadcast) or has `lhsRank` dims with equal leading dims.
static LogicalResult inferMatmulType(MLIRContext *context,
                                     std::optional<Location> location,
                                     Value lhs, Value rhs, bool transposeB,
                                     int64_t lhsRank,
                                     SmallVectorImpl<Type> &results) {
  Location loc = location ? *location : UnknownLoc::get(context);
  auto emitError = [&] { return mlir::emitError(loc); };
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  if (lhsType.getRank() != lhsRank)
    return emitError() << "'lhs' must have rank " << lhsRank << ", got "
                       << lhsType;
  if (lhsType.getElementType() != rhsType.getElementType())
    return emitError() << "'lhs' element type " << lhsType.getElementType()
                       << " differs from 'rhs' element type "
                       << rhsType.getElementType();
  // A batched rhs contributes its trailing 2-D matrix; batch dims must agree.
  RankedTensorType rhsMatrix = rhsType;
  if (rhsType.getRank() == lhsRank && lhsRank > 2) {
    for (int64_t i = 0; i + 2 < lhsRank; ++i)
      if (!extentsCompatible(lhsType.getDimSize(i), rhsType.getDimSize(i)))
        return emitError() << "batch dim " << i << " differs: 'lhs' has "
                           << lhsType.getDimSize(i) << ", 'rhs' has "
                           << rhsType.getDimSize(i);
    rhsMatrix = RankedTensorType::get(rhsType.getShape().take_back(2),
                                      rhsType.getElementType());
  } else if (rhsType.getRank() != 2) {
    return emitError() << "'rhs' must have rank 2"
                       << (lhsRank > 2 ? " or " + std::to_string(lhsRank) : "")
                       << ", got " << rhsType;
  }
  FailureOr<SmallVector<int64_t>> shape = inferProductShape(
      emitError, "lhs", lhsType, "rhs", rhsMatrix, transposeB);
  if (failed(shape))
    return failure();
  results.push_back(RankedTensorType::get(*shape, lhsType.getElementType()));
  return success();
}

LogicalResult MatmulOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  Adaptor adaptor(operands, attributes, properties, regions);
  return inferMatmulType(context, location, adaptor.getLhs(), adaptor.getRhs(),
                         adaptor.getTransposeB(), 2, inferredReturnTypes);
}

LogicalResult BatchMatmulOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  Adaptor adaptor(operands, attributes, properties, regions);
  return inferMatmulType(context, location, adaptor.getLhs(), adaptor.getRhs(),
                         adaptor.getTransposeB(), 3, inferredReturnTypes);
}

/// The source of `rhs` when it is a `linalg.transpose` on tensors that swaps
/// exactly the last two dims (and keeps the others in place), or null.
/// Matched by name: the dialect does not depend on linalg.
static Value getTransposedSource(Value rhs) {
  Operation *transpose = rhs.getDefiningOp();
  if (!transpose || transpose->getName().getStringRef() != "linalg.transpose" ||
      transpose->getNumResults() != 1 || transpose->getNumOperands() < 1)
    return Value();
  std::optional<Attribute> attr = transpose->getInherentAttr("permutation");
  auto perm =
      attr ? dyn_cast_or_null<DenseI64ArrayAttr>(*attr) : DenseI64ArrayAttr();
  Value source = transpose->getOperand(0);
  auto sourceType = dyn_cast<RankedTensorType>(source.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  int64_t rank = rhsType.getRank();
  if (!perm || !sourceType || rank < 2 || sourceType.getRank() != rank ||
      static_cast<int64_t>(perm.size()) != rank)
    return Value();
  for (int64_t i = 0; i < rank; ++i) {
    int64_t expected = i < rank - 2 ? i : (i == rank - 2 ? rank - 1 : rank - 2);
    if (perm[i] != expected)
      return Value();
  }
  // The same elements, only the shape permuted: the matmul's result type
  // stays what it was.
  if (sourceType.getElementType() != rhsType.getElementType() ||
      sourceType.getEncoding() != rhsType.getEncoding())
    return Value();
  for (int64_t i = 0; i < rank; ++i)
    if (sourceType.getDimSize(perm[i]) != rhsType.getDimSize(i))
      return Value();
  return source;
}

/// `matmul(a, transpose(w))` is `matmul(a, w)` with `transpose_b` flipped: a
/// transposed weight becomes the [N, K] layout, and a transpose of an [N, K]
/// weight given with `transpose_b` cancels out.
template <typename OpTy>
static LogicalResult foldTransposedRhs(OpTy op, PatternRewriter &rewriter) {
  Value source = getTransposedSource(op.getRhs());
  if (!source)
    return failure();
  rewriter.modifyOpInPlace(op, [&] {
    op.getRhsMutable().assign(source);
    op.setTransposeB(!op.getTransposeB());
  });
  return success();
}

LogicalResult MatmulOp::canonicalize(MatmulOp op, PatternRewriter &rewriter) {
  return foldTransposedRhs(op, rewriter);
}

LogicalResult BatchMatmulOp::canonicalize(BatchMatmulOp op,
                                          PatternRewriter &rewriter) {
  return foldTransposedRhs(op, rewriter);
}

LogicalResult BiasAddOp::verify() {
  auto input = getInput().getType();
  if (input.getRank() < 1)
    return emitOpError("'input' must have at least one dim");
  return verifyBias(*this, "bias", getBias(), lastDim(input),
                    input.getElementType());
}

//===----------------------------------------------------------------------===//
// linear
//===----------------------------------------------------------------------===//

static std::string formatPlacement(PlacementAttr placement) {
  return placement.isReplicated()
             ? std::string("replicated")
             : "shard(" + std::to_string(placement.getShardDim()) + ")";
}

LogicalResult LinearOp::verify() {
  auto input = getInput().getType();
  auto weight = getWeight().getType();
  int64_t rank = input.getRank();
  if (rank < 2)
    return emitOpError("'input' must have at least 2 dims [..., K], got ")
           << input;
  if (weight.getRank() != 2)
    return emitOpError("'weight' must be 2-D [N, K], got ") << weight;
  Type element = input.getElementType();
  if (weight.getElementType() != element ||
      getType().getElementType() != element)
    return emitOpError("'input', 'weight' and 'result' must share one element "
                       "type");
  if (getType().getRank() != rank)
    return emitOpError("'result' must have the rank of 'input' (")
           << rank << "), got " << getType();

  PlacementAttr in = getInputPlacement(), out = getOutputPlacement();
  int64_t last = rank - 1;
  auto isSequenceShard = [&](PlacementAttr p) {
    return !p.isReplicated() && p.getShardDim() < last;
  };
  if (getWeightSharding() == WeightSharding::Column) {
    if (!in.isReplicated() && !isSequenceShard(in))
      return emitOpError("a column-parallel 'input' must be replicated or "
                         "sharded on a dim before the last (")
             << last << "), got " << formatPlacement(in);
    if (!out.isShardedOn(last))
      return emitOpError("a column-parallel output is split along N: it must "
                         "be shard(")
             << last << "), got " << formatPlacement(out);
  } else {
    if (!in.isShardedOn(last))
      return emitOpError("a row-parallel 'input' is split along K: it must be "
                         "shard(")
             << last << "), got " << formatPlacement(in);
    if (!out.isReplicated() && !isSequenceShard(out))
      return emitOpError("a row-parallel output must be replicated or sharded "
                         "on a dim before the last (")
             << last << "), got " << formatPlacement(out);
  }
  return success();
}

LogicalResult LinearOp::verifySymbolUses(SymbolTableCollection &table) {
  FailureOr<GroupInfo> group = resolveGroup(table);
  if (failed(group))
    return failure();
  int64_t g = group->size;
  auto input = getInput().getType();
  Type element = input.getElementType();
  SmallVector<int64_t> rows(input.getShape().drop_back());
  int64_t k = lastDim(input);
  int64_t n = getWeight().getType().getDimSize(0);
  // Column: the GEMM sees the gathered activation and this rank's N/g output
  // features. Row: this rank holds K/g input features and the output spans N,
  // reduce-scattered along the output's shard dim (if any).
  PlacementAttr gathered = getWeightSharding() == WeightSharding::Column
                               ? getInputPlacement()
                               : PlacementAttr::getReplicated(getContext());
  PlacementAttr scattered = getWeightSharding() == WeightSharding::Row
                                ? getOutputPlacement()
                                : PlacementAttr::getReplicated(getContext());
  if (!gathered.isReplicated()) {
    int64_t d = gathered.getShardDim();
    FailureOr<int64_t> scaled = scaleExtentChecked(*this, "input", d, rows[d], g);
    if (failed(scaled))
      return failure();
    rows[d] = *scaled;
  }
  if (!scattered.isReplicated()) {
    int64_t d = scattered.getShardDim();
    if (!group->isStatic() || ShapedType::isDynamic(rows[d]))
      rows[d] = ShapedType::kDynamic;
    else if (rows[d] % g != 0)
      return emitOpError("'input' dim ")
             << d << " (" << rows[d] << ") is not divisible by the group size "
             << g << " it is reduce-scattered over";
    else
      rows[d] /= g;
  }
  SmallVector<int64_t> weightShape = {n, k};
  if (failed(verifyTypeIs(*this, "weight", getWeight().getType(), weightShape,
                          element)) ||
      failed(verifyBias(*this, "bias", getBias(), n, element)))
    return failure();
  rows.push_back(n);
  return verifyTypeIs(*this, "result", getType(), rows, element);
}
