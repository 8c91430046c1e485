//===- LoopSharding.cpp - upstream's partitioner through layer loops ------===//
//
// Scan-over-layers frameworks write a model as one loop over weights stacked
// [L, ...]: the loop slices layer l's weights and calls the layer. The
// layer function is an ordinary function, which upstream's
// sharding-propagation and shard-partition handle; the loop is what stops
// them. This file gives scf.for a ShardingInterface model:
//
// - Propagation leaves the loop alone. Its tensor operands and results carry
//   the shardings written for the loop's carried values (as JAX asks for a
//   scan's carry), so nothing flows through it.
// - Partitioning rebuilds the loop on per-rank types and partitions its body
//   op by op: tensor.extract_slice and tensor.insert_slice along dims that
//   are not split, func.call (each tensor result annotated with shard.shard,
//   which gives the callee's per-rank result type), shard.shard, scf.yield,
//   and scalar or index arithmetic. Any other op on tensors is refused with
//   a message naming it: the layer's computation belongs in the function the
//   body calls, where upstream partitions it.
//
//===----------------------------------------------------------------------===//

#include "tp/Sharding/Sharding.h"

#include "mlir/Dialect/Arith/Transforms/ShardingInterfaceImpl.h"
#include "mlir/Dialect/Func/Extensions/ShardingExtensions.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Transforms/ShardingInterfaceImpl.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterface.h"
#include "mlir/Dialect/Shard/Transforms/Partition.h"
#include "mlir/Dialect/Shard/Transforms/Passes.h"
#include "mlir/Dialect/Tensor/Extensions/ShardingExtensions.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::shard;

namespace {

/// A ranked tensor of rank one or more: what carries a sharding.
bool isShardable(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() > 0;
}

bool hasShardableValues(Operation &op) {
  return llvm::any_of(op.getOperandTypes(), isShardable) ||
         llvm::any_of(op.getResultTypes(), isShardable);
}

/// The grid axes dim `dim` is split on (none past the listed dims: upstream
/// trims trailing unsplit dims).
ArrayRef<GridAxis> axesOf(const Sharding &sharding, int64_t dim) {
  ArrayRef<GridAxesAttr> split = sharding.getSplitAxes();
  if (dim >= static_cast<int64_t>(split.size()))
    return {};
  return split[dim].asArrayRef();
}

/// Whether `slice` takes all of dim `dim` (of size `size`).
bool takesWholeDim(OffsetSizeAndStrideOpInterface slice, int64_t dim,
                   int64_t size) {
  return isConstantIntValue(slice.getMixedOffsets()[dim], 0) &&
         isConstantIntValue(slice.getMixedSizes()[dim], size) &&
         isConstantIntValue(slice.getMixedStrides()[dim], 1);
}

std::string describe(const Sharding &sharding) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "@" << sharding.getGrid() << " [";
  llvm::interleaveComma(sharding.getSplitAxes(), os, [&](GridAxesAttr axes) {
    os << "[";
    llvm::interleaveComma(axes.asArrayRef(), os);
    os << "]";
  });
  os << "]";
  return text;
}

/// Partitions one loop body into a new body, op by op.
class BodyPartitioner {
public:
  BodyPartitioner(IRMapping &map, SymbolTableCollection &symbols,
                  OpBuilder &builder)
      : map(map), symbols(symbols), builder(builder) {}

  void setSharding(Value value, Sharding sharding) {
    shardings[value] = std::move(sharding);
  }

  LogicalResult partition(Block &body) {
    for (Operation &op : body.without_terminator())
      if (failed(partitionOp(op)))
        return failure();
    return partitionYield(cast<scf::YieldOp>(body.getTerminator()));
  }

