//===- FusedOps.cpp - fused collective-matmul ops -------------------------===//
//
// Local rules (operand counts, ranks, element types) are checked in verify();
// shapes that depend on the group size in verifySymbolUses().
//
//===----------------------------------------------------------------------===//

#include "VerifyHelpers.h"

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::rules;

/// `bias_mask` has one entry per B and as many set entries as biases.
static LogicalResult verifyBiasMask(Operation *op, ArrayRef<bool> mask,
                                    size_t numBs, size_t numBiases) {
  if (numBs == 0)
    return op->emitOpError("needs at least one B operand");
  if (mask.size() != numBs)
    return op->emitOpError("'bias_mask' has ")
           << mask.size() << " entries for " << numBs << " B operands";
  size_t set = llvm::count(mask, true);
  if (set != numBiases)
    return op->emitOpError("'bias_mask' marks ")
           << set << " biased B operands but " << numBiases
           << " biases are given";
  return success();
}

static Value biasOf(ArrayRef<bool> mask, OperandRange biases, unsigned i) {
  if (i >= mask.size() || !mask[i])
    return {};
  return biases[llvm::count(mask.take_front(i), true)];
}

static LogicalResult verifyFloatResult(Operation *op, StringRef name,
                                       Type element) {
  if (isa<Float32Type, BFloat16Type, Float16Type>(element))
    return success();
  return op->emitOpError("'")
         << name << "' element type must be f32, bf16 or f16, got " << element;
}

/// The product part of a matmul-reduce-scatter: the unreduced result (when
/// returned) and the reduced slice of `product`.
static LogicalResult verifyReducedProduct(Operation *op, Value unreduced,
                                          Value reduced,
                                          RankedTensorType product, int64_t dim,
                                          int64_t groupSize) {
  if (unreduced &&
      failed(verifyTypeIs(op, "unreduced",
                          cast<RankedTensorType>(unreduced.getType()),
                          product.getShape(), product.getElementType())))
    return failure();
  return verifyGatheredShape(op, "result",
                             cast<RankedTensorType>(reduced.getType()),
                             "product a @ b", product, dim, groupSize,
                             /*localIsDerived=*/true);
}

/// A reduce-scatter's bias is over the whole N and added after the reduction,
/// so the result must still span N.
static LogicalResult verifyBiasNotScattered(Operation *op, Value bias,
                                            int64_t dim, int64_t rank) {
  if (!bias || dim != rank - 1)
    return success();
  return op->emitOpError("'bias' is added after the reduction over the whole "
                         "N, so it cannot be used when scattering the last "
                         "dim; add it before as an addend slice instead");
}

/// What tp.all_to_all makes of `type` (operand `name`) over `groupSize`
/// ranks: dim `split` divided by the group size, dim `concat` multiplied.
static FailureOr<RankedTensorType> exchangedType(Operation *op, StringRef name,
                                                 RankedTensorType type,
                                                 int64_t split, int64_t concat,
                                                 int64_t groupSize) {
  SmallVector<int64_t> shape(type.getShape());
  if (!ShapedType::isDynamic(groupSize) &&
      !ShapedType::isDynamic(shape[split])) {
    if (shape[split] % groupSize != 0)
      return op->emitOpError("'")
             << name << "' dim " << split << " (" << shape[split]
             << ") is the split dim and is not divisible by the group size "
             << groupSize;
    shape[split] /= groupSize;
  } else {
    shape[split] = ShapedType::kDynamic;
  }
  return withDimScaled(op, name, type.clone(shape), concat, groupSize);
}

//===----------------------------------------------------------------------===//
// all_gather_matmul
//===----------------------------------------------------------------------===//

/// What the collective-then-multiply ops (all_gather_matmul,
/// all_to_all_matmul) check first: A is given and at least 2-D, and the bias
/// mask fits the weights.
template <typename OpTy> static LogicalResult verifyWeightedOperands(OpTy op) {
  if (failed(verifyRequiredOperands(op, {{0, "a"}})) ||
      failed(verifyBiasMask(op, op.getBiasMask(), op.getBs().size(),
                            op.getBiases().size())))
    return failure();
  auto a = op.getA().getType();
  if (a.getRank() < 2)
    return op.emitOpError("'a' must have at least 2 dims [..., M, K], got ")
           << a;
  return success();
}

