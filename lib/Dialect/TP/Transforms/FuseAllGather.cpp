//===- FuseAllGather.cpp - all-gather -> matmul into one fused op ---------===//
//
// Every use of the gathered value is matched against the forms a framework
// emits for a linear layer on a gathered activation:
//   tp.matmul(g, B) / tp.scaled_matmul(g, ...)
//   tensor.expand_shape(tp.matmul(tensor.collapse_shape(g), B))   (F.linear)
//   tp.batch_matmul(g, B) with B broadcast over the batch         (bmm path)
// each optionally followed by a tp.bias_add. Consumers that qualify and agree
// on B's layout (and A's scale) become one fused op; the others keep reading
// the gathered value, which the fused op then also returns.
//
//===----------------------------------------------------------------------===//

#include "GatherConsumers.h"
#include "tp/Dialect/TP/Transforms/Uniformity.h"
#include "tp/Dialect/TP/Utils/ReshapeUtils.h"

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::detail;

/// Looks through a leading-dims collapse of `value` when A was collapsed.
static Value peelCollapse(Value value, bool aWasCollapsed) {
  if (!aWasCollapsed)
    return value;
  auto collapse = value.getDefiningOp<tensor::CollapseShapeOp>();
  return collapse && isLeadingDimsCollapse(collapse) ? collapse.getSrc()
                                                     : Value();
}

/// A's scale of a scaled consumer. A per-tensor scale (and the NVFP4 global
/// scale) is shared by the group; row-wise and block scales must be gathered
/// along with A, and the fused op takes their shard.
static LogicalResult matchAScale(AllGatherOp ag, ScaledMatmulOp op, Consumer &c,
                                 std::string &why) {
  c.aGlobal = op.getAGlobalScale();
  // A per-tensor scale (and NVFP4's global scale) dequantizes every gathered
  // piece, so each rank must have quantized its shard with the same one.
  auto requireUniform = [&](Value scale, StringRef what) {
    std::string notUniform;
    if (!scale || isUniformAcrossGroup(scale, ag.getGridAttr(),
                                       ag.getGridAxes(), &notUniform))
      return success();
    why = ("A's " + what +
           " is not known to be the same on every rank of the group (" +
           notUniform +
           "), yet it dequantizes the pieces gathered from every rank; "
           "compute it from an all-reduce (max) of the ranks' amax, or pass "
           "it as an argument marked tp.replicated")
              .str();
    return failure();
  };
  if (failed(requireUniform(c.aGlobal, "global scale")))
    return failure();
  if (c.mode == ScalingMode::PerTensor) {
    c.aScale = op.getAScale();
    c.gatheredScaleType = c.aScale.getType();
    return requireUniform(c.aScale, "per-tensor scale");
  }
  // gather(s), possibly reshaped like A, with at most one element-wise op
  // before or after the reshape (e.g. 1 / s), which commutes with both.
  Value scale = op.getAScale();
  SmallVector<Operation *> scaleOps;
  auto peelElementwise = [&] {
    if (c.scaleElementwise)
      return;
    if (Value operand = elementwiseOperand(scale, c.scaleElementwise)) {
      scaleOps.push_back(c.scaleElementwise);
      scale = operand;
    }
  };
  peelElementwise();
  if (c.collapse) {
    Value source = peelCollapse(scale, /*aWasCollapsed=*/true);
    if (source)
      scaleOps.push_back(scale.getDefiningOp());
    scale = source;
  }
  if (scale)
    peelElementwise();
  auto scaleGather = scale ? scale.getDefiningOp<AllGatherOp>() : AllGatherOp();
  if (!scaleGather || scaleGather.getGrid() != ag.getGrid() ||
      scaleGather.getGridAxes() != ag.getGridAxes() ||
      scaleGather.getDim() != ag.getDim()) {
    why = ("A's " + stringifyScalingMode(c.mode) +
           " scale is not all-gathered along with A (same group and dim)")
              .str();
    return failure();
  }
  c.aScale = scaleGather.getInput();
  c.gatheredScaleType = scaleGather.getType();
  c.scaleOps = std::move(scaleOps);
  c.scaleOps.push_back(scaleGather);
  return success();
}

