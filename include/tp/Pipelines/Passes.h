//===- Passes.h - passes of the lowering pipelines --------------*- C++ -*-===//
//
// tp-lower-tosa (in TPPipelines), and the GPU glue's tp-gpu-shared-buffers,
// tp-check-graph-capture and tp-check-nvvm-target (in TPGlueToNVVM, which
// only tp-opt links): declared in Passes.td. Each library registers its own
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
