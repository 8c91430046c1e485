//===- TPDialect.h - tp dialect ---------------------------------*- C++ -*-===//
#ifndef TP_DIALECT_TP_IR_TPDIALECT_H
#define TP_DIALECT_TP_IR_TPDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dialect.h"

#include "tp/Dialect/TP/IR/TPDialect.h.inc"

namespace mlir::tp {
/// The unit attribute that marks a function argument every rank receives
/// with the same contents (tp-run gives such arguments the same random
/// values on every rank). Rewrites that move work between ranks rely on it.
inline constexpr llvm::StringLiteral kReplicatedArgAttrName = "tp.replicated";
/// The unit attribute marking a lowered function's rank context (an
/// !llvm.ptr, always argument 0 after tp-to-runtime).
inline constexpr llvm::StringLiteral kRankContextAttrName = "tp.rank_context";
/// Marks the declarations of the runtime's entry points tp-to-runtime makes:
/// any other function named tp_rt_* would be called in their place.
inline constexpr llvm::StringLiteral kRuntimeEntryAttrName = "tp.runtime_entry";
} // namespace mlir::tp

#endif // TP_DIALECT_TP_IR_TPDIALECT_H
