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

#include "FusionUtils.h"
#include "tp/Dialect/TP/Utils/ReshapeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::tp;

namespace {

/// The ops that compute the reduce-scatter's input, and what the fused op
/// takes over from them.
struct Producer {
  Value a, b, addend, bias;
  bool transposeB = false;
  bool scaled = false;
  ScalingMode mode = ScalingMode::PerTensor;
  Value aScale, aGlobal, bScale, bGlobal;
  /// The reshapes of A (and of A's scale) to 2-D, erased once unused.
  tensor::CollapseShapeOp collapse, scaleCollapse;
  /// An element-wise op (a reciprocal, a product with a constant) applied to
  /// A's reshaped scale: the fused op takes it applied to the scale before
  /// the reshape instead.
  Operation *scaleElementwise = nullptr;
  /// The reshape of a 2-D product to the leading dims, when A is 2-D itself
  /// (no collapse): the fused op takes A reshaped the same way.
  tensor::ExpandShapeOp expandA;
  /// matmul [, expand] [, addf], in program order; the last one's result is
  /// the reduce-scatter's input.
  SmallVector<Operation *> chain;
  /// The reduce-scatter, or the bias add after it whose result the fused op
  /// replaces.
  SmallVector<Operation *> tail;

  Value product() const { return chain.back()->getResult(0); }
};

} // namespace

/// The reshape to 2-D that A's row-wise or block scale `scale` is, or that it
/// is computed from by one element-wise op (`elementwise`, e.g.
/// 1 / reshape(s)), which commutes with the reshape.
static tensor::CollapseShapeOp scaleReshape(Value scale,
                                            Operation *&elementwise) {
  if (auto collapse = scale.getDefiningOp<tensor::CollapseShapeOp>()) {
    elementwise = nullptr;
    return collapse;
  }
  Value operand = elementwiseOperand(scale, elementwise);
  auto collapse =
      operand ? operand.getDefiningOp<tensor::CollapseShapeOp>() : nullptr;
  if (!collapse)
    elementwise = nullptr;
  return collapse;
}

/// The matmul itself, whose result `product` is. With F.linear's reshapes, A
/// is the collapse's source (the collapse feeds the matmul's first operand by
/// construction).
static LogicalResult matchMatmul(Value product, Producer &p, std::string &why) {
  Operation *def = product.getDefiningOp();
  bool collapsed = static_cast<bool>(p.collapse);
  auto takeA = [&](Value lhs) -> LogicalResult {
    if (!collapsed)
      p.a = lhs;
    return success();
  };
  if (auto mm = dyn_cast<MatmulOp>(def)) {
    p.b = mm.getRhs();
    p.transposeB = mm.getTransposeB();
    return takeA(mm.getLhs());
  }
  if (auto bmm = dyn_cast<BatchMatmulOp>(def)) {
    if (bmm.getRhs().getType().getRank() != 2) {
      why = "the batched matmul has a per-batch B, not one weight broadcast "
            "over the batch";
      return failure();
    }
    p.b = bmm.getRhs();
    p.transposeB = bmm.getTransposeB();
    return takeA(bmm.getLhs());
  }
  if (auto smm = dyn_cast<ScaledMatmulOp>(def)) {
    if (smm.getBias()) {
      why = "the scaled matmul adds its bias before the reduce-scatter, so "
            "the bias is summed over the group";
      return failure();
    }
    p.scaled = true;
    p.mode = smm.getMode();
    p.b = smm.getB();
    p.bScale = smm.getBScale();
    p.bGlobal = smm.getBGlobalScale();
    p.aGlobal = smm.getAGlobalScale();
    p.aScale = smm.getAScale();
    if (collapsed && p.mode != ScalingMode::PerTensor) {
      tensor::CollapseShapeOp scaleCollapse =
          scaleReshape(p.aScale, p.scaleElementwise);
      if (!scaleCollapse || !isLeadingDimsCollapse(scaleCollapse)) {
        why = "A's scale is not reshaped along with A";
        return failure();
      }
      p.aScale = scaleCollapse.getSrc();
      p.scaleCollapse = scaleCollapse;
    }
    return takeA(smm.getA());
  }
  if (isa<AllGatherMatmulOp, AllGatherScaledMatmulOp>(def)) {
    // The gathered operand (and scale) come first, the products after.
    auto products = isa<AllGatherMatmulOp>(def)
                        ? cast<AllGatherMatmulOp>(def).getProducts()
                        : cast<AllGatherScaledMatmulOp>(def).getProducts();
    why = llvm::is_contained(products, product)
              ? "the matmul producing it is already fused with an all-gather"
              : "it reads the gathered operand that a fused all-gather-matmul "
                "returns, not a matmul product";
    return failure();
  }
  if (isa<BiasAddOp>(def)) {
    why = "a bias_add sits between the matmul and the reduce-scatter, so the "
          "bias is summed over the group";
    return failure();
  }
  why = describeInterloper(def, "reduce-scatter");
  return failure();
}

