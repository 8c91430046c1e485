//===- SimplifyCollectives.cpp - unread collectives, zero addends ---------===//
//
// Two clean-ups for per-rank programs before fusion:
//
// * A collective whose result is never read is removed. Upstream
//   shard-partition emits one for a row-parallel layer whose accumulator
//   `tensor.empty` carries the layer's (sequence-parallel) output sharding:
//   the empty is all-gathered to the replicated layout, only to be the
//   destination of the `linalg.fill` that zeroes the accumulator, a full
//   activation-sized collective of uninitialized data. Every rank runs the
//   same program and this decision depends only on the IR, never on the rank,
//   so every rank that would have entered the collective drops it: no rank is
//   left waiting for a peer.
//
// * An addend known to be zero is dropped. `x + -0.0 == x` for every x, and
//   integer `x + 0 == x`. `x + +0.0` differs from x only for x = -0.0, so +0.0
//   is dropped only where the other operand can never be -0.0: a matmul
//   product (it accumulates from +0.0, the meaning of linalg.matmul with a
//   zero-filled init, and in round-to-nearest a sum is -0.0 only when both
//   its terms are), a sum one of whose terms is such a value, a reduction of
//   such values; or where the add carries the `nsz` fast-math flag.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/TP/Transforms/SimplifyCollectives.h"
#include "tp/Dialect/TP/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPSIMPLIFYCOLLECTIVES
#include "tp/Dialect/TP/Transforms/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;
using namespace mlir::tp;

SimplifyCollectivesObserver::~SimplifyCollectivesObserver() = default;
void SimplifyCollectivesObserver::collectiveRemoved(Operation *,
                                                    llvm::StringRef) {}
void SimplifyCollectivesObserver::addendDropped(Operation *, Value,
                                                llvm::StringRef) {}

//===----------------------------------------------------------------------===//
// Unread collectives
//===----------------------------------------------------------------------===//

bool mlir::tp::isRemovableCollective(Operation *op) {
  return isa<AllGatherOp, ReduceScatterOp, AllReduceOp>(op);
}

/// Whether `use` is a DPS init its linalg user overwrites without reading.
static bool isUnreadInit(OpOperand &use) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(use.getOwner());
  return linalgOp && linalgOp.hasPureTensorSemantics() &&
         linalgOp.isDpsInit(&use) &&
         !linalgOp.payloadUsesValueFromOperand(&use);
}

std::string mlir::tp::whyCollectiveUnread(Operation *op) {
  if (op->getNumResults() != 1)
    return "";
  Value result = op->getResult(0);
  if (result.use_empty())
    return "its result is never used";
  std::string overwriter;
  for (OpOperand &use : result.getUses()) {
    if (isa<tensor::DimOp>(use.getOwner()))
      continue;
    if (!isUnreadInit(use))
      return "";
    if (overwriter.empty())
      overwriter = use.getOwner()->getName().getStringRef().str();
  }
  if (overwriter.empty())
    return "only the shape of its result is used";
  return "its result is only the destination of '" + overwriter +
         "', which overwrites it without reading it";
}

/// The collective dimension of `op` (all-gather, reduce-scatter), if any.
static std::optional<int64_t> collectiveDim(Operation *op) {
  if (auto gather = dyn_cast<AllGatherOp>(op))
    return gather.getDim();
  if (auto scatter = dyn_cast<ReduceScatterOp>(op))
    return scatter.getDim();
  return std::nullopt;
}

/// Why a tensor.empty of `op`'s result type cannot be built before `op`
/// (empty when it can): a dynamic size along the collective dimension needs
/// the group size.
static std::string whyNoEmpty(Operation *op) {
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  auto inputType = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  if (!type || !inputType || type.getRank() != inputType.getRank())
    return "its result is not a ranked tensor of its input's rank";
  std::optional<int64_t> dim = collectiveDim(op);
  if (dim && *dim < type.getRank() && type.isDynamicDim(*dim) &&
      !getStaticGroupSize(op))
    return "the size of its dynamic dimension " + std::to_string(*dim) +
           " depends on a group size that is not static";
  return "";
}

