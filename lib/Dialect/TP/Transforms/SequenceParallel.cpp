//===- SequenceParallel.cpp - split all-reduces, run glue on the slice ----===//
//
// all_reduce(x) == all_gather(reduce_scatter(x)) along any dim. Splitting an
// all-reduce of a matmul's partial sums that way, then moving the all-gather
// down through the element-wise and row-wise glue after it, gives Megatron's
// sequence parallelism: the glue runs on this rank's 1/N of the rows, the
// reduce-scatter meets the matmul before it and the all-gather the matmul
// after it, and tp-async-tp fuses both.
//
// Rows computed on another rank use that rank's operands, so every operand
// of a moved op that is not itself a gather of the same group must be the
// same on every rank (Uniformity.h).
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Dialect/TP/Transforms/Uniformity.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <deque>

namespace mlir::tp {
#define GEN_PASS_DEF_TPSEQUENCEPARALLEL
#include "tp/Dialect/TP/Transforms/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;
using namespace mlir::tp;

static std::string quote(Operation *op) {
  return ("'" + op->getName().getStringRef() + "'").str();
}

/// `type` with `dim` divided by `groupSize`.
static RankedTensorType sliceType(RankedTensorType type, int64_t dim,
                                  int64_t groupSize) {
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] /= groupSize;
  return type.clone(shape);
}

namespace {

/// How one operand of a moved op gets its slice.
enum class SliceKind {
  /// Read whole (a scalar, or broadcast along the gathered dim).
  Unchanged,
  /// A gather of the same group along this dim: its input is the slice.
  Gathered,
  /// A splat constant, rebuilt at the slice's shape.
  Splat,
  /// An uninitialized tensor, rebuilt at the slice's shape.
  Empty,
  /// A fill of an uninitialized tensor, rebuilt at the slice's shape.
  Fill,
  /// Any other full value: this rank's rows, by tensor.extract_slice.
  Extract,
};

struct OperandSlice {
  SliceKind kind = SliceKind::Unchanged;
  /// The operand's dim that holds the gathered rows (-1: none).
  int64_t dim = -1;
  Value gatheredInput;
};

/// How to run one op on the slice.
struct MovePlan {
  Operation *op = nullptr;
  SmallVector<OperandSlice> operands;
  /// Per result, the dim its rows are in (where its new all-gather gathers).
  SmallVector<int64_t> resultDims;
};

/// Moves the glue after one all-gather at a time onto the slice.
class GatherSinker {
public:
  GatherSinker(RewriterBase &rewriter, bool emitRemarks)
      : rewriter(rewriter), emitRemarks(emitRemarks) {}

  /// Moves each gather down as far as it goes; the gathers they leave
  /// behind are queued and moved in turn.
  void run(ArrayRef<AllGatherOp> gathers) {
    queue.assign(gathers.begin(), gathers.end());
    while (!queue.empty()) {
      AllGatherOp next = queue.front();
      queue.pop_front();
      if (!erased.contains(next))
        sink(next);
    }
  }

  unsigned movedOps = 0, stoppedBeforeOthers = 0;

private:
  void sink(AllGatherOp gather);
  FailureOr<MovePlan> plan(AllGatherOp gather, Operation *user,
                           std::string &why);
  LogicalResult planOperand(AllGatherOp gather, OpOperand &operand,
                            int64_t dim, OperandSlice &slice,
                            std::string &why);
  void apply(AllGatherOp gather, const MovePlan &plan);
  Value buildSlice(AllGatherOp gather, Value full, const OperandSlice &slice,
                   int64_t groupSize);
  void eraseIfDead(Operation *op) {
    // `erased` first: an erased op must not be read.
    if (op && !erased.contains(op) && op->use_empty()) {
      erased.insert(op);
      rewriter.eraseOp(op);
    }
  }

  RewriterBase &rewriter;
  bool emitRemarks;
  std::deque<AllGatherOp> queue;
  llvm::DenseSet<Operation *> erased;
};

} // namespace