/// The uses of a dequantize's result, looking through a leading-dims
/// collapse.
static SmallVector<OpOperand *> usesOfDequantized(DequantizeOp dequantize) {
  SmallVector<OpOperand *> uses;
  for (OpOperand &use : dequantize->getUses()) {
    auto collapse = dyn_cast<tensor::CollapseShapeOp>(use.getOwner());
    if (!collapse || !isLeadingDimsCollapse(collapse)) {
      uses.push_back(&use);
      continue;
    }
    for (OpOperand &inner : collapse->getUses())
      uses.push_back(&inner);
  }
  return uses;
}

/// The matmul that reads `op`'s result as A, when `op` is a dequantize.
static Operation *matmulOfDequantized(Operation *op) {
  auto dequantize = dyn_cast<DequantizeOp>(op);
  if (!dequantize)
    return nullptr;
  for (OpOperand *use : usesOfDequantized(dequantize))
    if (isa<MatmulOp, BatchMatmulOp>(use->getOwner()) &&
        use->getOperandNumber() == 0)
      return use->getOwner();
  return nullptr;
}

static bool dequantizesForMatmul(Operation *op) {
  return matmulOfDequantized(op) != nullptr;
}

/// Why a gathered low-precision value dequantized before its matmul did not
/// fuse: the matmul could not take both operands scaled.
static std::string describeDequantizedUse(DequantizeOp dequantize) {
  if (Operation *matmul = matmulOfDequantized(dequantize))
    return "the gathered value is dequantized before " + quoteName(matmul) +
           ", which cannot become a scaled matmul: " +
           whyNotScaledMatmul(matmul, dequantize.getMode());
  return describeInterloper(dequantize, "all-gather");
}

/// The matmul part of a consumer: which op, which operand, which B.
static LogicalResult matchMatmul(Operation *collective, OpOperand &use,
                                 Consumer &c, std::string &why) {
  Operation *user = use.getOwner();
  auto requireA = [&]() -> LogicalResult {
    if (use.getOperandNumber() == 0)
      return success();
    why = (describeValue(collective) + " is used as B of " + quoteName(user) +
           ", not A");
    return failure();
  };
  if (auto mm = dyn_cast<MatmulOp>(user)) {
    c.b = mm.getRhs();
    c.transposeB = mm.getTransposeB();
    c.productElement = mm.getType().getElementType();
    return requireA();
  }
  if (auto bmm = dyn_cast<BatchMatmulOp>(user)) {
    if (failed(requireA()))
      return failure();
    // An all-to-all's blocks stacked along the rows each land in one batch:
    // one B per batch (experts) multiplies them as they arrive.
    auto exchange = dyn_cast<AllToAllOp>(collective);
    bool perBatchRows = exchange && !c.collapse &&
                        static_cast<int64_t>(exchange.getConcat()) ==
                            exchange.getType().getRank() - 2;
    if (bmm.getRhs().getType().getRank() != 2 && !perBatchRows) {
      why = exchange ? "the batched matmul has a per-batch B, and the "
                       "exchanged blocks do not stack along its rows"
                     : "the batched matmul has a per-batch B, not one weight "
                       "broadcast over the batch";
      return failure();
    }
    c.b = bmm.getRhs();
    c.transposeB = bmm.getTransposeB();
    c.productElement = bmm.getType().getElementType();
    return success();
  }
  auto smm = dyn_cast<ScaledMatmulOp>(user);
  if (auto dequantize = dyn_cast<DequantizeOp>(user)) {
    why = describeDequantizedUse(dequantize);
    return failure();
  }
  if (!smm) {
    why = describeInterloper(user, describeCollective(collective));
    return failure();
  }
  if (failed(requireA()))
    return failure();
  auto ag = dyn_cast<AllGatherOp>(collective);
  if (!ag) {
    why = "the exchanged value feeds a scaled matmul; an all-to-all of "
          "low-precision data and its scales is not fused";
    return failure();
  }
  if (static_cast<int64_t>(ag.getDim()) == ag.getType().getRank() - 1) {
    why = "the scaled all-gather is along the last (K) dim, which scales run "
          "along";
    return failure();
  }
  c.scaled = true;
  c.mode = smm.getMode();
  c.b = smm.getB();
  c.bScale = smm.getBScale();
  c.bGlobal = smm.getBGlobalScale();
  c.bias = smm.getBias();
  c.transposeB = true;
  c.productElement = smm.getType().getElementType();
  return matchAScale(ag, smm, c, why);
}

