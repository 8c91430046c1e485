//===- CaptureCheck.cpp - host code a CUDA graph can capture --------------===//
//
// A CUDA graph of a step records the GPU work the host code enqueues, not
// the host code: whatever the host does to a buffer (a load, a store, a
// copy, a runtime op that computes on the host) would run once, at capture,
// and never on a replay. So, once the glue's loops are GPU launches, this
// pass refuses host code that touches buffer data, naming each op. The
// copies of constants tp-gpu-shared-buffers makes into buffers only read
// are allowed: made once, at capture, they keep the values.
//
//===----------------------------------------------------------------------===//

#include "SharedBuffers.h"
#include "tp/Pipelines/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tp {
#define GEN_PASS_DEF_TPCHECKGRAPHCAPTURE
#include "tp/Pipelines/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;

namespace {

/// Runtime entries that compute on the host.
constexpr llvm::StringLiteral kHostRuntimeOps[] = {
    "tp_rt_quantize", "tp_rt_dequantize", "tp_rt_extf_f8", "tp_rt_truncf_f8"};

/// What `op`, in host code, does to buffer data ("" when nothing).
std::string hostDataAccess(Operation *op) {
  if (op->getDialect() && isa<gpu::GPUDialect>(op->getDialect()))
    return ""; // enqueued GPU work (copies, memsets) and its streams
  if (auto call = dyn_cast<func::CallOp>(op)) {
    StringRef callee = call.getCallee();
    for (llvm::StringLiteral name : kHostRuntimeOps)
      if (callee == name || callee == ("_mlir_ciface_" + name).str())
        return ("calls " + callee + ", which computes on the host").str();
    return "";
  }
  if (isa<memref::CopyOp>(op))
    return op->hasAttr(mlir::tp::kConstantCopyAttr)
               ? ""
               : "copies a buffer on the host";
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return "";
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  for (const MemoryEffects::EffectInstance &effect : instances) {
    Value on = effect.getValue();
    if (!on || !isa<BaseMemRefType>(on.getType()))
      continue;
    if (isa<MemoryEffects::Read>(effect.getEffect()))
      return "reads a buffer on the host";
    if (isa<MemoryEffects::Write>(effect.getEffect()))
      return "writes a buffer on the host";
  }
  return "";
}

struct CheckGraphCapturePass
    : mlir::tp::impl::TPCheckGraphCaptureBase<CheckGraphCapturePass> {
  void runOnOperation() override {
    bool refused = false;
    // One error per source location: a glue op lowers to many loads.
    llvm::DenseSet<Location> reported;
    getOperation().walk([&](func::FuncOp func) {
      func->walk<WalkOrder::PreOrder>([&](Operation *op) {
        // Kernels run on the GPU: what they do is captured.
        if (isa<gpu::LaunchOp, gpu::GPUModuleOp>(op))
          return WalkResult::skip();
        std::string what = hostDataAccess(op);
        if (!what.empty() && reported.insert(op->getLoc()).second) {
          op->emitError() << "cannot be captured in a CUDA graph: '"
                          << op->getName() << "' " << what
                          << " (it would run once, at capture, not on every "
                             "replay)";
          refused = true;
        }
        return WalkResult::advance();
      });
    });
    if (refused)
      signalPassFailure();
  }
};

} // namespace
