//===- FuseAllToAll.cpp - all-to-all fused with its matmuls ---------------===//
//
// Both sides of an all-to-all overlap with a matmul:
//  - consumer: a matmul reads the result as A (Ulysses attention's heads ->
//    sequence exchange before a projection, tokens arriving at an expert):
//    tp.all_to_all_matmul multiplies each block into its own rows as it
//    lands. The consumers are matched exactly as an all-gather's
//    (GatherConsumers.h).
//  - producer: the input is a matmul's product (expert outputs going back,
//    attention heads going back to the sequence split): tp.matmul_all_to_all
//    computes each peer's block and sends it while it computes the next. The
//    product is matched as a reduce-scatter's (MatmulProducer.h).
// A transpose between the two moves to the far side of the all-to-all first
// (an all-to-all only relabels dims), so it no longer hides the pair.
//
//===----------------------------------------------------------------------===//

#include "GatherConsumers.h"
#include "MatmulProducer.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::detail;

//===----------------------------------------------------------------------===//
// Transposes across the all-to-all
//===----------------------------------------------------------------------===//

/// The index i with perm[i] == dim.
static int64_t inversePermuted(ArrayRef<int64_t> perm, int64_t dim) {
  return llvm::find(perm, dim) - perm.begin();
}

/// `value` transposed by `perm` (result dim i = value's dim perm[i]), into a
/// new tensor.empty; null when `value`'s shape is not static.
static Value transposed(RewriterBase &rewriter, Location loc, Value value,
                        ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(value.getType());
  if (!type.hasStaticShape())
    return {};
  SmallVector<int64_t> shape;
  for (int64_t d : perm)
    shape.push_back(type.getDimSize(d));
  Value init =
      tensor::EmptyOp::create(rewriter, loc, shape, type.getElementType());
  return linalg::TransposeOp::create(rewriter, loc, value, init, perm)
      .getResult()
      .front();
}

/// Erases `t`, and its init when nothing else reads it.
static void eraseTranspose(RewriterBase &rewriter, linalg::TransposeOp t) {
  Operation *init = t.getInit().getDefiningOp();
  rewriter.eraseOp(t);
  if (isa_and_nonnull<tensor::EmptyOp>(init) && init->use_empty())
    rewriter.eraseOp(init);
}

/// Whether a matmul reads `value`, directly or through a collapse.
static bool feedsMatmul(Value value) {
  for (Operation *user : value.getUsers()) {
    if (isMatmul(user))
      return true;
    if (isa<tensor::CollapseShapeOp>(user) && feedsMatmul(user->getResult(0)))
      return true;
  }
  return false;
}

/// transpose(all_to_all(x)) -> all_to_all(transpose(x)) when the transpose
/// feeds a matmul; all_to_all(transpose(product)) ->
/// transpose(all_to_all(product)) when nothing fuses below.
static void moveTransposeAcross(RewriterBase &rewriter, AllToAllOp op) {
  int64_t split = op.getSplit(), concat = op.getConcat();
  auto t = op->hasOneUse() ? dyn_cast<linalg::TransposeOp>(*op->user_begin())
                           : linalg::TransposeOp();
  if (t && t.getInput() == op.getResult() && feedsMatmul(t.getResult()[0])) {
    ArrayRef<int64_t> perm = t.getPermutation();
    rewriter.setInsertionPoint(op);
    Value input = transposed(rewriter, t.getLoc(), op.getInput(), perm);
    if (!input)
      return;
    auto moved = AllToAllOp::create(
        rewriter, op.getLoc(), t.getResult()[0].getType(), input,
        op.getGridAttr(), op.getGridAxesAttr(),
        rewriter.getI64IntegerAttr(inversePermuted(perm, split)),
        rewriter.getI64IntegerAttr(inversePermuted(perm, concat)));
    rewriter.replaceAllUsesWith(t.getResult()[0], moved.getResult());
    eraseTranspose(rewriter, t);
    rewriter.eraseOp(op);
    return;
  }
  t = op.getInput().getDefiningOp<linalg::TransposeOp>();
  if (!t || !t->hasOneUse() || feedsMatmul(op.getResult()) ||
      !isMatmulProduct(t.getInput()))
    return;
  ArrayRef<int64_t> perm = t.getPermutation();
  auto productType = cast<RankedTensorType>(t.getInput().getType());
  if (!productType.hasStaticShape() || !op.getType().hasStaticShape())
    return;
  SmallVector<int64_t> shape(productType.getShape());
  int64_t groupSize = op.getInput().getType().getDimSize(split) /
                      op.getType().getDimSize(split);
  if (split == concat || groupSize < 1)
    groupSize = 1;
  int64_t newSplit = perm[split], newConcat = perm[concat];
  if (newSplit != newConcat) {
    shape[newSplit] /= groupSize;
    shape[newConcat] *= groupSize;
  }
  rewriter.setInsertionPoint(op);
  auto moved =
      AllToAllOp::create(rewriter, op.getLoc(), productType.clone(shape),
                         t.getInput(), op.getGridAttr(), op.getGridAxesAttr(),
                         rewriter.getI64IntegerAttr(newSplit),
                         rewriter.getI64IntegerAttr(newConcat));
  Value result = transposed(rewriter, t.getLoc(), moved.getResult(), perm);
  rewriter.replaceOp(op, result);
  eraseTranspose(rewriter, t);
}