/// Extends the consumer over a bias add and the expand back to A's rank.
static void matchEpilogue(Consumer &c) {
  c.chain.push_back(c.matmul);
  // Only ops of the matmul's block join the chain: the fused op must see
  // their operands.
  auto soleUser = [&]() -> Operation * {
    Value v = c.result();
    if (!v.hasOneUse())
      return nullptr;
    Operation *user = *v.user_begin();
    return user->getBlock() == c.matmul->getBlock() ? user : nullptr;
  };
  auto absorbBias = [&] {
    auto add = dyn_cast_or_null<BiasAddOp>(soleUser());
    if (!c.bias && add && add.getInput() == c.result()) {
      c.bias = add.getBias();
      c.chain.push_back(add);
    }
  };
  absorbBias();
  if (!c.collapse)
    return;
  auto expand = dyn_cast_or_null<tensor::ExpandShapeOp>(soleUser());
  if (!expand || !isLeadingDimsExpand(expand))
    return;
  if (!restoresLeadingDims(expand, c.collapse))
    return;
  c.chain.push_back(expand);
  c.expanded = true;
  absorbBias();
}

static FailureOr<Consumer> matchConsumer(Operation *collective, OpOperand &use,
                                         tensor::CollapseShapeOp collapse,
                                         std::string &why) {
  Consumer c;
  c.matmul = use.getOwner();
  c.collapse = collapse;
  if (failed(matchMatmul(collective, use, c, why)))
    return failure();
  if (c.matmul->getBlock() != collective->getBlock()) {
    why = ("the matmul is in a different block than the " +
           describeCollective(collective))
              .str();
    return failure();
  }
  matchEpilogue(c);

  SmallPtrSet<Operation *, 4> replaced = {collective};
  std::pair<Value, StringRef> needed[] = {{c.b, "B"},
                                          {c.bias, "the bias"},
                                          {c.bScale, "B's scale"},
                                          {c.bGlobal, "B's global scale"},
                                          {c.aScale, "A's scale"},
                                          {c.aGlobal, "A's global scale"}};
  for (auto [value, what] : needed) {
    if (!value)
      continue;
    Operation *blocker = nullptr;
    HoistStatus status =
        planHoist(collective, value, replaced, c.toHoist, blocker);
    if (status != HoistStatus::Ok) {
      why =
          describeHoistFailure(status, blocker, what, describeValue(collective),
                               describeCollective(collective));
      return failure();
    }
  }
  return c;
}

static bool inBlockOrder(Operation *x, Operation *y) {
  return x->getBlock() == y->getBlock() ? x->isBeforeInBlock(y) : x < y;
}

/// Consumers that can share one fused op: same B layout and the same A
/// scale. Returns the largest such group; the rest become misses.
static ConsumerList chooseGroup(ConsumerList consumers,
                                SmallVector<Miss> &misses) {
  auto compatible = [](const Consumer &x, const Consumer &y) {
    return x.transposeB == y.transposeB && x.mode == y.mode &&
           x.aScale == y.aScale && x.aGlobal == y.aGlobal &&
           x.scaleElementwise == y.scaleElementwise;
  };
  size_t best = 0, bestCount = 0;
  for (size_t i = 0; i < consumers.size(); ++i) {
    size_t count = llvm::count_if(consumers, [&](const Consumer &other) {
      return compatible(consumers[i], other);
    });
    if (count > bestCount)
      best = i, bestCount = count;
  }
  ConsumerList group;
  for (Consumer &c : consumers) {
    if (compatible(consumers[best], c)) {
      group.push_back(std::move(c));
      continue;
    }
    std::string why =
        c.transposeB != consumers[best].transposeB
            ? "its B layout differs from the fused consumers' ([N, K] vs "
              "[K, N])"
            : "it uses a different A scale than the fused consumers";
    misses.push_back({c.matmul, why, true});
  }
  return group;
}

