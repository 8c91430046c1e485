//===- Sharding.h - upstream's sharding flow, extended by tp ----*- C++ -*-===//
//
// Upstream's sharding-propagation and shard-partition (MLIR 22) visit a
// function's top-level ops only and refuse ops without a ShardingInterface,
// so the loop over stacked layer weights that scan-over-layers frameworks
// emit stops them. tp adds a model for that loop (scf.for), so the flow runs
// on such programs in tp-opt. docs/Sharding.md describes the form it takes.
//
//===----------------------------------------------------------------------===//

#ifndef TP_SHARDING_SHARDING_H
#define TP_SHARDING_SHARDING_H

namespace mlir {
class DialectRegistry;

namespace tp {

/// Upstream's sharding models for the dialects tp reads (func, arith, linalg,
/// tensor), and tp's for scf.for over stacked layers.
void registerShardingModels(DialectRegistry &registry);

/// Upstream's sharding-propagation and shard-partition passes.
void registerShardingPasses();

} // namespace tp
} // namespace mlir

#endif // TP_SHARDING_SHARDING_H