void mlir::tp::moveTransposesAcrossAllToAlls(Operation *root,
                                             RewriterBase &rewriter) {
  SmallVector<AllToAllOp> exchanges;
  root->walk([&](AllToAllOp op) { exchanges.push_back(op); });
  for (AllToAllOp op : exchanges)
    moveTransposeAcross(rewriter, op);
}

//===----------------------------------------------------------------------===//
// matmul -> all_to_all
//===----------------------------------------------------------------------===//

/// Fuses `op` with the matmul that computes its input.
static FusionReport fuseProducer(RewriterBase &rewriter, AllToAllOp op) {
  FusionReport report;
  std::string why;
  FailureOr<MatmulProducer> match = matchMatmulProducer(
      op.getInput(), op, "all-to-all", /*perBatchB=*/true, why);
  auto miss = [&](const Twine &reason) {
    report.misses.push_back(reason.str());
    return report;
  };
  if (failed(match))
    return miss(why);
  MatmulProducer &p = *match;
  if (p.scaled)
    return miss("the matmul before it is a scaled (low-precision) matmul, "
                "and tp.matmul_all_to_all multiplies f32, bf16 or f16 "
                "operands: its product is exchanged unfused");
  if (p.addend)
    return miss("an addend ('arith.addf') is added to the matmul's product "
                "before the all-to-all");
  int64_t rank = op.getType().getRank();
  if (cast<RankedTensorType>(p.b.getType()).getRank() > 2 &&
      static_cast<int64_t>(op.getSplit()) != rank - 2)
    return miss("the batched matmul has one B per batch, and the all-to-all "
                "cuts dim " +
                Twine(op.getSplit()) + ", not the rows (dim " +
                Twine(rank - 2) + "): each block would need every B");

  Operation *point = p.chain.back();
  Value product = p.product();
  bool returnProduct = !product.hasOneUse();
  SmallVector<Type> resultTypes;
  if (returnProduct)
    resultTypes.push_back(product.getType());
  resultTypes.push_back(op.getType());
  SmallVector<Location> locs;
  for (Operation *chained : p.chain)
    locs.push_back(chained->getLoc());
  locs.push_back(op.getLoc());
  rewriter.setInsertionPoint(point);
  Value a = fusedOperandA(rewriter, p);
  auto fused = MatmulAllToAllOp::create(
      rewriter, rewriter.getFusedLoc(locs), resultTypes, a, p.b,
      op.getGridAttr(), op.getGridAxesAttr(), op.getSplitAttr(),
      op.getConcatAttr(), p.transposeB ? rewriter.getUnitAttr() : UnitAttr(),
      returnProduct ? rewriter.getUnitAttr() : UnitAttr(),
      /*algorithm=*/nullptr, /*chunks=*/nullptr, /*streams=*/nullptr);
  rewriter.replaceOp(op, fused.getExchanged());
  if (returnProduct)
    rewriter.replaceAllUsesWith(product, fused.getProduct());
  eraseMatmulChain(rewriter, p);
  report.fused = fused;
  return report;
}

