//===- ResultShapes.cpp - each op's result dims from its operands ---------===//
//
// ReifyRankedShapedTypeOpInterface for the ops with tensor results: where
// every result dim comes from (an operand's dim, times or divided by the
// group size or a block size). Bufferization allocates results from these,
// and upstream's shape folding (resolve-ranked-shaped-type-result-dims) sees
// through tp ops with them.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/TP/IR/TPOps.h"
#include "tp/Runtime/ScaleLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::tp;

namespace {

/// Where one result dim comes from: dim `dim` of `source`, kept, times or
/// divided by the group size, or divided by `factor`; or `factor` itself.
struct DimSource {
  enum Kind { Same, TimesGroup, DivideByGroup, DivideBy, Constant };
  Value source;
  int64_t dim = 0;
  Kind kind = Same;
  int64_t factor = 1;

  static DimSource of(Value source, int64_t dim, Kind kind = Same) {
    return {source, dim, kind, 1};
  }
  /// `kind` when `applies`, else the dim as it is.
  static DimSource of(Value source, int64_t dim, bool applies, Kind kind) {
    return {source, dim, applies ? kind : Same, 1};
  }
};

using DimRule = llvm::function_ref<DimSource(unsigned result, int64_t dim)>;

int64_t rankOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getRank();
}

/// A matmul's output dim `d`: A's leading dims, then B's N (dim 0 of a
/// transposed B, else its last).
DimSource productDim(Value a, Value b, bool transposeB, int64_t d) {
  if (d != rankOf(a) - 1)
    return DimSource::of(a, d);
  int64_t bRank = rankOf(b);
  return DimSource::of(b, transposeB ? bRank - 2 : bRank - 1);
}

/// Builds every result's dims from `rule`: static dims as attributes, the
/// others from the operands (tensor.dim, then arith). Fails when a rule
/// needs the group size and the grid is not static.
LogicalResult reifyWith(Operation *op, OpBuilder &b,
                        ReifiedRankedShapedTypeDims &shapes, DimRule rule) {
  Location loc = op->getLoc();
  std::optional<int64_t> groupSize;
  shapes.clear();
  for (OpResult result : op->getResults()) {
    auto type = dyn_cast<RankedTensorType>(result.getType());
    shapes.emplace_back();
    if (!type)
      continue;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d)) {
        shapes.back().push_back(b.getIndexAttr(type.getDimSize(d)));
        continue;
      }
      DimSource source = rule(result.getResultNumber(), d);
      if (source.kind == DimSource::Constant) {
        shapes.back().push_back(b.getIndexAttr(source.factor));
        continue;
      }
      int64_t factor = source.factor;
      if (source.kind == DimSource::TimesGroup ||
          source.kind == DimSource::DivideByGroup) {
        if (!groupSize)
          groupSize = getStaticGroupSize(op);
        if (!groupSize)
          return failure();
        factor = *groupSize;
      }
      OpFoldResult size =
          tensor::getMixedSize(b, loc, source.source, source.dim);
      if (source.kind == DimSource::Same) {
        shapes.back().push_back(size);
        continue;
      }
      Value value = getValueOrCreateConstantIndexOp(b, loc, size);
      Value by = arith::ConstantIndexOp::create(b, loc, factor);
      if (source.kind == DimSource::TimesGroup)
        value = arith::MulIOp::create(b, loc, value, by);
      else
        value = arith::DivUIOp::create(b, loc, value, by);
      shapes.back().push_back(value);
    }
  }
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

LogicalResult
AllGatherOp::reifyResultShapes(OpBuilder &b,
                               ReifiedRankedShapedTypeDims &shapes) {
  return reifyWith(*this, b, shapes, [&](unsigned, int64_t d) {
    return DimSource::of(getInput(), d, d == int64_t(getDim()),
                         DimSource::TimesGroup);
  });
}

LogicalResult
ReduceScatterOp::reifyResultShapes(OpBuilder &b,
                                   ReifiedRankedShapedTypeDims &shapes) {
  return reifyWith(*this, b, shapes, [&](unsigned, int64_t d) {
    return DimSource::of(getInput(), d, d == int64_t(getDim()),
                         DimSource::DivideByGroup);
  });
}

LogicalResult
AllReduceOp::reifyResultShapes(OpBuilder &b,
                               ReifiedRankedShapedTypeDims &shapes) {
  return reifyWith(*this, b, shapes, [&](unsigned, int64_t d) {
    return DimSource::of(getInput(), d);
  });
}

/// An exchanged dim: split divided by the group size, concat times it (both
/// at once leave the dim whole).
static DimSource exchangedDim(Value input, int64_t split, int64_t concat,
                              int64_t d) {
  if (split == concat || (d != split && d != concat))
    return DimSource::of(input, d);
  return DimSource::of(
      input, d, d == split ? DimSource::DivideByGroup : DimSource::TimesGroup);
}

