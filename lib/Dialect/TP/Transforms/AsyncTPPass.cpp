//===- AsyncTPPass.cpp - the tp-async-tp pass and its patterns ------------===//
//
// The pass visits every collective once, in program order (all-gathers
// first, so a matmul between an all-gather and a reduce-scatter goes to the
// all-gather), and reports misses as remarks when asked.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"
#include "tp/Dialect/TP/Transforms/AsyncTP.h"
#include "tp/Dialect/TP/Transforms/CostModel.h"
#include "tp/Dialect/TP/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <functional>

namespace mlir::tp {
#define GEN_PASS_DEF_TPASYNCTP
#include "tp/Dialect/TP/Transforms/Passes.h.inc"
} // namespace mlir::tp

using namespace mlir;
using namespace mlir::tp;

/// Ops that only move elements around (reshapes, transposes), which models
/// put between an all-to-all and its matmul.
static bool isLayoutOp(Operation *op) {
  return isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, tensor::ReshapeOp,
             linalg::TransposeOp>(op);
}

/// `value` traced back through layout ops to what computed it.
static Value throughLayoutOps(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (!isLayoutOp(def))
      break;
    value = def->getOperand(0);
  }
  return value;
}

/// Whether a matmul reads `value`, directly or through layout ops.
static bool reachesMatmulThroughLayoutOps(Value value) {
  SmallVector<Value> worklist = {value};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (isMatmul(user))
        return true;
      // The moved value, not a shape operand or a transpose's init.
      if (isLayoutOp(user) && use.getOperandNumber() == 0)
        worklist.append(user->result_begin(), user->result_end());
    }
  }
  return false;
}

namespace {

template <typename CollectiveOp>
struct FuseCollectivePattern : OpRewritePattern<CollectiveOp> {
  FuseCollectivePattern(MLIRContext *context, const AsyncTPOptions &options)
      : OpRewritePattern<CollectiveOp>(context), options(options) {}

  LogicalResult matchAndRewrite(CollectiveOp op,
                                PatternRewriter &rewriter) const override {
    FusionReport report;
    if constexpr (std::is_same_v<CollectiveOp, AllGatherOp>)
      report = fuseAllGather(rewriter, op, options);
    else
      report = fuseReduceScatter(rewriter, op, options);
    if (report.fused)
      return success();
    return rewriter.notifyMatchFailure(op, [&](Diagnostic &diag) {
      llvm::interleave(report.misses, diag, "; ");
    });
  }

