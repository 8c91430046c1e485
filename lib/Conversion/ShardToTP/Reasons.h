//===- Reasons.h - why an upstream op is not raised -------------*- C++ -*-===//
//
// The patterns and the pass's remarks share these checks, so a remark always
// says exactly why its pattern declined.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_CONVERSION_SHARDTOTP_REASONS_H
#define TP_LIB_CONVERSION_SHARDTOTP_REASONS_H

#include "mlir/IR/Operation.h"

#include <optional>
#include <string>

namespace mlir::tp::import {

/// For shard collectives and rank queries.
std::optional<std::string> whyCollectiveNotRaised(Operation *op);

/// For linalg contractions.
std::optional<std::string> whyContractionNotRaised(Operation *op);

} // namespace mlir::tp::import

#endif // TP_LIB_CONVERSION_SHARDTOTP_REASONS_H
