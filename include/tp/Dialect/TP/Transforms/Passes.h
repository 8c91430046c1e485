//===- Passes.h - tp dialect passes and pattern sets ------------*- C++ -*-===//
#ifndef TP_DIALECT_TP_TRANSFORMS_PASSES_H
#define TP_DIALECT_TP_TRANSFORMS_PASSES_H

#include "tp/Dialect/TP/IR/TPOps.h"

#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
namespace tp {

#define GEN_PASS_DECL
#include "tp/Dialect/TP/Transforms/Passes.h.inc"

/// Options of the linear lowering, also used by embedders.
enum class LinearLoweringMode { Reshape, BatchedMatmul };

/// Patterns lowering tp.linear to per-rank collectives and matmuls.
void populateLowerLinearPatterns(RewritePatternSet &patterns,
                                 LinearLoweringMode mode);

#define GEN_PASS_REGISTRATION
#include "tp/Dialect/TP/Transforms/Passes.h.inc"

} // namespace tp
} // namespace mlir

#endif // TP_DIALECT_TP_TRANSFORMS_PASSES_H