  AsyncTPOptions options;
};

/// Whether every use of `op`'s result is a scale of a scaled matmul (directly
/// or through a reshape): it is fused along with its data's all-gather.
static bool onlyGathersScales(AllGatherOp op) {
  std::function<bool(Value)> isScale = [&](Value v) {
    return llvm::all_of(v.getUses(), [&](OpOperand &use) {
      Operation *user = use.getOwner();
      if (auto smm = dyn_cast<ScaledMatmulOp>(user))
        return use.get() == smm.getAScale() || use.get() == smm.getBScale();
      auto collapse = dyn_cast<tensor::CollapseShapeOp>(user);
      return collapse && isScale(collapse.getResult());
    });
  };
  return !op->use_empty() && isScale(op.getResult());
}

/// The cost model's element type for GEMM operands of `type`.
static std::string gemmTypeOf(Type type) {
  if (type.isBF16())
    return "bf16";
  if (type.isF16())
    return "f16";
  if (isa<Float8E4M3FNType, Float8E5M2Type, Float4E2M1FNType>(type))
    return "f8";
  return "f32";
}

/// `value`, or the value a leading-dims collapse or a cast of it gives.
static SmallVector<OpOperand *> usesThroughReshapes(Value value) {
  SmallVector<OpOperand *> uses;
  for (OpOperand &use : value.getUses()) {
    if (isa<tensor::CollapseShapeOp, tensor::CastOp>(use.getOwner()))
      llvm::append_range(uses,
                         usesThroughReshapes(use.getOwner()->getResult(0)));
    else
      uses.push_back(&use);
  }
  return uses;
}

/// The GEMM an all-gather feeds (its matmuls' N summed, as one fused op
/// runs them), if every shape involved is static. Weight gradients
/// (contractions over the gathered dim) are modelled as a gather of the
/// shard's K-rows: the bytes moved and the FLOPs per piece are the same.
static std::optional<CollectiveMatmulShape> shapeOf(AllGatherOp op) {
  std::optional<int64_t> groupSize = getStaticGroupSize(op);
  RankedTensorType input = op.getInput().getType();
  if (!groupSize || !input.hasStaticShape() || input.getRank() < 2)
    return std::nullopt;
  CollectiveMatmulShape shape;
  shape.gather = true;
  shape.groupSize = *groupSize;
  shape.elementBytes =
      std::max<int64_t>(1, input.getElementTypeBitWidth() / 8);
  // As the runtime stores them: an FP4 element takes a byte.
  shape.elementBits = std::max(8u, input.getElementTypeBitWidth());
  shape.gemmType = gemmTypeOf(input.getElementType());
  // Row-wise and block scales gathered alongside A move too.
  for (OpOperand *use : usesThroughReshapes(op.getResult()))
    if (auto scaled = dyn_cast<ScaledMatmulOp>(use->getOwner());
        scaled && use->getOperandNumber() == 0) {
      Value scale = scaled.getAScale();
      Operation *elementwise = nullptr;
      for (int peel = 0; peel < 3 && scale; ++peel) {
        if (auto gather = scale.getDefiningOp<AllGatherOp>()) {
          RankedTensorType shard = gather.getInput().getType();
          if (shard.hasStaticShape())
            shape.scaleBytesPerPeer =
                shard.getNumElements() * shard.getElementTypeBitWidth() / 8;
          break;
        }
        Value inner = elementwiseOperand(scale, elementwise);
        if (auto collapse = scale.getDefiningOp<tensor::CollapseShapeOp>())
          inner = collapse.getSrc();
        scale = inner;
      }
      break;
    }
  auto rowsOf = [&](int64_t width) {
    shape.k = width;
    shape.rowsPerRank = input.getNumElements() / std::max<int64_t>(width, 1);
  };
  int64_t dim = op.getDim();
  if (dim != input.getRank() - 1) {
    rowsOf(input.getShape().back());
    for (OpOperand *use : usesThroughReshapes(op.getResult())) {
      Operation *user = use->getOwner();
      if (use->getOperandNumber() != 0 ||
          !isa<MatmulOp, BatchMatmulOp, ScaledMatmulOp>(user))
        continue;
      auto product = cast<RankedTensorType>(user->getResult(0).getType());
      if (!product.hasStaticShape())
        return std::nullopt;
      shape.n += product.getShape().back();
    }
    if (shape.n > 0)
      return shape;
  }
  // x's free dim: the last of a 3-D x, else the 2-D x's other dim.
  int64_t free = input.getRank() == 3 ? input.getDimSize(2)
                                      : input.getDimSize(1 - std::min<int64_t>(dim, 1));
  rowsOf(free);
  int64_t productElements = 0;
  for (MatmulOp matmul : contractionsOfGather(op)) {
    if (!matmul.getType().hasStaticShape())
      return std::nullopt;
    productElements += matmul.getType().getNumElements();
  }
  shape.n = productElements / std::max<int64_t>(free, 1);
  if (shape.n == 0)
    return std::nullopt;
  return shape;
}

/// The GEMMs an all-to-all feeds, modelled as a gather of one block per
/// rank (what moves per step and what each GEMM step multiplies), if static
/// and the blocks are rows of A.
static std::optional<CollectiveMatmulShape> shapeOf(AllToAllOp op) {
  std::optional<int64_t> groupSize = getStaticGroupSize(op);
  RankedTensorType exchanged = op.getType();
  if (!groupSize || !exchanged.hasStaticShape() || exchanged.getRank() < 2 ||
      static_cast<int64_t>(op.getConcat()) == exchanged.getRank() - 1)
    return std::nullopt;
  CollectiveMatmulShape shape;
  shape.gather = true;
  shape.exchange = true;
  shape.groupSize = *groupSize;
  shape.k = exchanged.getShape().back();
  shape.rowsPerRank =
      exchanged.getNumElements() / *groupSize / std::max<int64_t>(shape.k, 1);
  shape.elementBytes =
      std::max<int64_t>(1, exchanged.getElementTypeBitWidth() / 8);
  shape.gemmType = gemmTypeOf(exchanged.getElementType());
  for (OpOperand *use : usesThroughReshapes(op.getResult())) {
    Operation *user = use->getOwner();
    if (use->getOperandNumber() != 0 || !isa<MatmulOp, BatchMatmulOp>(user))
      continue;
    auto product = cast<RankedTensorType>(user->getResult(0).getType());
    if (!product.hasStaticShape())
      return std::nullopt;
    shape.n += product.getShape().back();
  }
  if (shape.n == 0)
    return std::nullopt;
  return shape;
}

/// The GEMM whose product `product` is, scattered over `groupSize` ranks by
/// a reduce-scatter (or an all-to-all when `exchange`), if static.
static std::optional<CollectiveMatmulShape>
shapeOfProduct(Value productValue, std::optional<int64_t> groupSize,
               bool exchange) {
  auto product = cast<RankedTensorType>(productValue.getType());
  if (!groupSize || !product.hasStaticShape() || product.getRank() < 2)
    return std::nullopt;
  Operation *def = productValue.getDefiningOp();
  if (auto expand = dyn_cast_or_null<tensor::ExpandShapeOp>(def))
    def = expand.getSrc().getDefiningOp();
  if (auto add = dyn_cast_or_null<arith::AddFOp>(def)) {
    Operation *lhs = add.getLhs().getDefiningOp();
    def = lhs && isMatmul(lhs) ? lhs : add.getRhs().getDefiningOp();
  }
  if (!def || !isa<MatmulOp, BatchMatmulOp, ScaledMatmulOp>(def))
    return std::nullopt;
  auto lhs = cast<RankedTensorType>(def->getOperand(0).getType());
  if (!lhs.hasStaticShape())
    return std::nullopt;
  CollectiveMatmulShape shape;
  shape.gather = false;
  shape.exchange = exchange;
  shape.groupSize = *groupSize;
  shape.n = product.getShape().back();
  shape.k = lhs.getShape().back();
  shape.rowsPerRank =
      product.getNumElements() / std::max<int64_t>(shape.n, 1) / *groupSize;
  shape.elementBytes =
      std::max<int64_t>(1, product.getElementTypeBitWidth() / 8);
  shape.gemmType = gemmTypeOf(lhs.getElementType());
  return shape;
}

static std::optional<CollectiveMatmulShape> shapeOf(ReduceScatterOp op) {
  return shapeOfProduct(op.getInput(), getStaticGroupSize(op),
                        /*exchange=*/false);
}

/// An all-to-all's consumer GEMMs when a matmul reads its result, else the
/// GEMM that makes its input.
static std::optional<CollectiveMatmulShape> shapeOfEither(AllToAllOp op) {
  if (reachesMatmulThroughLayoutOps(op.getResult()))
    return shapeOf(op);
  return shapeOfProduct(throughLayoutOps(op.getInput()), getStaticGroupSize(op),
                        /*exchange=*/true);
}

/// "ring, 4 pieces per rank: predicted unfused 354.0 us, fused 301.2 us, 87%
/// of the communication hidden"; on GPU targets, then the parts: "; unfused:
/// collective 115.2 us + GEMM 183.2 us (224 tiles of 128x256, 2 waves of
/// 89.6 us); fused: pieces 272.8 us + transfers 93.2 us, each piece 256 rows
/// (112 tiles of 64x128, 1 wave of 33.6 us) on 132 SMs".
static std::string describePrediction(const SchedulePrediction &p) {
  const bool coalesced = p.algorithm == Algorithm::Coalesced;
  std::string text =
      llvm::formatv(
          "{0}, {1} {2}{3}: predicted unfused {4:F1} us, fused "
          "{5:F1} us, {6:F0}% of the communication hidden",
          stringifyAlgorithm(p.algorithm), p.chunks,
          coalesced ? "GEMM" : "piece",
          coalesced ? (p.chunks == 1 ? " for the remote shards"
                                     : "s for the remote shards")
                    : (p.chunks == 1 ? " per rank" : "s per rank") +
                          (p.streams > 1
                               ? " on " + std::to_string(p.streams) + " streams"
                               : std::string()),
          p.unfused * 1e6, p.fused * 1e6, p.hidden * 100)
          .str();
  if (!p.wholeGemm || !p.piece)
    return text;
  auto tiles = [](const GpuGemmEstimate &gemm) {
    return llvm::formatv("{0} tiles of {1}x{2}, {3} wave{4} of {5:F1} us{6}",
                         gemm.tiles, gemm.tile.rows, gemm.tile.cols,
                         gemm.waves, gemm.waves == 1 ? "" : "s",
                         gemm.waveSeconds * 1e6,
                         gemm.memoryBound ? ", memory-bound" : "")
        .str();
  };
  return text +
         llvm::formatv("; unfused: collective {0:F1} us + GEMM {1:F1} us "
                       "({2}); fused: {3} {4:F1} us + transfers {5:F1} "
                       "us, {6} {7} rows ({8}) on {9} SMs",
                       p.unfusedComm * 1e6, p.unfusedGemm * 1e6,
                       tiles(*p.wholeGemm), coalesced ? "GEMMs" : "pieces",
                       p.fusedCompute * 1e6, p.fusedComm * 1e6,
                       coalesced ? "the largest" : "each piece", p.piece->rows,
                       tiles(*p.piece), p.piece->sms)
             .str();
}

/// Fusions by kind, reported with the `stats` option.
struct FusionCounts {
  unsigned allGatherMatmul = 0, matmulReduceScatter = 0;
  unsigned allGatherScaledMatmul = 0, scaledMatmulReduceScatter = 0;
  unsigned allGatherContract = 0, allToAllMatmul = 0, matmulAllToAll = 0;
  unsigned fusedConsumers = 0, missed = 0;
  /// Gathers narrowed to low precision, and the bytes each rank receives
  /// through them before and after (-1 once one is not static).
  unsigned narrowed = 0, leftWide = 0;
  int64_t wideBytes = 0, narrowBytes = 0;