LogicalResult GatherSinker::planOperand(AllGatherOp gather, OpOperand &operand,
                                        int64_t dim, OperandSlice &slice,
                                        std::string &why) {
  Value value = operand.get();
  slice.dim = dim;
  if (auto other = value.getDefiningOp<AllGatherOp>();
      other && dim >= 0 && other.getGridAttr() == gather.getGridAttr() &&
      other.getGridAxes() == gather.getGridAxes() &&
      static_cast<int64_t>(other.getDim()) == dim) {
    slice.kind = SliceKind::Gathered;
    slice.gatheredInput = other.getInput();
    return success();
  }
  std::string notUniform;
  if (!isUniformAcrossGroup(value, gather.getGridAttr(), gather.getGridAxes(),
                            &notUniform)) {
    why = "operand #" + std::to_string(operand.getOperandNumber()) + " of " +
          quote(operand.getOwner()) +
          " is not known to be the same on every rank (" + notUniform + ")";
    return failure();
  }
  if (dim < 0) {
    slice.kind = SliceKind::Unchanged;
    return success();
  }
  auto type = dyn_cast<RankedTensorType>(value.getType());
  int64_t rows = gather.getType().getDimSize(gather.getDim());
  if (!type || type.getRank() <= dim || type.getDimSize(dim) != rows) {
    why = "operand #" + std::to_string(operand.getOperandNumber()) + " of " +
          quote(operand.getOwner()) + " does not have the gathered " +
          std::to_string(rows) + " rows in dim " + std::to_string(dim);
    return failure();
  }
  Operation *def = value.getDefiningOp();
  if (auto fill = dyn_cast_or_null<linalg::FillOp>(def);
      fill && fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
    slice.kind = SliceKind::Fill;
  else if (isa_and_nonnull<tensor::EmptyOp>(def))
    slice.kind = SliceKind::Empty;
  else if (DenseElementsAttr splat;
           matchPattern(value, m_Constant(&splat)) && splat.isSplat())
    slice.kind = SliceKind::Splat;
  else
    slice.kind = SliceKind::Extract;
  return success();
}

FailureOr<MovePlan> GatherSinker::plan(AllGatherOp gather, Operation *user,
                                       std::string &why) {
  MovePlan plan;
  plan.op = user;
  auto gatheredType = gather.getType();
  int64_t dim = gather.getDim();
  if (user->getBlock() != gather->getBlock()) {
    why = quote(user) + " is in another block (moving the all-gather into it "
                        "would repeat it)";
    return failure();
  }
  if (user->getNumResults() == 0 ||
      !llvm::all_of(user->getResultTypes(), llvm::IsaPred<RankedTensorType>)) {
    why = quote(user) + " needs the whole value";
    return failure();
  }
  // Per operand, the dim holding the gathered rows (-1: none); per result
  // likewise.
  SmallVector<int64_t> operandDims, resultDims;
  if (auto bias = dyn_cast<BiasAddOp>(user)) {
    if (bias.getInput() != gather.getResult() ||
        dim == gatheredType.getRank() - 1) {
      why = "the gathered dim is the bias's";
      return failure();
    }
    operandDims = {dim, -1};
    resultDims = {dim};
  } else if (user->hasTrait<OpTrait::Elementwise>()) {
    auto sameShape = [&](Type type) {
      auto ranked = dyn_cast<RankedTensorType>(type);
      return ranked && ranked.getShape() == gatheredType.getShape();
    };
    if (!llvm::all_of(user->getOperandTypes(), sameShape) ||
        !llvm::all_of(user->getResultTypes(), sameShape)) {
      why = quote(user) + " mixes shapes";
      return failure();
    }
    operandDims.assign(user->getNumOperands(), dim);
    resultDims.assign(user->getNumResults(), dim);
  } else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(user)) {
    if (isMatmul(user) || !linalgOp.hasPureTensorSemantics() ||
        linalgOp.hasIndexSemantics()) {
      why = quote(user) + (isMatmul(user)
                               ? std::string(" is a contraction")
                               : " reads loop indices or works on buffers");
      return failure();
    }
    // The loop that walks the gathered dim must be parallel and appear in
    // every operand at most once, as a plain dim.
    OpOperand *use = nullptr;
    for (OpOperand &operand : user->getOpOperands())
      if (operand.get() == gather.getResult())
        use = &operand;
    AffineMap useMap = linalgOp.getMatchingIndexingMap(use);
    auto loopExpr = dyn_cast<AffineDimExpr>(useMap.getResult(dim));
    if (!loopExpr || linalgOp.getIteratorTypesArray()[loopExpr.getPosition()] !=
                         utils::IteratorType::parallel) {
      why = quote(user) + " does not walk the gathered dim with a parallel loop";
      return failure();
    }
    unsigned loop = loopExpr.getPosition();
    for (OpOperand &operand : user->getOpOperands()) {
      AffineMap map = linalgOp.getMatchingIndexingMap(&operand);
      int64_t at = -1;
      for (auto [position, expr] : llvm::enumerate(map.getResults())) {
        if (!expr.isFunctionOfDim(loop))
          continue;
        if (at >= 0 || !isa<AffineDimExpr>(expr)) {
          why = quote(user) + " indexes operand #" +
                std::to_string(operand.getOperandNumber()) +
                " by a function of the gathered dim";
          return failure();
        }
        at = position;
      }
      if (at < 0 && linalgOp.isDpsInit(&operand)) {
        why = quote(user) + " reduces over the gathered dim";
        return failure();
      }
      operandDims.push_back(at);
      if (linalgOp.isDpsInit(&operand))
        resultDims.push_back(at);
    }
  } else {
    why = quote(user) + " is neither element-wise nor row-wise";
    return failure();
  }

  for (OpOperand &operand : user->getOpOperands()) {
    OperandSlice slice;
    if (failed(planOperand(gather, operand,
                           operandDims[operand.getOperandNumber()], slice,
                           why)))
      return failure();
    plan.operands.push_back(slice);
  }
  // Values the op's regions read from above are read whole, so they must be
  // the same on every rank too.
  for (Region &region : user->getRegions()) {
    std::string notUniform;
    bool uniform = true;
    visitUsedValuesDefinedAbove(region, [&](OpOperand *use) {
      uniform = uniform && isUniformAcrossGroup(use->get(),
                                                gather.getGridAttr(),
                                                gather.getGridAxes(),
                                                &notUniform);
    });
    if (!uniform) {
      why = quote(user) + " reads a value that is not known to be the same "
                          "on every rank (" +
            notUniform + ")";
      return failure();
    }
  }
  plan.resultDims = resultDims;
  return plan;
}