/// Why a layout op between a matmul and `op` stays there, when one does.
static std::optional<std::string> layoutOpAfterMatmul(AllToAllOp op) {
  Operation *def = op.getInput().getDefiningOp();
  if (!def || !reachesMatmul(def, /*downward=*/false))
    return std::nullopt;
  if (isa<linalg::TransposeOp>(def))
    return "a transpose (" + quoteName(def) +
           ") sits between the matmul and the all-to-all and cannot move "
           "below it (dynamic dims, or other users of the transposed product)";
  if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, tensor::ReshapeOp>(
          def))
    return "a reshape (" + quoteName(def) +
           ") sits between the matmul and the all-to-all: exchange the "
           "product before reshaping it";
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// all_to_all -> matmul
//===----------------------------------------------------------------------===//

FusionReport mlir::tp::fuseAllToAll(RewriterBase &rewriter, AllToAllOp op,
                                    const AsyncTPOptions &options) {
  FusionReport report;
  std::string why;
  if (!isTensorParallelGroup(op.getGridAxes(), options, "all-to-all", why)) {
    report.misses.push_back(why);
    return report;
  }
  // Nothing reads the result as A: the matmul before it may still overlap
  // (or another fused op took it, which the producer match says).
  bool productOfFusedOp =
      isa_and_nonnull<MatmulAllToAllOp, MatmulReduceScatterOp>(
          op.getInput().getDefiningOp());
  if (!feedsMatmul(op.getResult()) &&
      (isMatmulOutput(op.getInput()) || productOfFusedOp))
    return fuseProducer(rewriter, op);
  if (!reachesMatmul(op, /*downward=*/true))
    if (std::optional<std::string> why = layoutOpAfterMatmul(op)) {
      report.misses.push_back(*why);
      return report;
    }
  SmallVector<Miss> misses;
  ConsumerList group = collectConsumers(op, misses);
  reportMisses(misses, group.empty(), report);
  if (group.empty() && isMatmulOutput(op.getInput())) {
    // No matmul takes the result as A: overlap the one that makes it.
    FusionReport producer = fuseProducer(rewriter, op);
    if (producer.fused)
      return producer;
    llvm::append_range(report.misses, producer.misses);
    return report;
  }
  if (group.empty())
    return report;

  bool returnExchanged = resultStillRead(op, group);
  llvm::SetVector<Operation *> toHoist;
  for (Consumer &c : group)
    toHoist.insert(c.toHoist.begin(), c.toHoist.end());
  hoistAbove(rewriter, op, toHoist);

  SmallVector<Type> resultTypes;
  if (returnExchanged)
    resultTypes.push_back(op.getType());
  llvm::append_range(resultTypes, productTypes(op.getType(), group));
  SmallVector<Value> bs, biases;
  SmallVector<bool> biasMask;
  SmallVector<Location> locs = {op.getLoc()};
  for (Consumer &c : group) {
    bs.push_back(c.b);
    biasMask.push_back(static_cast<bool>(c.bias));
    if (c.bias)
      biases.push_back(c.bias);
    locs.push_back(c.matmul->getLoc());
  }
  rewriter.setInsertionPoint(op);
  auto fused = AllToAllMatmulOp::create(
      rewriter, rewriter.getFusedLoc(locs), resultTypes, op.getInput(), bs,
      biases, op.getGridAttr(), op.getGridAxesAttr(), op.getSplitAttr(),
      op.getConcatAttr(), rewriter.getDenseBoolArrayAttr(biasMask),
      group.front().transposeB ? rewriter.getUnitAttr() : UnitAttr(),
      returnExchanged ? rewriter.getUnitAttr() : UnitAttr(),
      /*algorithm=*/nullptr, /*chunks=*/nullptr, /*streams=*/nullptr);
  replaceConsumers(rewriter, op, fused, fused.getProducts(), group,
                   returnExchanged);
  report.fused = fused;
  return report;
}