/// Casts `value` to `type` when only static information differs.
static Value castIfNeeded(RewriterBase &rewriter, Location loc, Value value,
                          Type type) {
  if (value.getType() == type)
    return value;
  return tensor::CastOp::create(rewriter, loc, type, value);
}

ConsumerList mlir::tp::detail::collectConsumers(Operation *collective,
                                                SmallVector<Miss> &misses) {
  ConsumerList consumers;
  auto tryUse = [&](OpOperand &use, tensor::CollapseShapeOp collapse) {
    std::string why;
    FailureOr<Consumer> c = matchConsumer(collective, use, collapse, why);
    if (succeeded(c))
      consumers.push_back(std::move(*c));
    else
      misses.push_back(
          {use.getOwner(), why,
           isa<MatmulOp, BatchMatmulOp, ScaledMatmulOp>(use.getOwner()) ||
               isInterloper(use.getOwner()) ||
               dequantizesForMatmul(use.getOwner())});
  };
  for (OpOperand &use : collective->getUses()) {
    // On a grid of dynamic size the collective's result is dynamic, and
    // upstream casts it to the shape the matmul expects; the product is cast
    // back.
    if (auto cast = dyn_cast<tensor::CastOp>(use.getOwner())) {
      for (OpOperand &inner : cast->getUses())
        tryUse(inner, nullptr);
      continue;
    }
    auto collapse = dyn_cast<tensor::CollapseShapeOp>(use.getOwner());
    if (collapse && isLeadingDimsCollapse(collapse)) {
      for (OpOperand &inner : collapse->getUses())
        tryUse(inner, collapse);
      continue;
    }
    tryUse(use, nullptr);
  }
  llvm::sort(consumers, [&](const Consumer &x, const Consumer &y) {
    return inBlockOrder(x.matmul, y.matmul);
  });
  return consumers.empty() ? ConsumerList()
                           : chooseGroup(std::move(consumers), misses);
}

void mlir::tp::detail::reportMisses(SmallVector<Miss> &misses,
                                    bool nothingFused, FusionReport &report) {
  llvm::stable_sort(misses, [&](const Miss &x, const Miss &y) {
    return inBlockOrder(x.user, y.user);
  });
  // Uses that are no matmul at all (the collective's result saved for
  // backward, say) are not misses; they explain one only when nothing fused
  // and nothing closer to a matmul does.
  bool anyBlocked =
      llvm::any_of(misses, [](const Miss &m) { return m.blocksAMatmul; });
  for (Miss &miss : misses)
    if (miss.blocksAMatmul || (!anyBlocked && nothingFused))
      if (!llvm::is_contained(report.misses, miss.why))
        report.misses.push_back(std::move(miss.why));
}

/// Whether `user` asks for the size of a leading dim of the collective's
/// result, which is also a dim of every product.
static bool isLeadingDimQuery(Operation *collective, Operation *user) {
  auto dim = dyn_cast<tensor::DimOp>(user);
  std::optional<int64_t> index = dim ? dim.getConstantIndex() : std::nullopt;
  auto type = cast<RankedTensorType>(collective->getResult(0).getType());
  return index && *index < type.getRank() - 1;
}

bool mlir::tp::detail::resultStillRead(Operation *collective,
                                       const ConsumerList &group) {
  SmallPtrSet<Operation *, 8> absorbed;
  for (const Consumer &c : group)
    absorbed.insert(c.matmul);
  auto isAbsorbed = [&](Operation *user) {
    if (absorbed.contains(user) || isLeadingDimQuery(collective, user))
      return true;
    // A reshape or cast is absorbed when it feeds fused consumers only (a
    // dead one still reads the collective's result).
    if (!isa<tensor::CollapseShapeOp, tensor::CastOp>(user))
      return false;
    return !user->use_empty() &&
           llvm::all_of(user->getUsers(),
                        [&](Operation *u) { return absorbed.contains(u); });
  };
  return !llvm::all_of(collective->getUsers(), isAbsorbed);
}

