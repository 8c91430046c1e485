//===- GpuGlue.h - tp-run --glue gpu ----------------------------*- C++ -*-===//
//
// The glue between runtime calls compiled for the GPU (tp-lower-glue-to-nvvm:
// kernels in PTX, buffers in host-shared memory) and launched through the
// runtime's mgpu* entry points: only builds with the CUDA backend have it.
//
//===----------------------------------------------------------------------===//

#ifndef TP_TOOLS_TP_RUN_GPUGLUE_H
#define TP_TOOLS_TP_RUN_GPUGLUE_H

#include "tp/Execution/Execution.h"

#include <string>

namespace mlir::tp::run {

/// The lowering for `chip` (an SM name such as sm_90), or an error where
/// this build has no CUDA backend. With `cudaGraph`, compiling refuses host
/// code that a CUDA graph of the step could not replay. Loop-free host
/// functions of `unoptimizedStraightOps` LLVM ops or more are compiled
/// unoptimized (0: none).
rt::Status gpuGlue(const std::string &chip, bool cudaGraph,
                   int64_t unoptimizedStraightOps,
                   const mlir::tp::GlueLowering *&lowering);

} // namespace mlir::tp::run

#endif // TP_TOOLS_TP_RUN_GPUGLUE_H