Value GatherSinker::buildSlice(AllGatherOp gather, Value full,
                               const OperandSlice &slice, int64_t groupSize) {
  if (slice.kind == SliceKind::Unchanged)
    return full; // Possibly a scalar: no type to slice.
  if (slice.kind == SliceKind::Gathered)
    return slice.gatheredInput;
  Location loc = full.getLoc();
  auto fullType = cast<RankedTensorType>(full.getType());
  RankedTensorType type = sliceType(fullType, slice.dim, groupSize);
  switch (slice.kind) {
  case SliceKind::Unchanged:
  case SliceKind::Gathered:
    llvm_unreachable("returned above");
  case SliceKind::Splat: {
    DenseElementsAttr splat;
    matchPattern(full, m_Constant(&splat));
    return arith::ConstantOp::create(
        rewriter, loc, type,
        DenseElementsAttr::get(type, splat.getSplatValue<Attribute>()));
  }
  case SliceKind::Empty:
    return tensor::EmptyOp::create(
        rewriter, loc, type, full.getDefiningOp<tensor::EmptyOp>().getDynamicSizes());
  case SliceKind::Fill: {
    auto fill = full.getDefiningOp<linalg::FillOp>();
    auto empty = fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>();
    Value init =
        tensor::EmptyOp::create(rewriter, loc, type, empty.getDynamicSizes());
    return linalg::FillOp::create(rewriter, loc, fill.getInputs()[0], init)
        .getResult(0);
  }
  case SliceKind::Extract: {
    // This rank's rows start at group_rank * rows-per-rank.
    Value rank = GroupRankOp::create(rewriter, loc, gather.getGridAttr(),
                                     gather.getGridAxesAttr());
    Value rows = arith::ConstantIndexOp::create(rewriter, loc,
                                                type.getDimSize(slice.dim));
    Value offset = arith::MulIOp::create(rewriter, loc, rank, rows);
    SmallVector<OpFoldResult> offsets(fullType.getRank(),
                                      rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, full);
    SmallVector<OpFoldResult> strides(fullType.getRank(),
                                      rewriter.getIndexAttr(1));
    offsets[slice.dim] = offset;
    sizes[slice.dim] = rewriter.getIndexAttr(type.getDimSize(slice.dim));
    return tensor::ExtractSliceOp::create(rewriter, loc, type, full, offsets,
                                          sizes, strides);
  }
  }
  llvm_unreachable("covered switch");
}

