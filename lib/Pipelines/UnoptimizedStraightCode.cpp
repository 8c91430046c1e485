//===- UnoptimizedStraightCode.cpp - tp-unoptimized-straight-code ---------===//
//
// A long function without loops is compiled by LLVM without optimizations:
// its blocks are tens of thousands of instructions long, which LLVM's
// selection and scheduling pay for superlinearly, and it runs each of them
// once per call.
//
//===----------------------------------------------------------------------===//

#include "tp/Pipelines/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPUNOPTIMIZEDSTRAIGHTCODE
#include "tp/Pipelines/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;

/// Whether `region`'s control flow has a cycle: a depth-first walk of its
/// blocks meets a block still on its path.
static bool hasCycle(Region &region) {
  llvm::DenseSet<Block *> done, onPath;
  // Each entry is a block and the index of its next successor to visit.
  SmallVector<std::pair<Block *, unsigned>> stack = {{&region.front(), 0}};
  onPath.insert(&region.front());
  while (!stack.empty()) {
    auto &[block, next] = stack.back();
    if (next == block->getNumSuccessors()) {
      onPath.erase(block);
      done.insert(block);
      stack.pop_back();
      continue;
    }
    Block *successor = block->getSuccessor(next++);
    if (onPath.contains(successor))
      return true;
    if (!done.contains(successor)) {
      onPath.insert(successor);
      stack.push_back({successor, 0});
    }
  }
  return false;
}

namespace {
struct UnoptimizedStraightCodePass
    : mlir::tp::impl::TPUnoptimizedStraightCodeBase<
          UnoptimizedStraightCodePass> {
  using TPUnoptimizedStraightCodeBase::TPUnoptimizedStraightCodeBase;

  void runOnOperation() override {
    if (minOps < 0) {
      getOperation().emitError("tp-unoptimized-straight-code: min-ops must "
                               "not be negative, got ")
          << minOps.getValue();
      return signalPassFailure();
    }
    if (minOps == 0)
      return;
    // always_inline asks for the opposite; LLVM refuses both at once.
    auto markable = [](LLVM::LLVMFuncOp func) {
      return !func.isExternal() && !func.getAlwaysInline();
    };
    llvm::StringSet<> unoptimized;
    for (auto func : getOperation().getOps<LLVM::LLVMFuncOp>()) {
      if (!markable(func))
        continue;
      int64_t ops = 0;
      func.walk([&](Operation *) { ++ops; });
      if (ops - 1 < minOps || hasCycle(func.getBody()))
        continue;
      func.setOptimizeNone(true);
      func.setNoInline(true);
      unoptimized.insert(func.getSymName());
    }
    // A C interface wrapper of such a function is as long as its argument
    // list (a training step's: every weight and gradient), one block that
    // only moves descriptors, and LLVM's -O2 takes superlinear time over
    // it too.
    for (auto func : getOperation().getOps<LLVM::LLVMFuncOp>()) {
      StringRef name = func.getSymName();
      if (markable(func) && name.consume_front("_mlir_ciface_") &&
          unoptimized.contains(name)) {
        func.setOptimizeNone(true);
        func.setNoInline(true);
      }
    }
  }
};
} // namespace