  /// Shardings the loop carries, in iter-arg order (set by the loop model).
  std::vector<Sharding> carried;

private:
  LogicalResult partitionOp(Operation &op) {
    if (isa<ShardingOp>(op))
      return success(); // Read where a shard.shard uses it.
    if (auto shardOp = dyn_cast<ShardOp>(op))
      return partitionShard(shardOp);
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op))
      return partitionExtract(slice);
    if (auto insert = dyn_cast<tensor::InsertSliceOp>(op))
      return partitionInsert(insert);
    if (auto call = dyn_cast<func::CallOp>(op))
      return partitionCall(call);
    if (!hasShardableValues(op) && op.getNumRegions() == 0) {
      builder.clone(op, map);
      return success();
    }
    return op.emitOpError()
           << "cannot be partitioned in the body of a loop over layers: tp "
              "partitions tensor.extract_slice, tensor.insert_slice, "
              "func.call and shard.shard there; compute in the function the "
              "body calls";
  }

  /// The sharding of a tensor the body reads: one computed in the body, or
  /// the annotation of a value from outside the loop.
  FailureOr<Sharding> shardingOf(Value value, Operation *user) {
    auto found = shardings.find(value);
    if (found != shardings.end())
      return found->second;
    if (auto shardOp = value.getDefiningOp<ShardOp>())
      return Sharding(shardOp.getSharding());
    return user->emitOpError()
           << "reads a tensor from outside the loop that has no sharding: "
              "annotate it with shard.shard before the loop";
  }

  Value partitioned(Value value) { return map.lookupOrDefault(value); }

  GridOp gridOf(Operation *op, const Sharding &sharding) {
    return getGrid(op, sharding.getGridAttr(), symbols);
  }

  LogicalResult partitionShard(ShardOp shardOp) {
    Sharding target(shardOp.getSharding());
    Value source = shardOp.getSrc();
    Value result;
    if (auto sourceShard = source.getDefiningOp<ShardOp>()) {
      // Two annotations in a row: upstream's resharding between them.
      result =
          reshard(builder, sourceShard, shardOp,
                  cast<TypedValue<ShapedType>>(partitioned(source)), symbols);
    } else {
      FailureOr<Sharding> current = shardingOf(source, shardOp);
      if (failed(current))
        return failure();
      if (*current != target)
        return shardOp.emitOpError()
               << "annotates a value split as " << describe(*current)
               << " with " << describe(target)
               << ": in a loop body only a shard.shard after another one "
                  "reshards";
      result = partitioned(source);
    }
    map.map(shardOp.getResult(), result);
    setSharding(shardOp.getResult(), target);
    return success();
  }

  /// The sizes of a slice of a split tensor: a split dim must be taken
  /// whole, and its per-rank size is `local`'s.
  FailureOr<SmallVector<OpFoldResult>>
  localSizes(OffsetSizeAndStrideOpInterface slice, const Sharding &sharding,
             RankedTensorType whole, RankedTensorType local) {
    SmallVector<OpFoldResult> sizes = slice.getMixedSizes();
    for (int64_t dim = 0; dim < whole.getRank(); ++dim) {
      if (axesOf(sharding, dim).empty())
        continue;
      if (!takesWholeDim(slice, dim, whole.getDimSize(dim)))
        return slice->emitOpError()
               << "slices dim " << dim << ", which is split across ranks ("
               << describe(sharding)
               << "): a loop body may slice only dims that are not split";
      sizes[dim] = builder.getIndexAttr(local.getDimSize(dim));
    }
    return sizes;
  }

  /// The sharding of a slice of `whole`: its split axes without the dims the
  /// slice drops, which must not be split.
  FailureOr<Sharding> withoutDims(Operation *op, const Sharding &whole,
                                  int64_t rank,
                                  const llvm::SmallBitVector &dropped) {
    SmallVector<GridAxesAttr> axes;
    for (int64_t dim = 0; dim < rank; ++dim) {
      if (dropped.test(dim)) {
        if (!axesOf(whole, dim).empty())
          return op->emitOpError()
                 << "drops dim " << dim << ", which is split across ranks ("
                 << describe(whole) << ")";
        continue;
      }
      axes.push_back(
          GridAxesAttr::get(builder.getContext(), axesOf(whole, dim)));
    }
    // Upstream's shardings list no unsplit dims past the last split one.
    while (axes.size() > 1 && axes.back().asArrayRef().empty())
      axes.pop_back();
    if (!whole.getStaticHaloSizes().empty() ||
        !whole.getStaticShardedDimsOffsets().empty() ||
        !whole.getDynamicHaloSizes().empty() ||
        !whole.getDynamicShardedDimsOffsets().empty())
      return op->emitOpError() << "reads a tensor with halos or uneven "
                                  "shards, which a loop body cannot slice";
    return Sharding::get(whole.getGridAttr(), axes);
  }

  SmallVector<OpFoldResult> mapped(ArrayRef<OpFoldResult> values) {
    return llvm::map_to_vector(values, [&](OpFoldResult value) {
      if (auto v = dyn_cast<Value>(value))
        return OpFoldResult(partitioned(v));
      return value;
    });
  }

  LogicalResult partitionExtract(tensor::ExtractSliceOp slice) {
    FailureOr<Sharding> source = shardingOf(slice.getSource(), slice);
    if (failed(source))
      return failure();
    RankedTensorType whole = slice.getSourceType();
    FailureOr<Sharding> result =
        withoutDims(slice, *source, whole.getRank(), slice.getDroppedDims());
    if (failed(result))
      return failure();
    Value local = partitioned(slice.getSource());
    FailureOr<SmallVector<OpFoldResult>> sizes = localSizes(
        slice, *source, whole, cast<RankedTensorType>(local.getType()));
    if (failed(sizes))
      return failure();
    auto resultType = cast<RankedTensorType>(
        shardType(slice.getType(), gridOf(slice, *result), *result));
    auto newSlice =
        tensor::ExtractSliceOp::create(builder, slice.getLoc(), resultType,
                                       local, mapped(slice.getMixedOffsets()),
                                       *sizes, mapped(slice.getMixedStrides()));
    map.map(slice.getResult(), newSlice.getResult());
    setSharding(slice.getResult(), *result);
    return success();
  }

  LogicalResult partitionInsert(tensor::InsertSliceOp insert) {
    FailureOr<Sharding> dest = shardingOf(insert.getDest(), insert);
    FailureOr<Sharding> source = shardingOf(insert.getSource(), insert);
    if (failed(dest) || failed(source))
      return failure();
    RankedTensorType whole = insert.getDestType();
    FailureOr<Sharding> expected =
        withoutDims(insert, *dest, whole.getRank(), insert.getDroppedDims());
    if (failed(expected))
      return failure();
    if (!expected->equalSplitAxes(*source))
      return insert.emitOpError()
             << "inserts a slice split as " << describe(*source)
             << " into a tensor whose slice is split as "
             << describe(*expected);
    Value local = partitioned(insert.getDest());
    FailureOr<SmallVector<OpFoldResult>> sizes = localSizes(
        insert, *dest, whole, cast<RankedTensorType>(local.getType()));
    if (failed(sizes))
      return failure();
    auto newInsert = tensor::InsertSliceOp::create(
        builder, insert.getLoc(), partitioned(insert.getSource()), local,
        mapped(insert.getMixedOffsets()), *sizes,
        mapped(insert.getMixedStrides()));
    map.map(insert.getResult(), newInsert.getResult());
    setSharding(insert.getResult(), *dest);
    return success();
  }

  /// A call's per-rank result types follow from the annotations on its
  /// results; upstream gives the callee the same signature when it
  /// partitions it, and func.call's verifier holds the two together.
  LogicalResult partitionCall(func::CallOp call) {
    SmallVector<Type> resultTypes;
    for (OpResult result : call->getResults()) {
      if (!isShardable(result.getType())) {
        resultTypes.push_back(result.getType());
        continue;
      }
      auto annotation = result.hasOneUse()
                            ? dyn_cast<ShardOp>(*result.user_begin())
                            : ShardOp();
      if (!annotation || annotation.getAnnotateForUsers())
        return call.emitOpError()
               << "result " << result.getResultNumber()
               << " needs one use, a shard.shard giving its sharding, to be "
                  "partitioned in a loop body";
      Sharding sharding(annotation.getSharding());
      resultTypes.push_back(
          shardType(result.getType(), gridOf(call, sharding), sharding));
      setSharding(result, sharding);
    }
    for (Value operand : call.getOperands())
      if (isShardable(operand.getType()) && failed(shardingOf(operand, call)))
        return failure();
    auto operands = llvm::map_to_vector(
        call.getOperands(), [&](Value v) { return partitioned(v); });
    auto newCall = func::CallOp::create(
        builder, call.getLoc(), call.getCalleeAttr(), resultTypes, operands);
    newCall->setDiscardableAttrs(call->getDiscardableAttrDictionary());
    map.map(call.getResults(), newCall.getResults());
    return success();
  }

  LogicalResult partitionYield(scf::YieldOp yield) {
    for (auto [index, value] : llvm::enumerate(yield.getOperands())) {
      if (!isShardable(value.getType()))
        continue;
      FailureOr<Sharding> sharding = shardingOf(value, yield);
      if (failed(sharding))
        return failure();
      if (!sharding->equalSplitAxes(carried[index]))
        return yield.emitOpError()
               << "yields carried value " << index << " split as "
               << describe(*sharding) << ", but the loop carries it split as "
               << describe(carried[index]);
    }
    auto operands = llvm::map_to_vector(
        yield.getOperands(), [&](Value v) { return partitioned(v); });
    scf::YieldOp::create(builder, yield.getLoc(), operands);
    return success();
  }

  IRMapping &map;
  SymbolTableCollection &symbols;
  OpBuilder &builder;
  DenseMap<Value, Sharding> shardings;
};