LogicalResult
AllToAllOp::reifyResultShapes(OpBuilder &b,
                              ReifiedRankedShapedTypeDims &shapes) {
  return reifyWith(*this, b, shapes, [&](unsigned, int64_t d) {
    return exchangedDim(getInput(), getSplit(), getConcat(), d);
  });
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::reifyResultShapes(OpBuilder &b,
                                          ReifiedRankedShapedTypeDims &shapes) {
  return reifyWith(*this, b, shapes, [&](unsigned, int64_t d) {
    return productDim(getLhs(), getRhs(), getTransposeB(), d);
  });
}

LogicalResult
BatchMatmulOp::reifyResultShapes(OpBuilder &b,
                                 ReifiedRankedShapedTypeDims &shapes) {
  // A batched B [batch, K, N] has its N one dim further than a shared one.
  return reifyWith(*this, b, shapes, [&](unsigned, int64_t d) {
    return productDim(getLhs(), getRhs(), getTransposeB(), d);
  });
}

LogicalResult
BiasAddOp::reifyResultShapes(OpBuilder &b,
                             ReifiedRankedShapedTypeDims &shapes) {
  return reifyWith(*this, b, shapes, [&](unsigned, int64_t d) {
    return DimSource::of(getInput(), d);
  });
}

LogicalResult LinearOp::reifyResultShapes(OpBuilder &b,
                                          ReifiedRankedShapedTypeDims &shapes) {
  // Column: the gathered input's rows (its shard dim times the group size)
  // by this rank's N; row: the input's rows, reduce-scattered along the
  // output's shard dim, by the whole N. N is the weight's dim 0 either way.
  bool column = getWeightSharding() == WeightSharding::Column;
  PlacementAttr gathered = column ? getInputPlacement() : PlacementAttr();
  PlacementAttr scattered = column ? PlacementAttr() : getOutputPlacement();
  int64_t last = rankOf(getInput()) - 1;
  return reifyWith(*this, b, shapes, [&](unsigned, int64_t d) {
    if (d == last)
      return DimSource::of(getWeight(), 0);
    if (gathered && gathered.isShardedOn(d))
      return DimSource::of(getInput(), d, DimSource::TimesGroup);
    if (scattered && scattered.isShardedOn(d))
      return DimSource::of(getInput(), d, DimSource::DivideByGroup);
    return DimSource::of(getInput(), d);
  });
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

LogicalResult
QuantizeOp::reifyResultShapes(OpBuilder &b,
                              ReifiedRankedShapedTypeDims &shapes) {
  Value input = getInput();
  int64_t last = rankOf(input) - 1;
  ScalingMode mode = getMode();
  return reifyWith(*this, b, shapes, [&](unsigned result, int64_t d) {
    // The scale (result 1) has one entry per row, or per block of the last
    // dim.
    if (result != 1 || d != last)
      return DimSource::of(input, d);
    if (mode == ScalingMode::RowWise)
      return DimSource{Value(), 0, DimSource::Constant, 1};
    int64_t block = mode == ScalingMode::MXFP8
                        ? ::mlir::tp::rt::kMXFP8BlockSize
                        : ::mlir::tp::rt::kNVFP4BlockSize;
    return DimSource{input, d, DimSource::DivideBy, block};
  });
}

LogicalResult
DequantizeOp::reifyResultShapes(OpBuilder &b,
                                ReifiedRankedShapedTypeDims &shapes) {
  return reifyWith(*this, b, shapes, [&](unsigned, int64_t d) {
    return DimSource::of(getInput(), d);
  });
}

LogicalResult
ScaledMatmulOp::reifyResultShapes(OpBuilder &b,
                                  ReifiedRankedShapedTypeDims &shapes) {
  return reifyWith(*this, b, shapes, [&](unsigned, int64_t d) {
    return productDim(getA(), getB(), /*transposeB=*/true, d);
  });
}

//===----------------------------------------------------------------------===//
// Fused collective-matmuls
//===----------------------------------------------------------------------===//

/// A product of the gathered A: A's dims (the gathered one times the group
/// size), then B's N.
static DimSource gatheredProductDim(Value a, Value b, bool transposeB,
                                    int64_t gatheredDim, int64_t d) {
  DimSource source = productDim(a, b, transposeB, d);
  if (source.source == a && d == gatheredDim)
    source.kind = DimSource::TimesGroup;
  return source;
}

LogicalResult
AllGatherMatmulOp::reifyResultShapes(OpBuilder &b,
                                     ReifiedRankedShapedTypeDims &shapes) {
  bool gathered = getReturnGathered();
  int64_t dim = getDim();
  return reifyWith(*this, b, shapes, [&](unsigned result, int64_t d) {
    if (gathered && result == 0)
      return DimSource::of(getA(), d, d == dim, DimSource::TimesGroup);
    Value weight = getBs()[result - (gathered ? 1 : 0)];
    return gatheredProductDim(getA(), weight, getTransposeB(), dim, d);
  });
}

LogicalResult AllGatherScaledMatmulOp::reifyResultShapes(
    OpBuilder &b, ReifiedRankedShapedTypeDims &shapes) {
  bool gathered = getReturnGathered();
  int64_t dim = getDim();
  return reifyWith(*this, b, shapes, [&](unsigned result, int64_t d) {
    // The gathered A and its gathered scale come first.
    if (gathered && result < 2)
      return DimSource::of(result == 0 ? getA() : getAScale(), d, d == dim,
                           DimSource::TimesGroup);
    Value weight = getBs()[result - (gathered ? 2 : 0)];
    return gatheredProductDim(getA(), weight, /*transposeB=*/true, dim, d);
  });
}

LogicalResult
AllToAllMatmulOp::reifyResultShapes(OpBuilder &b,
                                    ReifiedRankedShapedTypeDims &shapes) {
  bool exchanged = getReturnExchanged();
  Value a = getA();
  int64_t last = rankOf(a) - 1;
  return reifyWith(*this, b, shapes, [&](unsigned result, int64_t d) {
    // A product has the exchanged A's dims but the last, which is B's N.
    if (!(exchanged && result == 0) && d == last) {
      Value weight = getBs()[result - (exchanged ? 1 : 0)];
      int64_t bRank = rankOf(weight);
      return DimSource::of(weight, getTransposeB() ? bRank - 2 : bRank - 1);
    }
    return exchangedDim(a, getSplit(), getConcat(), d);
  });
}

LogicalResult
MatmulAllToAllOp::reifyResultShapes(OpBuilder &b,
                                    ReifiedRankedShapedTypeDims &shapes) {
  unsigned exchangedResult = getReturnProduct() ? 1 : 0;
  return reifyWith(*this, b, shapes, [&](unsigned result, int64_t d) {
    // The product, exchanged or not: A's dims but the last, B's N.
    DimSource source = productDim(getA(), getB(), getTransposeB(), d);
    if (result != exchangedResult || getSplit() == getConcat() ||
        (d != int64_t(getSplit()) && d != int64_t(getConcat())))
      return source;
    source.kind = d == int64_t(getSplit()) ? DimSource::DivideByGroup
                                           : DimSource::TimesGroup;
    return source;
  });
}

/// A reduce-scattered product: the scattered dim divided by the group size.
template <typename OpTy>
static LogicalResult
reifyMatmulReduceScatter(OpTy op, bool transposeB, OpBuilder &b,
                         ReifiedRankedShapedTypeDims &shapes) {
  unsigned reducedResult = op.getReturnUnreduced() ? 1 : 0;
  int64_t dim = op.getDim();
  return reifyWith(op, b, shapes, [&](unsigned result, int64_t d) {
    DimSource source = productDim(op.getA(), op.getB(), transposeB, d);
    if (result == reducedResult && d == dim)
      source.kind = DimSource::DivideByGroup;
    return source;
  });
}

LogicalResult
MatmulReduceScatterOp::reifyResultShapes(OpBuilder &b,
                                         ReifiedRankedShapedTypeDims &shapes) {
  return reifyMatmulReduceScatter(*this, getTransposeB(), b, shapes);
}

LogicalResult ScaledMatmulReduceScatterOp::reifyResultShapes(
    OpBuilder &b, ReifiedRankedShapedTypeDims &shapes) {
  return reifyMatmulReduceScatter(*this, /*transposeB=*/true, b, shapes);
}

LogicalResult
AllGatherContractOp::reifyResultShapes(OpBuilder &b,
                                       ReifiedRankedShapedTypeDims &shapes) {
  bool gathered = getReturnGathered();
  Value x = getX();
  int64_t dim = getDim();
  // A product is [free dim of the lhs, free dim of the rhs]; an operand
  // whose K leads has its free dim last.
  auto freeDim = [](Value v, bool kLeading) {
    return DimSource::of(v, kLeading ? rankOf(v) - 1 : 0);
  };
  return reifyWith(*this, b, shapes, [&](unsigned result, int64_t d) {
    if (gathered && result == 0)
      return DimSource::of(x, d, d == dim, DimSource::TimesGroup);
    Value other = getOthers()[result - (gathered ? 1 : 0)];
    bool xSide = (d == 0) == getGatheredLhs();
    return xSide ? freeDim(x, isXKLeading())
                 : freeDim(other, isOtherKLeading());
  });
}
