//===- FusionUtils.cpp - legality helpers shared by the fusions -----------===//

#include "FusionUtils.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::tp;

std::string tp::quoteName(Operation *op) {
  return ("'" + op->getName().getStringRef() + "'").str();
}

bool tp::isTensorParallelGroup(ArrayRef<int16_t> axes,
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

bool tp::isInterloper(Operation *op) {
  return isElementwise(op) || isa<linalg::TransposeOp, tensor::CollapseShapeOp,
                                  tensor::ExpandShapeOp, tensor::ReshapeOp>(op);
}

std::string tp::describeInterloper(Operation *op, StringRef collective) {
  std::string name = quoteName(op);
  std::string where = collective == "all-gather"
                          ? "between the all-gather and the matmul"
                          : "between the matmul and the reduce-scatter";
  if (isElementwise(op))
    return "an elementwise op (" + name + ") sits " + where;
  if (isa<linalg::TransposeOp>(op))
    return "a transpose (" + name + ") sits " + where;
  if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, tensor::ReshapeOp>(
          op))
    return "a reshape (" + name +
           ") that does not just merge the leading dims sits " + where;
  if (collective == "all-gather")
    return "the gathered value feeds " + name + ", which is not a matmul";
  return "its input is produced by " + name + ", not by a matmul";
}

HoistStatus tp::planHoist(Operation *point, Value value,
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
    if (def->getNumRegions() != 0 || !isMemoryEffectFree(def)) {
      blocker = def;
      return HoistStatus::Immovable;
    }
    toMove.insert(def);
    llvm::append_range(worklist, def->getOperands());
  }
  return HoistStatus::Ok;
}

std::string tp::describeHoistFailure(HoistStatus status, Operation *blocker,
                                     StringRef what, StringRef dependsOn,
                                     StringRef collective) {
  if (status == HoistStatus::DependsOnReplaced)
    return (what + " depends on " + dependsOn).str();
  return (what + " is computed after the " + collective + " by " +
          quoteName(blocker) +
          ", which cannot move above the fused op (it has side effects or "
          "regions)")
      .str();
}

void tp::hoistAbove(RewriterBase &rewriter, Operation *point,
                    const llvm::SetVector<Operation *> &ops) {
  SmallVector<Operation *> ordered(ops.begin(), ops.end());
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  for (Operation *op : ordered)
    rewriter.moveOpBefore(op, point);
}