static FailureOr<Producer> matchProducer(ReduceScatterOp rs, std::string &why) {
  Producer p;
  Value v = rs.getInput();
  Operation *def = v.getDefiningOp();
  if (!def) {
    why = "its input is a block argument, not a matmul result";
    return failure();
  }
  if (def->getBlock() != rs->getBlock()) {
    why = "the matmul is in a different block than the reduce-scatter";
    return failure();
  }
  SmallVector<Operation *> reversedChain;
  // The value the matmul must produce, followed back through the chain.
  Value product = v;
  // A GEMM's C operand, added on every rank before the reduction.
  if (auto add = dyn_cast<arith::AddFOp>(def)) {
    for (unsigned i = 0; i < 2 && !p.addend; ++i) {
      Operation *side = add->getOperand(i).getDefiningOp();
      if (side && isa<MatmulOp, BatchMatmulOp, tensor::ExpandShapeOp>(side) &&
          side->getBlock() == add->getBlock() && side->hasOneUse()) {
        p.addend = add->getOperand(1 - i);
        reversedChain.push_back(add);
        product = add->getOperand(i);
        def = side;
      }
    }
    if (!p.addend) {
      why = describeInterloper(add, "reduce-scatter");
      return failure();
    }
  }
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(def)) {
    auto matmul = expand.getSrc().getDefiningOp();
    auto collapse =
        matmul && matmul->getNumOperands() > 0
            ? matmul->getOperand(0).getDefiningOp<tensor::CollapseShapeOp>()
            : tensor::CollapseShapeOp();
    // F.linear's collapse-matmul-expand, or a 2-D matmul whose product is
    // split back into leading dims (glue ran on the 2-D activation): then A
    // is split the same way.
    bool linear = collapse && isLeadingDimsCollapse(collapse) &&
                  restoresLeadingDims(expand, collapse);
    bool matrix = !collapse && isa_and_nonnull<MatmulOp>(matmul) &&
                  cast<MatmulOp>(matmul).getLhs().getType().getRank() == 2;
    if (!collapse && isa_and_nonnull<ScaledMatmulOp>(matmul) &&
        isLeadingDimsExpand(expand)) {
      why = "the 2-D product of a scaled matmul is split into leading dims "
            "before the reduce-scatter, and A's scales are not split to "
            "match it (a tp.matmul's are): reshape A before the scaled "
            "matmul instead (collapse, scaled matmul, expand fuses)";
      return failure();
    }
    if (!isLeadingDimsExpand(expand) || !(linear || matrix)) {
      why = describeInterloper(expand, "reduce-scatter");
      return failure();
    }
    if (!matmul->hasOneUse()) {
      why = "the matmul's 2-D product has users besides the reshape back";
      return failure();
    }
    reversedChain.push_back(expand);
    if (linear) {
      p.collapse = collapse;
      p.a = collapse.getSrc();
    } else {
      p.expandA = expand;
    }
    product = expand.getSrc();
    def = matmul;
  }
  if (failed(matchMatmul(product, p, why)))
    return failure();
  if (p.scaled && p.addend) {
    why = "an addend sits between the scaled matmul and the reduce-scatter";
    return failure();
  }
  reversedChain.push_back(def);
  p.chain.assign(reversedChain.rbegin(), reversedChain.rend());

  p.tail.push_back(rs);
  int64_t last = rs.getType().getRank() - 1;
  if (rs->hasOneUse() && static_cast<int64_t>(rs.getDim()) != last) {
    auto add = dyn_cast<BiasAddOp>(*rs->user_begin());
    if (add && add.getInput() == rs.getResult() &&
        add->getBlock() == rs->getBlock()) {
      p.bias = add.getBias();
      p.tail.push_back(add);
    }
  }
  return p;
}

FusionReport tp::fuseReduceScatter(RewriterBase &rewriter, ReduceScatterOp rs,
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
  FailureOr<Producer> match = matchProducer(rs, why);
  if (failed(match)) {
    report.misses.push_back(why);
    return report;
  }
  Producer &p = *match;

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
  if (p.expandA) {
    // A [M, K] split like the product: [d0, ..., K].
    auto aType = cast<RankedTensorType>(p.a.getType());
    SmallVector<int64_t> shape(p.expandA.getResultType().getShape());
    shape.back() = aType.getDimSize(1);
    SmallVector<OpFoldResult> sizes = p.expandA.getMixedOutputShape();
    sizes.back() = aType.isDynamicDim(1)
                       ? OpFoldResult(tensor::DimOp::create(
                             rewriter, p.expandA.getLoc(), p.a, 1))
                       : OpFoldResult(rewriter.getIndexAttr(shape.back()));
    p.a = tensor::ExpandShapeOp::create(
        rewriter, p.expandA.getLoc(), aType.clone(shape), p.a,
        p.expandA.getReassociationIndices(), sizes);
  }
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
  for (Operation *op : llvm::reverse(p.chain))
    rewriter.eraseOp(op);
  if (p.scaleElementwise && p.scaleElementwise->use_empty())
    rewriter.eraseOp(p.scaleElementwise);
  for (tensor::CollapseShapeOp collapse : {p.collapse, p.scaleCollapse})
    if (collapse && collapse->use_empty())
      rewriter.eraseOp(collapse);
  report.fused = fused;
  return report;
}
