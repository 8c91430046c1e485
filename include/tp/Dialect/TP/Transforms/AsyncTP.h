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

/// Fuses `op` with the matmuls that consume its result as A, as
/// fuseAllGather does: each block is multiplied as it arrives. When none
/// does and its input is a matmul's product, fuses that matmul instead: each
/// peer's block is computed and sent while the next is computed.
FusionReport fuseAllToAll(RewriterBase &rewriter, AllToAllOp op,
                          const AsyncTPOptions &options);

/// Moves a transpose between an all-to-all and a matmul to the all-to-all's
/// far side (an all-to-all relabels its split and concat dims instead), so
/// the pair fuses: transpose(all_to_all(x)) feeding a matmul becomes
/// all_to_all(transpose(x)), and all_to_all(transpose(product)) becomes
/// transpose(all_to_all(product)). Static shapes only.
void moveTransposesAcrossAllToAlls(Operation *root, RewriterBase &rewriter);

/// Fuses `op` with the matmul that produces its input.
FusionReport fuseReduceScatter(RewriterBase &rewriter, ReduceScatterOp op,
                               const AsyncTPOptions &options);

/// An all-gather that now moves the narrow data a dequantize (or a widening
/// cast) produced its input from, or why it still moves the wide values.
struct GatherNarrowing {
  /// The narrow gather (the original one when refused).
  Operation *gather = nullptr;
  Type wideType, narrowType;
  /// Row-wise and block scales travel with their data.
  bool scalesGathered = false;
  /// Bytes each rank receives from the others; -1 when not static.
  int64_t bytesBefore = -1, bytesAfter = -1;
  /// Set when the gather was left wide: why.
  std::string refused;

  /// "all-gather moves f8E4M3FN data and its scales instead of f32: 3072
  /// bytes per rank instead of 12288", or why it stays wide.
  std::string describe() const;
};

/// Moves the dequantize (or `arith.extf`) that produces `op`'s input below
/// it: `op` then gathers the narrow data (and its row-wise or block scales).
/// Refused, with the reason, when a per-tensor or global scale is not known
/// to be the same on every rank, or when a matmul reading the gathered value
/// as A could no longer fuse. Fails when `op`'s input is neither.
FailureOr<GatherNarrowing> narrowGather(RewriterBase &rewriter, AllGatherOp op);

/// Rewrites dequantization written as f32 glue into tp.dequantize where it
/// feeds an all-gather or a matmul: `arith.mulf(arith.extf(q), s')` with q
/// FP8 and s' a scale broadcast (linalg.broadcast or tensor.splat) over the
/// whole tensor (per tensor) or along the last dim (row-wise), or one
/// linalg.generic computing the same.
void raiseDequantizeGlue(RewriterBase &rewriter, Operation *root);

/// Rewrites each tp.matmul and tp.batch_matmul (2-D B) whose A is a
/// dequantized all-gather and whose B is dequantized with the same mode into
/// the tp.scaled_matmul the scaled fused op takes (transposing a per-tensor
/// B given as [K, N]). The product no longer rounds the dequantized operands
/// to the dequantize's element type first.
void raiseDequantizedMatmuls(RewriterBase &rewriter, Operation *root);

/// Why `matmul` (a tp.matmul or tp.batch_matmul) with an A dequantized with
/// `mode` cannot become a tp.scaled_matmul, or "" when it can.
std::string whyNotScaledMatmul(Operation *matmul, ScalingMode mode);

/// Patterns that apply fuseAllGather and fuseReduceScatter. A miss is reported
/// through notifyMatchFailure.
void populateAsyncTPPatterns(RewritePatternSet &patterns,
                             const AsyncTPOptions &options = {});

} // namespace mlir::tp

#endif // TP_DIALECT_TP_TRANSFORMS_ASYNCTP_H
