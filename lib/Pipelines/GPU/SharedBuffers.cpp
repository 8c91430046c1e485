//===- SharedBuffers.cpp - buffers both the host and the kernels reach ----===//
//
// Glue kernels run on the GPU while the runtime (fused ops, collectives)
// and the host code between launches read and write the same buffers. So
// every buffer a bufferized function makes becomes host-shared (managed)
// memory (`gpu.alloc host_shared`, mgpuMemAlloc with isHostShared), and the
// host memory it is handed or holds is copied once:
//  - a public function's memref arguments into shared buffers at entry (on
//    a stream, gpu.memcpy),
//  - constant globals into shared buffers where they are read (by the host),
//  - a public function's returned buffers into plain host allocations
//    before each return (on a stream where the layout allows), so callers
//    free results as they do for CPU-compiled code.
// Everything else stays where it is made: no copies between ops, and the
// program's own copies between its buffers become linalg.copy, i.e.
// kernels. So the host code only enqueues GPU work and calls the runtime,
// which a CUDA graph of the step can capture (tp-check-graph-capture).
//
//===----------------------------------------------------------------------===//

#include "SharedBuffers.h"
#include "tp/Pipelines/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPGPUSHAREDBUFFERS
#include "tp/Pipelines/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;

namespace {

/// Copies `source` into `target` (both identity layouts) on a stream, and
/// waits: the copy is GPU work, which a CUDA graph of the step captures
/// (upstream lowers only an asynchronous gpu.memcpy). Returns the op that
/// reads `source`.
Operation *streamCopy(OpBuilder &builder, Location loc, Value source,
                      Value target) {
  Type token = gpu::AsyncTokenType::get(builder.getContext());
  Value ready =
      gpu::WaitOp::create(builder, loc, token, ValueRange()).getAsyncToken();
  auto copy = gpu::MemcpyOp::create(builder, loc, token, ValueRange{ready},
                                    target, source);
  gpu::WaitOp::create(builder, loc, Type(), ValueRange{copy.getAsyncToken()});
  return copy;
}

/// A shared buffer of `type` holding a copy of `source`, made at `builder`'s
/// insertion point (on a stream when `onStream`); `made` receives the ops
/// that read `source`.
Value sharedCopy(OpBuilder &builder, Location loc, Value source,
                 MemRefType type, bool onStream,
                 SmallPtrSetImpl<Operation *> &made) {
  SmallVector<Value> dynamicSizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d)) {
      auto dim = memref::DimOp::create(builder, loc, source, d);
      made.insert(dim);
      dynamicSizes.push_back(dim);
    }
  Value shared = gpu::AllocOp::create(builder, loc, type, Type(), ValueRange(),
                                      dynamicSizes, ValueRange(),
                                      /*hostShared=*/true)
                     .getMemref();
  Operation *copy = nullptr;
  if (onStream) {
    copy = streamCopy(builder, loc, source, shared);
  } else {
    copy = memref::CopyOp::create(builder, loc, source, shared);
    // Its buffer is only read: copied once, it keeps the constant's values
    // (a CUDA graph of the step may keep this host copy).
    copy->setAttr(mlir::tp::kConstantCopyAttr, builder.getUnitAttr());
  }
  made.insert(copy);
  return shared;
}

/// A plain allocation of `type` holding a copy of `source`: on a stream when
/// `source` has the identity layout, else by the host.
Value hostCopy(OpBuilder &builder, Location loc, Value source,
               MemRefType type) {
  SmallVector<Value> dynamicSizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      dynamicSizes.push_back(memref::DimOp::create(builder, loc, source, d));
  Value host = memref::AllocOp::create(builder, loc, type, dynamicSizes);
  if (cast<MemRefType>(source.getType()).getLayout().isIdentity())
    streamCopy(builder, loc, source, host);
  else
    memref::CopyOp::create(builder, loc, source, host);
  return host;
}

/// Frees a shared buffer. Upstream lowers only an asynchronous gpu.dealloc,
/// so it goes on a stream of its own that is waited for.
void freeShared(OpBuilder &builder, Location loc, Value buffer) {
  Type token = gpu::AsyncTokenType::get(builder.getContext());
  Value ready =
      gpu::WaitOp::create(builder, loc, token, ValueRange()).getAsyncToken();
  Value freed = gpu::DeallocOp::create(builder, loc, token, ValueRange{ready},
                                       buffer)
                    .getAsyncToken();
  gpu::WaitOp::create(builder, loc, Type(), ValueRange{freed});
}