SmallVector<Type> mlir::tp::detail::productTypes(RankedTensorType lhs,
                                                 const ConsumerList &group) {
  SmallVector<Type> types;
  for (const Consumer &c : group) {
    auto bType = cast<RankedTensorType>(c.b.getType());
    SmallVector<int64_t> shape(lhs.getShape().drop_back());
    shape.push_back(bType.getDimSize(bType.getRank() - (c.transposeB ? 2 : 1)));
    types.push_back(RankedTensorType::get(shape, c.productElement));
  }
  return types;
}

void mlir::tp::detail::replaceConsumers(RewriterBase &rewriter,
                                        Operation *collective, Operation *fused,
                                        ResultRange products,
                                        ConsumerList &group,
                                        bool returnResult) {
  const Consumer &lead = group.front();
  rewriter.setInsertionPointAfter(fused);
  for (auto [c, product] : llvm::zip_equal(group, products)) {
    Value replacement = product;
    if (c.collapse && !c.expanded)
      replacement = collapseLeadingDims(rewriter, c.matmul->getLoc(), product);
    replacement = castIfNeeded(rewriter, c.matmul->getLoc(), replacement,
                               c.result().getType());
    rewriter.replaceAllUsesWith(c.result(), replacement);
    for (Operation *op : llvm::reverse(c.chain))
      rewriter.eraseOp(op);
  }
  // Other readers of A's gathered scale (a dequantize of the gathered value,
  // say) read the one the fused op returns, unless the fused op takes the
  // scale through an element-wise op (its gathered scale is then another).
  if (returnResult && lead.scaled && !lead.scaleElementwise)
    for (Operation *op : lead.scaleOps)
      if (auto scaleGather = dyn_cast<AllGatherOp>(op))
        rewriter.replaceAllUsesWith(scaleGather.getResult(),
                                    fused->getResult(1));
  // Reshapes of A and gathers of A's scale that fed only fused consumers;
  // each scale reshape comes before the gather it reads.
  llvm::SetVector<Operation *> leftovers;
  for (Consumer &c : group) {
    if (c.collapse)
      leftovers.insert(c.collapse);
    leftovers.insert(c.scaleOps.begin(), c.scaleOps.end());
  }
  for (Operation *user : collective->getUsers())
    if (isa<tensor::CastOp>(user))
      leftovers.insert(user);
  for (Operation *op : leftovers)
    if (op->use_empty())
      rewriter.eraseOp(op);
  for (Operation *user : llvm::make_early_inc_range(collective->getUsers()))
    if (isLeadingDimQuery(collective, user))
      rewriter.modifyOpInPlace(user, [&] {
        cast<tensor::DimOp>(user).getSourceMutable().assign(products[0]);
      });
  if (returnResult)
    rewriter.replaceAllUsesWith(collective->getResult(0), fused->getResult(0));
  rewriter.eraseOp(collective);
}

