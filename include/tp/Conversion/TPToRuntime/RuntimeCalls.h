//===- RuntimeCalls.h - building calls of the runtime ABI -------*- C++ -*-===//
//
// For passes that lower ops into calls of the runtime's C ABI
// (tp/Runtime/ABI.h): tp-to-runtime's bufferization, tp-lower-fp8-casts, and
// an embedder's own.
//
//===----------------------------------------------------------------------===//

#ifndef TP_CONVERSION_TPTORUNTIME_RUNTIMECALLS_H
#define TP_CONVERSION_TPTORUNTIME_RUNTIMECALLS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <string>

namespace mlir::tp::runtime {

/// Calls runtime entry `name`, declaring it in the module of `anchor` on
/// first use (private, with the C-interface convention).
func::CallOp call(OpBuilder &b, Location loc, Operation *anchor, StringRef name,
                  TypeRange results, ValueRange operands);

/// `op`'s site as a constant i8 buffer, cast to memref<*xi8>.
Value siteBuffer(OpBuilder &b, Operation *op);

/// A constant i64 buffer of `values`, cast to memref<*xi64>.
Value integerBuffer(OpBuilder &b, Location loc, Operation *anchor,
                    ArrayRef<int64_t> values);

/// The rank context of the function enclosing `op`, or null with an error.
Value rankContextOf(Operation *op);

Value constantI32(OpBuilder &b, Location loc, int64_t value);
Value constantI64(OpBuilder &b, Location loc, int64_t value);

} // namespace mlir::tp::runtime

#endif // TP_CONVERSION_TPTORUNTIME_RUNTIMECALLS_H