void GatherSinker::apply(AllGatherOp gather, const MovePlan &plan) {
  Operation *op = plan.op;
  int64_t groupSize =
      gather.getType().getDimSize(gather.getDim()) /
      gather.getInput().getType().getDimSize(gather.getDim());
  rewriter.setInsertionPoint(op);
  SmallVector<Value> operands;
  for (auto [operand, slice] : llvm::zip(op->getOperands(), plan.operands))
    operands.push_back(buildSlice(gather, operand, slice, groupSize));
  Operation *moved = rewriter.clone(*op);
  rewriter.modifyOpInPlace(moved, [&] {
    moved->setOperands(operands);
    for (auto [result, dim] : llvm::zip(moved->getResults(), plan.resultDims))
      result.setType(sliceType(cast<RankedTensorType>(result.getType()), dim,
                               groupSize));
  });
  SmallVector<Value> gathered;
  for (auto [original, result, dim] :
       llvm::zip(op->getResults(), moved->getResults(), plan.resultDims)) {
    auto newGather = AllGatherOp::create(
        rewriter, op->getLoc(), original.getType(), result,
        gather.getGridAttr(), gather.getGridAxesAttr(),
        rewriter.getI64IntegerAttr(dim));
    gathered.push_back(newGather);
    queue.push_back(newGather);
    erased.erase(newGather); // In case it took an erased op's memory.
  }
  // The full-size operands (other gathers, inits, constants) may have lost
  // their last user.
  SmallVector<Operation *> producers;
  for (Value operand : op->getOperands())
    if (Operation *def = operand.getDefiningOp())
      producers.push_back(def);
  rewriter.replaceOp(op, gathered);
  erased.insert(op);
  while (!producers.empty()) {
    Operation *def = producers.pop_back_val();
    if (erased.contains(def) || !def->use_empty() || !isMemoryEffectFree(def))
      continue;
    for (Value operand : def->getOperands())
      if (Operation *next = operand.getDefiningOp())
        producers.push_back(next);
    eraseIfDead(def);
  }
  ++movedOps;
}

/// Whether `op`'s results reach, through glue of the same block, a matmul
/// that takes them as A: there a gather is fused, so it pays to move `op`
/// even when that leaves a second gather for its whole value.
static bool leadsToMatmul(Operation *op) {
  SmallVector<Operation *> worklist = {op};
  llvm::DenseSet<Operation *> visited = {op};
  while (!worklist.empty()) {
    Operation *current = worklist.pop_back_val();
    for (OpOperand &use : current->getUses()) {
      Operation *user = use.getOwner();
      if (user->getBlock() != op->getBlock() || !visited.insert(user).second)
        continue;
      if (isMatmul(user)) {
        if (use.getOperandNumber() == 0)
          return true;
        continue;
      }
      if (isa<BiasAddOp, linalg::LinalgOp>(user) ||
          user->hasTrait<OpTrait::Elementwise>())
        worklist.push_back(user);
    }
  }
  return false;
}

/// Whether `value` is group_rank * `rows` on `gather`'s group.
static bool isOwnRowOffset(AllGatherOp gather, Value value, int64_t rows) {
  auto mul = value.getDefiningOp<arith::MulIOp>();
  if (!mul)
    return false;
  for (auto [rank, count] : {std::pair(mul.getLhs(), mul.getRhs()),
                             std::pair(mul.getRhs(), mul.getLhs())}) {
    auto groupRank = rank.getDefiningOp<GroupRankOp>();
    std::optional<int64_t> constant = getConstantIntValue(count);
    if (groupRank && constant && *constant == rows &&
        groupRank.getGridAttr() == gather.getGridAttr() &&
        groupRank.getGridAxes() == gather.getGridAxes())
      return true;
  }
  return false;
}

