//===- LowPrecisionGathers.cpp - gather narrow data, dequantize after -----===//
//
// Frameworks often dequantize (or widen) an activation and then all-gather
// it, so 2 or 4 bytes per element cross the links where 1 (or half of one)
// would do. Two rewrites, run before the fusions:
//
//   all_gather(dequantize(q, s))  ->  dequantize(all_gather(q), s or gather(s))
//   all_gather(arith.extf(x))     ->  arith.extf(all_gather(x))
//
// and, for a matmul that reads a dequantized gather as A and a dequantized
// weight as B, the scaled matmul the fused all-gather op runs:
//
//   matmul(dequantize(qa, sa), dequantize(qb, sb))  ->  scaled_matmul(...)
//
// A gather is narrowed only where no fusion is lost by it: each matmul that
// reads it as A must become a scaled matmul.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"
#include "tp/Dialect/TP/Transforms/Uniformity.h"
#include "tp/Dialect/TP/Utils/ReshapeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::tp;

/// `value`'s dequantize, looking through a leading-dims collapse (F.linear's
/// reshape); `collapse` is set when there was one.
static DequantizeOp
dequantizeThroughCollapse(Value value, tensor::CollapseShapeOp &collapse) {
  collapse = value.getDefiningOp<tensor::CollapseShapeOp>();
  if (collapse && isLeadingDimsCollapse(collapse))
    value = collapse.getSrc();
  else
    collapse = nullptr;
  return value.getDefiningOp<DequantizeOp>();
}

std::string mlir::tp::whyNotScaledMatmul(Operation *matmul, ScalingMode mode) {
  Value rhs;
  bool transposeB = false;
  Type product;
  if (auto mm = dyn_cast<MatmulOp>(matmul)) {
    rhs = mm.getRhs();
    transposeB = mm.getTransposeB();
    product = mm.getType().getElementType();
  } else if (auto bmm = dyn_cast<BatchMatmulOp>(matmul)) {
    rhs = bmm.getRhs();
    transposeB = bmm.getTransposeB();
    product = bmm.getType().getElementType();
    if (bmm.getRhs().getType().getRank() != 2)
      return "the batched matmul has a per-batch B, not one weight";
  } else {
    return quoteName(matmul) + " is not a tp.matmul or tp.batch_matmul";
  }
  auto b = rhs.getDefiningOp<DequantizeOp>();
  if (!b)
    return "its B is not dequantized, and the scaled fused op needs both "
           "operands in low precision";
  if (b.getMode() != mode)
    return ("its B is dequantized " + stringifyScalingMode(b.getMode()) +
            ", A " + stringifyScalingMode(mode) +
            ": a scaled GEMM takes one scaling mode")
        .str();
  if (!transposeB && mode != ScalingMode::PerTensor)
    return ("its B is [K, N] with " + stringifyScalingMode(mode) +
            " scales along N, and a scaled GEMM needs B's scales along K "
            "([N, K], transpose_b)")
        .str();
  if (!isa<Float32Type, BFloat16Type, Float16Type>(product))
    return "its product is not f32, bf16 or f16";
  auto bType = b.getInput().getType();
  int64_t k = bType.getDimSize(transposeB ? 1 : 0);
  int64_t n = bType.getDimSize(transposeB ? 0 : 1);
  for (auto [name, extent] : {std::pair<StringRef, int64_t>{"K", k}, {"N", n}})
    if (ShapedType::isDynamic(extent) || extent % 16 != 0)
      return ("its " + name +
              " is not a static multiple of 16 (FP8 GEMM "
              "alignment)")
          .str();
  return "";
}