  void addNarrowing(const GatherNarrowing &narrowing) {
    if (!narrowing.refused.empty()) {
      ++leftWide;
      return;
    }
    ++narrowed;
    auto accumulate = [](int64_t &sum, int64_t bytes) {
      sum = sum < 0 || bytes < 0 ? -1 : sum + bytes;
    };
    accumulate(wideBytes, narrowing.bytesBefore);
    accumulate(narrowBytes, narrowing.bytesAfter);
  }

  /// "; 1 all-gather narrowed (3072 instead of 12288 bytes per rank)", or
  /// nothing when no gather reads a dequantized or widened value.
  std::string describeNarrowing() const {
    if (narrowed == 0 && leftWide == 0)
      return "";
    std::string text = llvm::formatv("; {0} all-gather{1} narrowed", narrowed,
                                     narrowed == 1 ? "" : "s");
    if (narrowed > 0 && wideBytes >= 0 && narrowBytes >= 0)
      text += llvm::formatv(" ({0} instead of {1} bytes per rank)", narrowBytes,
                            wideBytes);
    if (leftWide > 0)
      text += llvm::formatv(", {0} left wide", leftWide);
    return text;
  }

  void add(Operation *fused) {
    if (!fused) {
      ++missed;
    } else if (auto op = dyn_cast<AllGatherMatmulOp>(fused)) {
      ++allGatherMatmul;
      fusedConsumers += op.getBs().size();
    } else if (auto op = dyn_cast<AllGatherScaledMatmulOp>(fused)) {
      ++allGatherScaledMatmul;
      fusedConsumers += op.getBs().size();
    } else if (isa<AllGatherContractOp>(fused)) {
      ++allGatherContract;
    } else if (auto op = dyn_cast<AllToAllMatmulOp>(fused)) {
      ++allToAllMatmul;
      fusedConsumers += op.getBs().size();
    } else if (isa<MatmulAllToAllOp>(fused)) {
      ++matmulAllToAll;
    } else if (isa<MatmulReduceScatterOp>(fused)) {
      ++matmulReduceScatter;
    } else if (isa<ScaledMatmulReduceScatterOp>(fused)) {
      ++scaledMatmulReduceScatter;
    }
  }
};

/// Remembers erased ops, so the pass skips collectives a fusion removed.
struct ErasedOps : RewriterBase::Listener {
  void notifyOperationErased(Operation *op) override { erased.insert(op); }
  llvm::DenseSet<Operation *> erased;
};

struct TPAsyncTPPass : mlir::tp::impl::TPAsyncTPBase<TPAsyncTPPass> {
  using TPAsyncTPBase::TPAsyncTPBase;

