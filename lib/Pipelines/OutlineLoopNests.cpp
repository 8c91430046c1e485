//===- OutlineLoopNests.cpp - tp-outline-loop-nests -----------------------===//
//
// Each top-level loop nest of a function with many becomes a function of its
// own. LLVM's IndVarSimplify walks back through every loop before the one it
// simplifies, so a function of n loops in a row costs it n^2 steps; n
// functions of one loop cost n. Nests with the same code share one function:
// a model written out layer by layer repeats each layer's glue, and LLVM then
// compiles each distinct nest once, however deep the model.
//
//===----------------------------------------------------------------------===//

#include "Outlined.h"
#include "tp/Pipelines/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseMap.h"
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
/// it in its place; returns the call.
static func::CallOp outline(func::FuncOp func, Operation *loop,
                            SymbolTable &symbols) {
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
  return call;
}

namespace {
/// The functions outlined so far, by their code: a nest whose function has
/// the same type and the same operations (locations aside) as an earlier
/// one calls that one instead.
class OutlinedFunctions {
public:
  /// Returns the earlier function with `func`'s code, or records `func` and
  /// returns it.
  func::FuncOp findOrAdd(func::FuncOp func) {
    SmallVector<func::FuncOp, 1> &candidates = byHash[hash(func)];
    for (func::FuncOp earlier : candidates)
      if (earlier.getFunctionType() == func.getFunctionType() &&
          OperationEquivalence::isRegionEquivalentTo(
              &earlier.getBody(), &func.getBody(),
              OperationEquivalence::IgnoreLocations))
        return earlier;
    candidates.push_back(func);
    return func;
  }

private:
  /// Equal for equivalent functions: their type and, in order, each
  /// operation's name, attributes and types (operands are compared by
  /// isRegionEquivalentTo).
  static size_t hash(func::FuncOp func) {
    llvm::hash_code code = hash_value(func.getFunctionType());
    func.getBody().walk([&](Operation *op) {
      code = llvm::hash_combine(code,
                                OperationEquivalence::computeHash(
                                    op, OperationEquivalence::ignoreHashValue,
                                    OperationEquivalence::ignoreHashValue,
                                    OperationEquivalence::IgnoreLocations));
    });
    return static_cast<size_t>(code);
  }

  llvm::DenseMap<size_t, SmallVector<func::FuncOp, 1>> byHash;
};
} // namespace

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
    OutlinedFunctions outlined;
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
      for (Operation *loop : loops) {
        func::CallOp call = outline(func, loop, symbols);
        auto nest = symbols.lookup<func::FuncOp>(call.getCallee());
        func::FuncOp shared = outlined.findOrAdd(nest);
        if (shared == nest)
          continue;
        call.setCallee(shared.getName());
        symbols.erase(nest);
      }
    }
  }
};
} // namespace
