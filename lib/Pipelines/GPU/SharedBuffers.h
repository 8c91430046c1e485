//===- SharedBuffers.h - buffers both the host and the kernels reach -*- C++ -*-===//

#ifndef TP_LIB_PIPELINES_GPU_SHAREDBUFFERS_H
#define TP_LIB_PIPELINES_GPU_SHAREDBUFFERS_H

#include <memory>

namespace mlir {
class Pass;
namespace tp {

/// Marks the host copies tp-gpu-shared-buffers makes of constant globals
/// into shared buffers that are only read, which tp-check-graph-capture
/// lets through.
inline constexpr char kConstantCopyAttr[] = "tp.constant_copy";

/// `tp-gpu-shared-buffers` (SharedBuffers.cpp), on a bufferized func.func.
std::unique_ptr<Pass> createSharedBuffersPass();

/// `tp-check-graph-capture` (CaptureCheck.cpp), on a module whose glue loops
/// are GPU launches.
std::unique_ptr<Pass> createCheckGraphCapturePass();

} // namespace tp
} // namespace mlir

#endif // TP_LIB_PIPELINES_GPU_SHAREDBUFFERS_H
