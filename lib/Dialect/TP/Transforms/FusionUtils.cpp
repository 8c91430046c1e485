//===- FusionUtils.cpp - legality helpers shared by the fusions -----------===//

#include "FusionUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;
using namespace mlir::tp;

std::string mlir::tp::quoteName(Operation *op) {
  return ("'" + op->getName().getStringRef() + "'").str();
}

bool mlir::tp::isTensorParallelGroup(ArrayRef<int16_t> axes,
                                     const AsyncTPOptions &options,
                                     StringRef collective, std::string &why) {
  auto list = [&] {
    std::string text;
    llvm::raw_string_ostream os(text);
    llvm::interleaveComma(axes, os);
    return text;
  };
  if (axes.size() != 1) {
    why = ("the " + collective + " spans grid axes [" + list() +
           "]; async TP fuses collectives along one tensor-parallel axis")
              .str();
    return false;
  }
  if (options.tensorParallelAxis && axes[0] != *options.tensorParallelAxis) {
    why =
        ("the " + collective + " is along grid axis " + Twine(axes[0]) +
         ", not the tensor-parallel axis " + Twine(*options.tensorParallelAxis))
            .str();
    return false;
  }
  return true;
}

static bool isElementwise(Operation *op) {
  if (op->hasTrait<OpTrait::Elementwise>() || isa<BiasAddOp>(op))
    return true;
  auto generic = dyn_cast<linalg::GenericOp>(op);
  return generic && generic.getNumLoops() == generic.getNumParallelLoops() &&
         llvm::all_of(generic.getIndexingMapsArray(),
                      [](AffineMap map) { return map.isIdentity(); });
}

bool mlir::tp::isInterloper(Operation *op) {
  return isElementwise(op) || isa<linalg::TransposeOp, tensor::CollapseShapeOp,
                                  tensor::ExpandShapeOp, tensor::ReshapeOp>(op);
}

bool mlir::tp::reachesMatmul(Operation *op, bool downward) {
  SmallVector<Operation *> worklist = {op};
  llvm::SmallPtrSet<Operation *, 16> visited = {op};
  while (!worklist.empty()) {
    Operation *current = worklist.pop_back_val();
    SmallVector<Operation *> next;
    if (downward) {
      for (Operation *user : current->getUsers())
        next.push_back(user);
    } else {
      for (Value operand : current->getOperands())
        if (Operation *def = operand.getDefiningOp())
          next.push_back(def);
    }
    for (Operation *candidate : next) {
      if (candidate->getBlock() != op->getBlock() ||
          !visited.insert(candidate).second)
        continue;
      if (mlir::tp::isMatmul(candidate))
        return true;
      if (mlir::tp::isInterloper(candidate))
        worklist.push_back(candidate);
    }
  }
  return false;
}

std::string mlir::tp::describeInterloper(Operation *op, StringRef collective) {
  // Gathers and all-to-alls feed their matmuls; reduce-scatters read one.
  return describeInterloper(op, collective,
                            /*readsProduct=*/collective == "reduce-scatter");
}

std::string mlir::tp::describeInterloper(Operation *op, StringRef collective,
                                         bool readsProduct) {
  std::string name = quoteName(op);
  bool downward = !readsProduct;
  std::string value =
      collective == "all-to-all" ? "the exchanged value" : "the gathered value";
  // A contraction tp-import left as linalg (mixed element types, say).
  if (isMatmul(op) && !isa<MatmulOp, BatchMatmulOp, ScaledMatmulOp>(op))
    return (downward ? value + " feeds " : "its input is produced by ") + name +
           ", a contraction tp-import did not raise to a tp matmul "
           "(tp-import{emit-remarks} says why)";
  std::string kind = isElementwise(op)                 ? "an elementwise op"
                     : isa<linalg::TransposeOp>(op)    ? "a transpose"
                     : isInterloper(op)                ? "a reshape"
                                                       : "";
  if (!kind.empty() && !reachesMatmul(op, downward))
    return downward ? value + " feeds " + kind + " (" + name +
                          ") and no matmul follows"
                    : "its input comes from " + kind + " (" + name +
                          ") with no matmul before it";
  std::string where =
      downward ? ("between the " + collective + " and the matmul").str()
               : ("between the matmul and the " + collective).str();
  if (isElementwise(op))
    return "an elementwise op (" + name + ") sits " + where;
  if (isa<linalg::TransposeOp>(op))
    return "a transpose (" + name + ") sits " + where;
  if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, tensor::ReshapeOp>(
          op))
    return "a reshape (" + name +
           ") that does not just merge the leading dims sits " + where;
  if (downward)
    return value + " feeds " + name + ", which is not a matmul";
  return "its input is produced by " + name + ", not by a matmul";
}

/// Whether `op` may move across other ops: it and every op nested in its
/// regions are free of memory effects. (A linalg op on tensors reports no
/// effects of its own, whatever its body holds; an scf.if reports its
/// branches'.)
static bool isMovable(Operation *op) {
  return !op->walk([](Operation *nested) {
              return isMemoryEffectFree(nested) ? WalkResult::advance()
                                                : WalkResult::interrupt();
            }).wasInterrupted();
}

bool mlir::tp::isMatmul(Operation *op) {
  if (isa<MatmulOp, BatchMatmulOp, ScaledMatmulOp>(op))
    return true;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && (linalg::isaContractionOpInterface(linalgOp) ||
                      linalg::isaConvolutionOpInterface(linalgOp));
}

