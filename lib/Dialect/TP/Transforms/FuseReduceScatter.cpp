//===- FuseReduceScatter.cpp - matmul -> reduce-scatter into one fused op -===//
//
// The reduce-scatter's input is matched against the forms a row-parallel
// linear layer produces:
//   tp.matmul(A, B) / tp.scaled_matmul(A, B) / tp.batch_matmul(A, B2d)
//   tensor.expand_shape(tp.matmul(tensor.collapse_shape(A), B))   (F.linear)
// optionally plus an addend (`arith.addf`, a GEMM's C operand) before the
// reduction and a `tp.bias_add` after it. A scaled A's scale is reshaped with
// A, possibly followed by one element-wise op (a reciprocal). When the product
// has other users, the fused op returns it too.
//
//===----------------------------------------------------------------------===//

#include "MatmulProducer.h"

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::detail;

/// The matmul chain computing the reduce-scatter's input, and the bias add
/// after the reduce-scatter that the fused op takes over.
static FailureOr<MatmulProducer> matchProducer(ReduceScatterOp rs,
                                               std::string &why) {
  FailureOr<MatmulProducer> p = matchMatmulProducer(
      rs.getInput(), rs, "reduce-scatter", /*perBatchB=*/false, why);
  if (failed(p))
    return failure();
  p->tail.push_back(rs);
  int64_t last = rs.getType().getRank() - 1;
  if (rs->hasOneUse() && static_cast<int64_t>(rs.getDim()) != last) {
    auto add = dyn_cast<BiasAddOp>(*rs->user_begin());
    if (add && add.getInput() == rs.getResult() &&
        add->getBlock() == rs->getBlock()) {
      p->bias = add.getBias();
      p->tail.push_back(add);
    }
  }
  return p;
}

FusionReport mlir::tp::fuseReduceScatter(RewriterBase &rewriter,
                                         ReduceScatterOp rs,
                                         const AsyncTPOptions &options) {
  FusionReport report;
  std::string why;
  if (!isTensorParallelGroup(rs.getGridAxes(), options, "reduce-scatter",
                             why)) {
    report.misses.push_back(why);
    return report;
  }
  ReductionKind kind = rs.getReduce();
  if (kind != ReductionKind::Sum && kind != ReductionKind::Avg) {
    report.misses.push_back(("the reduce-scatter reduces with " +
                             stringifyReductionKind(kind) +
                             "; only sum and avg distribute over the chunked "
                             "product")
                                .str());
    return report;
  }
  FailureOr<MatmulProducer> match = matchProducer(rs, why);
  if (failed(match)) {
    report.misses.push_back(why);
    return report;
  }
  MatmulProducer &p = *match;

  // The fused op takes the place of the last producer op, so other users of
  // the product (which follow it) can read the unreduced result.
  Operation *point = p.chain.back();
  llvm::SetVector<Operation *> toHoist;
  if (p.bias) {
    SmallPtrSet<Operation *, 8> replaced(p.tail.begin(), p.tail.end());
    replaced.insert(p.chain.begin(), p.chain.end());
    Operation *blocker = nullptr;
    HoistStatus status = planHoist(point, p.bias, replaced, toHoist, blocker);
    if (status != HoistStatus::Ok) {
      report.misses.push_back(describeHoistFailure(
          status, blocker, "the bias", "the matmul's product", "matmul"));
      return report;
    }
  }
  hoistAbove(rewriter, point, toHoist);

  Value product = p.product();
  bool returnUnreduced = !product.hasOneUse();
  SmallVector<Type> resultTypes;
  if (returnUnreduced)
    resultTypes.push_back(product.getType());
  resultTypes.push_back(rs.getType());
  SmallVector<Location> locs;
  for (Operation *op : llvm::concat<Operation *>(p.chain, p.tail))
    locs.push_back(op->getLoc());
  Location loc = rewriter.getFusedLoc(locs);
  UnitAttr unreducedAttr =
      returnUnreduced ? rewriter.getUnitAttr() : UnitAttr();
  rewriter.setInsertionPoint(point);
  p.a = fusedOperandA(rewriter, p);
  if (p.scaleElementwise)
    p.aScale = applyElementwiseTo(rewriter, p.scaleElementwise, p.aScale);
  Operation *fused;
  if (p.scaled) {
    fused = ScaledMatmulReduceScatterOp::create(
        rewriter, loc, resultTypes, p.a, p.aScale, p.aGlobal, p.b, p.bScale,
        p.bGlobal, p.bias, rs.getGridAttr(), rs.getGridAxesAttr(),
        rs.getDimAttr(), rs.getReduceAttr(),
        ScalingModeAttr::get(rewriter.getContext(), p.mode), unreducedAttr,
        /*algorithm=*/nullptr, /*chunks=*/nullptr,
        /*streams=*/nullptr);
  } else {
    fused = MatmulReduceScatterOp::create(
        rewriter, loc, resultTypes, p.a, p.b, p.bias, p.addend,
        rs.getGridAttr(), rs.getGridAxesAttr(), rs.getDimAttr(),
        rs.getReduceAttr(), p.transposeB ? rewriter.getUnitAttr() : UnitAttr(),
        unreducedAttr,
        /*algorithm=*/nullptr, /*chunks=*/nullptr,
        /*streams=*/nullptr);
  }

  rewriter.replaceAllUsesWith(p.tail.back()->getResult(0),
                              fused->getResults().back());
  for (Operation *op : llvm::reverse(p.tail))
    rewriter.eraseOp(op);
  if (returnUnreduced)
    rewriter.replaceAllUsesWith(product, fused->getResult(0));
  eraseMatmulChain(rewriter, p);
  report.fused = fused;
  return report;
}
