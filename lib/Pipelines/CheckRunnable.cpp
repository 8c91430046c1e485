//===- CheckRunnable.cpp - what a compiled run needs of its program -------===//
//
// tp-specialize-dynamic-grids fixes a grid's dynamic axis from the run's rank
// count; tp-check-runnable refuses, at their locations, programs that would
// fail inside the JIT, the allocator or the runtime instead. lib/Execution
// runs both before compiling, and reports their diagnostics.
//
//===----------------------------------------------------------------------===//

#include "tp/Conversion/ShardToTP/ShardToTP.h"
#include "tp/Conversion/TPToRuntime/TPToRuntime.h"
#include "tp/Dialect/TP/IR/TPOps.h"
#include "tp/Pipelines/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseSet.h"

#include <dlfcn.h>

namespace mlir::tp {
#define GEN_PASS_DEF_TPSPECIALIZEDYNAMICGRIDS
#define GEN_PASS_DEF_TPCHECKRUNNABLE
#include "tp/Pipelines/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;

SmallVector<func::FuncOp> mlir::tp::functionsReachableFrom(func::FuncOp entry) {
  auto module = entry->getParentOfType<ModuleOp>();
  SmallVector<func::FuncOp> found = {entry};
  // Calls, and references that call later (func.constant).
  for (size_t i = 0; i < found.size(); ++i)
    found[i].walk([&](Operation *op) {
      for (NamedAttribute attr : op->getAttrs()) {
        auto ref = dyn_cast<FlatSymbolRefAttr>(attr.getValue());
        auto callee =
            ref ? module.lookupSymbol<func::FuncOp>(ref.getAttr()) : nullptr;
        if (callee && !llvm::is_contained(found, callee))
          found.push_back(callee);
      }
    });
  return found;
}

namespace {

/// The functions a run may start from: the one named, or every public
/// function with a body. Emits an error and returns nothing when the named
/// one is missing.
FailureOr<SmallVector<func::FuncOp>> entriesOf(ModuleOp module,
                                               StringRef entry) {
  SmallVector<func::FuncOp> entries;
  if (!entry.empty()) {
    auto func = module.lookupSymbol<func::FuncOp>(entry);
    if (!func)
      return module.emitError() << "no function @" << entry << " to run";
    entries.push_back(func);
    return entries;
  }
  for (auto func : module.getOps<func::FuncOp>())
    if (func.isPublic() && !func.isDeclaration())
      entries.push_back(func);
  return entries;
}

/// Every function the entries reach, each once.
SmallVector<func::FuncOp> reachableFromAll(ArrayRef<func::FuncOp> entries) {
  SmallVector<func::FuncOp> all;
  llvm::DenseSet<Operation *> seen;
  for (func::FuncOp entry : entries)
    for (func::FuncOp func : mlir::tp::functionsReachableFrom(entry))
      if (seen.insert(func).second)
        all.push_back(func);
  return all;
}

//===----------------------------------------------------------------------===//
// tp-specialize-dynamic-grids
//===----------------------------------------------------------------------===//

struct SpecializeDynamicGrids
    : mlir::tp::impl::TPSpecializeDynamicGridsBase<SpecializeDynamicGrids> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (ranks < 1) {
      module.emitError() << "tp-specialize-dynamic-grids needs ranks >= 1, "
                            "got "
                         << static_cast<int64_t>(ranks);
      return signalPassFailure();
    }
    FailureOr<SmallVector<func::FuncOp>> entries = entriesOf(module, entry);
    if (failed(entries))
      return signalPassFailure();
    llvm::SmallDenseSet<Operation *> used;
    for (func::FuncOp func : reachableFromAll(*entries))
      func.walk([&](Operation *op) {
        for (NamedAttribute attr : op->getAttrs())
          if (auto ref = dyn_cast<FlatSymbolRefAttr>(attr.getValue()))
            if (auto grid = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(
                    op, ref))
              used.insert(grid);
      });
    bool failedAny = false;
    module.walk([&](shard::GridOp grid) {
      if (used.contains(grid))
        failedAny |= failed(specialize(grid));
    });
    if (failedAny)
      signalPassFailure();
  }

