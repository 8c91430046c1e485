//===- RaiseContractions.cpp - linalg matmul-shaped contractions to tp ----===//
//
// linalg.matmul, linalg.batch_matmul and contraction linalg.generics are
// classified by their indexing maps alone (named ops expose theirs too):
//   A (m, k)      x B (k, n) | (n, k)     -> C (m, n)       tp.matmul
//   A (b, m, k)   x B (k, n) | (n, k)     -> C (b, m, n)    tp.batch_matmul
//   A (.., m, k)  x B (k, n) | (n, k)     -> C (.., m, n)   collapse, matmul,
//   expand A (b, m, k)   x B (b, k, n) | (b, n, k) -> C (b, m, n)
//   tp.batch_matmul
// Einsum-style contractions whose dims fall into groups (batch, rows,
// columns, contraction) that each operand reads contiguously and in one order,
// as multi-head projections [D, H, hd] are written, collapse every group to
// one dim, multiply, and expand the product back.
// A linalg contraction accumulates into its init; unless the init is zero
// (linalg.fill of 0 or tensor.empty), an arith.addf adds it after the product.
//
//===----------------------------------------------------------------------===//

#include "Reasons.h"
#include "tp/Conversion/ShardToTP/ShardToTP.h"
#include "tp/Dialect/TP/Utils/ReshapeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::tp;

namespace {

enum class ContractionKind { Matmul, BatchMatmul, Linear };

struct Contraction {
  ContractionKind kind;
  bool transposeB;
  /// A is [K, M] (a linalg.transpose before the matmul); with `flattenK`, A
  /// and B are [P, Q, M] and [P, Q, N], collapsed to [P * Q, ...] first.
  bool transposeA = false, flattenK = false;
};

} // namespace

/// The loop dims a projected-permutation map reads, in result order.
static SmallVector<unsigned> dimsOf(AffineMap map) {
  SmallVector<unsigned> dims;
  for (AffineExpr expr : map.getResults())
    dims.push_back(cast<AffineDimExpr>(expr).getPosition());
  return dims;
}

/// A contraction over A's leading dims into C (m, n): A (k, m) with B (k, n)
/// or (n, k), or A (p, q, m) with B (p, q, n).
static std::optional<Contraction>
classifyTransposedA(ArrayRef<AffineMap> maps, ArrayRef<unsigned> reductions) {
  SmallVector<unsigned> a = dimsOf(maps[0]), b = dimsOf(maps[1]),
                        c = dimsOf(maps[2]);
  if (c.size() != 2 || a.size() != reductions.size() + 1 ||
      a.back() != c[0])
    return std::nullopt;
  unsigned n = c[1];
  SmallVector<unsigned> leading(a.begin(), a.end() - 1);
  if (leading != SmallVector<unsigned>(reductions))
    return std::nullopt;
  if (reductions.size() == 1) {
    unsigned k = reductions.front();
    if (b == SmallVector<unsigned>{k, n})
      return Contraction{ContractionKind::Matmul, false, true, false};
    if (b == SmallVector<unsigned>{n, k})
      return Contraction{ContractionKind::Matmul, true, true, false};
    return std::nullopt;
  }
  SmallVector<unsigned> bK = leading;
  bK.push_back(n);
  if (reductions.size() == 2 && b == bK)
    return Contraction{ContractionKind::Matmul, false, true, true};
  return std::nullopt;
}

namespace {

/// A contraction whose loop dims form groups: batch (read by A, B and C),
/// rows M (A and C), columns N (B and C) and the contraction K (A and B).
/// Each operand reads its groups contiguously, in the same order within a
/// group, so collapsing every group gives a (batched) matmul.
struct GroupedContraction {
  SmallVector<ReassociationIndices> a, b, c;
  bool batched, transposeA, transposeB;
};

} // namespace

/// The positions in `operand` of the dims `group`, or nothing when they are
/// not `operand[at, at + group.size())` in that order.
static std::optional<ReassociationIndices>
takeGroup(ArrayRef<unsigned> operand, ArrayRef<unsigned> group, size_t &at) {
  if (group.empty() || at + group.size() > operand.size() ||
      operand.slice(at, group.size()) != group)
    return std::nullopt;
  ReassociationIndices positions;
  for (size_t i = 0; i < group.size(); ++i)
    positions.push_back(at + i);
  at += group.size();
  return positions;
}