struct LayerLoopShardingModel
    : public ShardingInterface::ExternalModel<LayerLoopShardingModel,
                                              scf::ForOp> {
  SmallVector<utils::IteratorType> getLoopIteratorTypes(Operation *) const {
    return {};
  }
  SmallVector<AffineMap> getIndexingMaps(Operation *) const { return {}; }

  /// Nothing flows through the loop: its annotations are written.
  FailureOr<ShardingOption> getShardingOption(Operation *, ArrayRef<Sharding>,
                                              ArrayRef<Sharding>) const {
    return ShardingOption::makeEmpty();
  }

  LogicalResult partition(Operation *op, ArrayRef<Value> partitionedOperands,
                          ArrayRef<Sharding> operandShardings,
                          ArrayRef<Sharding> resultShardings, IRMapping &map,
                          SymbolTableCollection &symbols,
                          OpBuilder &builder) const {
    auto loop = cast<scf::ForOp>(op);
    unsigned firstInit = loop.getNumControlOperands();
    ArrayRef<Value> inits = partitionedOperands.drop_front(firstInit);
    BodyPartitioner body(map, symbols, builder);
    for (auto [index, arg] : llvm::enumerate(loop.getRegionIterArgs())) {
      Sharding operand = operandShardings[firstInit + index];
      Sharding result = resultShardings[index];
      if (isShardable(arg.getType()) && !operand.equalSplitAxes(result))
        return loop.emitOpError()
               << "carries value " << index << " in as " << describe(operand)
               << " and out as " << describe(result)
               << ": a carried value keeps its sharding";
      body.carried.push_back(operand);
      if (isShardable(arg.getType()))
        body.setSharding(arg, operand);
    }

    auto newLoop = scf::ForOp::create(
        builder, loop.getLoc(), partitionedOperands[0], partitionedOperands[1],
        partitionedOperands[2], inits);
    newLoop.setUnsignedCmp(loop.getUnsignedCmp());
    Block *newBody = newLoop.getBody();
    // The builder gives an empty body a yield only without carried values.
    if (!newBody->empty())
      newBody->getTerminator()->erase();
    map.map(loop.getInductionVar(), newLoop.getInductionVar());
    map.map(loop.getRegionIterArgs(), newLoop.getRegionIterArgs());
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(newBody);
    if (failed(body.partition(*loop.getBody())))
      return failure();
    map.map(loop.getResults(), newLoop.getResults());
    return success();
  }
};

} // namespace

void mlir::tp::registerShardingModels(DialectRegistry &registry) {
  arith::registerShardingInterfaceExternalModels(registry);
  func::registerShardingInterfaceExternalModels(registry);
  linalg::registerShardingInterfaceExternalModels(registry);
  tensor::registerShardingInterfaceExternalModels(registry);
  registry.addExtension(+[](MLIRContext *ctx, scf::SCFDialect *) {
    scf::ForOp::attachInterface<LayerLoopShardingModel>(*ctx);
  });
}

void mlir::tp::registerShardingPasses() {
  shard::registerShardingPropagation();
  shard::registerPartition();
}