/// A tensor.empty of `op`'s result type, its dynamic sizes computed from the
/// input's (times or over the group size along the collective dimension).
static Value buildEmpty(PatternRewriter &rewriter, Operation *op) {
  Location loc = op->getLoc();
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  Value input = op->getOperand(0);
  std::optional<int64_t> dim = collectiveDim(op);
  SmallVector<Value> sizes;
  for (int64_t i = 0, e = type.getRank(); i < e; ++i) {
    if (!type.isDynamicDim(i))
      continue;
    Value size = tensor::DimOp::create(rewriter, loc, input, i);
    if (dim && *dim == i) {
      Value group = arith::ConstantIndexOp::create(
          rewriter, loc, *getStaticGroupSize(op));
      if (isa<AllGatherOp>(op))
        size = arith::MulIOp::create(rewriter, loc, size, group);
      else
        size = arith::DivUIOp::create(rewriter, loc, size, group);
    }
    sizes.push_back(size);
  }
  return tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                 type.getElementType(), sizes,
                                 type.getEncoding());
}

namespace {

template <typename CollectiveOp>
struct RemoveUnreadCollective : OpRewritePattern<CollectiveOp> {
  RemoveUnreadCollective(MLIRContext *context,
                         SimplifyCollectivesObserver *observer)
      : OpRewritePattern<CollectiveOp>(context), observer(observer) {}

  LogicalResult matchAndRewrite(CollectiveOp op,
                                PatternRewriter &rewriter) const override {
    std::string why = whyCollectiveUnread(op);
    if (why.empty())
      return rewriter.notifyMatchFailure(op, "its result is read");
    Value result = op.getResult();
    if (!result.use_empty()) {
      std::string noEmpty = whyNoEmpty(op);
      if (!noEmpty.empty())
        return rewriter.notifyMatchFailure(op, noEmpty);
    }
    if (observer)
      observer->collectiveRemoved(op, why);
    if (!result.use_empty()) {
      Value empty = buildEmpty(rewriter, op);
      for (OpOperand &use : llvm::make_early_inc_range(result.getUses()))
        rewriter.modifyOpInPlace(use.getOwner(), [&] { use.set(empty); });
    }
    rewriter.eraseOp(op);
    return success();
  }

