//===- Uniformity.h - values that are the same on every rank ----*- C++ -*-===//
//
// Rewrites that move work between ranks (sequence parallelism, a per-tensor
// scale shared by gathered pieces) are only sound for values every rank of a
// group holds identically. This proves it from the program: constants,
// results of collectives over the group, arguments marked `tp.replicated`,
// and side-effect free ops of such values.
//
//===----------------------------------------------------------------------===//

#ifndef TP_DIALECT_TP_TRANSFORMS_UNIFORMITY_H
#define TP_DIALECT_TP_TRANSFORMS_UNIFORMITY_H

#include "tp/Dialect/TP/IR/TPDialect.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Value.h"

#include <string>

namespace mlir::tp {

/// Whether `value` holds the same contents on every rank of the group
/// `axes` of `grid`. When it cannot be proven, `why` (if given) names the
/// value the proof stopped at: "argument #1 of @f, which is not marked
/// tp.replicated", "'tp.group_rank', which differs across the group", ...
bool isUniformAcrossGroup(Value value, FlatSymbolRefAttr grid,
                          ArrayRef<int16_t> axes, std::string *why = nullptr);

} // namespace mlir::tp

#endif // TP_DIALECT_TP_TRANSFORMS_UNIFORMITY_H