/// The scaled matmul of `a` (2-D after `collapse`, or 3-D for a batched
/// matmul) and `b`, in place of `matmul`.
static void rewriteAsScaledMatmul(RewriterBase &rewriter, Operation *matmul,
                                  DequantizeOp a,
                                  tensor::CollapseShapeOp collapse,
                                  DequantizeOp b, bool transposeB) {
  Location loc = matmul->getLoc();
  rewriter.setInsertionPoint(matmul);
  Value aData = a.getInput(), aScale = a.getScale();
  bool perTensor = a.getMode() == ScalingMode::PerTensor;
  // Row-wise and block scales follow A's shape, so they take A's reshape.
  auto collapseLike = [&](Value value) -> Value {
    if (collapse)
      return tensor::CollapseShapeOp::create(
          rewriter, loc, value, collapse.getReassociationIndices());
    return collapseLeadingDims(rewriter, loc, value);
  };
  bool batched = isa<BatchMatmulOp>(matmul);
  if (collapse || batched) {
    aData = collapseLike(aData);
    if (!perTensor)
      aScale = collapseLike(aScale);
  }
  Value bData = b.getInput();
  if (!transposeB) {
    // Only a per-tensor B gets here: its scale does not care about layout.
    auto type = cast<RankedTensorType>(bData.getType());
    Value init = tensor::EmptyOp::create(
        rewriter, loc, {type.getDimSize(1), type.getDimSize(0)},
        type.getElementType());
    bData = linalg::TransposeOp::create(rewriter, loc, bData, init,
                                        ArrayRef<int64_t>{1, 0})
                ->getResult(0);
  }
  auto product = cast<RankedTensorType>(matmul->getResult(0).getType());
  auto aType = cast<RankedTensorType>(aData.getType());
  auto bType = cast<RankedTensorType>(bData.getType());
  auto type = RankedTensorType::get({aType.getDimSize(0), bType.getDimSize(0)},
                                    product.getElementType());
  Value result = ScaledMatmulOp::create(
      rewriter, loc, type, aData, aScale, a.getGlobalScale(), bData,
      b.getScale(), b.getGlobalScale(), /*bias=*/Value(), a.getModeAttr());
  if (batched)
    result = expandLeadingDims(rewriter, loc, result, a.getResult());
  if (result.getType() != product)
    result = tensor::CastOp::create(rewriter, loc, product, result);
  rewriter.replaceOp(matmul, result);
}

void mlir::tp::raiseDequantizedMatmuls(RewriterBase &rewriter,
                                       Operation *root) {
  SmallVector<Operation *> matmuls;
  root->walk([&](Operation *op) {
    if (isa<MatmulOp, BatchMatmulOp>(op))
      matmuls.push_back(op);
  });
  for (Operation *matmul : matmuls) {
    tensor::CollapseShapeOp collapse;
    DequantizeOp a = dequantizeThroughCollapse(matmul->getOperand(0), collapse);
    if (!a || (collapse && isa<BatchMatmulOp>(matmul)))
      continue;
    // Only where it makes a fusion: A is gathered (narrowed, or gathered
    // narrow by the program itself).
    Value data = a.getInput();
    if (auto c = data.getDefiningOp<tensor::CollapseShapeOp>();
        c && isLeadingDimsCollapse(c))
      data = c.getSrc();
    if (!data.getDefiningOp<AllGatherOp>())
      continue;
    if (!whyNotScaledMatmul(matmul, a.getMode()).empty())
      continue;
    bool transposeB = isa<MatmulOp>(matmul)
                          ? cast<MatmulOp>(matmul).getTransposeB()
                          : cast<BatchMatmulOp>(matmul).getTransposeB();
    auto b = matmul->getOperand(1).getDefiningOp<DequantizeOp>();
    if (isa<Float8E5M2Type>(a.getInput().getType().getElementType()) &&
        isa<Float8E5M2Type>(b.getInput().getType().getElementType()))
      continue; // FP8 GEMMs need an f8E4M3FN operand.
    rewriteAsScaledMatmul(rewriter, matmul, a, collapse, b, transposeB);
    if (collapse && collapse->use_empty())
      rewriter.eraseOp(collapse);
    if (a->use_empty())
      rewriter.eraseOp(a);
    if (b->use_empty())
      rewriter.eraseOp(b);
  }
}

