//===- SimplifyCollectives.h - unread collectives, zero addends -*- C++ -*-===//
//
// The patterns of `tp-simplify-collectives`, for embedders that run their own
// greedy rewrites.
//
//===----------------------------------------------------------------------===//
#ifndef TP_DIALECT_TP_TRANSFORMS_SIMPLIFYCOLLECTIVES_H
#define TP_DIALECT_TP_TRANSFORMS_SIMPLIFYCOLLECTIVES_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir {
class Operation;
class RewritePatternSet;
namespace tp {

/// Told about every rewrite the patterns make, before the IR changes (`op` is
/// still intact). Both hooks do nothing by default.
class SimplifyCollectivesObserver {
public:
  virtual ~SimplifyCollectivesObserver();
  /// `collective` (tp.all_gather, tp.reduce_scatter or tp.all_reduce) is about
  /// to be erased; `why` says why its result is not needed.
  virtual void collectiveRemoved(Operation *collective, llvm::StringRef why);
  /// The zero operand `zero` of `op` is about to be dropped.
  virtual void addendDropped(Operation *op, Value zero, llvm::StringRef why);
};

/// Whether `op` is a collective these patterns may remove: tp.all_gather,
/// tp.reduce_scatter or tp.all_reduce.
bool isRemovableCollective(Operation *op);

/// Why the result of collective `op` is never read (empty when it is read):
/// it has no uses, or each use is a DPS init its linalg user overwrites
/// without reading (linalg.fill; a structured op whose payload ignores that
/// init) or a tensor.dim.
std::string whyCollectiveUnread(Operation *op);

/// Patterns removing collectives whose result is never read (its init uses
/// get a tensor.empty of the same type) and dropping addends known to be zero.
/// `observer` (optional) must outlive the patterns.
void populateSimplifyCollectivesPatterns(
    RewritePatternSet &patterns,
    SimplifyCollectivesObserver *observer = nullptr);

} // namespace tp
} // namespace mlir

#endif // TP_DIALECT_TP_TRANSFORMS_SIMPLIFYCOLLECTIVES_H