/// Whether `slice` takes this rank's own rows of `gather`'s result (rows
/// [group_rank * r, + r) along the gathered dim, everything else whole):
/// exactly the gather's input. A moved op leaves such slices when an operand
/// it sliced is later moved onto the slice itself.
static bool takesOwnRows(AllGatherOp gather, tensor::ExtractSliceOp slice) {
  auto inputType = gather.getInput().getType();
  if (slice.getSource() != gather.getResult() ||
      slice.getType() != inputType || !inputType.hasStaticShape() ||
      !llvm::all_of(slice.getMixedStrides(), isOneInteger))
    return false;
  int64_t dim = gather.getDim();
  for (auto [d, offset] : llvm::enumerate(slice.getMixedOffsets())) {
    if (static_cast<int64_t>(d) != dim) {
      if (!isZeroInteger(offset))
        return false;
      continue;
    }
    auto value = dyn_cast<Value>(offset);
    if (!value || !isOwnRowOffset(gather, value, inputType.getDimSize(dim)))
      return false;
  }
  return true;
}

void GatherSinker::sink(AllGatherOp gather) {
  // This rank's own rows of the gathered value are the gather's input.
  for (Operation *user : llvm::make_early_inc_range(gather->getUsers())) {
    auto slice = dyn_cast<tensor::ExtractSliceOp>(user);
    if (!slice || !takesOwnRows(gather, slice))
      continue;
    SmallVector<Operation *> offsetOps;
    for (Value offset : slice.getOffsets())
      if (Operation *def = offset.getDefiningOp())
        offsetOps.push_back(def);
    rewriter.replaceOp(slice, gather.getInput());
    erased.insert(slice);
    // The offset's ops (live: read from the live slice; `erased` may hold
    // their addresses from ops erased before them) die with it.
    auto eraseUnused = [&](Operation *op) {
      if (!op->use_empty())
        return;
      erased.insert(op);
      rewriter.eraseOp(op);
    };
    for (Operation *def : offsetOps) {
      SmallVector<Operation *> operands;
      for (Value operand : def->getOperands())
        if (Operation *next = operand.getDefiningOp())
          operands.push_back(next);
      eraseUnused(def);
      for (Operation *next : operands)
        eraseUnused(next);
    }
  }
  llvm::SetVector<Operation *> users;
  for (Operation *user : gather->getUsers())
    users.insert(user);
  SmallVector<MovePlan> plans;
  // Users the gather stays for, as remarks: moving the others may erase
  // some of them (a stuck user that only fed a moved op dies with it).
  SmallVector<std::string> stuck;
  bool anyStuck = false;
  for (Operation *user : users) {
    std::string why;
    FailureOr<MovePlan> plan = this->plan(gather, user, why);
    if (succeeded(plan)) {
      plans.push_back(*plan);
      continue;
    }
    anyStuck = true;
    // Stopping at a matmul is the point: tp-async-tp fuses the gather there.
    if (!isMatmul(user))
      stuck.push_back("sequence parallelism: the all-gather stays before " +
                      quote(user) + ": " + why);
  }
  // With users that need the whole value, the gather stays for them, and
  // only the glue on the way to a matmul moves (costing a second gather,
  // which tp-async-tp fuses).
  if (anyStuck)
    llvm::erase_if(plans, [](const MovePlan &plan) {
      return !leadsToMatmul(plan.op);
    });
  Location loc = gather.getLoc();
  // Each move changes the IR the next plan was made from (an operand may now
  // be a moved op's gather, a user may have died with a moved op): plan each
  // again right before moving it.
  for (const MovePlan &first : plans) {
    Operation *user = first.op;
    if (erased.contains(gather) || erased.contains(user) ||
        !llvm::is_contained(gather->getUsers(), user))
      continue;
    std::string why;
    FailureOr<MovePlan> plan = this->plan(gather, user, why);
    if (succeeded(plan))
      apply(gather, *plan);
    else
      stuck.push_back("sequence parallelism: the all-gather stays before " +
                      quote(user) + ": " + why);
  }
  if (!stuck.empty())
    ++stoppedBeforeOthers;
  if (emitRemarks)
    for (const std::string &remark : stuck)
      emitRemark(loc) << remark;
  eraseIfDead(gather);
}

