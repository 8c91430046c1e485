//===- FuseAllGatherContract.cpp - weight-gradient gathers ----------------===//
//
// In a sequence-parallel backward pass the gathered activation (or gradient)
// is contracted over the gathered dim: dW = dY^T . X_gathered. Autograd
// writes that as
//   tp.matmul(dY^T, g)                       the gathered value as B
//   tp.matmul(transpose(g), dY)              ... as a transposed A
//   tp.matmul(dY^T, g) transpose_b           B given as [N, K]
// with g optionally a leading-dims collapse of a 3-D [batch, seq, hidden]
// gather (along dim 0 or 1), and the other side transposed by a
// linalg.transpose. Each such use becomes a product of one
// tp.all_gather_contract, which accumulates every arriving shard's share.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "tp/Dialect/TP/Utils/ReshapeUtils.h"

using namespace mlir;
using namespace mlir::tp;

namespace {

/// A matmul that contracts the gathered value over the gathered dim.
struct ContractUse {
  /// The op that reads the gathered value (or its collapse).
  Operation *user = nullptr;
  tensor::CollapseShapeOp collapse;
  linalg::TransposeOp xTranspose, otherTranspose;
  MatmulOp matmul;
  Value other;
  bool gatheredLhs = false, transposeA = false, transposeB = false;

  auto layout() const {
    return std::make_tuple(gatheredLhs, transposeA, transposeB);
  }
};

enum class Match { NotACandidate, Missed, Matched };

} // namespace

/// A 2-D linalg.transpose on tensors whose users are all tp.matmuls (CSE
/// leaves one transpose for the weight gradients that share an operand).
static linalg::TransposeOp matrixTransposeIntoMatmuls(Operation *op) {
  auto transpose = dyn_cast_or_null<linalg::TransposeOp>(op);
  if (!transpose || !transpose.hasPureTensorSemantics() ||
      transpose.getPermutation() != ArrayRef<int64_t>{1, 0})
    return {};
  Value result = transpose->getResult(0);
  if (result.use_empty() ||
      !llvm::all_of(result.getUsers(),
                    [](Operation *user) { return isa<MatmulOp>(user); }))
    return {};
  return transpose;
}

/// Calls `read` with each operand of a matmul through which `use` reads the
/// gathered value: `use` itself, or each use of a transpose of it that
/// feeds matmuls only.
static void forEachMatmulRead(OpOperand &use,
                              function_ref<void(OpOperand &)> read) {
  if (linalg::TransposeOp transpose =
          matrixTransposeIntoMatmuls(use.getOwner())) {
    for (OpOperand &transposed : transpose->getResult(0).getUses())
      read(transposed);
    return;
  }
  read(use);
}

/// Whether `matmulUse`, reached from `use` (see forEachMatmulRead),
/// contracts the gathered value over the gathered dim.
static Match matchContractUse(AllGatherOp ag, OpOperand &use,
                              OpOperand &matmulUse,
                              tensor::CollapseShapeOp collapse, ContractUse &c,
                              std::string &why) {
  c.user = use.getOwner();
  c.collapse = collapse;
  if (&matmulUse != &use)
    c.xTranspose = cast<linalg::TransposeOp>(c.user);
  c.matmul = dyn_cast<MatmulOp>(matmulUse.getOwner());
  if (!c.matmul)
    return Match::NotACandidate;
  c.gatheredLhs = matmulUse.getOperandNumber() == 0;
  // The gathered value as A, untransposed, is all_gather_matmul's form.
  if (c.gatheredLhs && !c.xTranspose)
    return Match::NotACandidate;

  auto gathered = ag.getType();
  if (gathered.getRank() != (collapse ? 3 : 2)) {
    why = "the gathered value is contracted as a " +
          std::to_string(gathered.getRank()) +
          "-D tensor; weight-gradient fusion takes 2-D values and 3-D ones "
          "collapsed to 2-D over their leading dims";
    return Match::Missed;
  }
  // Each side's transpose flag, with a linalg.transpose folded in.
  Value other = c.matmul->getOperand(c.gatheredLhs ? 1 : 0);
  if ((c.otherTranspose = matrixTransposeIntoMatmuls(other.getDefiningOp())))
    other = c.otherTranspose.getInput();
  c.other = other;
  if (other == ag.getResult() || (collapse && other == collapse.getResult())) {
    why = "the matmul reads the gathered value on both sides";
    return Match::Missed;
  }
  bool lhsTransposed = c.gatheredLhs ? bool(c.xTranspose)
                                     : bool(c.otherTranspose);
  bool rhsTransposed = c.gatheredLhs ? bool(c.otherTranspose)
                                     : bool(c.xTranspose);
  c.transposeA = lhsTransposed;
  c.transposeB = c.matmul.getTransposeB() != rhsTransposed;

  bool xKLeading = c.gatheredLhs ? c.transposeA : !c.transposeB;
  int64_t dim = ag.getDim();
  int64_t rank = gathered.getRank();
  // A collapsed 3-D value whose K trails contracts over its last dim alone.
  if (!xKLeading && rank == 3 && dim == rank - 1) {
    why = "the collapsed 3-D gathered value is contracted over its last dim "
          "(K trails); weight-gradient fusion takes 3-D values whose leading "
          "dims are K";
    return Match::Missed;
  }
  bool contracted = xKLeading ? dim < rank - 1 : rank == 2 && dim == 1;
  if (!contracted) {
    why = std::string("the all-gather is along the free (") +
          (c.gatheredLhs ? "M" : "N") + ") dim of the matmul's " +
          (c.gatheredLhs ? "transposed A" : "B") +
          ", not its contraction dim; only a gather of the contraction dim "
          "(a weight gradient) or of A's rows is fused";
    return Match::Missed;
  }
  Type element = gathered.getElementType();
  if (getElementTypeOrSelf(c.other.getType()) != element ||
      c.matmul.getType().getElementType() != element) {
    why = "the matmul mixes element types";
    return Match::Missed;
  }
  if (c.matmul->getBlock() != ag->getBlock()) {
    why = "the matmul is in a different block than the all-gather";
    return Match::Missed;
  }
  return Match::Matched;
}