  void setSchedule(Operation *fused, std::optional<Algorithm> schedule,
                   int64_t pieces, int64_t concurrentStreams) {
    Builder b(&getContext());
    if (schedule)
      fused->setAttr("algorithm", AlgorithmAttr::get(&getContext(), *schedule));
    if (pieces > 0)
      fused->setAttr("chunks", b.getI64IntegerAttr(pieces));
    if (concurrentStreams > 0)
      fused->setAttr("streams", b.getI64IntegerAttr(concurrentStreams));
  }

  /// 'tp-axis' is -1 or an axis of some grid the pass can see.
  LogicalResult checkTensorParallelAxis() {
    if (tensorParallelAxis == -1)
      return success();
    // Grids inside the op, and those of enclosing symbol tables (only their
    // top level: other functions may be transformed concurrently).
    int64_t largestRank = -1;
    auto note = [&](shard::GridOp grid) {
      largestRank = std::max(largestRank, grid.getRank());
    };
    getOperation()->walk(note);
    for (Operation *scope = getOperation()->getParentOp(); scope;
         scope = scope->getParentOp())
      if (scope->hasTrait<OpTrait::SymbolTable>())
        for (auto grid : scope->getRegion(0).getOps<shard::GridOp>())
          note(grid);
    if (tensorParallelAxis >= 0 && tensorParallelAxis < largestRank)
      return success();
    InFlightDiagnostic diag =
        emitError(getOperation()->getLoc(), "tp-async-tp: 'tp-axis' must be "
                                            "-1 or an axis of a grid, got ")
        << static_cast<int>(tensorParallelAxis);
    if (largestRank >= 0)
      diag << " (the largest grid has " << largestRank << " axes)";
    else
      diag << " (no grid is visible)";
    return diag;
  }

