//===- Passes.h - passes of the lowering pipelines --------------*- C++ -*-===//
//
// Declared in Passes.td: the passes tp-lower-to-llvm runs besides upstream's
// (runtime checks, early frees, FP8 casts, math approximations, upstream
// workarounds, function splitting), the checks a run makes before compiling
// (tp-specialize-dynamic-grids, tp-check-runnable), and the GPU glue's
// (tp-gpu-shared-buffers, tp-check-graph-capture, tp-check-nvvm-target, in
// TPGlueToNVVM, which only tp-opt links). Each library registers its own
// (registerTPPassesAndPipelines, registerGlueToNVVMPipeline).
//
//===----------------------------------------------------------------------===//

#ifndef TP_PIPELINES_PASSES_H
#define TP_PIPELINES_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tp {

/// `entry` and every function it calls, directly or not (func.call, and
/// references such as func.constant), each once and `entry` first.
SmallVector<func::FuncOp> functionsReachableFrom(func::FuncOp entry);

#define GEN_PASS_DECL
#include "tp/Pipelines/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tp/Pipelines/Passes.h.inc"

} // namespace mlir::tp

#endif // TP_PIPELINES_PASSES_H
