//===- TPToRuntime.h - tp ops to calls of the runtime ABI -------*- C++ -*-===//
//
// tp ops bufferize straight into calls of the runtime's C ABI
// (tp/Runtime/ABI.h): each op's operands become staged buffers and its
// results buffers the compiled code allocates (destination-passing style).
// `tp-to-runtime` first threads the rank context through the module's
// functions; one-shot bufferization with the models registered here then
// lowers every tp op on tensors.
//
//===----------------------------------------------------------------------===//

#ifndef TP_CONVERSION_TPTORUNTIME_TPTORUNTIME_H
#define TP_CONVERSION_TPTORUNTIME_TPTORUNTIME_H

#include "tp/Dialect/TP/IR/TPDialect.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Types.h"

#include <string>

#include <optional>

namespace mlir {
class Operation;
namespace tp {

/// "'tp.matmul' at file:line:col": how runtime errors and traces name an op.
std::string siteOf(Operation *op);

/// Registers the bufferization models that turn tp ops into runtime calls.
void registerRuntimeCallBufferization(DialectRegistry &registry);

/// The runtime's code (TPRtDType) for an element type, if it has one.
std::optional<int32_t> runtimeDTypeOf(Type elementType);

} // namespace tp
} // namespace mlir

#endif // TP_CONVERSION_TPTORUNTIME_TPTORUNTIME_H
