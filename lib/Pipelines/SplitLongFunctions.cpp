//===- SplitLongFunctions.cpp - tp-split-long-functions -------------------===//
//
// Cuts a long function's body into runs of ops, each outlined into a private
// function called in its place. Per-function work in LLVM grows faster than
// the function, so bounded functions make compile time linear in the
// program's length.
//
//===----------------------------------------------------------------------===//

#include "Outlined.h"
#include "tp/Pipelines/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

#include <functional>

namespace mlir::tp {
#define GEN_PASS_DEF_TPSPLITLONGFUNCTIONS
#include "tp/Pipelines/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;

/// Ops copied into each run that reads them rather than passed in: they
/// cost nothing to recompute, and a constant or an empty tensor kept visible
/// lets later passes fold and bufferize it as before.
static bool isCopied(Operation *op) {
  if (op->getNumRegions() != 0 || op->getNumResults() != 1)
    return false;
  if (matchPattern(op->getResult(0), m_Constant()))
    return true;
  auto empty = dyn_cast<tensor::EmptyOp>(op);
  return empty && empty.getDynamicSizes().empty();
}

/// Reshapes and slices: views of another tensor. They belong to no run: a
/// run takes or returns the tensor viewed and makes the view again, so that
/// bufferization neither copies a returned view nor keeps its base alive in
/// two functions.
static bool isView(Operation *op) {
  return isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp,
             tensor::ExtractSliceOp, tensor::CastOp>(op);
}

/// Outlines `run` (consecutive ops of `func`'s block) into a private
/// function named after `func`, and calls it in their place, unless it
/// would take and return more than `maxValues` values together: LLVM lowers
/// such a call to a block of stores and loads whose scheduling costs more
/// than the long function did (a training step keeps every layer's
/// activations for its backward, so a cut there hands over all of them).
static bool outline(func::FuncOp func, ArrayRef<Operation *> run,
                    SymbolTable &symbols, int64_t maxValues) {
  llvm::SmallPtrSet<Operation *, 32> inRun(run.begin(), run.end());
  Block &block = func.getBody().front();
  auto insideRun = [&](Operation *user) {
    Operation *top = block.findAncestorOpInBlock(*user);
    return top && inRun.contains(top);
  };
  // What the run reads from before it: values passed in, and ops made
  // again inside (constants, empty tensors, views of what is passed in).
  llvm::SetVector<Value> inputs;
  llvm::SetVector<Operation *> remade;
  std::function<void(Value)> read = [&](Value value) {
    Operation *def = value.getDefiningOp();
    if (def && inRun.contains(def))
      return;
    if (def && (isCopied(def) || isView(def))) {
      if (remade.insert(def))
        for (Value operand : def->getOperands())
          read(operand);
      return;
    }
    inputs.insert(value);
  };
  for (Operation *op : run) {
    for (Value operand : op->getOperands())
      read(operand);
    for (Region &region : op->getRegions()) {
      llvm::SetVector<Value> above;
      getUsedValuesDefinedAbove(region, above);
      for (Value value : above)
        read(value);
    }
  }
  // What is read of the run after it. A view outside the run counts by its
  // own readers: one that only the run reads is made again inside it.
  std::function<bool(Operation *)> readAfter = [&](Operation *user) {
    if (insideRun(user))
      return false;
    if (user->getBlock() != &block || !isView(user))
      return true;
    return llvm::any_of(user->getUsers(), readAfter);
  };
  llvm::SetVector<Value> outputs;
  for (Operation *op : run)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), readAfter))
        outputs.insert(result);
  if (static_cast<int64_t>(inputs.size() + outputs.size()) > maxValues)
    return false;

  OpBuilder builder(run.front());
  Location loc = run.front()->getLoc();
  auto type =
      builder.getFunctionType(ValueRange(inputs.getArrayRef()).getTypes(),
                              ValueRange(outputs.getArrayRef()).getTypes());
  OpBuilder moduleBuilder(func);
  auto part = func::FuncOp::create(moduleBuilder, loc,
                                   func.getName().str() + "_part", type);
  tp::markOutlined(part);
  symbols.insert(part); // Renames it when the name is taken.
  Block *body = part.addEntryBlock();

  // The call, where the run was.
  auto call = func::CallOp::create(builder, loc, part,
                                   ValueRange(inputs.getArrayRef()));

  // The run moves into the function, and what it makes again is made in
  // program order among its ops (a view may read what the run computes).
  OpBuilder inner = OpBuilder::atBlockEnd(body);
  IRMapping within;
  for (auto [input, argument] : llvm::zip(inputs, body->getArguments()))
    within.map(input, argument);
  SmallVector<Operation *> ordered(run.begin(), run.end());
  llvm::append_range(ordered, remade);
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  for (Operation *op : ordered) {
    if (inRun.contains(op))
      op->moveBefore(body, body->end());
    else
      inner.clone(*op, within);
  }
  auto isInside = [&](OpOperand &use) {
    return part->isProperAncestor(use.getOwner());
  };
  for (Value input : inputs)
    input.replaceUsesWithIf(within.lookup(input), isInside);
  for (Operation *op : remade)
    for (Value result : op->getResults())
      result.replaceUsesWithIf(within.lookup(result), isInside);
  auto isOutside = [&](OpOperand &use) { return !isInside(use); };
  for (auto [output, result] : llvm::zip(outputs, call.getResults()))
    Value(output).replaceUsesWithIf(result, isOutside);
  inner.setInsertionPointToEnd(body);
  func::ReturnOp::create(inner, loc, outputs.getArrayRef());
  return true;
}

namespace {
struct SplitLongFunctionsPass
    : mlir::tp::impl::TPSplitLongFunctionsBase<SplitLongFunctionsPass> {
  using TPSplitLongFunctionsBase::TPSplitLongFunctionsBase;

  void runOnOperation() override {
    if (maxOps < 0) {
      getOperation().emitError()
          << "tp-split-long-functions: max-ops must not be negative, got "
          << static_cast<int64_t>(maxOps);
      return signalPassFailure();
    }
    if (maxValues < 1) {
      getOperation().emitError()
          << "tp-split-long-functions: max-values must be positive, got "
          << static_cast<int64_t>(maxValues);
      return signalPassFailure();
    }
    if (maxOps == 0)
      return;
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      if (func.isDeclaration() || !func.getBody().hasOneBlock())
        continue;
      Block &block = func.getBody().front();
      // Constants, empty tensors and views stay behind and are made again
      // in each run that reads them, so runs hold (and count) the others.
      SmallVector<SmallVector<Operation *>> runs(1);
      for (Operation &op : block.without_terminator()) {
        if (isCopied(&op) || isView(&op))
          continue;
        if (static_cast<int64_t>(runs.back().size()) == maxOps)
          runs.emplace_back();
        runs.back().push_back(&op);
      }
      if (runs.size() < 2)
        continue;
      for (ArrayRef<Operation *> run : runs)
        (void)outline(func, run, symbols, maxValues);
      // Ops made again where they are read, which nobody reads here any
      // more (a view's erasure may leave what it viewed unread).
      for (bool erased = true; erased;) {
        erased = false;
        for (Operation &op :
             llvm::make_early_inc_range(block.without_terminator()))
          if ((isCopied(&op) || isView(&op)) && op.use_empty()) {
            op.erase();
            erased = true;
          }
      }
    }
  }
};
} // namespace