  SimplifyCollectivesObserver *observer;
};

//===----------------------------------------------------------------------===//
// Zero addends
//===----------------------------------------------------------------------===//

/// What adding a value known to be zero does.
enum class Zero {
  No,       // not known to be zero
  Exact,    // -0.0 or an integer 0: adding it is an identity
  Positive, // +0.0: an identity except for x = -0.0
  Mixed,    // +0.0 on some path, -0.0 on another
};

static Zero meet(Zero a, Zero b) {
  if (a == Zero::No || b == Zero::No)
    return Zero::No;
  if (a == b)
    return a;
  return Zero::Mixed;
}

static Zero classifyAttr(Attribute attr) {
  if (auto splat = dyn_cast<SplatElementsAttr>(attr)) {
    if (isa<FloatType>(splat.getElementType()))
      return classifyAttr(FloatAttr::get(splat.getElementType(),
                                         splat.getSplatValue<APFloat>()));
    if (isa<IntegerType, IndexType>(splat.getElementType()))
      return splat.getSplatValue<APInt>().isZero() ? Zero::Exact : Zero::No;
    return Zero::No;
  }
  if (auto f = dyn_cast<FloatAttr>(attr)) {
    const APFloat &value = f.getValue();
    if (!value.isZero())
      return Zero::No;
    return value.isNegative() ? Zero::Exact : Zero::Positive;
  }
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return i.getValue().isZero() ? Zero::Exact : Zero::No;
  return Zero::No;
}

/// Whether `value` is known to hold only zeros: a constant, splat or
/// linalg.fill of zero, or an scf.if all of whose branches yield one.
static Zero zeroOf(Value value, unsigned depth = 0) {
  if (depth > 8)
    return Zero::No;
  Attribute attr;
  if (matchPattern(value, m_Constant(&attr)))
    return classifyAttr(attr);
  Operation *def = value.getDefiningOp();
  if (!def)
    return Zero::No;
  if (auto fill = dyn_cast<linalg::FillOp>(def))
    return fill.hasPureTensorSemantics()
               ? zeroOf(fill.getInputs()[0], depth + 1)
               : Zero::No;
  if (auto splat = dyn_cast<tensor::SplatOp>(def))
    return zeroOf(splat.getInput(), depth + 1);
  if (auto ifOp = dyn_cast<scf::IfOp>(def)) {
    if (ifOp.getElseRegion().empty())
      return Zero::No;
    unsigned index = cast<OpResult>(value).getResultNumber();
    return meet(zeroOf(ifOp.thenYield().getOperand(index), depth + 1),
                zeroOf(ifOp.elseYield().getOperand(index), depth + 1));
  }
  return Zero::No;
}

/// Whether `value` can never hold -0.0 (see the file comment).
static bool neverNegativeZero(Value value, unsigned depth = 0) {
  if (depth > 8)
    return false;
  Attribute attr;
  if (matchPattern(value, m_Constant(&attr))) {
    if (auto splat = dyn_cast<SplatElementsAttr>(attr))
      return isa<FloatType>(splat.getElementType()) &&
             !splat.getSplatValue<APFloat>().isNegZero();
    if (auto f = dyn_cast<FloatAttr>(attr))
      return !f.getValue().isNegZero();
    return false;
  }
  Operation *def = value.getDefiningOp();
  if (!def)
    return false;
  // Products accumulated from +0.0, plus a bias or reduced across ranks.
  if (isa<MatmulOp, BatchMatmulOp, ScaledMatmulOp, AllGatherMatmulOp,
          AllGatherContractOp, AllToAllMatmulOp, MatmulAllToAllOp,
          AllGatherScaledMatmulOp, MatmulReduceScatterOp,
          ScaledMatmulReduceScatterOp>(def))
    return true;
  // A linalg contraction adds its products to its init.
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(def)) {
    if (!linalgOp.hasPureTensorSemantics() ||
        !linalg::isaContractionOpInterface(linalgOp) ||
        linalgOp.getNumDpsInits() != 1)
      return false;
    Value init = linalgOp.getDpsInits()[0];
    return zeroOf(init) == Zero::Positive || neverNegativeZero(init, depth + 1);
  }
  // a + b is -0.0 only when both are.
  if (auto add = dyn_cast<arith::AddFOp>(def))
    return neverNegativeZero(add.getLhs(), depth + 1) ||
           neverNegativeZero(add.getRhs(), depth + 1);
  if (auto bias = dyn_cast<BiasAddOp>(def))
    return neverNegativeZero(bias.getInput(), depth + 1) ||
           neverNegativeZero(bias.getBias(), depth + 1);
  // Sums, averages, maxima, minima and concatenations of such values.
  if (isa<AllGatherOp, ReduceScatterOp, AllReduceOp, tensor::CollapseShapeOp,
          tensor::ExpandShapeOp, tensor::CastOp>(def))
    return neverNegativeZero(def->getOperand(0), depth + 1);
  if (auto ifOp = dyn_cast<scf::IfOp>(def)) {
    if (ifOp.getElseRegion().empty())
      return false;
    unsigned index = cast<OpResult>(value).getResultNumber();
    return neverNegativeZero(ifOp.thenYield().getOperand(index), depth + 1) &&
           neverNegativeZero(ifOp.elseYield().getOperand(index), depth + 1);
  }
  return false;
}