  /// Gathers of dequantized (or widened) values move the narrow data
  /// instead, where that loses no fusion.
  void narrowGathers(RewriterBase &rewriter, const AsyncTPOptions &options,
                     FusionCounts &counts) {
    SmallVector<AllGatherOp> gathers;
    getOperation()->walk([&](AllGatherOp op) { gathers.push_back(op); });
    for (AllGatherOp op : gathers) {
      std::string notTensorParallel;
      Location loc = op.getLoc();
      if (!isTensorParallelGroup(op.getGridAxes(), options, "all-gather",
                                 notTensorParallel))
        continue;
      FailureOr<GatherNarrowing> narrowing = narrowGather(rewriter, op);
      if (failed(narrowing))
        continue;
      counts.addNarrowing(*narrowing);
      if (emitRemarks)
        emitRemark(loc) << narrowing->describe();
    }
  }

  void runOnOperation() override {
    AsyncTPOptions options;
    if (failed(checkTensorParallelAxis()))
      return signalPassFailure();
    if (tensorParallelAxis >= 0)
      options.tensorParallelAxis = static_cast<int16_t>(tensorParallelAxis);
    std::optional<Algorithm> schedule;
    std::optional<TargetDescription> targetDescription;
    if (failed(parseScheduleOptions(schedule, targetDescription)))
      return signalPassFailure();

    FusionCounts counts;
    ErasedOps erased;
    IRRewriter rewriter(&getContext(), &erased);
    reshapesAroundCollectivesAsCollapseOrExpand(getOperation(), rewriter);
    raiseDequantizeGlue(rewriter, getOperation());
    narrowGathers(rewriter, options, counts);
    raiseDequantizedMatmuls(rewriter, getOperation());
    moveTransposesAcrossAllToAlls(getOperation(), rewriter);
    // New ops may reuse the addresses of the ones these rewrites erased.
    erased.erased.clear();

    for (Operation *op : collectCandidates(counts))
      if (!erased.erased.contains(op))
        fuseCandidate(op, rewriter, options, schedule, targetDescription,
                      counts);
    if (reportCounts)
      reportFusionCounts(counts);
  }

