//===- FreeBuffersEarly.cpp - tp-free-buffers-early -----------------------===//
//
// Ownership-based deallocation places a block's frees before its terminator.
// In a program of N ops in a row that keeps N intermediates alive at once;
// freeing each right after its last use keeps only the live ones, so peak
// memory follows the program's width, not its length. Aliasing is judged
// conservatively: anything an op returns after taking the buffer may alias
// it. A buffer staged for a runtime call lives until that call.
//
//===----------------------------------------------------------------------===//

#include "tp/Pipelines/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Dominance.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPFREEBUFFERSEARLY
#include "tp/Pipelines/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;

namespace {

/// The op of `block` that holds `op` (itself or an ancestor), or null.
Operation *inBlock(Operation *op, Block *block) {
  while (op && op->getBlock() != block)
    op = op->getParentOp();
  return op;
}

/// Runtime calls stage their buffers first (`tp_rt_buffer_<type>`, which
/// only records the descriptor) and the op's own entry reads them: a staged
/// buffer is in use until the next runtime call that is not a staging one.
/// Returns that call, or null when there is none in `staging`'s block.
Operation *consumerOfStaged(func::CallOp staging) {
  for (Operation *op = staging->getNextNode(); op; op = op->getNextNode()) {
    auto call = dyn_cast<func::CallOp>(op);
    if (!call)
      continue;
    StringRef callee = call.getCallee();
    // Entries that take no staged buffers (ABI.cpp: they build no Call).
    if (!callee.starts_with("tp_rt_") || callee.starts_with("tp_rt_buffer_") ||
        llvm::is_contained(
            {"tp_rt_extf_f8", "tp_rt_truncf_f8", "tp_rt_group_rank"}, callee))
      continue;
    return call;
  }
  return nullptr;
}

/// Whether a value of `type` can carry no reference to a buffer.
bool isPlainValue(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    type = vector.getElementType();
  return type.isIntOrIndexOrFloat();
}

/// The last op of `block` after which `buffer` is no longer reached, or
/// null when it may outlive the block (or its frees are not plain).
Operation *lastUseOf(Value buffer, memref::DeallocOp dealloc) {
  Block *block = dealloc->getBlock();
  llvm::SetVector<Value> aliases;
  aliases.insert(buffer);
  Operation *last = buffer.getDefiningOp();
  for (size_t i = 0; i < aliases.size(); ++i) {
    for (OpOperand &use : aliases[i].getUses()) {
      Operation *user = use.getOwner();
      if (user == dealloc.getOperation())
        continue;
      // Frees elsewhere, terminators, raw pointers and the buffer stored
      // into memory: its lifetime is not this block's to shorten.
      if (isa<memref::DeallocOp, memref::ExtractAlignedPointerAsIndexOp>(
              user) ||
          user->hasTrait<OpTrait::IsTerminator>())
        return nullptr;
      if (auto store = dyn_cast<memref::StoreOp>(user);
          store && store.getValueToStore() == aliases[i])
        return nullptr;
      if (auto call = dyn_cast<func::CallOp>(user);
          call && call.getCallee().starts_with("tp_rt_buffer_")) {
        user = consumerOfStaged(call);
        if (!user)
          return nullptr;
      }
      Operation *holder = inBlock(user, block);
      if (!holder)
        return nullptr;
      // Whatever the user, or an op around it in this block, returns may be
      // the buffer again.
      for (Operation *op = user; op; op = op->getParentOp()) {
        for (Value result : op->getResults()) {
          if (isa<BaseMemRefType>(result.getType()))
            aliases.insert(result);
          // A tensor, pointer, struct or token may hold the buffer in a
          // form this pass does not follow.
          else if (!isPlainValue(result.getType()))
            return nullptr;
        }
        if (op == holder)
          break;
      }
      if (last->isBeforeInBlock(holder))
        last = holder;
    }
  }
  return last;
}

struct FreeBuffersEarlyPass
    : mlir::tp::impl::TPFreeBuffersEarlyBase<FreeBuffersEarlyPass> {
  void runOnOperation() override {
    SmallVector<memref::DeallocOp> deallocs;
    getOperation()->walk([&](memref::DeallocOp op) { deallocs.push_back(op); });
    // Every destination first, then every move: a move invalidates its
    // block's op order, which the next isBeforeInBlock would recompute (time
    // quadratic in the length of a deep model's entry). Destinations are
    // never frees, so no move changes another's destination.
    SmallVector<std::pair<memref::DeallocOp, Operation *>> moves;
    for (memref::DeallocOp dealloc : deallocs) {
      Value buffer = dealloc.getMemref();
      auto alloc = buffer.getDefiningOp<memref::AllocOp>();
      if (!alloc || alloc->getBlock() != dealloc->getBlock())
        continue;
      Operation *last = lastUseOf(buffer, dealloc);
      if (last && last->isBeforeInBlock(dealloc))
        moves.emplace_back(dealloc, last);
    }
    for (auto [dealloc, last] : moves)
      dealloc->moveAfter(last);
  }
};

} // namespace
