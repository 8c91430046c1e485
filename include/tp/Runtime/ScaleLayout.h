//===- ScaleLayout.h - block sizes of the block-scaled formats --*- C++ -*-===//
//
// One definition for the verifier, the shape rules the lowering allocates
// from, and the runtime's quantization: an MXFP8 scale (f8E8M0FNU) covers 32
// consecutive elements of the last dim, an NVFP4 scale (f8E4M3FN) 16. Header
// only and free of MLIR, like Schedule.h, so both sides include it.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_SCALELAYOUT_H
#define TP_RUNTIME_SCALELAYOUT_H

#include <cstdint>

namespace mlir::tp::rt {

/// Elements of the last dim that share one MXFP8 scale.
constexpr int64_t kMXFP8BlockSize = 32;
/// Elements of the last dim that share one NVFP4 scale.
constexpr int64_t kNVFP4BlockSize = 16;

} // namespace mlir::tp::rt

#endif // TP_RUNTIME_SCALELAYOUT_H