  /// `algorithm`, `chunks`, `streams` and `target`, checked.
  LogicalResult
  parseScheduleOptions(std::optional<Algorithm> &schedule,
                       std::optional<TargetDescription> &targetDescription) {
    if (!algorithm.empty()) {
      schedule = symbolizeAlgorithm(algorithm);
      if (!schedule) {
        emitError(getOperation()->getLoc(),
                  "tp-async-tp: 'algorithm' must be 'ring', 'per_peer' or "
                  "'coalesced', got '")
            << static_cast<std::string>(algorithm) << "'";
        return failure();
      }
    }
    if (chunks < 0) {
      emitError(getOperation()->getLoc(),
                "tp-async-tp: 'chunks' must be positive or 0, got ")
          << static_cast<int>(chunks);
      return failure();
    }
    if (streams < 0) {
      emitError(getOperation()->getLoc(),
                "tp-async-tp: 'streams' must be positive or 0, got ")
          << static_cast<int>(streams);
      return failure();
    }
    if (!target.empty()) {
      std::string error;
      targetDescription = TargetDescription::load(target, error);
      if (!targetDescription) {
        emitError(getOperation()->getLoc(), "tp-async-tp: 'target': ")
            << error;
        return failure();
      }
    }
    return success();
  }

  /// The collectives that may fuse: every all-gather and reduce-scatter, and
  /// all-to-alls next to a matmul. All-reduces next to a matmul count as
  /// misses.
  SmallVector<Operation *> collectCandidates(FusionCounts &counts) {
    SmallVector<Operation *> collectives;
    getOperation()->walk([&](AllGatherOp op) { collectives.push_back(op); });
    getOperation()->walk(
        [&](ReduceScatterOp op) { collectives.push_back(op); });

    // A row-parallel layer without sequence parallelism: nothing overlaps an
    // all-reduce, but split in two, both halves fuse.
    getOperation()->walk([&](AllReduceOp op) {
      if (getStaticGroupSize(op) == 1 || !isMatmulProduct(op.getInput()))
        return;
      counts.add(nullptr);
      if (emitRemarks)
        emitRemark(op.getLoc())
            << "all-reduce not fused: async TP overlaps reduce-scatters and "
               "all-gathers with matmuls; tp-sequence-parallel (the "
               "pipeline's 'sequence-parallel' option) splits this one into "
               "both";
    });
    // An all-to-all (sequence <-> heads, tokens <-> experts) next to a
    // matmul, directly or through reshapes and transposes, joins the
    // candidates: the matmul it feeds, or else the one that makes its input.
    getOperation()->walk([&](AllToAllOp op) {
      if (reachesMatmulThroughLayoutOps(op.getResult()) ||
          isMatmulOutput(throughLayoutOps(op.getInput())))
        collectives.push_back(op);
    });
    return collectives;
  }

