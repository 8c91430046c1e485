//===- SharedBuffers.h - buffers both the host and the kernels reach -*- C++ -*-===//

#ifndef TP_LIB_PIPELINES_GPU_SHAREDBUFFERS_H
#define TP_LIB_PIPELINES_GPU_SHAREDBUFFERS_H

namespace mlir {
namespace tp {

/// Marks the host copies tp-gpu-shared-buffers makes of constant globals
/// into shared buffers that are only read, which tp-check-graph-capture
/// lets through.
inline constexpr char kConstantCopyAttr[] = "tp.constant_copy";

} // namespace tp
} // namespace mlir

#endif // TP_LIB_PIPELINES_GPU_SHAREDBUFFERS_H
