//===- Uniformity.cpp - values that are the same on every rank ------------===//

#include "tp/Dialect/TP/Transforms/Uniformity.h"
#include "tp/Dialect/TP/IR/TPOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace mlir::tp;

namespace {

/// One query: memoizes every value it visits. Depth-bounded, so a long chain
/// of glue gives "not proven" rather than a stack overflow.
class UniformityQuery {
public:
  UniformityQuery(FlatSymbolRefAttr grid, ArrayRef<int16_t> axes)
      : grid(grid), axes(axes) {}

  bool isUniform(Value value, unsigned depth = 0) {
    auto [it, inserted] = memo.try_emplace(value, false);
    if (!inserted)
      return it->second; // Known, or on the current path (a graph cycle).
    bool uniform = depth < kMaxDepth ? compute(value, depth)
                                     : fail("a chain of more than " +
                                            std::to_string(kMaxDepth) +
                                            " ops");
    memo[value] = uniform;
    return uniform;
  }

  std::string why;

private:
  static constexpr unsigned kMaxDepth = 512;

  bool fail(std::string reason) {
    if (why.empty())
      why = std::move(reason);
    return false;
  }

  /// Whether the group `otherAxes` of `otherGrid` contains ours: a collective
  /// over it gives every rank of our group the same result.
  bool covers(FlatSymbolRefAttr otherGrid, ArrayRef<int16_t> otherAxes) {
    return otherGrid == grid && llvm::all_of(axes, [&](int16_t axis) {
             return llvm::is_contained(otherAxes, axis);
           });
  }

  bool blockArgument(BlockArgument arg, unsigned depth) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (auto function = dyn_cast_or_null<FunctionOpInterface>(owner);
        function && arg.getOwner()->isEntryBlock()) {
      if (function.getArgAttr(arg.getArgNumber(), kReplicatedArgAttrName))
        return true;
      return fail(("argument #" + Twine(arg.getArgNumber()) + " of @" +
                   function.getName() + ", which is not marked " +
                   kReplicatedArgAttrName)
                      .str());
    }
    // A loop's induction variable takes the same values on every rank when
    // its bounds do.
    if (auto loop = dyn_cast_or_null<scf::ForOp>(owner);
        loop && arg == loop.getInductionVar())
      return isUniform(loop.getLowerBound(), depth + 1) &&
             isUniform(loop.getUpperBound(), depth + 1) &&
             isUniform(loop.getStep(), depth + 1);
    return fail(("block argument #" + Twine(arg.getArgNumber()) + " of " +
                 (owner ? "'" + owner->getName().getStringRef() + "'"
                        : StringRef("a detached block")))
                    .str());
  }

  bool compute(Value value, unsigned depth) {
    if (auto arg = dyn_cast<BlockArgument>(value))
      return blockArgument(arg, depth);
    Operation *def = value.getDefiningOp();
    std::string name = ("'" + def->getName().getStringRef() + "'").str();
    if (matchPattern(value, m_Constant()))
      return true;
    if (auto op = dyn_cast<AllReduceOp>(def)) {
      if (covers(op.getGridAttr(), op.getGridAxes()))
        return true;
      return fail(name + " over a group that does not contain this one");
    }
    if (auto op = dyn_cast<AllGatherOp>(def)) {
      if (covers(op.getGridAttr(), op.getGridAxes()))
        return true;
      return fail(name + " over a group that does not contain this one");
    }
    if (auto op = dyn_cast<GroupRankOp>(def)) {
      // The index along other axes is the same for the whole group.
      if (op.getGrid() == grid.getValue() &&
          llvm::none_of(op.getGridAxes(), [&](int16_t axis) {
            return llvm::is_contained(axes, axis);
          }))
        return true;
      return fail(name + ", which differs across the group");
    }
    // Other collectives hand each rank its own slice, and upstream's process
    // indices differ by definition.
    if (isa<ReduceScatterOp, AllToAllOp, AllGatherMatmulOp, AllGatherContractOp,
            AllToAllMatmulOp, MatmulAllToAllOp, MatmulReduceScatterOp,
            AllGatherScaledMatmulOp, ScaledMatmulReduceScatterOp>(def) ||
        def->getDialect()->getNamespace() == "shard")
      return fail(name + ", whose result differs across the group");
    // A quantize's per-tensor and global scales follow its amax operand,
    // whatever the data.
    if (auto quantize = dyn_cast<QuantizeOp>(def);
        quantize && quantize.getAmax() && value != quantize.getResult()) {
      if (isUniform(quantize.getAmax(), depth + 1))
        return true;
      return fail(name + " with an amax that is not known to be uniform");
    }
    if (!isMemoryEffectFree(def))
      return fail(name + ", which has side effects");
    // A side-effect free op computes the same result from the same operands
    // and captured values. tensor.empty's contents are undefined everywhere;
    // only its shape operands matter.
    for (Value operand : def->getOperands())
      if (!isUniform(operand, depth + 1))
        return fail(name);
    bool capturesUniform = true;
    for (Region &region : def->getRegions())
      visitUsedValuesDefinedAbove(region, [&](OpOperand *use) {
        capturesUniform = capturesUniform && isUniform(use->get(), depth + 1);
      });
    return capturesUniform || fail(name);
  }

  FlatSymbolRefAttr grid;
  ArrayRef<int16_t> axes;
  llvm::DenseMap<Value, bool> memo;
};

} // namespace

bool mlir::tp::isUniformAcrossGroup(Value value, FlatSymbolRefAttr grid,
                                    ArrayRef<int16_t> axes, std::string *why) {
  UniformityQuery query(grid, axes);
  bool uniform = query.isUniform(value);
  if (!uniform && why)
    *why = query.why;
  return uniform;
}
