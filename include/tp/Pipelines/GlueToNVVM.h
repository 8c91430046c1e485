//===- GlueToNVVM.h - a program's glue as GPU kernels in PTX ----*- C++ -*-===//
//
// `tp-lower-glue-to-nvvm`: a per-rank program is bufferized as for
// tp-lower-to-llvm (tp ops become runtime calls), then its glue (the linalg
// ops between them: norms, softmax, activations, residuals, reshapes) is
// mapped to GPU kernels and compiled by upstream's NVVM pipeline into
// `gpu.binary` ops holding PTX for the chosen chip. The host side keeps the
// runtime calls and launches the kernels through `gpu.launch_func`; every
// buffer is host-shared memory (`tp-gpu-shared-buffers`), with a public
// function's inputs copied in and results copied out. Translated to LLVM IR
// and linked with TPRuntimeCuda, whose mgpu* entry points load the PTX and
// launch the kernels (lib/Runtime/Cuda/GpuHost.cpp), it runs as a program.
//
// tp-opt carries the pipeline, and tp-run in builds with CUDA (`--glue gpu`);
// TPExecution and embedders do not link the GPU libraries.
//
//===----------------------------------------------------------------------===//

#ifndef TP_PIPELINES_GLUETONVVM_H
#define TP_PIPELINES_GLUETONVVM_H

#include "mlir/Pass/PassOptions.h"

// The CUDA toolkit the build found (CMake sets it; "" leaves it to MLIR, which
// reads CUDA_ROOT, CUDA_HOME or CUDA_PATH).
#ifndef TP_CUDA_TOOLKIT_ROOT
#define TP_CUDA_TOOLKIT_ROOT ""
#endif

namespace mlir {
class DialectRegistry;
class OpPassManager;
namespace tp {

struct GlueToNVVMOptions : public PassPipelineOptions<GlueToNVVMOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("Target SM (e.g. sm_90 for H100)"),
                           llvm::cl::init("sm_90")};
  Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features (the PTX ISA version: +ptx80 and up for "
                     "sm_90)"),
      llvm::cl::init("+ptx80")};
  Option<std::string> cudaPath{
      *this, "cuda-path",
      llvm::cl::desc("CUDA toolkit whose libdevice provides the kernels' math "
                     "functions (default: the one the build found)"),
      llvm::cl::init(TP_CUDA_TOOLKIT_ROOT)};
  Option<int> optLevel{*this, "opt-level",
                       llvm::cl::desc("Optimization level of the kernels"),
                       llvm::cl::init(3)};
  Option<bool> cudaGraph{
      *this, "cuda-graph",
      llvm::cl::desc("Refuse host code that touches buffer data (loads, "
                     "stores, copies, runtime ops that compute on the host), "
                     "so that a step can be captured into a CUDA graph"),
      llvm::cl::init(false)};
  Option<int64_t> unoptimizedStraightOps{
      *this, "unoptimized-straight-ops",
      llvm::cl::desc("Compile a loop-free host function of this many LLVM "
                     "dialect ops or more without LLVM's optimizations "
                     "(tp-unoptimized-straight-code; 0: never)"),
      llvm::cl::init(4096)};
};

/// Appends the pipeline to `pm` (a module pass manager): the two halves
/// below, in a row.
void buildGlueToNVVMPipeline(OpPassManager &pm,
                             const GlueToNVVMOptions &options);

/// The first half: the options checked, the program bufferized (tp ops as
/// runtime calls) and its buffers made host-shared. A driver may change the
/// host functions (give the entry its calling convention) after it.
void buildGlueBufferizePipeline(OpPassManager &pm,
                                const GlueToNVVMOptions &options);

/// The second half: the glue mapped to GPU kernels, compiled to PTX, and the
/// host code lowered to the LLVM dialect.
void buildGlueKernelsPipeline(OpPassManager &pm,
                              const GlueToNVVMOptions &options);

/// Registers `tp-lower-glue-to-nvvm` and `tp-gpu-shared-buffers`.
void registerGlueToNVVMPipeline();

/// The dialects, NVVM target and LLVM IR translations the pipeline needs.
void registerGlueToNVVMDialects(DialectRegistry &registry);

} // namespace tp
} // namespace mlir

#endif // TP_PIPELINES_GLUETONVVM_H