static std::optional<GroupedContraction>
classifyGrouped(ArrayRef<AffineMap> maps, ArrayRef<unsigned> reductions) {
  SmallVector<unsigned> a = dimsOf(maps[0]), b = dimsOf(maps[1]),
                        c = dimsOf(maps[2]);
  auto in = [](ArrayRef<unsigned> dims, unsigned d) {
    return llvm::is_contained(dims, d);
  };
  // Groups in the order C (or, for K, A) reads them.
  SmallVector<unsigned> batch, rows, cols, contracted;
  for (unsigned d : c) {
    if (in(a, d) && in(b, d))
      batch.push_back(d);
    else if (in(a, d))
      rows.push_back(d);
    else if (in(b, d))
      cols.push_back(d);
    else
      return std::nullopt;
  }
  for (unsigned d : a)
    if (in(b, d) && !in(c, d))
      contracted.push_back(d);
  SmallVector<unsigned> sortedK(contracted), sortedR(reductions);
  llvm::sort(sortedK);
  llvm::sort(sortedR);
  if (rows.empty() || cols.empty() || contracted.empty() ||
      sortedK != sortedR ||
      a.size() != batch.size() + rows.size() + contracted.size() ||
      b.size() != batch.size() + cols.size() + contracted.size())
    return std::nullopt;

  GroupedContraction form;
  form.batched = !batch.empty();
  auto groups = [&](ArrayRef<unsigned> operand,
                    ArrayRef<ArrayRef<unsigned>> order)
      -> std::optional<SmallVector<ReassociationIndices>> {
    SmallVector<ReassociationIndices> result;
    size_t at = 0;
    for (ArrayRef<unsigned> group : order) {
      if (group.empty())
        continue;
      std::optional<ReassociationIndices> positions =
          takeGroup(operand, group, at);
      if (!positions)
        return std::nullopt;
      result.push_back(*positions);
    }
    return result;
  };
  std::optional<SmallVector<ReassociationIndices>> cGroups =
      groups(c, {batch, rows, cols});
  if (!cGroups)
    return std::nullopt;
  form.c = *cGroups;
  form.transposeA = false;
  if (auto aGroups = groups(a, {batch, rows, contracted})) {
    form.a = *aGroups;
  } else if (auto aT = groups(a, {contracted, rows}); aT && batch.empty()) {
    form.a = *aT;
    form.transposeA = true;
  } else {
    return std::nullopt;
  }
  form.transposeB = false;
  if (auto bGroups = groups(b, {batch, contracted, cols})) {
    form.b = *bGroups;
  } else if (auto bT = groups(b, {batch, cols, contracted})) {
    form.b = *bT;
    form.transposeB = true;
  } else {
    return std::nullopt;
  }
  return form;
}

/// Checks the operand and element types every raised contraction needs.
static LogicalResult checkOperands(linalg::LinalgOp op, std::string &why) {
  if (!op.hasPureTensorSemantics()) {
    why = "it works on buffers, not tensors";
    return failure();
  }
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1) {
    why = "it does not have two inputs and one init";
    return failure();
  }
  Type element = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  for (OpOperand &operand : op->getOpOperands())
    if (getElementTypeOrSelf(operand.get().getType()) != element) {
      why = "it mixes element types";
      return failure();
    }
  if (!isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(element)) {
    why = "its element type is not f16, bf16, f32 or f64";
    return failure();
  }
  if (!llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isProjectedPermutation(); })) {
    why = "its indexing maps are not projected permutations";
    return failure();
  }
  return success();
}

static FailureOr<Contraction> classify(linalg::LinalgOp op, std::string &why) {
  if (failed(checkOperands(op, why)))
    return failure();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  if (std::optional<Contraction> wgrad = classifyTransposedA(maps, reductions))
    return *wgrad;
  if (reductions.size() != 1) {
    why = "it contracts over " + std::to_string(reductions.size()) +
          " dims, not one";
    return failure();
  }
  unsigned k = reductions.front();
  SmallVector<unsigned> a = dimsOf(maps[0]), b = dimsOf(maps[1]),
                        c = dimsOf(maps[2]);
  if (!llvm::is_sorted(c) || c.empty()) {
    why = "it writes a transposed result";
    return failure();
  }
  if (a.size() < 2) {
    why = "its A has no row dim (a vector-matrix product)";
    return failure();
  }
  if (a.back() != k) {
    why = "its A is transposed (K is not A's last dim)";
    return failure();
  }
  unsigned n = c.back();
  SmallVector<unsigned> rows(c.begin(), c.end() - 1);
  SmallVector<unsigned> aRows(a.begin(), a.end() - 1);
  auto notMatmul = [&] {
    why = "its indexing maps are not a (batched) matmul";
    return failure();
  };
  if (aRows != rows)
    return notMatmul();
  if (b.size() == 2) {
    bool transposeB = b == SmallVector<unsigned>{n, k};
    if (!transposeB && b != SmallVector<unsigned>{k, n})
      return notMatmul();
    ContractionKind kind = a.size() == 2   ? ContractionKind::Matmul
                           : a.size() == 3 ? ContractionKind::BatchMatmul
                                           : ContractionKind::Linear;
    return Contraction{kind, transposeB};
  }
  if (b.size() == 3 && a.size() == 3 && b[0] == a[0]) {
    bool transposeB = b == SmallVector<unsigned>{a[0], n, k};
    if (!transposeB && b != SmallVector<unsigned>{a[0], k, n})
      return notMatmul();
    return Contraction{ContractionKind::BatchMatmul, transposeB};
  }
  return notMatmul();
}

/// The grouped form of `op`, for a contraction none of the forms above take.
static std::optional<GroupedContraction> classifyGrouped(linalg::LinalgOp op) {
  std::string ignored;
  if (failed(checkOperands(op, ignored)))
    return std::nullopt;
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  return classifyGrouped(op.getIndexingMapsArray(), reductions);
}

