//===- LowerAllocaScopes.cpp - tp-lower-alloca-scopes ---------------------===//
//
// A runtime call stages its descriptors on the stack inside a
// memref.alloca_scope. Upstream's lowering of a scope splits the enclosing
// block at it, moving every op after it: in a step written out layer by
// layer, one block with a thousand scopes, that is time quadratic in its
// length. A scope's body is one block (the op allows no more), so no split
// is needed: its ops move in place, between a stack save and a restore.
//
//===----------------------------------------------------------------------===//

#include "tp/Pipelines/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPLOWERALLOCASCOPES
#include "tp/Pipelines/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;

/// Moves the ops of `scope`'s one block before it, between a stack save and
/// the restore, and replaces it by the values it returned.
static void lowerInPlace(memref::AllocaScopeOp scope) {
  Location loc = scope.getLoc();
  OpBuilder builder(scope);
  auto stack = LLVM::StackSaveOp::create(
      builder, loc, LLVM::LLVMPointerType::get(scope.getContext()));
  Block &body = scope.getBodyRegion().front();
  Operation *terminator = body.getTerminator();
  scope->getBlock()->getOperations().splice(Block::iterator(scope),
                                            body.getOperations(), body.begin(),
                                            Block::iterator(terminator));
  LLVM::StackRestoreOp::create(builder, loc, stack);
  scope->replaceAllUsesWith(terminator->getOperands());
  scope->erase();
}

namespace {
struct LowerAllocaScopesPass
    : mlir::tp::impl::TPLowerAllocaScopesBase<LowerAllocaScopesPass> {
  void runOnOperation() override {
    // Post-order: a scope nested in another is lowered first.
    SmallVector<memref::AllocaScopeOp> scopes;
    getOperation()->walk([&](memref::AllocaScopeOp scope) {
      if (scope.getBodyRegion().hasOneBlock())
        scopes.push_back(scope);
    });
    for (memref::AllocaScopeOp scope : scopes)
      lowerInPlace(scope);
  }
};
} // namespace