namespace {
/// Dequantization written as glue: FP8 data widened, times a scale that is
/// one value (per tensor) or one per row (along all dims but the last).
struct DequantizeGlue {
  Value data;
  /// The scale as tp.dequantize takes it: tensor<f32>, or [..., M, 1] once
  /// `rowScale` (the [..., M] the glue broadcasts) is expanded.
  Value scale, rowScale;
  ScalingMode mode = ScalingMode::PerTensor;
};
} // namespace

static bool isFp8(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(getElementTypeOrSelf(type));
}

/// What a broadcast of `source` over all dims, or over the last dim only,
/// makes of a scale for a `rank`-D tensor.
static bool matchScaleSource(Value source, ArrayRef<int64_t> broadcastDims,
                             int64_t rank, DequantizeGlue &glue) {
  auto type = dyn_cast<RankedTensorType>(source.getType());
  if (!type || !type.getElementType().isF32())
    return false;
  if (type.getRank() == 0) {
    glue.scale = source;
    glue.mode = ScalingMode::PerTensor;
    return true;
  }
  if (type.getRank() == rank - 1 && broadcastDims.size() == 1 &&
      broadcastDims[0] == rank - 1) {
    glue.rowScale = source;
    glue.mode = ScalingMode::RowWise;
    return true;
  }
  return false;
}

/// `arith.mulf(arith.extf(q), broadcast(s))` (either order, `s` broadcast by
/// linalg.broadcast or splat), or one linalg.generic computing the same.
static std::optional<DequantizeGlue> matchDequantizeGlue(Operation *op) {
  DequantizeGlue glue;
  auto resultType = op->getNumResults() == 1
                        ? dyn_cast<RankedTensorType>(op->getResult(0).getType())
                        : RankedTensorType();
  if (!resultType || !resultType.hasStaticShape())
    return std::nullopt;
  int64_t rank = resultType.getRank();
  if (auto mul = dyn_cast<arith::MulFOp>(op)) {
    for (auto [x, y] : {std::pair(mul.getLhs(), mul.getRhs()),
                        std::pair(mul.getRhs(), mul.getLhs())}) {
      auto extend = x.getDefiningOp<arith::ExtFOp>();
      if (!extend || !isFp8(extend.getIn().getType()))
        continue;
      glue.data = extend.getIn();
      if (auto splat = y.getDefiningOp<tensor::SplatOp>();
          splat && splat.getInput().getType().isF32()) {
        glue.scale = splat.getInput(); // a scalar: made a tensor<f32> later
        glue.mode = ScalingMode::PerTensor;
        return glue;
      }
      if (auto broadcast = y.getDefiningOp<linalg::BroadcastOp>())
        if (matchScaleSource(broadcast.getInput(), broadcast.getDimensions(),
                             rank, glue))
          return glue;
    }
    return std::nullopt;
  }
  // linalg.generic ins(q, s) { extf(q) * s }, all loops parallel.
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 2 ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
           .isIdentity())
    return std::nullopt;
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto mul = yield.getValues()[0].getDefiningOp<arith::MulFOp>();
  if (!mul || body.getOperations().size() != 3)
    return std::nullopt;
  // The product's operands in either order, each input in either place.
  auto inputArgument = [&](Value value) -> std::optional<unsigned> {
    auto arg = dyn_cast<BlockArgument>(value);
    if (!arg || arg.getOwner() != &body || arg.getArgNumber() >= 2)
      return std::nullopt;
    return arg.getArgNumber();
  };
  for (unsigned i : {0u, 1u}) {
    auto extend = mul->getOperand(i).getDefiningOp<arith::ExtFOp>();
    std::optional<unsigned> data =
        extend ? inputArgument(extend.getIn()) : std::nullopt;
    std::optional<unsigned> scaleArg = inputArgument(mul->getOperand(1 - i));
    if (!data || !scaleArg || *data == *scaleArg)
      continue;
    OpOperand *dataInput = generic.getDpsInputOperand(*data);
    OpOperand *scaleInput = generic.getDpsInputOperand(*scaleArg);
    if (!isFp8(dataInput->get().getType()) ||
        !generic.getMatchingIndexingMap(dataInput).isIdentity())
      return std::nullopt;
    AffineMap scaleMap = generic.getMatchingIndexingMap(scaleInput);
    glue.data = dataInput->get();
    Value scale = scaleInput->get();
    if (scaleMap.getNumResults() == 0)
      return matchScaleSource(scale, {}, rank, glue) ? std::optional(glue)
                                                     : std::nullopt;
    // One scale per row: (d0, ..., dn-1) -> (d0, ..., dn-2).
    bool perRow = scaleMap.getNumResults() == rank - 1 &&
                  llvm::all_of(llvm::seq<int64_t>(0, rank - 1), [&](int64_t i) {
                    return scaleMap.getResult(i) ==
                           getAffineDimExpr(i, generic.getContext());
                  });
    if (perRow && matchScaleSource(scale, {rank - 1}, rank, glue))
      return glue;
    return std::nullopt;
  }
  return std::nullopt;
}