  /// Fuses `op` with its matmuls, where the cost model (with a target)
  /// predicts a gain, and remarks on what it did not fuse.
  void fuseCandidate(Operation *op, IRRewriter &rewriter,
                     const AsyncTPOptions &options,
                     std::optional<Algorithm> schedule,
                     const std::optional<TargetDescription> &targetDescription,
                     FusionCounts &counts) {
    Location loc = op->getLoc();
    StringRef what = isa<AllGatherOp>(op)  ? "all-gather"
                     : isa<AllToAllOp>(op) ? "all-to-all"
                                           : "reduce-scatter";
    // An unused collective has nothing to fuse with, and a gather of
    // scales fuses with its data's gather: neither is a miss.
    if (op->use_empty())
      return;
    if (auto ag = dyn_cast<AllGatherOp>(op); ag && onlyGathersScales(ag))
      return;
    // With a target, fuse only where the model predicts a gain, with the
    // schedule it predicts fastest (or the one the options force).
    std::optional<SchedulePrediction> prediction;
    std::optional<CollectiveMatmulShape> shape;
    if (targetDescription)
      shape = isa<AllGatherOp>(op)  ? shapeOf(cast<AllGatherOp>(op))
              : isa<AllToAllOp>(op) ? shapeOfEither(cast<AllToAllOp>(op))
                                    : shapeOf(cast<ReduceScatterOp>(op));
    // No ring can pass on an all-to-all's blocks: a forced ring runs it
    // per_peer.
    std::optional<Algorithm> opSchedule = schedule;
    if (isa<AllToAllOp>(op) && schedule == Algorithm::Ring) {
      opSchedule = Algorithm::PerPeer;
      if (emitRemarks)
        emitRemark(loc) << "all-to-all runs per_peer, not ring: each peer "
                           "takes a different block, which no ring passes "
                           "on";
    }
    if (shape) {
      prediction = opSchedule || chunks > 0 || streams > 0
                       ? predictSchedule(
                             *targetDescription, *shape,
                             opSchedule.value_or(Algorithm::PerPeer),
                             chunks > 0 ? chunks : 1, streams > 0 ? streams : 1)
                       : chooseSchedule(*targetDescription, *shape);
      if (!predictsGain(*targetDescription, *prediction)) {
        counts.add(nullptr);
        if (!emitRemarks)
          return;
        InFlightDiagnostic remark = emitRemark(loc);
        remark << what << " not fused: the cost model for '"
               << targetDescription->name << "' predicts ";
        if (prediction->fused < prediction->unfused)
          remark << llvm::formatv(
              "a gain of {0:F1}%, less than the {1:F0}% it requires",
              (1 - prediction->fused / prediction->unfused) * 100,
              targetDescription->minGain * 100);
        else
          remark << "no gain";
        remark << " (" << describePrediction(*prediction) << ")";
        if (std::string why = explainLoss(*targetDescription, *prediction);
            !why.empty())
          remark << "; " << why;
        return;
      }
    }
    // Asked before the fusion, which may erase `op`.
    auto exchange = dyn_cast<AllToAllOp>(op);
    bool sendsMatmulProduct =
        exchange && isMatmulProduct(throughLayoutOps(exchange.getInput()));
    FusionReport report =
        isa<AllGatherOp>(op)
            ? fuseAllGather(rewriter, cast<AllGatherOp>(op), options)
        : isa<AllToAllOp>(op)
            ? fuseAllToAll(rewriter, cast<AllToAllOp>(op), options)
            : fuseReduceScatter(rewriter, cast<ReduceScatterOp>(op), options);
    counts.add(report.fused);
    // An all-to-all between two matmuls overlaps with one: say that the
    // one before it runs first, unoverlapped.
    if (isa_and_nonnull<AllToAllMatmulOp>(report.fused) && sendsMatmulProduct)
      report.misses.push_back(
          "the matmul producing its input runs before it, unoverlapped: "
          "one all-to-all overlaps with one side, here the matmuls it "
          "feeds");
    if (report.fused && prediction) {
      // One stream is the runtime's default: written only when forced.
      setSchedule(report.fused, prediction->algorithm, prediction->chunks,
                  streams > 0               ? streams
                  : prediction->streams > 1 ? prediction->streams
                                            : 0);
      if (emitRemarks)
        emitRemark(loc) << what << " fused for '" << targetDescription->name
                        << "' with " << describePrediction(*prediction);
    } else if (report.fused) {
      setSchedule(report.fused, opSchedule, chunks, streams);
    }
    if (!emitRemarks)
      return;
    for (const std::string &why : report.misses) {
      if (report.fused)
        emitRemark(loc) << what << " fused without one of its uses: " << why;
      else
        emitRemark(loc) << what << " not fused: " << why;
    }
  }

  void reportFusionCounts(const FusionCounts &counts) {
    emitRemark(getOperation()->getLoc(), "tp-async-tp: ")
        << counts.allGatherMatmul << " all-gather-matmul ("
        << counts.fusedConsumers << " matmuls absorbed), "
        << counts.matmulReduceScatter << " matmul-reduce-scatter, "
        << counts.allGatherScaledMatmul << " all-gather-scaled-matmul, "
        << counts.scaledMatmulReduceScatter << " scaled-matmul-reduce-scatter, "
        << counts.allGatherContract << " all-gather-contract, " << counts.missed
        << " collectives left unfused"
        << (counts.allToAllMatmul
                ? "; " + std::to_string(counts.allToAllMatmul) +
                      " all-to-all-matmul"
                : std::string())
        << (counts.matmulAllToAll
                ? "; " + std::to_string(counts.matmulAllToAll) +
                      " matmul-all-to-all"
                : std::string())
        << counts.describeNarrowing();
  }
};

} // namespace

void mlir::tp::populateAsyncTPPatterns(RewritePatternSet &patterns,
                                       const AsyncTPOptions &options) {
  patterns.add<FuseCollectivePattern<AllGatherOp>,
               FuseCollectivePattern<ReduceScatterOp>>(patterns.getContext(),
                                                       options);
}