  LogicalResult specialize(shard::GridOp grid) {
    SmallVector<int64_t> shape(grid.getShape());
    int64_t dynamicAxes = llvm::count_if(shape, ShapedType::isDynamic);
    if (dynamicAxes == 0)
      return success();
    if (dynamicAxes > 1)
      return grid.emitError()
             << "grid @" << grid.getSymName() << " has " << dynamicAxes
             << " dynamic axes; a run fixes only one from its rank count";
    int64_t others = 1;
    for (int64_t extent : shape)
      if (!ShapedType::isDynamic(extent))
        others = mlir::tp::checkedMul(others, std::max<int64_t>(extent, 1))
                     .value_or(0);
    if (others == 0 || ranks % others != 0) {
      InFlightDiagnostic diag = grid.emitError()
                                << "grid @" << grid.getSymName()
                                << " has static axes spanning ";
      if (others)
        diag << others;
      else
        diag << "more";
      return diag << " ranks, which does not divide the run's "
                  << static_cast<int64_t>(ranks);
    }
    for (int64_t &extent : shape)
      if (ShapedType::isDynamic(extent))
        extent = ranks / others;
    grid.setShapeAttr(DenseI64ArrayAttr::get(grid.getContext(), shape));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// tp-check-runnable
//===----------------------------------------------------------------------===//

/// Ranked tensors and scalars of the runtime's element types: nothing else
/// has a descriptor a driver could build or read.
bool exchangeable(Type type) {
  if (!isa<RankedTensorType>(type) && !type.isIntOrIndexOrFloat())
    return false;
  return mlir::tp::runtimeDTypeOf(getElementTypeOrSelf(type)).has_value();
}

/// Whether a value of `type` has a byte count int64 holds (the runtime
/// stores sub-byte elements one per byte; dynamic dims count as 1, and any
/// zero dim makes it empty).
bool countable(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasRank() || llvm::is_contained(shaped.getShape(), 0))
    return true;
  Type element = shaped.getElementType();
  int64_t bits = element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 64;
  std::optional<int64_t> total = std::max<int64_t>(1, (bits + 7) / 8);
  for (int64_t d : shaped.getShape())
    if (total && !ShapedType::isDynamic(d))
      total = mlir::tp::checkedMul(*total, d);
  return total.has_value();
}

/// Whether `cast` is half of a round trip (A -> B -> A), which lowering
/// removes; any other unrealized cast would reach code generation.
bool cancelsOut(UnrealizedConversionCastOp cast) {
  if (cast->getNumOperands() != 1 || cast->getNumResults() != 1)
    return false;
  Type from = cast.getOperand(0).getType(), to = cast.getResult(0).getType();
  auto isInverse = [&](Operation *other) {
    auto inverse = dyn_cast_or_null<UnrealizedConversionCastOp>(other);
    return inverse && inverse->getNumOperands() == 1 &&
           inverse->getNumResults() == 1 &&
           inverse.getOperand(0).getType() == to &&
           inverse.getResult(0).getType() == from;
  };
  if (from == to || isInverse(cast.getOperand(0).getDefiningOp()))
    return true;
  return !cast->use_empty() && llvm::all_of(cast->getUsers(), isInverse);
}

struct CheckRunnable : mlir::tp::impl::TPCheckRunnableBase<CheckRunnable> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (ranks < 0) {
      module.emitError() << "tp-check-runnable needs ranks >= 0, got "
                         << static_cast<int64_t>(ranks);
      return signalPassFailure();
    }
    FailureOr<SmallVector<func::FuncOp>> entries = entriesOf(module, entry);
    if (failed(entries))
      return signalPassFailure();
    bool ok = true;
    for (func::FuncOp func : *entries)
      ok &= succeeded(checkSignature(func));
    SmallVector<func::FuncOp> reachable = reachableFromAll(*entries);
    for (func::FuncOp func : reachable)
      if (func.isDeclaration() && !llvm::is_contained(*entries, func))
        ok &= succeeded(checkLinked(func, reachable));
    for (func::FuncOp func : reachable)
      if (!func.isDeclaration())
        func.walk([&](Operation *op) { ok &= succeeded(checkOp(op)); });
    if (!ok)
      signalPassFailure();
  }

  LogicalResult checkSignature(func::FuncOp func) {
    if (func.isDeclaration())
      return func.emitError() << "@" << func.getName()
                              << " is only declared; it has no body to run";
    FunctionType type = func.getFunctionType();
    for (auto [i, input] : llvm::enumerate(type.getInputs()))
      if (!exchangeable(input))
        return func.emitError()
               << "@" << func.getName() << " takes a value of type " << input
               << " (argument " << i << "), which a run cannot feed";
    for (auto [i, result] : llvm::enumerate(type.getResults()))
      if (!exchangeable(result))
        return func.emitError()
               << "@" << func.getName() << " returns a value of type " << result
               << " (result " << i << "), which a run cannot read";
    return success();
  }

  /// A declaration must name a function of this process (libc, libm, the
  /// runtime): the JIT links nothing else.
  LogicalResult checkLinked(func::FuncOp func,
                            ArrayRef<func::FuncOp> reachable) {
    if (!resolveDeclarations)
      return success();
    std::string symbol = func.getName().str();
    if (func->hasAttr("llvm.emit_c_interface"))
      symbol = "_mlir_ciface_" + symbol;
    if (dlsym(RTLD_DEFAULT, symbol.c_str()))
      return success();
    Operation *user = func;
    for (func::FuncOp caller : reachable)
      if (std::optional<SymbolTable::UseRange> uses =
              SymbolTable::getSymbolUses(func, caller);
          user == func && uses && !uses->empty())
        user = uses->begin()->getUser();
    return user->emitOpError()
           << "@" << func.getName() << " is only declared, and no function '"
           << symbol
           << "' is linked into this process (compiled programs can call "
              "functions defined in the program, the C and math libraries, "
              "and the runtime)";
  }

  LogicalResult checkOp(Operation *op) {
    if (isa<shard::ShardDialect>(op->getDialect()) && !isa<shard::GridOp>(op)) {
      InFlightDiagnostic diag = op->emitOpError()
                                << "tp-import does not raise this op";
      if (std::optional<std::string> why = mlir::tp::whyNotRaised(op))
        diag << " (" << *why << ")";
      return diag << ", and compiled programs cannot run shard ops";
    }
    if (auto constant = dyn_cast<func::ConstantOp>(op)) {
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          op, constant.getValueAttr());
      if (callee && !callee.isDeclaration())
        return op->emitOpError()
               << "@" << callee.getName()
               << " is called indirectly, which compiled programs do not "
                  "support (the rank's context is passed to every function "
                  "of the program); call it with func.call";
    }
    if (auto cast = dyn_cast<UnrealizedConversionCastOp>(op);
        cast && !cancelsOut(cast)) {
      auto types = [](TypeRange range) {
        std::string text;
        llvm::raw_string_ostream os(text);
        llvm::interleaveComma(range, os);
        return text.empty() ? std::string("nothing") : text;
      };
      return op->emitOpError()
             << "a cast from " << types(op->getOperandTypes()) << " to "
             << types(op->getResultTypes())
             << " has no run-time meaning; only a pair of casts that cancel "
                "out is removed";
    }
    if (failed(checkGrid(op)))
      return failure();
    for (Type type : op->getResultTypes())
      if (!countable(type))
        return op->emitOpError()
               << type << " holds more bytes than int64 counts";
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Type type : block.getArgumentTypes())
          if (!countable(type))
            return op->emitOpError()
                   << type << " holds more bytes than int64 counts";
    return success();
  }

  /// Every grid a tp op names must be static and span the run's ranks.
  LogicalResult checkGrid(Operation *op) {
    auto gridRef = op->getAttrOfType<FlatSymbolRefAttr>("grid");
    if (!gridRef || !isa<mlir::tp::TPDialect>(op->getDialect()))
      return success();
    auto grid =
        SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(op, gridRef);
    if (!grid)
      return op->emitOpError() << "unknown grid " << gridRef;
    // Extents below 1 or a product that overflows cannot span the run.
    int64_t total = 1;
    bool fits = true;
    for (int64_t d : grid.getShape()) {
      if (ShapedType::isDynamic(d))
        return op->emitOpError()
               << "grid " << gridRef
               << " has a dynamic size; a run needs static grids "
                  "(tp-specialize-dynamic-grids fixes one axis)";
      std::optional<int64_t> product =
          d >= 1 ? mlir::tp::checkedMul(total, d) : std::nullopt;
      fits = fits && product;
      total = product.value_or(0);
    }
    if (ranks == 0 || (fits && total == ranks))
      return success();
    InFlightDiagnostic diag = op->emitOpError() << "grid " << gridRef;
    if (fits)
      diag << " has " << total << " ranks";
    else
      diag << " does not span a run";
    return diag << " but the run has " << static_cast<int64_t>(ranks);
  }
};

} // namespace