/// Erases the ops computing `values` (and theirs) that nothing uses any more.
static void eraseDeadProducers(RewriterBase &rewriter, ValueRange values) {
  llvm::SetVector<Operation *> worklist;
  auto enqueueProducers = [&](ValueRange operands) {
    for (Value value : operands)
      if (Operation *producer = value.getDefiningOp())
        worklist.insert(producer);
  };
  enqueueProducers(values);
  // An op is erased only once nothing uses it, so it is never reached again
  // from a later op's operands.
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!isOpTriviallyDead(op))
      continue;
    enqueueProducers(op->getOperands());
    rewriter.eraseOp(op);
  }
}

/// `value` past a leading-dims collapse.
static Value throughCollapse(Value value) {
  auto collapse = value.getDefiningOp<tensor::CollapseShapeOp>();
  return collapse && isLeadingDimsCollapse(collapse) ? collapse.getSrc()
                                                     : value;
}

/// Whether raising the glue `op` can serve a fusion: it feeds an all-gather
/// (which can then move the data narrow), dequantizes gathered data, or is B
/// of a matmul whose A is dequantized (which can then become scaled).
static bool glueServesFusion(Operation *op) {
  // A dequantized before or after its all-gather.
  auto dequantizesSomething = [](Value value) {
    Operation *def = throughCollapse(value).getDefiningOp();
    if (auto gather = dyn_cast_or_null<AllGatherOp>(def)) {
      Operation *input = gather.getInput().getDefiningOp();
      return input && (isa<DequantizeOp>(input) || matchDequantizeGlue(input));
    }
    Value data;
    if (auto dequantize = dyn_cast_or_null<DequantizeOp>(def))
      data = dequantize.getInput();
    else if (std::optional<DequantizeGlue> glue =
                 def ? matchDequantizeGlue(def) : std::nullopt)
      data = glue->data;
    return data && throughCollapse(data).getDefiningOp<AllGatherOp>();
  };
  for (OpOperand &use : op->getResult(0).getUses()) {
    Operation *user = use.getOwner();
    if (isa<AllGatherOp>(user))
      return true;
    if (isa<MatmulOp, BatchMatmulOp>(user) && use.getOperandNumber() == 1 &&
        dequantizesSomething(user->getOperand(0)))
      return true;
  }
  std::optional<DequantizeGlue> glue = matchDequantizeGlue(op);
  return glue && throughCollapse(glue->data).getDefiningOp<AllGatherOp>();
}

