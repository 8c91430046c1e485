//===- MatmulProducer.cpp - the matmul computing a collective's input ----===//

#include "MatmulProducer.h"
#include "tp/Dialect/TP/Utils/ReshapeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::detail;

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
static LogicalResult matchMatmul(Value product, StringRef what, bool perBatchB,
                                 MatmulProducer &p, std::string &why) {
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
    if (bmm.getRhs().getType().getRank() != 2 && !perBatchB) {
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
      why =
          ("the scaled matmul adds its bias before the " + what +
           (what == "reduce-scatter" ? ", so the bias is summed over the group"
                                     : ""))
              .str();
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
  if (isa<MatmulAllToAllOp, MatmulReduceScatterOp, ScaledMatmulReduceScatterOp,
          AllToAllMatmulOp>(def)) {
    why = "the matmul producing it is already fused with another collective "
          "(" +
          quoteName(def) + " returns its product)";
    return failure();
  }
  if (isa<BiasAddOp>(def)) {
    why = ("a bias_add sits between the matmul and the " + what +
           (what == "reduce-scatter" ? ", so the bias is summed over the group"
                                     : ""))
              .str();
    return failure();
  }
  why = describeInterloper(def, what, /*readsProduct=*/true);
  return failure();
}

FailureOr<MatmulProducer>
mlir::tp::detail::matchMatmulProducer(Value input, Operation *collective,
                                      StringRef what, bool perBatchB,
                                      std::string &why) {
  MatmulProducer p;
  Value v = input;
  Operation *def = v.getDefiningOp();
  if (!def) {
    why = "its input is a block argument, not a matmul result";
    return failure();
  }
  if (def->getBlock() != collective->getBlock()) {
    why = ("the matmul is in a different block than the " + what).str();
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
      why = describeInterloper(add, what, /*readsProduct=*/true);
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
      why = ("the 2-D product of a scaled matmul is split into leading dims "
             "before the " +
             what +
             ", and A's scales are not split to match it (a tp.matmul's "
             "are): reshape A before the scaled matmul instead (collapse, "
             "scaled matmul, expand fuses)")
                .str();
      return failure();
    }
    if (!isLeadingDimsExpand(expand) || !(linear || matrix)) {
      why = describeInterloper(expand, what, /*readsProduct=*/true);
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
  if (failed(matchMatmul(product, what, perBatchB, p, why)))
    return failure();
  if (p.scaled && p.addend) {
    why = ("an addend sits between the scaled matmul and the " + what).str();
    return failure();
  }
  reversedChain.push_back(def);
  p.chain.assign(reversedChain.rbegin(), reversedChain.rend());

  return p;
}

Value mlir::tp::detail::fusedOperandA(RewriterBase &rewriter,
                                      MatmulProducer &p) {
  if (!p.expandA)
    return p.a;
  // A [M, K] split like the product: [d0, ..., K].
  auto aType = cast<RankedTensorType>(p.a.getType());
  SmallVector<int64_t> shape(p.expandA.getResultType().getShape());
  shape.back() = aType.getDimSize(1);
  SmallVector<OpFoldResult> sizes = p.expandA.getMixedOutputShape();
  sizes.back() = aType.isDynamicDim(1)
                     ? OpFoldResult(tensor::DimOp::create(
                           rewriter, p.expandA.getLoc(), p.a, 1))
                     : OpFoldResult(rewriter.getIndexAttr(shape.back()));
  return tensor::ExpandShapeOp::create(
      rewriter, p.expandA.getLoc(), aType.clone(shape), p.a,
      p.expandA.getReassociationIndices(), sizes);
}

void mlir::tp::detail::eraseMatmulChain(RewriterBase &rewriter,
                                        MatmulProducer &p) {
  for (Operation *op : llvm::reverse(p.chain))
    rewriter.eraseOp(op);
  if (p.scaleElementwise && p.scaleElementwise->use_empty())
    rewriter.eraseOp(p.scaleElementwise);
  for (tensor::CollapseShapeOp collapse : {p.collapse, p.scaleCollapse})
    if (collapse && collapse->use_empty())
      rewriter.eraseOp(collapse);
}
