//===- FusionUtils.h - legality helpers shared by the fusions ---*- C++ -*-===//

#ifndef TP_LIB_DIALECT_TP_TRANSFORMS_FUSIONUTILS_H
#define TP_LIB_DIALECT_TP_TRANSFORMS_FUSIONUTILS_H

#include "tp/Dialect/TP/Transforms/AsyncTP.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tp {

/// `'dialect.op'`, for messages.
std::string quoteName(Operation *op);

/// Whether the collective's grid axes are ones async TP fuses; sets `why`.
bool isTensorParallelGroup(ArrayRef<int16_t> axes,
                           const AsyncTPOptions &options, StringRef collective,
                           std::string &why);

/// Whether `op` is elementwise, a transpose or a reshape: an op that, put
/// between a collective and a matmul, hides a fusable pair.
bool isInterloper(Operation *op);

/// Why `op`, found between a collective and its matmul, stops the match:
/// "an elementwise op ('arith.addf') sits between the all-gather and the
/// matmul", "a transpose ...", "a reshape ...", or "... feeds 'x', which is
/// not a matmul".
std::string describeInterloper(Operation *op, StringRef collective);
/// The same, for a collective that feeds matmuls (`readsProduct` false) or
/// reads one's product (true): an all-to-all can do either.
std::string describeInterloper(Operation *op, StringRef collective,
                               bool readsProduct);

/// Whether a matmul follows `op` (`downward`: reads its results) or precedes
/// it (feeds its operands) through ops that may sit between a collective and
/// its matmul (isInterloper), in `op`'s block.
bool reachesMatmul(Operation *op, bool downward);

/// Whether `op` multiplies matrices (tp matmuls, linalg contractions and
/// convolutions): where sequence parallelism stops an all-gather.
bool isMatmul(Operation *op);

/// Rewrites each `tensor.reshape` of an all-gather's result, or feeding a
/// reduce-scatter, into the tensor.collapse_shape or tensor.expand_shape it
/// amounts to (static shapes that only merge or split dims), which the
/// fusion patterns match. Any other reshape is left as written.
void reshapesAroundCollectivesAsCollapseOrExpand(Operation *root,
                                                 RewriterBase &rewriter);

/// Whether `value` is a matmul's product, directly or through what the
/// reduce-scatter fusion looks through (an expand back to 3-D, an addend):
/// the partial sums a row-parallel layer reduces.
bool isMatmulProduct(Value value);

/// Whether `value` is a matmul's product, or one with a bias added: what an
/// all-to-all may overlap with on its producer side (or say why not).
bool isMatmulOutput(Value value);

/// The one operand of `value`'s defining op that is not a splat constant,
/// when that op is element-wise (one result, operands of the result's type),
/// e.g. 1 / s or s * 2: such an op commutes with reshapes and gathers, so a
/// fused op can take it applied to a scale before them. `elementwise` is the
/// op; null (and `elementwise` null) otherwise.
Value elementwiseOperand(Value value, Operation *&elementwise);

/// `elementwise` (see elementwiseOperand) applied to `source` instead, at the
/// rewriter's insertion point: its splat constants take `source`'s shape.
Value applyElementwiseTo(RewriterBase &rewriter, Operation *elementwise,
                         Value source);

/// The result of planning to move a value's producers above a point.
enum class HoistStatus {
  /// Everything the value needs dominates the point, or can be moved there.
  Ok,
  /// The value is computed from one of the `replaced` ops (the collective or
  /// the chain being fused): it depends on the fused op itself.
  DependsOnReplaced,
  /// An op the value needs sits after the point and cannot move (it is not
  /// free of memory effects); `blocker` is that op.
  Immovable,
};

/// Collects into `toMove` the ops of `point`'s block after `point` that
/// `value` is computed from: their operands and, for ops with regions, the
/// values their regions use from above. Ops free of memory effects move,
/// with or without regions; any other op stops the plan.
HoistStatus planHoist(Operation *point, Value value,
                      const SmallPtrSetImpl<Operation *> &replaced,
                      llvm::SetVector<Operation *> &toMove,
                      Operation *&blocker);

/// A sentence for a failed plan: "B depends on the gathered value" or "B is
/// computed after the all-gather by 'x', which cannot move above the fused op
/// (it may have side effects)".
std::string describeHoistFailure(HoistStatus status, Operation *blocker,
                                 StringRef what, StringRef dependsOn,
                                 StringRef collective);

/// Moves `ops` (from planHoist) above `point`, keeping their order.
void hoistAbove(RewriterBase &rewriter, Operation *point,
                const llvm::SetVector<Operation *> &ops);

/// What the weight-gradient form of the all-gather fusion did.
struct ContractFusion {
  /// The tp.all_gather_contract, or null.
  Operation *fused = nullptr;
  /// Uses of the gathered value (the ops reading it or its collapse) that
  /// contract it over the gathered dim but were left out, and why.
  llvm::MapVector<Operation *, std::string> whyNot;
  /// The uses the fused op took over (erased; keys only).
  SmallPtrSet<Operation *, 4> absorbed;
};

/// Fuses `ag` with the matmuls that contract the gathered value over the
/// gathered dim (weight gradients) into one tp.all_gather_contract. The
/// caller has checked the group. See FuseAllGatherContract.cpp for the forms.
ContractFusion fuseAllGatherContract(RewriterBase &rewriter, AllGatherOp ag);

/// Whether `use` of the gathered value (directly, or through a leading-dims
/// collapse) is a matmul contracting it over the gathered dim.
bool isContractionOfGather(AllGatherOp ag, OpOperand &use);

/// The matmuls that contract `ag`'s gathered value over the gathered dim.
SmallVector<MatmulOp> contractionsOfGather(AllGatherOp ag);

} // namespace mlir::tp

#endif // TP_LIB_DIALECT_TP_TRANSFORMS_FUSIONUTILS_H