std::optional<std::string> import::whyContractionNotRaised(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalg::isaContractionOpInterface(linalgOp))
    return std::nullopt;
  std::string why;
  if (failed(classify(linalgOp, why)) && !classifyGrouped(linalgOp))
    return why;
  return std::nullopt;
}

/// `matrix` [R, C] as [C, R], through a linalg.transpose.
static Value transposeMatrix(OpBuilder &builder, Location loc, Value matrix) {
  auto type = cast<RankedTensorType>(matrix.getType());
  SmallVector<OpFoldResult> sizes = {
      tensor::getMixedSize(builder, loc, matrix, 1),
      tensor::getMixedSize(builder, loc, matrix, 0)};
  Value init =
      tensor::EmptyOp::create(builder, loc, sizes, type.getElementType());
  return linalg::TransposeOp::create(builder, loc, matrix, init,
                                     ArrayRef<int64_t>{1, 0})
      ->getResult(0);
}

/// `op` as one (batched) matmul of its operands with every dim group
/// collapsed, expanded back to `op`'s result shape.
static Value multiplyGrouped(OpBuilder &builder, linalg::LinalgOp op,
                             const GroupedContraction &form) {
  Location loc = op.getLoc();
  auto collapse = [&](Value value,
                      ArrayRef<ReassociationIndices> groups) -> Value {
    if (static_cast<int64_t>(groups.size()) ==
        cast<RankedTensorType>(value.getType()).getRank())
      return value;
    return tensor::CollapseShapeOp::create(builder, loc, value, groups);
  };
  Value a = collapse(op.getDpsInputs()[0], form.a);
  Value b = collapse(op.getDpsInputs()[1], form.b);
  if (form.transposeA)
    a = transposeMatrix(builder, loc, a);
  UnitAttr transposeB = form.transposeB ? builder.getUnitAttr() : UnitAttr();
  Value product =
      form.batched
          ? Value(BatchMatmulOp::create(builder, loc, a, b, transposeB))
          : Value(MatmulOp::create(builder, loc, a, b, transposeB));
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  if (static_cast<int64_t>(form.c.size()) == resultType.getRank())
    return product.getType() == resultType
               ? product
               : tensor::CastOp::create(builder, loc, resultType, product)
                     .getResult();
  Value init = op.getDpsInits()[0];
  return tensor::ExpandShapeOp::create(
      builder, loc, resultType, product, form.c,
      tensor::getMixedSizes(builder, loc, init));
}

/// Whether a contraction's init holds zeros (or nothing defined).
static bool isZeroInit(Value init) {
  if (init.getDefiningOp<tensor::EmptyOp>())
    return true;
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (!fill)
    return false;
  Value value = fill.getInputs()[0];
  return matchPattern(value, m_AnyZeroFloat()) || matchPattern(value, m_Zero());
}

namespace {

struct RaiseContraction : OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!linalg::isaContractionOpInterface(op))
      return rewriter.notifyMatchFailure(op, "not a contraction");
    std::string why;
    FailureOr<Contraction> form = classify(op, why);
    Location loc = op.getLoc();
    Value init = op.getDpsInits()[0];
    if (failed(form)) {
      std::optional<GroupedContraction> grouped = classifyGrouped(op);
      if (!grouped)
        return rewriter.notifyMatchFailure(op, why);
      Value product = multiplyGrouped(rewriter, op, *grouped);
      if (!isZeroInit(init))
        product = arith::AddFOp::create(rewriter, loc, product, init);
      rewriter.replaceOp(op, product);
      return success();
    }

    Value a = op.getDpsInputs()[0], b = op.getDpsInputs()[1];
    UnitAttr transposeB =
        form->transposeB ? rewriter.getUnitAttr() : UnitAttr();
    Value product;
    if (form->flattenK) {
      a = collapseLeadingDims(rewriter, loc, a);
      b = collapseLeadingDims(rewriter, loc, b);
    }
    if (form->transposeA)
      a = transposeMatrix(rewriter, loc, a);
    switch (form->kind) {
    case ContractionKind::Matmul:
      product = MatmulOp::create(rewriter, loc, a, b, transposeB);
      break;
    case ContractionKind::BatchMatmul:
      product = BatchMatmulOp::create(rewriter, loc, a, b, transposeB);
      break;
    case ContractionKind::Linear: {
      Value matrix = collapseLeadingDims(rewriter, loc, a);
      Value flat = MatmulOp::create(rewriter, loc, matrix, b, transposeB);
      product = expandLeadingDims(rewriter, loc, flat, a);
      break;
    }
    }
    Type resultType = op->getResult(0).getType();
    if (product.getType() != resultType)
      product = tensor::CastOp::create(rewriter, loc, resultType, product);
    if (!isZeroInit(init))
      product = arith::AddFOp::create(rewriter, loc, product, init);
    rewriter.replaceOp(op, product);
    return success();
  }
};

} // namespace

void mlir::tp::populateLinalgToTPPatterns(RewritePatternSet &patterns) {
  patterns.add<RaiseContraction>(patterns.getContext());
}
