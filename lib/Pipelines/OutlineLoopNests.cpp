//===- OutlineLoopNests.cpp - tp-outline-loop-nests -----------------------===//
//
// Each top-level loop nest of a function with many becomes a function of its
// own. LLVM's IndVarSimplify walks back through every loop before the one it
// simplifies, so a function of n loops in a row costs it n^2 steps; n
// functions of one loop cost n.
//
//===----------------------------------------------------------------------===//

#include "Outlined.h"
#include "tp/Pipelines/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPOUTLINELOOPNESTS
#include "tp/Pipelines/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;

static bool isLoop(Operation &op) {
  return isa<scf::ForOp, scf::ParallelOp>(op);
}

/// A constant the outlined loop makes again rather than takes: LLVM then
/// sees loop bounds and sizes as the constants they are.
static Operation *constantDefinition(Value value) {
  Operation *def = value.getDefiningOp();
  if (def && def->getNumOperands() == 0 && def->getNumRegions() == 0 &&
      matchPattern(value, m_Constant()))
    return def;
  return nullptr;
}

/// Moves `loop` into a new private function named after `func` and calls
/// it in its place.
static void outline(func::FuncOp func, Operation *loop, SymbolTable &symbols) {
  // What the loop reads from outside it: its operands, and the values its
  // body uses from above.
  llvm::SetVector<Value> read(loop->getOperands().begin(),
                              loop->getOperands().end());
  for (Region &region : loop->getRegions())
    getUsedValuesDefinedAbove(region, read);
  SmallVector<Value> inputs;
  SmallVector<Operation *> constants;
  for (Value value : read) {
    if (Operation *def = constantDefinition(value))
      constants.push_back(def);
    else
      inputs.push_back(value);
  }

  Location loc = loop->getLoc();
  OpBuilder moduleBuilder(func);
  auto type = moduleBuilder.getFunctionType(ValueRange(inputs).getTypes(),
                                            loop->getResultTypes());
  auto nest = func::FuncOp::create(moduleBuilder, loc,
                                   func.getName().str() + "_loop", type);
  tp::markOutlined(nest);
  symbols.insert(nest); // Renames it when the name is taken.

  Block *body = nest.addEntryBlock();
  OpBuilder inner = OpBuilder::atBlockEnd(body);
  IRMapping within;
  within.map(inputs, body->getArguments());
  for (Operation *constant : constants)
    inner.clone(*constant, within);
  Operation *moved = inner.clone(*loop, within);
  func::ReturnOp::create(inner, loc, moved->getResults());

  OpBuilder builder(loop);
  auto call = func::CallOp::create(builder, loc, nest, inputs);
  loop->replaceAllUsesWith(call.getResults());
  loop->erase();
}

namespace {
struct OutlineLoopNestsPass
    : mlir::tp::impl::TPOutlineLoopNestsBase<OutlineLoopNestsPass> {
  using TPOutlineLoopNestsBase::TPOutlineLoopNestsBase;

  void runOnOperation() override {
    if (maxLoops < 0) {
      getOperation().emitError()
          << "tp-outline-loop-nests: max-loops must not be negative, got "
          << static_cast<int64_t>(maxLoops);
      return signalPassFailure();
    }
    if (maxLoops == 0)
      return;
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      if (func.isDeclaration())
        continue;
      SmallVector<Operation *> loops;
      for (Block &block : func.getBody())
        for (Operation &op : block)
          if (isLoop(op))
            loops.push_back(&op);
      if (static_cast<int64_t>(loops.size()) <= maxLoops)
        continue;
      for (Operation *loop : loops)
        outline(func, loop, symbols);
    }
  }
};
} // namespace