/// Where the fused op can go: at the all-gather (moving the other operands'
/// producers above it), or at the first matmul when every other use of the
/// gathered value comes later. Sets `point` and `toHoist`.
static LogicalResult placeFusedOp(AllGatherOp ag, ArrayRef<ContractUse> group,
                                  ArrayRef<Operation *> keptUsers,
                                  Operation *&point,
                                  llvm::SetVector<Operation *> &toHoist,
                                  std::string &why) {
  SmallPtrSet<Operation *, 4> replaced = {ag.getOperation()};
  auto plan = [&](Operation *at, llvm::SetVector<Operation *> &moves,
                  std::string *reason) {
    for (const ContractUse &c : group) {
      Operation *blocker = nullptr;
      HoistStatus status = planHoist(at, c.other, replaced, moves, blocker);
      if (status == HoistStatus::Ok)
        continue;
      if (reason)
        *reason = describeHoistFailure(status, blocker, "the other operand",
                                       "the gathered value", "all-gather");
      return false;
    }
    return true;
  };
  llvm::SetVector<Operation *> atGather, atMatmul;
  bool gatherOk = plan(ag, atGather, &why);
  if (gatherOk && atGather.empty()) {
    point = ag;
    return success();
  }
  // The first matmul, if every use of the gathered value kept by the fused op
  // comes after it.
  Operation *first = group.front().matmul;
  Block *block = ag->getBlock();
  bool keptLater = llvm::all_of(keptUsers, [&](Operation *user) {
    Operation *ancestor = block->findAncestorOpInBlock(*user);
    return ancestor && first->isBeforeInBlock(ancestor);
  });
  if (keptLater && plan(first, atMatmul, nullptr)) {
    point = first;
    toHoist = std::move(atMatmul);
    return success();
  }
  if (!gatherOk)
    return failure();
  point = ag;
  toHoist = std::move(atGather);
  return success();
}