/// Why adding `zero` (of kind `kind`) to `other` is `other` (empty when it is
/// not): `noSignedZeros` is the add's `nsz` flag.
static std::string whyDroppable(Zero kind, Value other, bool noSignedZeros) {
  switch (kind) {
  case Zero::No:
    return "";
  case Zero::Exact:
    return isa<FloatType>(getElementTypeOrSelf(other.getType()))
               ? "adding -0.0 is exact"
               : "adding integer 0 is exact";
  case Zero::Positive:
  case Zero::Mixed:
    if (noSignedZeros)
      return "the add has the 'nsz' flag";
    if (neverNegativeZero(other))
      return "the other operand (a matmul product or a sum with one) is never "
             "-0.0, so adding +0.0 is exact";
    return "";
  }
  return "";
}

/// Replaces the two-operand add `op` by its operand other than a droppable
/// zero (`lhs` or `rhs`), if it has one of the result's type.
static LogicalResult dropZeroOperand(PatternRewriter &rewriter, Operation *op,
                                     Value lhs, Value rhs, bool noSignedZeros,
                                     SimplifyCollectivesObserver *observer) {
  for (auto [zero, other] : {std::pair(lhs, rhs), std::pair(rhs, lhs)}) {
    std::string why = whyDroppable(zeroOf(zero), other, noSignedZeros);
    if (why.empty() || other.getType() != op->getResult(0).getType())
      continue;
    if (observer)
      observer->addendDropped(op, zero, why);
    rewriter.replaceOp(op, other);
    return success();
  }
  return rewriter.notifyMatchFailure(op, "no droppable zero operand");
}

struct DropZeroAddF : OpRewritePattern<arith::AddFOp> {
  DropZeroAddF(MLIRContext *context, SimplifyCollectivesObserver *observer)
      : OpRewritePattern(context), observer(observer) {}

  LogicalResult matchAndRewrite(arith::AddFOp op,
                                PatternRewriter &rewriter) const override {
    bool nsz = bitEnumContainsAll(op.getFastmath(),
                                  arith::FastMathFlags::nsz);
    return dropZeroOperand(rewriter, op, op.getLhs(), op.getRhs(), nsz,
                           observer);
  }

  SimplifyCollectivesObserver *observer;
};

struct DropZeroLinalgAdd : OpRewritePattern<linalg::AddOp> {
  DropZeroLinalgAdd(MLIRContext *context, SimplifyCollectivesObserver *observer)
      : OpRewritePattern(context), observer(observer) {}

  LogicalResult matchAndRewrite(linalg::AddOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op.getInputs().size() != 2 ||
        op->getNumResults() != 1)
      return rewriter.notifyMatchFailure(op, "not a tensor add");
    return dropZeroOperand(rewriter, op, op.getInputs()[0], op.getInputs()[1],
                           /*noSignedZeros=*/false, observer);
  }

  SimplifyCollectivesObserver *observer;
};

struct DropZeroBias : OpRewritePattern<BiasAddOp> {
  DropZeroBias(MLIRContext *context, SimplifyCollectivesObserver *observer)
      : OpRewritePattern(context), observer(observer) {}

  LogicalResult matchAndRewrite(BiasAddOp op,
                                PatternRewriter &rewriter) const override {
    std::string why =
        whyDroppable(zeroOf(op.getBias()), op.getInput(), false);
    if (why.empty())
      return rewriter.notifyMatchFailure(op, "the bias is not droppable");
    if (observer)
      observer->addendDropped(op, op.getBias(), why);
    rewriter.replaceOp(op, op.getInput());
    return success();
  }

  SimplifyCollectivesObserver *observer;
};

/// tp.matmul_reduce_scatter: the addend joins the product (never -0.0) and the
/// bias the reduced products (never -0.0), so any zero of either goes.
struct DropZeroFusedAddend : OpRewritePattern<MatmulReduceScatterOp> {
  DropZeroFusedAddend(MLIRContext *context,
                      SimplifyCollectivesObserver *observer)
      : OpRewritePattern(context), observer(observer) {}

