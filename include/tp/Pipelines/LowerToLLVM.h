//===- LowerToLLVM.h - tp programs to the LLVM dialect ----------*- C++ -*-===//
//
// `tp-lower-to-llvm`: a per-rank program that mixes tp ops with upstream
// tensor, linalg, arith, math and scf ops becomes LLVM dialect IR whose tp
// ops are calls of the runtime ABI (tp/Runtime/ABI.h) and whose functions
// take the rank context first. TOSA ops (frontend glue) are lowered first,
// through upstream's TOSA conversions. tp-run JITs the result; embedders translate
// it to an object file.
//
//===----------------------------------------------------------------------===//

#ifndef TP_PIPELINES_LOWERTOLLVM_H
#define TP_PIPELINES_LOWERTOLLVM_H

#include "mlir/Pass/PassOptions.h"

#include <memory>

namespace mlir {
class DialectRegistry;
class OpPassManager;
class Pass;
namespace tp {

struct LowerToLLVMOptions : public PassPipelineOptions<LowerToLLVMOptions> {
  Option<bool> runtimeChecks{
      *this, "runtime-checks",
      llvm::cl::desc("Insert upstream's runtime verification (out-of-bounds "
                     "slices, bad casts, dynamic shapes that do not fit) and "
                     "checks of integer divisions, reported with the op and "
                     "its location"),
      llvm::cl::init(true)};
  Option<bool> reassociateReductions{
      *this, "reassociate-reductions",
      llvm::cl::desc("Let floating-point reductions of the glue be summed "
                     "in vector lanes (tp-reassociate-reductions), in another "
                     "order than the sequential one"),
      llvm::cl::init(true)};
  Option<int64_t> maxFunctionOps{
      *this, "max-function-ops",
      llvm::cl::desc("Outline runs of a longer function's top-level ops into "
                     "functions of at most this many ops "
                     "(tp-split-long-functions; 0: never)"),
      llvm::cl::init(256)};
  Option<int64_t> unoptimizedStraightOps{
      *this, "unoptimized-straight-ops",
      llvm::cl::desc("Let LLVM compile a loop-free function of this many "
                     "LLVM dialect ops or more without optimizations "
                     "(tp-unoptimized-straight-code; 0: never)"),
      llvm::cl::init(4096)};
};

/// Appends the lowering to `pm` (a module pass manager): the two halves
/// below, one after the other.
void buildLowerToLLVMPipeline(OpPassManager &pm,
                              const LowerToLLVMOptions &options);

/// Appends upstream's TOSA lowering to `pm` (a module pass manager):
/// tosa-to-linalg-pipeline's passes without validation (decompositions,
/// shape inference, tosa-to-linalg-named, tosa-to-linalg), then
/// tosa-to-arith (with tosa.apply_scale), tosa-to-tensor, tosa-to-scf and
/// canonicalize, nested on func.func.
void buildTosaToLinalgPipeline(OpPassManager &pm);

/// `tp-lower-tosa` (createTPLowerTosa, tp/Pipelines/Passes.h) runs
/// buildTosaToLinalgPipeline's passes only when the module has a TOSA op.

/// The first half: TOSA lowered (tp-lower-tosa), tp ops become runtime calls, everything is bufferized and
/// deallocated (functions then take and return memrefs).
void buildBufferizePipeline(OpPassManager &pm,
                            const LowerToLLVMOptions &options);

/// The second half: buffers, loops and math down to the LLVM dialect (with
/// runtime checks, integer divisions are asserted defined).
void buildBuffersToLLVMPipeline(OpPassManager &pm,
                                const LowerToLLVMOptions &options);

/// Registers `tp-lower-to-llvm` and `tp-lower-tosa` with the global pass
/// registry.
void registerLowerToLLVMPipeline();

/// The dialects and interface models the lowering needs besides those of
/// registerTPDialects: bufferization of upstream and tp ops, runtime
/// verification, deallocation, and the LLVM dialect.
void registerLoweringDialects(DialectRegistry &registry);

} // namespace tp
} // namespace mlir

#endif // TP_PIPELINES_LOWERTOLLVM_H