namespace {

struct TPSequenceParallelPass
    : mlir::tp::impl::TPSequenceParallelBase<TPSequenceParallelPass> {
  using TPSequenceParallelBase::TPSequenceParallelBase;

  /// The all-gather that replaces `op`, or failure with `why`.
  FailureOr<AllGatherOp> split(RewriterBase &rewriter, AllReduceOp op,
                               std::string &why) {
    std::optional<int64_t> groupSize = getStaticGroupSize(op);
    if (!groupSize) {
      why = "its group size is not static";
      return failure();
    }
    auto type = cast<RankedTensorType>(op.getType());
    if (type.getRank() < 2) {
      why = "a tensor of rank " + std::to_string(type.getRank()) +
            " has no row dim besides the last";
      return failure();
    }
    std::optional<int64_t> dim;
    for (int64_t d = 0; d + 1 < type.getRank() && !dim; ++d)
      if (!type.isDynamicDim(d) && type.getDimSize(d) > 0 &&
          type.getDimSize(d) % *groupSize == 0)
        dim = d;
    if (!dim) {
      why = "no dim but the last has a static size divisible by the group "
            "size " +
            std::to_string(*groupSize);
      return failure();
    }
    if (!isMatmulProduct(op.getInput())) {
      Operation *def = op.getInput().getDefiningOp();
      why = "its input is " +
            (def ? "produced by " + quote(def) : std::string("an argument")) +
            ", not a matmul's partial sums, so no fused reduce-scatter would "
            "hide it";
      return failure();
    }
    rewriter.setInsertionPoint(op);
    auto scatter = ReduceScatterOp::create(
        rewriter, op.getLoc(), sliceType(type, *dim, *groupSize),
        op.getInput(), op.getGridAttr(), op.getGridAxesAttr(),
        rewriter.getI64IntegerAttr(*dim), op.getReduceAttr());
    auto gather = AllGatherOp::create(rewriter, op.getLoc(), type, scatter,
                                      op.getGridAttr(), op.getGridAxesAttr(),
                                      rewriter.getI64IntegerAttr(*dim));
    rewriter.replaceOp(op, gather);
    if (emitRemarks)
      emitRemark(gather.getLoc())
          << "sequence parallelism: all-reduce split into reduce-scatter + "
             "all-gather along dim "
          << *dim;
    return gather;
  }

  void runOnOperation() override {
    SmallVector<AllReduceOp> allReduces;
    getOperation()->walk([&](AllReduceOp op) { allReduces.push_back(op); });
    IRRewriter rewriter(&getContext());
    SmallVector<AllGatherOp> gathers;
    unsigned left = 0;
    for (AllReduceOp op : allReduces) {
      if (getStaticGroupSize(op) == 1)
        continue; // Folds away.
      std::string why;
      FailureOr<AllGatherOp> gather = split(rewriter, op, why);
      if (succeeded(gather)) {
        gathers.push_back(*gather);
        continue;
      }
      ++left;
      if (emitRemarks)
        emitRemark(op.getLoc())
            << "sequence parallelism: all-reduce not split: " << why;
    }
    // All splits first: a moved op may combine two of their gathers.
    GatherSinker sinker(rewriter, emitRemarks);
    sinker.run(gathers);
    if (reportCounts)
      emitRemark(getOperation()->getLoc(), "tp-sequence-parallel: ")
          << gathers.size() << " all-reduces split, " << left
          << " left whole, " << sinker.movedOps
          << " ops moved onto the slice, " << sinker.stoppedBeforeOthers
          << " all-gathers stopped before a non-matmul";
  }
};

} // namespace
