//===- AsyncTP.h - collective-matmul fusion for embedders -------*- C++ -*-===//
//
// The building blocks of `tp-async-tp`, for compilers that drive fusion
// themselves: one call per collective, which either rewrites it into a fused
// op or leaves the IR untouched and says why.
//
//===----------------------------------------------------------------------===//

#ifndef TP_DIALECT_TP_TRANSFORMS_ASYNCTP_H
#define TP_DIALECT_TP_TRANSFORMS_ASYNCTP_H

#include "tp/Dialect/TP/IR/TPOps.h"

#include "mlir/IR/PatternMatch.h"

#include <string>

namespace mlir::tp {

struct AsyncTPOptions {
  /// When set, only collectives along exactly this grid axis are fused (the
  /// tensor-parallel axis of a multi-axis grid). When unset, collectives
  /// along any single axis are.
  std::optional<int16_t> tensorParallelAxis;
};

/// What one fusion attempt did.
struct FusionReport {
  /// The fused op, or null when the collective was left as it was.
  Operation *fused = nullptr;
  /// One sentence per reason something was not fused. With a fused op these
  /// are uses of the collective that were left out of it.
  SmallVector<std::string> misses;
};

/// Fuses `op` with the matmuls that consume its result as A (directly, through
/// a leading-dims reshape, or as a batched matmul with a broadcast weight).
FusionReport fuseAllGather(RewriterBase &rewriter, AllGatherOp op,
                           const AsyncTPOptions &options);

/// Fuses `op` with the matmul that produces its input.
FusionReport fuseReduceScatter(RewriterBase &rewriter, ReduceScatterOp op,
                               const AsyncTPOptions &options);

/// Patterns that apply the two functions above. A miss is reported through
/// notifyMatchFailure.
void populateAsyncTPPatterns(RewritePatternSet &patterns,
                             const AsyncTPOptions &options = {});

} // namespace mlir::tp

#endif // TP_DIALECT_TP_TRANSFORMS_ASYNCTP_H
