//===- FuseAllToAll.cpp - all-to-all -> matmul into one fused op ----------===//
//
// An all-to-all whose result a matmul reads as A (Ulysses attention's
// heads -> sequence exchange before a projection, tokens arriving at an
// expert) becomes a tp.all_to_all_matmul: each block is multiplied into its
// own rows as it lands. The consumers are matched exactly as an all-gather's
// (GatherConsumers.h); only the collective differs.
//
//===----------------------------------------------------------------------===//

#include "GatherConsumers.h"

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::detail;

FusionReport tp::fuseAllToAll(RewriterBase &rewriter, AllToAllOp op,
                              const AsyncTPOptions &options) {
  FusionReport report;
  std::string why;
  if (!isTensorParallelGroup(op.getGridAxes(), options, "all-to-all", why)) {
    report.misses.push_back(why);
    return report;
  }
  SmallVector<Miss> misses;
  ConsumerList group = collectConsumers(op, misses);
  reportMisses(misses, group.empty(), report);
  if (group.empty())
    return report;

  bool returnExchanged = resultStillRead(op, group);
  llvm::SetVector<Operation *> toHoist;
  for (Consumer &c : group)
    toHoist.insert(c.toHoist.begin(), c.toHoist.end());
  hoistAbove(rewriter, op, toHoist);

  SmallVector<Type> resultTypes;
  if (returnExchanged)
    resultTypes.push_back(op.getType());
  llvm::append_range(resultTypes, productTypes(op.getType(), group));
  SmallVector<Value> bs, biases;
  SmallVector<bool> biasMask;
  SmallVector<Location> locs = {op.getLoc()};
  for (Consumer &c : group) {
    bs.push_back(c.b);
    biasMask.push_back(static_cast<bool>(c.bias));
    if (c.bias)
      biases.push_back(c.bias);
    locs.push_back(c.matmul->getLoc());
  }
  rewriter.setInsertionPoint(op);
  auto fused = AllToAllMatmulOp::create(
      rewriter, rewriter.getFusedLoc(locs), resultTypes, op.getInput(), bs,
      biases, op.getGridAttr(), op.getGridAxesAttr(), op.getSplitAttr(),
      op.getConcatAttr(), rewriter.getDenseBoolArrayAttr(biasMask),
      group.front().transposeB ? rewriter.getUnitAttr() : UnitAttr(),
      returnExchanged ? rewriter.getUnitAttr() : UnitAttr(),
      /*algorithm=*/nullptr, /*chunks=*/nullptr, /*streams=*/nullptr);
  replaceConsumers(rewriter, op, fused, fused.getProducts(), group,
                   returnExchanged);
  report.fused = fused;
  return report;
}
