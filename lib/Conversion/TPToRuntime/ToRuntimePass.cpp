//===- ToRuntimePass.cpp - tp-to-runtime ----------------------------------===//

#include "tp/Conversion/Passes.h"
#include "tp/Conversion/TPToRuntime/RuntimeCalls.h"
#include "tp/Conversion/TPToRuntime/TPToRuntime.h"
#include "tp/Dialect/TP/IR/TPOps.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPTORUNTIME
#define GEN_PASS_DEF_TPFINALIZERUNTIMELOWERING
#include "tp/Conversion/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;
using namespace mlir::tp;

/// Gives `func` its rank context argument (once).
static void addRankContext(func::FuncOp func) {
  if (func.getNumArguments() > 0 && func.getArgAttr(0, kRankContextAttrName))
    return;
  MLIRContext *context = func.getContext();
  auto ptr = LLVM::LLVMPointerType::get(context);
  (void)func.insertArgument(
      0, ptr,
      DictionaryAttr::get(context, {NamedAttribute(kRankContextAttrName,
                                                   UnitAttr::get(context))}),
      func.getLoc());
}

/// tp.group_rank -> tp_rt_group_rank(ctx, site, grid, axes).
static LogicalResult lowerGroupRank(GroupRankOp op) {
  SymbolTableCollection table;
  FailureOr<GroupInfo> group = op.resolveGroup(table);
  if (failed(group))
    return failure();
  if (llvm::any_of(group->grid.getShape(), ShapedType::isDynamic))
    return op.emitError("grid @")
           << op.getGrid()
           << " has a dynamic size; compiled programs need static grids";
  Value ctx = runtime::rankContextOf(op);
  if (!ctx)
    return failure();
  OpBuilder b(op);
  Location loc = op.getLoc();
  SmallVector<int64_t> axes(op.getGridAxes().begin(), op.getGridAxes().end());
  // The descriptors the call takes live on the stack, in a scope of their
  // own (the op may sit in a loop).
  auto scope = memref::AllocaScopeOp::create(b, loc, TypeRange{b.getI64Type()});
  OpBuilder inner =
      OpBuilder::atBlockBegin(&scope.getBodyRegion().emplaceBlock());
  Value index =
      runtime::call(
          inner, loc, op, "tp_rt_group_rank", {b.getI64Type()},
          {ctx, runtime::siteBuffer(inner, op),
           runtime::integerBuffer(inner, loc, op, group->grid.getShape()),
           runtime::integerBuffer(inner, loc, op, axes)})
          .getResult(0);
  memref::AllocaScopeReturnOp::create(inner, loc, ValueRange{index});
  op.replaceAllUsesWith(
      arith::IndexCastOp::create(b, loc, b.getIndexType(), scope.getResult(0))
          .getResult());
  op.erase();
  return success();
}

/// tp.bias_add -> linalg.generic adding the bias along the last dim.
static void lowerBiasAdd(BiasAddOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto type = op.getInput().getType();
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> sizes =
      tensor::getMixedSizes(b, loc, op.getInput());
  Value init = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
  MLIRContext *context = op.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, context);
  AffineMap last = AffineMap::get(rank, 0, b.getAffineDimExpr(rank - 1));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{type}, ValueRange{op.getInput(), op.getBias()},
      ValueRange{init}, ArrayRef<AffineMap>{identity, last, identity},
      iterators, [](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value sum = arith::AddFOp::create(nested, nestedLoc, args[0], args[1]);
        linalg::YieldOp::create(nested, nestedLoc, sum);
      });
  op.replaceAllUsesWith(generic.getResult(0));
  op.erase();
}

namespace {
struct TPToRuntimePass : mlir::tp::impl::TPToRuntimeBase<TPToRuntimePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Shard ops tp-import left (it says why with emit-remarks) have no
    // lowering; say so here rather than let bufferization fail on them.
    WalkResult shardLeft = module.walk([](Operation *op) {
      if (!isa<shard::ShardDialect>(op->getDialect()) || isa<shard::GridOp>(op))
        return WalkResult::advance();
      op->emitError() << "'" << op->getName()
                      << "' cannot be compiled: tp-import did not raise it "
                         "(tp-import{emit-remarks} says why)";
      return WalkResult::interrupt();
    });
    if (shardLeft.wasInterrupted())
      return signalPassFailure();
    // Runtime entry points are called by name.
    for (auto func : module.getOps<func::FuncOp>())
      if (func.getName().starts_with("tp_rt_") &&
          !func->hasAttr(kRuntimeEntryAttrName)) {
        func.emitError() << "the name @" << func.getName()
                         << " is reserved for the tp runtime's entry points "
                            "(tp_rt_*); rename the function";
        return signalPassFailure();
      }
    SmallVector<func::FuncOp> defined;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isDeclaration())
        defined.push_back(func);
    // Calls between defined functions pass the caller's context along.
    for (func::FuncOp func : defined) {
      // C callers (embedders' drivers) get _mlir_ciface_ wrappers taking
      // descriptors by pointer.
      // Their callers' buffers are read, never written in place.
      if (func.isPublic()) {
        func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                      UnitAttr::get(func.getContext()));
        for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
          if (isa<TensorType>(type))
            func.setArgAttr(i, "bufferization.writable",
                            BoolAttr::get(func.getContext(), false));
      }
      bool hadContext = func.getNumArguments() > 0 &&
                        func.getArgAttr(0, kRankContextAttrName);
      addRankContext(func);
      if (hadContext)
        continue;
      func.walk([&](func::CallOp call) {
        auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
        if (!callee || callee.isDeclaration())
          return;
        SmallVector<Value> operands = {func.getArgument(0)};
        llvm::append_range(operands, call.getOperands());
        call->setOperands(operands);
      });
    }
    WalkResult result = module.walk([&](Operation *op) {
      if (auto rank = dyn_cast<GroupRankOp>(op))
        return failed(lowerGroupRank(rank)) ? WalkResult::interrupt()
                                            : WalkResult::advance();
      if (auto bias = dyn_cast<BiasAddOp>(op))
        lowerBiasAdd(bias);
      else if (isa<LinearOp>(op)) {
        op->emitError("run tp-lower-linear before tp-to-runtime");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace

namespace {
struct TPFinalizeRuntimeLoweringPass
    : mlir::tp::impl::TPFinalizeRuntimeLoweringBase<
          TPFinalizeRuntimeLoweringPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto grid : llvm::make_early_inc_range(module.getOps<shard::GridOp>()))
      if (SymbolTable::symbolKnownUseEmpty(grid, module))
        grid.erase();
    // C-interface wrappers copy the markers, after their result pointer;
    // LLVM has no meaning for them.
    for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
      func->removeAttr(kRuntimeEntryAttrName);
      for (unsigned i = 0; i < func.getNumArguments(); ++i) {
        func.removeArgAttr(i, kRankContextAttrName);
        func.removeArgAttr(i, kReplicatedArgAttrName);
      }
    }
  }
};
} // namespace
