//===- GatherConsumers.h - matmuls reading a collective's result -*- C++
//-*-===//
//
// The matmuls that read an all-gather's or an all-to-all's result as A
// (directly, through F.linear's leading-dims reshape, or as a batched matmul
// with one weight), and how a fused op replaces them. Shared by the two
// fusions; internal to TPTransforms.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_DIALECT_TP_TRANSFORMS_GATHERCONSUMERS_H
#define TP_LIB_DIALECT_TP_TRANSFORMS_GATHERCONSUMERS_H

#include "FusionUtils.h"

namespace mlir::tp::detail {

/// A matmul that takes the gathered value as A, and what the fused op takes
/// over from it.
struct Consumer {
  Operation *matmul = nullptr;
  /// Set when A reached the matmul through a leading-dims collapse.
  tensor::CollapseShapeOp collapse;
  /// Whether the product was expanded back to A's rank (F.linear's graph).
  bool expanded = false;
  Value b, bias;
  bool transposeB = false;
  /// Scaled consumers: B's scales, and A's scale as the fused op takes it (the
  /// shard for gathered scales).
  bool scaled = false;
  ScalingMode mode = ScalingMode::PerTensor;
  Value bScale, bGlobal, aScale, aGlobal;
  Type gatheredScaleType;
  /// An element-wise op (a reciprocal, a product with a constant) between
  /// the gather of A's scale and the matmul: the fused op takes it applied to
  /// the shard.
  Operation *scaleElementwise = nullptr;
  /// The all-gather (and reshape, and element-wise op) of A's scale, users
  /// first, erased once unused.
  SmallVector<Operation *> scaleOps;
  Type productElement;
  /// The matmul, then the ops after it that the product replaces.
  SmallVector<Operation *> chain;
  /// Producers of B, scales and bias that must move above the fused op.
  llvm::SetVector<Operation *> toHoist;

  Value result() const { return chain.back()->getResult(0); }
};

using ConsumerList = SmallVector<Consumer, 2>;

/// A use of the gathered value that was not fused, and why.
struct Miss {
  Operation *user;
  std::string why;
  /// False for a use that is no matmul at all (e.g. the gathered value saved
  /// for backward): reported only when nothing fuses.
  bool blocksAMatmul = true;
};

/// "the gathered value" or "the exchanged value", for messages.
inline std::string describeValue(Operation *collective) {
  return isa<AllGatherOp>(collective) ? "the gathered value"
                                      : "the exchanged value";
}
/// "all-gather" or "all-to-all", for messages.
inline StringRef describeCollective(Operation *collective) {
  return isa<AllGatherOp>(collective) ? "all-gather" : "all-to-all";
}

/// The largest group of `collective`'s consumers that can share one fused
/// op (same B layout and A scale), in block order; every other use is added
/// to `misses` with its reason.
ConsumerList collectConsumers(Operation *collective, SmallVector<Miss> &misses);

/// Adds the misses' reasons to `report`: uses that are no matmul at all
/// count only when `nothingFused` and no use closer to a matmul missed.
void reportMisses(SmallVector<Miss> &misses, bool nothingFused,
                  FusionReport &report);

/// Whether something besides `group` (and leading-dim size queries) reads
/// `collective`'s result: the fused op must then return it.
bool resultStillRead(Operation *collective, const ConsumerList &group);

/// The products of `group` on an A of type `lhs`, one per consumer.
SmallVector<Type> productTypes(RankedTensorType lhs, const ConsumerList &group);

/// Replaces `group`'s products by `products` of `fused`, erases what they
/// absorbed, and `collective` (whose result, when `returnResult`, is
/// `fused`'s first result).
void replaceConsumers(RewriterBase &rewriter, Operation *collective,
                      Operation *fused, ResultRange products,
                      ConsumerList &group, bool returnResult);

} // namespace mlir::tp::detail

#endif // TP_LIB_DIALECT_TP_TRANSFORMS_GATHERCONSUMERS_H
