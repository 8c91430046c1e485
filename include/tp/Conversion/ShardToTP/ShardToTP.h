//===- ShardToTP.h - raise upstream per-rank IR into tp ---------*- C++ -*-===//
#ifndef TP_CONVERSION_SHARDTOTP_SHARDTOTP_H
#define TP_CONVERSION_SHARDTOTP_SHARDTOTP_H

#include "tp/Dialect/TP/IR/TPOps.h"

#include <optional>
#include <string>

namespace mlir {
class RewritePatternSet;
namespace tp {

/// Patterns raising shard collectives and rank queries into tp.
void populateShardToTPPatterns(RewritePatternSet &patterns);

/// Patterns raising linalg matmuls and matmul-shaped contractions into tp.
void populateLinalgToTPPatterns(RewritePatternSet &patterns);

/// Why `op` (a shard collective or rank query, or a linalg contraction) is
/// not raised, or std::nullopt when it is raisable or none of these.
std::optional<std::string> whyNotRaised(Operation *op);

} // namespace tp
} // namespace mlir

#endif // TP_CONVERSION_SHARDTOTP_SHARDTOTP_H