FusionReport mlir::tp::fuseAllGather(RewriterBase &rewriter, AllGatherOp ag,
                                     const AsyncTPOptions &options) {
  FusionReport report;
  std::string why;
  if (!isTensorParallelGroup(ag.getGridAxes(), options, "all-gather", why)) {
    report.misses.push_back(why);
    return report;
  }

  SmallVector<Miss> misses;
  ConsumerList group = collectConsumers(ag, misses);
  // With no use taking the gathered value as A, it may be contracted over
  // the gathered dim instead (weight gradients). Its reasons replace the
  // A-form's for the uses it examined; the uses it absorbed are gone.
  Operation *contractFused = nullptr;
  if (group.empty()) {
    ContractFusion contract = fuseAllGatherContract(rewriter, ag);
    contractFused = contract.fused;
    SmallVector<Miss> kept;
    for (Miss &miss : misses) {
      if (contract.absorbed.contains(miss.user))
        continue;
      if (auto it = contract.whyNot.find(miss.user); it != contract.whyNot.end())
        miss.why = it->second;
      kept.push_back(std::move(miss));
    }
    misses = std::move(kept);
  } else {
    // The fused op returns the gathered value; a contraction over the
    // gathered dim reads it there, the gather already overlapped.
    for (Miss &miss : misses)
      for (OpOperand &use : ag->getUses())
        if (isContractionOfGather(ag, use) &&
            (use.getOwner() == miss.user ||
             llvm::is_contained(use.getOwner()->getUsers(), miss.user)))
          miss.why = "it contracts the gathered value over the gathered dim "
                     "and reads it from the fused op, whose gather already "
                     "overlaps the other consumers' GEMMs";
  }
  reportMisses(misses, group.empty() && !contractFused, report);
  if (contractFused) {
    report.fused = contractFused;
    return report;
  }
  if (group.empty())
    return report;

  bool returnGathered = resultStillRead(ag, group);
  llvm::SetVector<Operation *> toHoist;
  for (Consumer &c : group)
    toHoist.insert(c.toHoist.begin(), c.toHoist.end());
  hoistAbove(rewriter, ag, toHoist);

  const Consumer &lead = group.front();
  RankedTensorType gathered = ag.getType();
  SmallVector<Type> resultTypes;
  if (returnGathered) {
    resultTypes.push_back(gathered);
    if (lead.scaled)
      resultTypes.push_back(lead.gatheredScaleType);
  }
  llvm::append_range(resultTypes, productTypes(gathered, group));
  SmallVector<Value> bs, biases, bScales, bGlobals;
  SmallVector<bool> biasMask;
  for (Consumer &c : group) {
    bs.push_back(c.b);
    biasMask.push_back(static_cast<bool>(c.bias));
    if (c.bias)
      biases.push_back(c.bias);
    if (c.bScale)
      bScales.push_back(c.bScale);
    if (c.bGlobal)
      bGlobals.push_back(c.bGlobal);
  }

  SmallVector<Location> locs = {ag.getLoc()};
  for (Consumer &c : group)
    locs.push_back(c.matmul->getLoc());
  Location loc = rewriter.getFusedLoc(locs);
  rewriter.setInsertionPoint(ag);
  auto maskAttr = rewriter.getDenseBoolArrayAttr(biasMask);
  UnitAttr gatheredAttr = returnGathered ? rewriter.getUnitAttr() : UnitAttr();
  Operation *fused;
  ResultRange products = ag->getResults();
  if (lead.scaled) {
    Value aScale = lead.aScale;
    if (lead.scaleElementwise)
      aScale = applyElementwiseTo(rewriter, lead.scaleElementwise, aScale);
    auto op = AllGatherScaledMatmulOp::create(
        rewriter, loc, resultTypes, ag.getInput(), aScale, lead.aGlobal, bs,
        bScales, bGlobals, biases, ag.getGridAttr(), ag.getGridAxesAttr(),
        ag.getDimAttr(), ScalingModeAttr::get(rewriter.getContext(), lead.mode),
        maskAttr, gatheredAttr, /*algorithm=*/nullptr, /*chunks=*/nullptr,
        /*streams=*/nullptr);
    fused = op;
    products = op.getProducts();
  } else {
    auto op = AllGatherMatmulOp::create(
        rewriter, loc, resultTypes, ag.getInput(), bs, biases, ag.getGridAttr(),
        ag.getGridAxesAttr(), ag.getDimAttr(), maskAttr,
        lead.transposeB ? rewriter.getUnitAttr() : UnitAttr(), gatheredAttr,
        /*algorithm=*/nullptr, /*chunks=*/nullptr,
        /*streams=*/nullptr);
    fused = op;
    products = op.getProducts();
  }
  replaceConsumers(rewriter, ag, fused, products, group, returnGathered);
  report.fused = fused;
  return report;
}