ContractFusion mlir::tp::fuseAllGatherContract(RewriterBase &rewriter,
                                               AllGatherOp ag) {
  ContractFusion result;
  SmallVector<ContractUse> candidates;
  auto tryUse = [&](OpOperand &use, tensor::CollapseShapeOp collapse) {
    forEachMatmulRead(use, [&](OpOperand &matmulUse) {
      ContractUse c;
      std::string why;
      switch (matchContractUse(ag, use, matmulUse, collapse, c, why)) {
      case Match::NotACandidate:
        return;
      case Match::Missed:
        result.whyNot[use.getOwner()] = why;
        return;
      case Match::Matched:
        candidates.push_back(c);
      }
    });
  };
  for (OpOperand &use : ag->getUses()) {
    auto collapse = dyn_cast<tensor::CollapseShapeOp>(use.getOwner());
    if (collapse && isLeadingDimsCollapse(collapse) &&
        collapse.getResultType().getRank() == 2) {
      for (OpOperand &inner : collapse->getUses())
        tryUse(inner, collapse);
      continue;
    }
    tryUse(use, nullptr);
  }
  if (candidates.empty())
    return result;

  // One fused op takes the consumers that share the most common layout.
  llvm::sort(candidates, [](const ContractUse &x, const ContractUse &y) {
    return x.matmul->isBeforeInBlock(y.matmul);
  });
  auto sameLayout = [](const ContractUse &x, const ContractUse &y) {
    return x.layout() == y.layout();
  };
  const ContractUse *lead = &candidates.front();
  size_t leadCount = 0;
  for (const ContractUse &c : candidates) {
    size_t count = llvm::count_if(
        candidates, [&](const ContractUse &o) { return sameLayout(c, o); });
    if (count > leadCount)
      lead = &c, leadCount = count;
  }
  SmallVector<ContractUse> group;
  for (const ContractUse &c : candidates) {
    if (sameLayout(*lead, c))
      group.push_back(c);
    else
      result.whyNot[c.user] = "its operand layout (which side is gathered, "
                              "which is transposed) differs from the fused "
                              "consumers'";
  }

  // Uses the fused op does not absorb keep reading the gathered value; a
  // shared transpose is absorbed when all the matmuls it feeds are.
  llvm::DenseMap<Operation *, unsigned> readsInGroup;
  for (const ContractUse &c : group)
    ++readsInGroup[c.user];
  SmallPtrSet<Operation *, 8> absorbed;
  for (auto [user, reads] : readsInGroup) {
    auto transpose = dyn_cast<linalg::TransposeOp>(user);
    if (!transpose || reads == static_cast<unsigned>(llvm::range_size(
                                   transpose->getResult(0).getUses())))
      absorbed.insert(user);
  }
  SmallVector<Operation *> keptUsers;
  for (Operation *user : ag->getUsers()) {
    bool viaAbsorbedCollapse =
        isa<tensor::CollapseShapeOp>(user) &&
        llvm::all_of(user->getUsers(),
                     [&](Operation *u) { return absorbed.contains(u); });
    if (!absorbed.contains(user) && !viaAbsorbedCollapse)
      keptUsers.push_back(user);
  }
  Operation *point = nullptr;
  llvm::SetVector<Operation *> toHoist;
  std::string why;
  if (failed(placeFusedOp(ag, group, keptUsers, point, toHoist, why))) {
    for (const ContractUse &c : group)
      result.whyNot[c.user] = why;
    return result;
  }
  hoistAbove(rewriter, point, toHoist);

  bool returnGathered = !keptUsers.empty();
  SmallVector<Type> resultTypes;
  if (returnGathered)
    resultTypes.push_back(ag.getType());
  SmallVector<Value> others;
  SmallVector<Location> locs = {ag.getLoc()};
  for (ContractUse &c : group) {
    resultTypes.push_back(c.matmul.getType());
    others.push_back(c.other);
    locs.push_back(c.matmul.getLoc());
  }
  rewriter.setInsertionPoint(point);
  auto unit = [&](bool set) { return set ? rewriter.getUnitAttr() : UnitAttr(); };
  auto fused = AllGatherContractOp::create(
      rewriter, rewriter.getFusedLoc(locs), resultTypes, ag.getInput(), others,
      ag.getGridAttr(), ag.getGridAxesAttr(), ag.getDimAttr(),
      unit(lead->gatheredLhs), unit(lead->transposeA), unit(lead->transposeB),
      unit(returnGathered), /*algorithm=*/nullptr, /*chunks=*/nullptr,
      /*streams=*/nullptr);

  for (auto [c, product] : llvm::zip_equal(group, fused.getProducts())) {
    rewriter.replaceAllUsesWith(c.matmul.getResult(), product);
    rewriter.eraseOp(c.matmul);
    for (Operation *op : {c.xTranspose.getOperation(),
                          c.otherTranspose.getOperation()})
      if (op && op->use_empty())
        rewriter.eraseOp(op);
  }
  // Consumers may share one collapse of the gathered value.
  llvm::SetVector<Operation *> collapses;
  for (const ContractUse &c : group)
    if (c.collapse)
      collapses.insert(c.collapse);
  for (Operation *collapse : collapses)
    if (collapse->use_empty())
      rewriter.eraseOp(collapse);
  if (returnGathered)
    rewriter.replaceAllUsesWith(ag.getResult(), fused.getGathered());
  rewriter.eraseOp(ag);
  for (Operation *user : absorbed)
    result.whyNot.erase(user);
  result.absorbed.insert(absorbed.begin(), absorbed.end());
  result.fused = fused;
  return result;
}

/// Calls `matched` for each use of `ag` (or of a leading-dims collapse of
/// it) that contracts the gathered value over the gathered dim.
static void forEachContraction(
    AllGatherOp ag, function_ref<void(OpOperand &, const ContractUse &)> matched) {
  auto tryUse = [&](OpOperand &use, OpOperand &inner,
                    tensor::CollapseShapeOp collapse) {
    forEachMatmulRead(inner, [&](OpOperand &matmulUse) {
      ContractUse c;
      std::string why;
      if (matchContractUse(ag, inner, matmulUse, collapse, c, why) ==
          Match::Matched)
        matched(use, c);
    });
  };
  for (OpOperand &use : ag->getUses()) {
    auto collapse = dyn_cast<tensor::CollapseShapeOp>(use.getOwner());
    if (!collapse) {
      tryUse(use, use, nullptr);
      continue;
    }
    if (isLeadingDimsCollapse(collapse) &&
        collapse.getResultType().getRank() == 2)
      for (OpOperand &inner : collapse->getUses())
        tryUse(use, inner, collapse);
  }
}

bool mlir::tp::isContractionOfGather(AllGatherOp ag, OpOperand &use) {
  bool found = false;
  forEachContraction(ag, [&](OpOperand &matched, const ContractUse &) {
    found |= &matched == &use;
  });
  return found;
}

SmallVector<MatmulOp> mlir::tp::contractionsOfGather(AllGatherOp ag) {
  SmallVector<MatmulOp> matmuls;
  forEachContraction(ag, [&](OpOperand &, const ContractUse &c) {
    matmuls.push_back(c.matmul);
  });
  return matmuls;
}