/// Every B, bias and result has A's element type.
template <typename OpTy> static LogicalResult verifyElementTypesOf(OpTy op) {
  Type element = op.getA().getType().getElementType();
  for (Value v :
       llvm::concat<Value>(op.getBs(), op.getBiases(), op.getResults()))
    if (getElementTypeOrSelf(v.getType()) != element)
      return op.emitOpError("every B, bias and result must have 'a''s element "
                            "type ")
             << element << ", got " << v.getType();
  return success();
}

Value AllGatherMatmulOp::getBiasOf(unsigned i) {
  return biasOf(getBiasMask(), getBiases(), i);
}

LogicalResult AllGatherMatmulOp::verify() {
  if (failed(verifyWeightedOperands(*this)))
    return failure();
  auto a = getA().getType();
  if (failed(verifyDimInRange(*this, "dim", getDim(), "a", a.getRank())) ||
      failed(verifyResultCount(*this, getBs().size() + getReturnGathered(),
                               "the gathered A if returned, then one per B")))
    return failure();
  return verifyElementTypesOf(*this);
}

LogicalResult
AllGatherMatmulOp::verifySymbolUses(SymbolTableCollection &table) {
  FailureOr<GroupInfo> group = resolveGroup(table);
  if (failed(group))
    return failure();
  auto a = getA().getType();
  FailureOr<RankedTensorType> gathered =
      withDimScaled(*this, "a", a, getDim(), group->size);
  if (failed(gathered))
    return failure();
  if (Value result = getGathered())
    if (failed(verifyGatheredShape(*this, "a", a, "gathered",
                                   cast<RankedTensorType>(result.getType()),
                                   getDim(), group->size)))
      return failure();
  for (auto [i, b, product] : llvm::enumerate(getBs(), getProducts())) {
    std::string bName = indexed("bs", i);
    FailureOr<SmallVector<int64_t>> shape =
        inferProductShape([&] { return emitOpError(); }, "a", *gathered, bName,
                          cast<RankedTensorType>(b.getType()), getTransposeB());
    if (failed(shape) ||
        failed(verifyTypeIs(*this, indexed("products", i),
                            cast<RankedTensorType>(product.getType()), *shape,
                            a.getElementType())) ||
        failed(verifyBias(*this, indexed("bias of bs", i), getBiasOf(i),
                          shape->back(), a.getElementType())))
      return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// all_to_all_matmul
//===----------------------------------------------------------------------===//

Value AllToAllMatmulOp::getBiasOf(unsigned i) {
  return biasOf(getBiasMask(), getBiases(), i);
}

LogicalResult AllToAllMatmulOp::verify() {
  if (failed(verifyWeightedOperands(*this)))
    return failure();
  auto a = getA().getType();
  if (failed(verifyDimInRange(*this, "split", getSplit(), "a", a.getRank())) ||
      failed(
          verifyDimInRange(*this, "concat", getConcat(), "a", a.getRank())) ||
      failed(verifyResultCount(*this, getBs().size() + getReturnExchanged(),
                               "the exchanged A if returned, then one per B")))
    return failure();
  if (getAlgorithm() == Algorithm::Ring)
    return emitOpError("cannot run the ring schedule: each rank sends each "
                       "peer a different block (use per_peer or coalesced)");
  return verifyElementTypesOf(*this);
}

LogicalResult AllToAllMatmulOp::verifySymbolUses(SymbolTableCollection &table) {
  FailureOr<GroupInfo> group = resolveGroup(table);
  if (failed(group))
    return failure();
  auto a = getA().getType();
  int64_t concat = getConcat();
  FailureOr<RankedTensorType> exchanged =
      exchangedType(*this, "a", a, getSplit(), concat, group->size);
  if (failed(exchanged))
    return failure();
  if (Value result = getExchanged())
    if (failed(verifyTypeIs(*this, "exchanged",
                            cast<RankedTensorType>(result.getType()),
                            exchanged->getShape(), a.getElementType())))
      return failure();
  for (auto [i, b, product] : llvm::enumerate(getBs(), getProducts())) {
    std::string bName = indexed("bs", i);
    auto bType = cast<RankedTensorType>(b.getType());
    // One B per leading block of A (experts): B has A's leading dims, and
    // the blocks stack along the rows, so each lands in one B's product.
    if (bType.getRank() > 2) {
      int64_t rank = a.getRank();
      if (bType.getRank() != rank || concat != rank - 2)
        return emitOpError("'")
               << bName << "' " << bType
               << " is per batch, which needs 'a''s rank and the blocks "
                  "stacked along the rows (concat = "
               << rank - 2 << ")";
      for (int64_t d = 0; d + 2 < rank; ++d)
        if (!extentsCompatible(bType.getDimSize(d), exchanged->getDimSize(d)))
          return emitOpError("'")
                 << bName << "' dim " << d << " (" << bType.getDimSize(d)
                 << ") differs from the exchanged 'a''s ("
                 << exchanged->getDimSize(d) << ")";
      bType = RankedTensorType::get(bType.getShape().take_back(2),
                                    bType.getElementType());
    }
    FailureOr<SmallVector<int64_t>> productShape =
        inferProductShape([&] { return emitOpError(); }, "a", *exchanged, bName,
                          bType, getTransposeB());
    if (failed(productShape) ||
        failed(verifyTypeIs(*this, indexed("products", i),
                            cast<RankedTensorType>(product.getType()),
                            *productShape, a.getElementType())) ||
        failed(verifyBias(*this, indexed("bias of bs", i), getBiasOf(i),
                          productShape->back(), a.getElementType())))
      return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// matmul_reduce_scatter
//===----------------------------------------------------------------------===//

LogicalResult MatmulReduceScatterOp::verify() {
  if (failed(verifyRequiredOperands(*this, {{0, "a"}, {1, "b"}})))
    return failure();
  auto a = getA().getType();
  if (a.getRank() < 2)
    return emitOpError("'a' must have at least 2 dims [..., M, K], got ") << a;
  if (failed(verifyFusableReduction(*this, getReduce())) ||
      failed(verifyDimInRange(*this, "dim", getDim(), "a", a.getRank())) ||
      failed(verifyResultCount(*this, 1 + getReturnUnreduced(),
                               "the unreduced product if returned, then the "
                               "reduced slice")))
    return failure();
  Type element = a.getElementType();
  SmallVector<Value> values = {getB()};
  llvm::append_range(values, getResults());
  for (Value v : {getBias(), getAddend()})
    if (v)
      values.push_back(v);
  for (Value v : values)
    if (getElementTypeOrSelf(v.getType()) != element)
      return emitOpError("'b', bias, addend and results must have 'a''s "
                         "element type ")
             << element << ", got " << v.getType();
  return success();
}

LogicalResult
MatmulReduceScatterOp::verifySymbolUses(SymbolTableCollection &table) {
  FailureOr<GroupInfo> group = resolveGroup(table);
  if (failed(group))
    return failure();
  auto a = getA().getType();
  FailureOr<SmallVector<int64_t>> shape =
      inferProductShape([&] { return emitOpError(); }, "a", a, "b",
                        getB().getType(), getTransposeB());
  if (failed(shape))
    return failure();
  auto product = RankedTensorType::get(*shape, a.getElementType());
  if (getAddend() && failed(verifyTypeIs(*this, "addend", getAddend().getType(),
                                         *shape, a.getElementType())))
    return failure();
  if (failed(verifyBias(*this, "bias", getBias(), shape->back(),
                        a.getElementType())) ||
      failed(verifyBiasNotScattered(*this, getBias(), getDim(), a.getRank())))
    return failure();
  return verifyReducedProduct(*this, getUnreduced(), getReduced(), product,
                              getDim(), group->size);
}

//===----------------------------------------------------------------------===//
// matmul_all_to_all
//===----------------------------------------------------------------------===//

LogicalResult MatmulAllToAllOp::verify() {
  if (failed(verifyRequiredOperands(*this, {{0, "a"}, {1, "b"}})))
    return failure();
  auto a = getA().getType();
  if (a.getRank() < 2)
    return emitOpError("'a' must have at least 2 dims [..., M, K], got ") << a;
  if (failed(verifyDimInRange(*this, "split", getSplit(), "the product",
                              a.getRank())) ||
      failed(verifyDimInRange(*this, "concat", getConcat(), "the product",
                              a.getRank())) ||
      failed(verifyResultCount(*this, 1 + getReturnProduct(),
                               "the product if returned, then the exchanged "
                               "result")))
    return failure();
  if (getAlgorithm() == Algorithm::Ring)
    return emitOpError("cannot run the ring schedule: each rank sends each "
                       "peer a different block (use per_peer or coalesced)");
  Type element = a.getElementType();
  SmallVector<Value> values = {getB()};
  llvm::append_range(values, getResults());
  for (Value v : values)
    if (getElementTypeOrSelf(v.getType()) != element)
      return emitOpError("'b' and the results must have 'a''s element type ")
             << element << ", got " << v.getType();
  return success();
}

LogicalResult MatmulAllToAllOp::verifySymbolUses(SymbolTableCollection &table) {
  FailureOr<GroupInfo> group = resolveGroup(table);
  if (failed(group))
    return failure();
  auto a = getA().getType();
  auto b = getB().getType();
  int64_t rank = a.getRank();
  // One B per batch (experts): B has A's leading dims, and the blocks are
  // cut along the rows, so each is made by its own batch's B.
  if (b.getRank() > 2) {
    if (b.getRank() != rank || static_cast<int64_t>(getSplit()) != rank - 2)
      return emitOpError("'b' ")
             << b
             << " is per batch, which needs 'a''s rank and the blocks cut "
                "along the rows (split = "
             << rank - 2 << ")";
    for (int64_t d = 0; d + 2 < rank; ++d)
      if (!extentsCompatible(b.getDimSize(d), a.getDimSize(d)))
        return emitOpError("'b' dim ")
               << d << " (" << b.getDimSize(d) << ") differs from 'a''s ("
               << a.getDimSize(d) << ")";
    b = RankedTensorType::get(b.getShape().take_back(2), b.getElementType());
  }
  FailureOr<SmallVector<int64_t>> shape = inferProductShape(
      [&] { return emitOpError(); }, "a", a, "b", b, getTransposeB());
  if (failed(shape))
    return failure();
  auto product = RankedTensorType::get(*shape, a.getElementType());
  if (Value p = getProduct())
    if (failed(verifyTypeIs(*this, "product",
                            cast<RankedTensorType>(p.getType()), *shape,
                            a.getElementType())))
      return failure();
  FailureOr<RankedTensorType> exchanged = exchangedType(
      *this, "the product", product, getSplit(), getConcat(), group->size);
  if (failed(exchanged))
    return failure();
  return verifyTypeIs(*this, "exchanged",
                      cast<RankedTensorType>(getExchanged().getType()),
                      exchanged->getShape(), a.getElementType());
}

//===----------------------------------------------------------------------===//
// all_gather_scaled_matmul
//===----------------------------------------------------------------------===//

Value AllGatherScaledMatmulOp::getBiasOf(unsigned i) {
  return biasOf(getBiasMask(), getBiases(), i);
}

LogicalResult AllGatherScaledMatmulOp::verify() {
  if (failed(verifyRequiredOperands(*this, {{0, "a"}, {1, "a_scale"}})))
    return failure();
  size_t numBs = getBs().size();
  if (failed(verifyBiasMask(*this, getBiasMask(), numBs, getBiases().size())))
    return failure();
  if (getBScales().size() != numBs)
    return emitOpError("expected one 'b_scales' entry per B (")
           << numBs << "), got " << getBScales().size();
  if (!getBGlobalScales().empty() && getBGlobalScales().size() != numBs)
    return emitOpError("expected one 'b_global_scales' entry per B (")
           << numBs << ") or none, got " << getBGlobalScales().size();
  auto a = getA().getType();
  if (a.getRank() < 2)
    return emitOpError("'a' must have at least 2 dims [..., M, K], got ") << a;
  if (failed(verifyDimInRange(*this, "dim", getDim(), "a", a.getRank())))
    return failure();
  if (static_cast<int64_t>(getDim()) == a.getRank() - 1)
    return emitOpError("'dim' must not be the last (K) dim of 'a': scales run "
                       "along K, so a scaled all-gather splits rows only");
  if (failed(verifyResultCount(*this, numBs + 2 * getReturnGathered(),
                               "the gathered A and scale if returned, then "
                               "one per B")) ||
      failed(verifyScaledOperand(*this, "a", a, "a_scale",
                                 getAScale().getType(), "a_global_scale",
                                 getAGlobalScale(), getMode())))
    return failure();
  for (auto [i, b, scale, product] :
       llvm::enumerate(getBs(), getBScales(), getProducts())) {
    std::string bName = indexed("bs", i);
    auto bType = cast<RankedTensorType>(b.getType());
    if (failed(verifyScaledOperand(*this, bName, bType, indexed("b_scales", i),
                                   cast<RankedTensorType>(scale.getType()),
                                   indexed("b_global_scales", i),
                                   getBGlobalScaleOf(i), getMode())) ||
        failed(verifyScaledGemmOperands(*this, "a", a, bName, bType)) ||
        failed(verifyFloatResult(*this, indexed("products", i),
                                 getElementTypeOrSelf(product.getType()))))
      return failure();
  }
  return success();
}

LogicalResult
AllGatherScaledMatmulOp::verifySymbolUses(SymbolTableCollection &table) {
  FailureOr<GroupInfo> group = resolveGroup(table);
  if (failed(group))
    return failure();
  auto a = getA().getType();
  int64_t g = group->size;
  FailureOr<RankedTensorType> gathered =
      withDimScaled(*this, "a", a, getDim(), g);
  if (failed(gathered))
    return failure();
  if (getReturnGathered()) {
    auto scale = getAScale().getType();
    // A per-tensor scale is shared by the group; others are gathered with A.
    FailureOr<RankedTensorType> gatheredScale =
        getMode() == ScalingMode::PerTensor
            ? scale
            : withDimScaled(*this, "a_scale", scale, getDim(), g);
    if (failed(gatheredScale) ||
        failed(verifyGatheredShape(
            *this, "a", a, "gathered",
            cast<RankedTensorType>(getGathered().getType()), getDim(), g)) ||
        failed(verifyTypeIs(
            *this, "gathered_scale",
            cast<RankedTensorType>(getGatheredScale().getType()),
            gatheredScale->getShape(), gatheredScale->getElementType())))
      return failure();
  }
  for (auto [i, b, product] : llvm::enumerate(getBs(), getProducts())) {
    auto productType = cast<RankedTensorType>(product.getType());
    SmallVector<int64_t> shape(gathered->getShape().drop_back());
    shape.push_back(cast<RankedTensorType>(b.getType()).getDimSize(0));
    if (failed(verifyTypeIs(*this, indexed("products", i), productType, shape,
                            productType.getElementType())) ||
        failed(verifyBias(*this, indexed("bias of bs", i), getBiasOf(i),
                          shape.back(), productType.getElementType())))
      return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// scaled_matmul_reduce_scatter
//===----------------------------------------------------------------------===//

LogicalResult ScaledMatmulReduceScatterOp::verify() {
  if (failed(verifyRequiredOperands(
          *this, {{0, "a"}, {1, "a_scale"}, {3, "b"}, {4, "b_scale"}})))
    return failure();
  auto a = getA().getType(), b = getB().getType();
  if (a.getRank() < 2)
    return emitOpError("'a' must have at least 2 dims [..., M, K], got ") << a;
  if (failed(verifyFusableReduction(*this, getReduce())) ||
      failed(verifyDimInRange(*this, "dim", getDim(), "a", a.getRank())) ||
      failed(verifyResultCount(*this, 1 + getReturnUnreduced(),
                               "the unreduced product if returned, then the "
                               "reduced slice")) ||
      failed(verifyScaledOperand(*this, "a", a, "a_scale",
                                 getAScale().getType(), "a_global_scale",
                                 getAGlobalScale(), getMode())) ||
      failed(verifyScaledOperand(*this, "b", b, "b_scale",
                                 getBScale().getType(), "b_global_scale",
                                 getBGlobalScale(), getMode())) ||
      failed(verifyScaledGemmOperands(*this, "a", a, "b", b)))
    return failure();
  Type out = getElementTypeOrSelf(getReduced().getType());
  if (failed(verifyFloatResult(*this, "result", out)))
    return failure();
  for (Value v : getResults())
    if (getElementTypeOrSelf(v.getType()) != out)
      return emitOpError("results must share one element type, got ")
             << v.getType();
  return success();
}

LogicalResult
ScaledMatmulReduceScatterOp::verifySymbolUses(SymbolTableCollection &table) {
  FailureOr<GroupInfo> group = resolveGroup(table);
  if (failed(group))
    return failure();
  auto a = getA().getType();
  Type out = getElementTypeOrSelf(getReduced().getType());
  SmallVector<int64_t> shape(a.getShape().drop_back());
  shape.push_back(getB().getType().getDimSize(0));
  if (failed(verifyBias(*this, "bias", getBias(), shape.back(), out)) ||
      failed(verifyBiasNotScattered(*this, getBias(), getDim(), a.getRank())))
    return failure();
  return verifyReducedProduct(*this, getUnreduced(), getReduced(),
                              RankedTensorType::get(shape, out), getDim(),
                              group->size);
}