  LogicalResult matchAndRewrite(MatmulReduceScatterOp op,
                                PatternRewriter &rewriter) const override {
    if (Value addend = op.getAddend(); addend && zeroOf(addend) != Zero::No) {
      if (observer)
        observer->addendDropped(op, addend,
                                "the addend joins a matmul product, which is "
                                "never -0.0");
      rewriter.modifyOpInPlace(op, [&] { op.getAddendMutable().clear(); });
      return success();
    }
    if (Value bias = op.getBias(); bias && zeroOf(bias) != Zero::No) {
      if (observer)
        observer->addendDropped(op, bias,
                                "the bias joins reduced matmul products, "
                                "which are never -0.0");
      rewriter.modifyOpInPlace(op, [&] { op.getBiasMutable().clear(); });
      return success();
    }
    return rewriter.notifyMatchFailure(op, "no zero addend or bias");
  }

  SimplifyCollectivesObserver *observer;
};

} // namespace

void mlir::tp::populateSimplifyCollectivesPatterns(
    RewritePatternSet &patterns, SimplifyCollectivesObserver *observer) {
  MLIRContext *context = patterns.getContext();
  patterns.add<RemoveUnreadCollective<AllGatherOp>,
               RemoveUnreadCollective<ReduceScatterOp>,
               RemoveUnreadCollective<AllReduceOp>, DropZeroAddF,
               DropZeroLinalgAdd, DropZeroBias, DropZeroFusedAddend>(context,
                                                                    observer);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {

/// Counts and remarks. Also listens to the rewrite driver: a collective the
/// driver erases because it became dead (or was dead) is removed too.
struct Reporter : SimplifyCollectivesObserver, RewriterBase::Listener {
  Reporter(bool emitRemarks) : emitRemarks(emitRemarks) {}

  void collectiveRemoved(Operation *op, llvm::StringRef why) override {
    ++collectives;
    reported.insert(op);
    if (emitRemarks)
      emitRemark(op->getLoc()) << "tp-simplify-collectives: removed '"
                               << op->getName() << "': " << why;
  }

  void addendDropped(Operation *op, Value zero, llvm::StringRef why) override {
    ++addends;
    if (emitRemarks)
      emitRemark(op->getLoc()) << "tp-simplify-collectives: dropped a zero "
                               << (isBias(op, zero) ? "bias" : "addend")
                               << " of '" << op->getName() << "': " << why;
  }

  static bool isBias(Operation *op, Value zero) {
    if (auto bias = dyn_cast<BiasAddOp>(op))
      return bias.getBias() == zero;
    if (auto fused = dyn_cast<MatmulReduceScatterOp>(op))
      return fused.getBias() == zero;
    return false;
  }

  void notifyOperationErased(Operation *op) override {
    if (!isRemovableCollective(op) || reported.erase(op))
      return;
    collectiveRemoved(op, "its result is never used");
    reported.erase(op);
  }

  bool emitRemarks;
  unsigned collectives = 0, addends = 0;
  llvm::DenseSet<Operation *> reported;
};

struct SimplifyCollectivesPass
    : mlir::tp::impl::TPSimplifyCollectivesBase<SimplifyCollectivesPass> {
  using TPSimplifyCollectivesBase::TPSimplifyCollectivesBase;

  void runOnOperation() override {
    Reporter reporter(emitRemarks);
    RewritePatternSet patterns(&getContext());
    populateSimplifyCollectivesPatterns(patterns, &reporter);
    GreedyRewriteConfig config;
    config.setListener(&reporter);
    // Collectives before the adds they feed: a collective is reported with
    // the reason it is unread before a dropped addend makes it dead.
    config.setUseTopDownTraversal(true);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config)))
      return signalPassFailure();
    // Unread collectives that had to stay.
    if (emitRemarks) {
      getOperation()->walk([&](Operation *op) {
        if (!isRemovableCollective(op) || whyCollectiveUnread(op).empty())
          return;
        std::string why = whyNoEmpty(op);
        if (!why.empty())
          emitRemark(op->getLoc())
              << "tp-simplify-collectives: kept '" << op->getName()
              << "' although its result is never read: " << why;
      });
    }
    if (reportCounts)
      emitRemark(getOperation()->getLoc())
          << "tp-simplify-collectives: " << reporter.collectives
          << " collectives removed, " << reporter.addends
          << " zero addends dropped";
  }
};

} // namespace
