//===- SplitDistinctDeallocs.cpp - tp-split-distinct-deallocs -------------===//
//
// Ownership-based deallocation ends a straight-line function with one
// bufferization.dealloc of every buffer it made, retaining every buffer it
// returns. Upstream's simplification proves, pair by pair, which of them may
// alias, and splits each off with the whole retained list: time and IR
// quadratic in the function's length. When every operand is a distinct
// allocation (seen through views) or, retained, a function argument, the
// answer needs no pairs: each buffer aliases exactly the retained values of
// its allocation.
//
//===----------------------------------------------------------------------===//

#include "tp/Pipelines/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPSPLITDISTINCTDEALLOCS
#include "tp/Pipelines/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;

/// The value `value` views, through every view.
static Value viewedValue(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// Whether `value` is a buffer its defining op allocates (memref.alloc).
static bool isAllocation(Value value) {
  Operation *def = value.getDefiningOp();
  return def && hasEffect<MemoryEffects::Allocate>(def, value);
}

/// Replaces `dealloc` by one dealloc per buffer it frees, none retaining
/// anything, when each of its buffers is a distinct allocation and each
/// retained value an allocation or an argument of `function`; returns
/// whether it did. A buffer whose allocation is retained is not freed; the
/// results of the retained values it aliases are its condition instead.
static bool splitDistinct(bufferization::DeallocOp dealloc,
                          FunctionOpInterface function) {
  if (dealloc.getMemrefs().size() < 2 && dealloc.getRetained().empty())
    return false;
  Block *arguments = &function.getFunctionBody().front();
  llvm::DenseMap<Value, SmallVector<unsigned, 1>> retainedByAllocation;
  for (auto [index, retained] : llvm::enumerate(dealloc.getRetained())) {
    Value viewed = viewedValue(retained);
    if (isAllocation(viewed))
      retainedByAllocation[viewed].push_back(index);
    else if (auto argument = dyn_cast<BlockArgument>(viewed);
             !argument || argument.getOwner() != arguments)
      return false; // It may alias anything.
  }
  llvm::DenseSet<Value> freed;
  for (Value memref : dealloc.getMemrefs()) {
    Value viewed = viewedValue(memref);
    if (!isAllocation(viewed) || !freed.insert(viewed).second)
      return false;
  }

  // Each allocation is freed at most once and each retained value views
  // one allocation: a result is one buffer's condition, or false.
  OpBuilder builder(dealloc);
  Location loc = dealloc.getLoc();
  SmallVector<Value> updated(dealloc.getRetained().size());
  for (auto [memref, condition] :
       llvm::zip(dealloc.getMemrefs(), dealloc.getConditions())) {
    auto retained = retainedByAllocation.find(viewedValue(memref));
    if (retained == retainedByAllocation.end()) {
      bufferization::DeallocOp::create(builder, loc, memref, condition,
                                       ValueRange());
      continue;
    }
    for (unsigned index : retained->second)
      updated[index] = condition;
  }
  Value notFreed;
  for (auto [result, condition] :
       llvm::zip(dealloc.getUpdatedConditions(), updated)) {
    if (!condition) {
      if (!notFreed)
        notFreed =
            arith::ConstantOp::create(builder, loc, builder.getBoolAttr(false));
      condition = notFreed;
    }
    result.replaceAllUsesWith(condition);
  }
  dealloc.erase();
  return true;
}

namespace {
struct SplitDistinctDeallocsPass
    : mlir::tp::impl::TPSplitDistinctDeallocsBase<SplitDistinctDeallocsPass> {
  void runOnOperation() override {
    SmallVector<bufferization::DeallocOp> deallocs;
    getOperation()->walk(
        [&](bufferization::DeallocOp dealloc) { deallocs.push_back(dealloc); });
    for (bufferization::DeallocOp dealloc : deallocs)
      if (auto function = dealloc->getParentOfType<FunctionOpInterface>())
        splitDistinct(dealloc, function);
  }
};
} // namespace