/// The buffer `value` views (through casts, subviews, reshapes).
Value baseBuffer(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// Whether a plain allocation has this type (the identity layout).
MemRefType plainType(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && memref.getLayout().isIdentity() ? memref : MemRefType();
}

struct SharedBuffersPass
    : mlir::tp::impl::TPGpuSharedBuffersBase<SharedBuffersPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    OpBuilder builder(func.getContext());
    Block &entry = func.getBody().front();
    // The program's own copies, between its buffers: kernels, once every
    // buffer is shared.
    SmallVector<memref::CopyOp> bodyCopies;
    func.walk([&](memref::CopyOp op) { bodyCopies.push_back(op); });
    // Copies made at entry, freed before every return.
    SmallVector<Value> entryCopies;

    // Only public functions are called from host code with host memory, and
    // only their results go back to it: private ones take and return the
    // shared buffers of their callers.
    const bool boundary = func.isPublic();
    builder.setInsertionPointToStart(&entry);
    for (BlockArgument arg : boundary ? entry.getArguments()
                                      : ArrayRef<BlockArgument>()) {
      if (arg.use_empty() || !isa<MemRefType>(arg.getType()))
        continue;
      MemRefType type = plainType(arg.getType());
      if (!type) {
        func.emitError() << "tp-gpu-shared-buffers: argument #"
                         << arg.getArgNumber() << " has layout "
                         << cast<MemRefType>(arg.getType()).getLayout()
                         << "; only identity layouts are copied in";
        return signalPassFailure();
      }
      SmallPtrSet<Operation *, 4> made;
      Value shared =
          sharedCopy(builder, func.getLoc(), arg, type, /*onStream=*/true, made);
      arg.replaceUsesWithIf(shared, [&](OpOperand &use) {
        return !made.contains(use.getOwner());
      });
      entryCopies.push_back(shared);
    }

    SmallVector<memref::GetGlobalOp> globals;
    func.walk([&](memref::GetGlobalOp op) { globals.push_back(op); });
    for (memref::GetGlobalOp op : globals) {
      MemRefType type = plainType(op.getType());
      if (!type)
        continue;
      builder.setInsertionPointAfter(op);
      SmallPtrSet<Operation *, 4> made;
      // Constants are copied by the host: a CUDA graph captures the copy
      // made once, at capture, and its buffer keeps the values.
      Value shared = sharedCopy(builder, op.getLoc(), op.getResult(), type,
                                /*onStream=*/false, made);
      op.getResult().replaceUsesWithIf(shared, [&](OpOperand &use) {
        return !made.contains(use.getOwner());
      });
      // A copy made inside a loop or branch is not freed at the return; one
      // in the entry block is.
      if (op->getBlock() == &entry)
        entryCopies.push_back(shared);
    }

    SmallVector<memref::AllocOp> allocs;
    func.walk([&](memref::AllocOp op) { allocs.push_back(op); });
    for (memref::AllocOp op : allocs) {
      if (!plainType(op.getType()) || !op.getSymbolOperands().empty())
        continue;
      builder.setInsertionPoint(op);
      Value shared = gpu::AllocOp::create(builder, op.getLoc(), op.getType(),
                                          Type(), ValueRange(),
                                          op.getDynamicSizes(), ValueRange(),
                                          /*hostShared=*/true)
                         .getMemref();
      op.replaceAllUsesWith(shared);
      op.erase();
    }
    SmallVector<memref::DeallocOp> deallocs;
    func.walk([&](memref::DeallocOp op) { deallocs.push_back(op); });
    for (memref::DeallocOp op : deallocs) {
      if (!baseBuffer(op.getMemref()).getDefiningOp<gpu::AllocOp>())
        continue;
      builder.setInsertionPoint(op);
      freeShared(builder, op.getLoc(), op.getMemref());
      op.erase();
    }

    // Results leave in plain host memory. The shared buffers they came
    // from, and the entry copies, are freed once; a result that reaches the
    // return through a loop or branch has no known owner here and is not.
    func.walk([&](func::ReturnOp ret) {
      if (!boundary)
        return;
      builder.setInsertionPoint(ret);
      llvm::SetVector<Value> toFree(entryCopies.begin(), entryCopies.end());
      for (OpOperand &operand : ret->getOpOperands()) {
        MemRefType type = plainType(operand.get().getType());
        if (!type)
          continue;
        Value base = baseBuffer(operand.get());
        operand.set(hostCopy(builder, ret.getLoc(), operand.get(), type));
        if (base.getDefiningOp<gpu::AllocOp>())
          toFree.insert(base);
      }
      for (Value buffer : toFree)
        freeShared(builder, ret.getLoc(), buffer);
    });

    // Only copies between buffers known to be shared become kernels; any
    // other (a constant of a layout not copied above, a buffer that comes
    // through a loop or a call) stays with the host, which reaches both.
    auto shared = [&](Value value) {
      Value base = baseBuffer(value);
      if (base.getDefiningOp<gpu::AllocOp>())
        return true;
      auto arg = dyn_cast<BlockArgument>(base);
      return !boundary && arg && arg.getOwner() == &entry;
    };
    for (memref::CopyOp copy : bodyCopies) {
      if (!shared(copy.getSource()) || !shared(copy.getTarget()))
        continue;
      builder.setInsertionPoint(copy);
      linalg::CopyOp::create(builder, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    }
  }
};

} // namespace