void mlir::tp::raiseDequantizeGlue(RewriterBase &rewriter, Operation *root) {
  SmallVector<Operation *> candidates;
  root->walk([&](Operation *op) {
    if (isa<arith::MulFOp, linalg::GenericOp>(op) && op->getNumResults() == 1 &&
        glueServesFusion(op))
      candidates.push_back(op);
  });
  for (Operation *op : candidates) {
    std::optional<DequantizeGlue> glue = matchDequantizeGlue(op);
    if (!glue)
      continue;
    Location loc = op->getLoc();
    rewriter.setInsertionPoint(op);
    Value scale = glue->scale;
    if (glue->rowScale) {
      auto rows = cast<RankedTensorType>(glue->rowScale.getType());
      SmallVector<int64_t> shape(rows.getShape());
      shape.push_back(1);
      SmallVector<ReassociationIndices> reassociation;
      for (int64_t i = 0; i + 1 < rows.getRank(); ++i)
        reassociation.push_back({i});
      reassociation.push_back({rows.getRank() - 1, rows.getRank()});
      if (rows.getRank() == 0)
        continue;
      scale = tensor::ExpandShapeOp::create(
          rewriter, loc, RankedTensorType::get(shape, rows.getElementType()),
          glue->rowScale, reassociation);
    } else if (!isa<TensorType>(scale.getType())) {
      scale = tensor::FromElementsOp::create(
          rewriter, loc, RankedTensorType::get({}, scale.getType()), scale);
    }
    Value dequantized = DequantizeOp::create(
        rewriter, loc, op->getResult(0).getType(), glue->data, scale,
        /*global_scale=*/Value(),
        ScalingModeAttr::get(rewriter.getContext(), glue->mode));
    SmallVector<Value> operands(op->getOperands());
    rewriter.replaceOp(op, dequantized);
    eraseDeadProducers(rewriter, operands);
  }
}

/// Bytes of `type` as the runtime stores it (an FP4 element takes a byte of
/// its own: the runtime does not pack two per byte); -1 when dynamic.
static int64_t bytesOf(RankedTensorType type) {
  if (!type.hasStaticShape())
    return -1;
  return type.getNumElements() *
         std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
}

/// Why narrowing `ag` would lose a fusion, or "" when it would not: every
/// matmul that reads the gathered value as A must become a scaled matmul.
static std::string whyNarrowingLosesFusion(AllGatherOp ag,
                                           std::optional<ScalingMode> mode) {
  SmallVector<OpOperand *> uses;
  for (OpOperand &use : ag->getUses()) {
    auto collapse = dyn_cast<tensor::CollapseShapeOp>(use.getOwner());
    if (collapse && isLeadingDimsCollapse(collapse)) {
      for (OpOperand &inner : collapse->getUses())
        uses.push_back(&inner);
      continue;
    }
    uses.push_back(&use);
  }
  bool lastDim =
      static_cast<int64_t>(ag.getDim()) == ag.getType().getRank() - 1;
  for (OpOperand *use : uses) {
    Operation *user = use->getOwner();
    if (!isa<MatmulOp, BatchMatmulOp>(user) || use->getOperandNumber() != 0)
      continue;
    if (!mode)
      return quoteName(user) + " reads it as A, and a widened gather fuses "
                               "only at the width the matmul reads";
    if (lastDim)
      return quoteName(user) + " reads it as A, gathered along K, which a "
                               "scaled fused op does not split";
    if (std::string why = whyNotScaledMatmul(user, *mode); !why.empty())
      return quoteName(user) + " reads it as A, but " + why;
  }
  return "";
}