bool mlir::tp::isMatmulProduct(Value value) {
  Operation *def = value.getDefiningOp();
  if (auto expand = dyn_cast_or_null<tensor::ExpandShapeOp>(def))
    def = expand.getSrc().getDefiningOp();
  if (auto add = dyn_cast_or_null<arith::AddFOp>(def)) {
    Operation *lhs = add.getLhs().getDefiningOp();
    Operation *rhs = add.getRhs().getDefiningOp();
    return (lhs && isMatmul(lhs)) || (rhs && isMatmul(rhs));
  }
  return def && isMatmul(def);
}

bool mlir::tp::isMatmulOutput(Value value) {
  if (auto add = value.getDefiningOp<BiasAddOp>())
    value = add.getInput();
  return isMatmulProduct(value);
}

HoistStatus mlir::tp::planHoist(Operation *point, Value value,
                                const SmallPtrSetImpl<Operation *> &replaced,
                                llvm::SetVector<Operation *> &toMove,
                                Operation *&blocker) {
  SmallVector<Value> worklist = {value};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!def)
      continue;
    if (replaced.contains(def))
      return HoistStatus::DependsOnReplaced;
    // Values from enclosing regions or earlier in the block already dominate.
    if (def->getBlock() != point->getBlock() || def->isBeforeInBlock(point) ||
        def == point || toMove.contains(def))
      continue;
    if (!isMovable(def)) {
      blocker = def;
      return HoistStatus::Immovable;
    }
    toMove.insert(def);
    llvm::append_range(worklist, def->getOperands());
    // What the regions capture from above must dominate the op's new place
    // too: plan it like an operand.
    if (def->getNumRegions() != 0)
      visitUsedValuesDefinedAbove(def->getRegions(), [&](OpOperand *use) {
        worklist.push_back(use->get());
      });
  }
  return HoistStatus::Ok;
}

std::string mlir::tp::describeHoistFailure(HoistStatus status,
                                           Operation *blocker, StringRef what,
                                           StringRef dependsOn,
                                           StringRef collective) {
  if (status == HoistStatus::DependsOnReplaced)
    return (what + " depends on " + dependsOn).str();
  return (what + " is computed after the " + collective + " by " +
          quoteName(blocker) +
          ", which cannot move above the fused op (it may have side effects)")
      .str();
}

void mlir::tp::hoistAbove(RewriterBase &rewriter, Operation *point,
                          const llvm::SetVector<Operation *> &ops) {
  SmallVector<Operation *> ordered(ops.begin(), ops.end());
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  for (Operation *op : ordered)
    rewriter.moveOpBefore(op, point);
}

void mlir::tp::reshapesAroundCollectivesAsCollapseOrExpand(
    Operation *root, RewriterBase &rewriter) {
  SmallVector<tensor::ReshapeOp> reshapes;
  root->walk([&](tensor::ReshapeOp reshape) {
    bool ofGather = reshape.getSource().getDefiningOp<AllGatherOp>();
    bool intoScatter =
        llvm::any_of(reshape->getUsers(),
                     [](Operation *user) { return isa<ReduceScatterOp>(user); });
    if (ofGather || intoScatter)
      reshapes.push_back(reshape);
  });
  for (tensor::ReshapeOp reshape : reshapes) {
    auto from = dyn_cast<RankedTensorType>(reshape.getSource().getType());
    auto to = dyn_cast<RankedTensorType>(reshape.getResult().getType());
    if (!from || !to || !from.hasStaticShape() || !to.hasStaticShape() ||
        from.getRank() == to.getRank())
      continue;
    bool collapse = to.getRank() < from.getRank();
    std::optional<SmallVector<ReassociationIndices>> groups =
        collapse ? getReassociationIndicesForCollapse(from.getShape(),
                                                      to.getShape())
                 : getReassociationIndicesForCollapse(to.getShape(),
                                                      from.getShape());
    if (!groups)
      continue;
    Operation *shape = reshape.getShape().getDefiningOp();
    rewriter.setInsertionPoint(reshape);
    if (collapse)
      rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
          reshape, to, reshape.getSource(), *groups);
    else
      rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
          reshape, to, reshape.getSource(), *groups);
    // The shape constant, unless something else reads it.
    if (shape && shape->use_empty() && isPure(shape))
      rewriter.eraseOp(shape);
  }
}

Value mlir::tp::elementwiseOperand(Value value, Operation *&elementwise) {
  elementwise = nullptr;
  Operation *def = value.getDefiningOp();
  if (!def || def->getNumResults() != 1 ||
      !OpTrait::hasElementwiseMappableTraits(def))
    return {};
  Value found;
  for (Value operand : def->getOperands()) {
    if (operand.getType() != value.getType())
      return {};
    SplatElementsAttr splat;
    if (matchPattern(operand, m_Constant(&splat)))
      continue;
    if (found)
      return {};
    found = operand;
  }
  if (found)
    elementwise = def;
  return found;
}

Value mlir::tp::applyElementwiseTo(RewriterBase &rewriter,
                                   Operation *elementwise, Value source) {
  auto sourceType = cast<RankedTensorType>(source.getType());
  IRMapping mapping;
  for (Value operand : elementwise->getOperands()) {
    SplatElementsAttr splat;
    if (!matchPattern(operand, m_Constant(&splat))) {
      mapping.map(operand, source);
      continue;
    }
    auto resized = cast<TypedAttr>(
        splat.resizeSplat(sourceType.clone(splat.getType().getElementType())));
    mapping.map(operand,
                arith::ConstantOp::create(rewriter, operand.getLoc(), resized));
  }
  Operation *moved = rewriter.clone(*elementwise, mapping);
  Type element = getElementTypeOrSelf(elementwise->getResult(0).getType());
  moved->getResult(0).setType(sourceType.clone(element));
  return moved->getResult(0);
}
