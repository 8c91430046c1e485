//===- MatmulProducer.h - the matmul computing a collective's input -*- C++
//-*-===//
//
// A reduce-scatter and an all-to-all can both read a matmul's product: the
// row-parallel layer's partial sums, expert outputs or attention heads going
// back. The forms matched (shared by FuseReduceScatter.cpp and
// FuseAllToAll.cpp; internal to TPTransforms):
//   tp.matmul(A, B) / tp.scaled_matmul(A, B) / tp.batch_matmul(A, B2d)
//   tensor.expand_shape(tp.matmul(tensor.collapse_shape(A), B))   (F.linear)
// optionally plus an addend (`arith.addf`, a GEMM's C operand). A scaled A's
// scale is reshaped with A, possibly followed by one element-wise op (a
// reciprocal).
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_DIALECT_TP_TRANSFORMS_MATMULPRODUCER_H
#define TP_LIB_DIALECT_TP_TRANSFORMS_MATMULPRODUCER_H

#include "FusionUtils.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::tp::detail {

/// The ops that compute a collective's input as a matmul's product, and what
/// the fused op takes over from them.
struct MatmulProducer {
  Value a, b, addend, bias;
  bool transposeB = false;
  bool scaled = false;
  ScalingMode mode = ScalingMode::PerTensor;
  Value aScale, aGlobal, bScale, bGlobal;
  /// The reshapes of A (and of A's scale) to 2-D, erased once unused.
  tensor::CollapseShapeOp collapse, scaleCollapse;
  /// An element-wise op (a reciprocal, a product with a constant) applied to
  /// A's reshaped scale: the fused op takes it applied to the scale before
  /// the reshape instead.
  Operation *scaleElementwise = nullptr;
  /// The reshape of a 2-D product to the leading dims, when A is 2-D itself
  /// (no collapse): the fused op takes A reshaped the same way.
  tensor::ExpandShapeOp expandA;
  /// matmul [, expand] [, addf], in program order; the last one's result is
  /// the reduce-scatter's input.
  SmallVector<Operation *> chain;
  /// The collective, or the bias add after it whose result the fused op
  /// replaces (the caller fills it).
  SmallVector<Operation *> tail;

  Value product() const { return chain.back()->getResult(0); }
};

/// Matches the matmul chain that computes `input`, which `collective` (named
/// `what` in messages: "reduce-scatter", "all-to-all") reads. `perBatchB`
/// admits a batched matmul with one B per batch. Sets `why` on failure.
FailureOr<MatmulProducer> matchMatmulProducer(Value input,
                                              Operation *collective,
                                              StringRef what, bool perBatchB,
                                              std::string &why);

/// A as the fused op takes it: reshaped into the product's leading dims when
/// a 2-D matmul's product was (p.expandA), at the rewriter's insertion point.
Value fusedOperandA(RewriterBase &rewriter, MatmulProducer &p);

/// Erases the chain (and A's reshapes, once unused) after the fused op
/// replaced its uses.
void eraseMatmulChain(RewriterBase &rewriter, MatmulProducer &p);

} // namespace mlir::tp::detail

#endif // TP_LIB_DIALECT_TP_TRANSFORMS_MATMULPRODUCER_H