FailureOr<GatherNarrowing> mlir::tp::narrowGather(RewriterBase &rewriter,
                                                  AllGatherOp ag) {
  Operation *producer = ag.getInput().getDefiningOp();
  auto dequantize = dyn_cast_or_null<DequantizeOp>(producer);
  auto extend = dyn_cast_or_null<arith::ExtFOp>(producer);
  if (!dequantize && !extend)
    return failure();
  GatherNarrowing narrowing;
  narrowing.gather = ag;
  RankedTensorType wide = ag.getInput().getType();
  narrowing.wideType = wide.getElementType();
  std::optional<int64_t> groupSize = getStaticGroupSize(ag);
  // Bytes each rank receives: the other ranks' shards.
  auto received = [&](int64_t shardBytes) -> int64_t {
    return groupSize && shardBytes >= 0 ? shardBytes * (*groupSize - 1) : -1;
  };
  narrowing.bytesBefore = received(bytesOf(wide));

  std::optional<ScalingMode> mode;
  if (dequantize)
    mode = dequantize.getMode();
  int64_t dim = ag.getDim();
  bool lastDim = dim == wide.getRank() - 1;
  auto refuse = [&](std::string why) {
    narrowing.refused = std::move(why);
    return narrowing;
  };
  if (dequantize) {
    auto needUniform = [&](Value scale, StringRef what) -> std::string {
      std::string notUniform;
      if (!scale || isUniformAcrossGroup(scale, ag.getGridAttr(),
                                         ag.getGridAxes(), &notUniform))
        return "";
      return ("its " + what + " is not known to be the same on every rank (" +
              notUniform + "), and it would dequantize every rank's piece")
          .str();
    };
    if (std::string why =
            needUniform(dequantize.getGlobalScale(), "global scale");
        !why.empty())
      return refuse(why);
    if (*mode == ScalingMode::PerTensor) {
      if (std::string why =
              needUniform(dequantize.getScale(), "per-tensor scale");
          !why.empty())
        return refuse(why);
    } else if (*mode == ScalingMode::RowWise && lastDim) {
      return refuse("it is gathered along K, and a row-wise scale has one "
                    "value per row of each shard");
    }
  }
  if (std::string why = whyNarrowingLosesFusion(ag, mode); !why.empty())
    return refuse(why);

  Location loc = ag.getLoc();
  rewriter.setInsertionPoint(ag);
  auto gatherOf = [&](Value value) -> Value {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<int64_t> shape(type.getShape());
    int64_t from = wide.getDimSize(dim), to = ag.getType().getDimSize(dim);
    shape[dim] = ShapedType::isDynamic(from) || ShapedType::isDynamic(to) ||
                         ShapedType::isDynamic(shape[dim])
                     ? ShapedType::kDynamic
                     : shape[dim] / from * to;
    return AllGatherOp::create(rewriter, loc, type.clone(shape), value,
                               ag.getGridAttr(), ag.getGridAxesAttr(),
                               ag.getDimAttr());
  };
  Value narrow = producer->getOperand(0);
  narrowing.narrowType = getElementTypeOrSelf(narrow.getType());
  Value gathered = gatherOf(narrow);
  int64_t shardBytes = bytesOf(cast<RankedTensorType>(narrow.getType()));
  Value replacement;
  if (dequantize) {
    Value scale = dequantize.getScale();
    if (*mode != ScalingMode::PerTensor) {
      narrowing.scalesGathered = true;
      int64_t scaleBytes = bytesOf(cast<RankedTensorType>(scale.getType()));
      shardBytes =
          shardBytes < 0 || scaleBytes < 0 ? -1 : shardBytes + scaleBytes;
      scale = gatherOf(scale);
    }
    replacement = DequantizeOp::create(rewriter, loc, ag.getType(), gathered,
                                       scale, dequantize.getGlobalScale(),
                                       dequantize.getModeAttr());
  } else {
    replacement = arith::ExtFOp::create(rewriter, loc, ag.getType(), gathered);
  }
  narrowing.bytesAfter = received(shardBytes);
  narrowing.gather = gathered.getDefiningOp();
  rewriter.replaceOp(ag, replacement);
  if (producer->use_empty())
    rewriter.eraseOp(producer);
  return narrowing;
}

std::string GatherNarrowing::describe() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto bytes = [&](int64_t n) {
    os << (n < 0 ? std::string("a dynamic number of") : std::to_string(n));
  };
  if (!refused.empty()) {
    os << "all-gather of a value converted from narrower data stays "
       << wideType << ": " << refused;
    return text;
  }
  os << "all-gather moves " << narrowType << " data"
     << (scalesGathered ? " and its scales" : "") << " instead of " << wideType
     << ": ";
  bytes(bytesAfter);
  os << " bytes per rank instead of ";
  bytes(bytesBefore);
  return text;
}
