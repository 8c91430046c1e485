//===- Bufferize.cpp - tp ops bufferize into runtime calls ----------------===//
//
// Every tp op on tensors reads its operands and writes fresh results, so its
// bufferization is the runtime call itself: stage each operand buffer, stage
// a newly allocated buffer per result (sizes follow from the operands, as the
// op's semantics say), call the op's entry with its attributes.
//
//===----------------------------------------------------------------------===//

#include "tp/Conversion/TPToRuntime/RuntimeCalls.h"
#include "tp/Conversion/TPToRuntime/TPToRuntime.h"
#include "tp/Dialect/TP/IR/TPOps.h"
#include "tp/Runtime/ABI.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::bufferization;

std::optional<int32_t> mlir::tp::runtimeDTypeOf(Type type) {
  if (type.isF32())
    return TP_RT_F32;
  if (type.isF64())
    return TP_RT_F64;
  if (type.isF16())
    return TP_RT_F16;
  if (type.isBF16())
    return TP_RT_BF16;
  if (isa<Float8E4M3FNType>(type))
    return TP_RT_F8E4M3FN;
  if (isa<Float8E5M2Type>(type))
    return TP_RT_F8E5M2;
  if (isa<Float8E8M0FNUType>(type))
    return TP_RT_F8E8M0FNU;
  if (isa<Float4E2M1FNType>(type))
    return TP_RT_F4E2M1FN;
  if (type.isSignlessInteger(1))
    return TP_RT_I1;
  if (type.isSignlessInteger(32))
    return TP_RT_I32;
  if (type.isSignlessInteger(64) || type.isIndex())
    return TP_RT_I64;
  return std::nullopt;
}

namespace {

/// One op's lowering: what it stages and the entry it calls with which
/// attributes. Its results' sizes come from the op (ResultShapes.cpp).
struct Lowering {
  struct Staged {
    int32_t role, index;
    Value value;
  };
  SmallVector<Staged> operands;
  std::string entry;
  /// Attribute operands after (ctx, site[, grid, axes]): values and their
  /// integer widths.
  SmallVector<std::pair<int64_t, unsigned>> attributes;
  bool hasGroup = false;

  void stage(int32_t role, Value value, int32_t index = 0) {
    if (value)
      operands.push_back({role, index, value});
  }
};

} // namespace

static int32_t algorithmCode(std::optional<Algorithm> algorithm) {
  switch (algorithm.value_or(Algorithm::PerPeer)) {
  case Algorithm::Ring:
    return TP_RT_RING;
  case Algorithm::Coalesced:
    return TP_RT_COALESCED;
  case Algorithm::PerPeer:
    break;
  }
  return TP_RT_PER_PEER;
}

/// Fills `lowering` for `op`; fails with a diagnostic for what the runtime
/// cannot run.
static LogicalResult describe(Operation *op, Lowering &lowering) {
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](AllGatherOp o) {
        lowering.stage(TP_RT_ROLE_INPUT, o.getInput());
        int64_t dim = o.getDim();
        lowering.entry = "tp_rt_all_gather";
        lowering.hasGroup = true;
        lowering.attributes = {{dim, 64}};
        return success();
      })
      .Case([&](ReduceScatterOp o) {
        lowering.stage(TP_RT_ROLE_INPUT, o.getInput());
        int64_t dim = o.getDim();
        int64_t reduce = static_cast<int64_t>(o.getReduce());
        lowering.entry = "tp_rt_reduce_scatter";
        lowering.hasGroup = true;
        lowering.attributes = {{dim, 64}, {reduce, 32}};
        return success();
      })
      .Case([&](AllToAllOp o) {
        lowering.stage(TP_RT_ROLE_INPUT, o.getInput());
        int64_t split = o.getSplit(), concat = o.getConcat();
        lowering.entry = "tp_rt_all_to_all";
        lowering.hasGroup = true;
        lowering.attributes = {{split, 64}, {concat, 64}};
        return success();
      })
      .Case([&](AllReduceOp o) {
        lowering.stage(TP_RT_ROLE_INPUT, o.getInput());
        int64_t reduce = static_cast<int64_t>(o.getReduce());
        lowering.entry = "tp_rt_all_reduce";
        lowering.hasGroup = true;
        lowering.attributes = {{reduce, 32}};
        return success();
      })
      .Case<MatmulOp, BatchMatmulOp>([&](Operation *) {
        Value lhs = op->getOperand(0), rhs = op->getOperand(1);
        bool transposeB = op->hasAttr("transpose_b");
        lowering.stage(TP_RT_ROLE_INPUT, lhs);
        lowering.stage(TP_RT_ROLE_WEIGHT, rhs);
        // A batched B [batch, K, N] has its N one dim further.
        lowering.entry = "tp_rt_matmul";
        lowering.attributes = {{transposeB, 32}};
        return success();
      })
      .Case([&](QuantizeOp o) {
        lowering.stage(TP_RT_ROLE_INPUT, o.getInput());
        if (o.getAmax())
          lowering.stage(TP_RT_ROLE_AMAX, o.getAmax());
        ScalingMode mode = o.getMode();
        lowering.entry = "tp_rt_quantize";
        lowering.attributes = {{static_cast<int64_t>(mode), 32}};
        return success();
      })
      .Case([&](DequantizeOp o) {
        lowering.stage(TP_RT_ROLE_INPUT, o.getInput());
        lowering.stage(TP_RT_ROLE_INPUT_SCALE, o.getScale());
        lowering.stage(TP_RT_ROLE_INPUT_GLOBAL, o.getGlobalScale());
        int64_t mode = static_cast<int64_t>(o.getMode());
        lowering.entry = "tp_rt_dequantize";
        lowering.attributes = {{mode, 32}};
        return success();
      })
      .Case([&](ScaledMatmulOp o) {
        Value a = o.getA(), bv = o.getB();
        lowering.stage(TP_RT_ROLE_INPUT, a);
        lowering.stage(TP_RT_ROLE_INPUT_SCALE, o.getAScale());
        lowering.stage(TP_RT_ROLE_INPUT_GLOBAL, o.getAGlobalScale());
        lowering.stage(TP_RT_ROLE_WEIGHT, bv);
        lowering.stage(TP_RT_ROLE_WEIGHT_SCALE, o.getBScale());
        lowering.stage(TP_RT_ROLE_WEIGHT_GLOBAL, o.getBGlobalScale());
        lowering.stage(TP_RT_ROLE_BIAS, o.getBias());
        int64_t mode = static_cast<int64_t>(o.getMode());
        lowering.entry = "tp_rt_scaled_matmul";
        lowering.attributes = {{mode, 32}};
        return success();
      })
      .Case([&](AllGatherMatmulOp o) {
        Value a = o.getA();
        lowering.stage(TP_RT_ROLE_INPUT, a);
        SmallVector<Value> bs(o.getBs());
        for (auto [i, b] : llvm::enumerate(bs)) {
          lowering.stage(TP_RT_ROLE_WEIGHT, b, i);
          lowering.stage(TP_RT_ROLE_BIAS, o.getBiasOf(i), i);
        }
        int64_t dim = o.getDim();
        bool transposeB = o.getTransposeB(), gathered = o.getReturnGathered();
        lowering.entry = "tp_rt_all_gather_matmul";
        lowering.hasGroup = true;
        int32_t algorithm = algorithmCode(o.getAlgorithm());
        int64_t chunks = o.getChunks().value_or(0);
        int64_t streams = o.getStreams().value_or(0);
        lowering.attributes = {
            {dim, 64},       {-1, 32},     {transposeB, 32}, {gathered, 32},
            {algorithm, 32}, {chunks, 64}, {streams, 32}};
        return success();
      })
      .Case([&](AllToAllMatmulOp o) {
        Value a = o.getA();
        lowering.stage(TP_RT_ROLE_INPUT, a);
        SmallVector<Value> bs(o.getBs());
        for (auto [i, b] : llvm::enumerate(bs)) {
          lowering.stage(TP_RT_ROLE_WEIGHT, b, i);
          lowering.stage(TP_RT_ROLE_BIAS, o.getBiasOf(i), i);
        }
        int64_t split = o.getSplit(), concat = o.getConcat();
        bool transposeB = o.getTransposeB(), exchanged = o.getReturnExchanged();
        // A product has the exchanged A's dims but the last, which is B's N.
        lowering.entry = "tp_rt_all_to_all_matmul";
        lowering.hasGroup = true;
        int32_t algorithm = algorithmCode(o.getAlgorithm());
        int64_t chunks = o.getChunks().value_or(0);
        int64_t streams = o.getStreams().value_or(0);
        lowering.attributes = {
            {split, 64},     {concat, 64}, {transposeB, 32}, {exchanged, 32},
            {algorithm, 32}, {chunks, 64}, {streams, 32}};
        return success();
      })
      .Case([&](MatmulAllToAllOp o) {
        Value a = o.getA(), b = o.getB();
        lowering.stage(TP_RT_ROLE_INPUT, a);
        lowering.stage(TP_RT_ROLE_WEIGHT, b);
        int64_t split = o.getSplit(), concat = o.getConcat();
        bool transposeB = o.getTransposeB(), product = o.getReturnProduct();
        lowering.entry = "tp_rt_matmul_all_to_all";
        lowering.hasGroup = true;
        int32_t algorithm = algorithmCode(o.getAlgorithm());
        int64_t chunks = o.getChunks().value_or(0);
        int64_t streams = o.getStreams().value_or(0);
        lowering.attributes = {{split, 64},   {concat, 64},    {transposeB, 32},
                               {product, 32}, {algorithm, 32}, {chunks, 64},
                               {streams, 32}};
        return success();
      })
      .Case([&](AllGatherContractOp o) {
        Value x = o.getX();
        lowering.stage(TP_RT_ROLE_INPUT, x);
        SmallVector<Value> others(o.getOthers());
        for (auto [i, other] : llvm::enumerate(others))
          lowering.stage(TP_RT_ROLE_WEIGHT, other, i);
        int64_t dim = o.getDim();
        bool gathered = o.getReturnGathered(), gatheredLhs = o.getGatheredLhs();
        lowering.entry = "tp_rt_all_gather_contract";
        lowering.hasGroup = true;
        int32_t algorithm = algorithmCode(o.getAlgorithm());
        int64_t chunks = o.getChunks().value_or(0);
        int64_t streams = o.getStreams().value_or(0);
        lowering.attributes = {{dim, 64},
                               {gatheredLhs, 32},
                               {o.getTransposeA(), 32},
                               {o.getTransposeB(), 32},
                               {gathered, 32},
                               {algorithm, 32},
                               {chunks, 64},
                               {streams, 32}};
        return success();
      })
      .Case([&](AllGatherScaledMatmulOp o) {
        Value a = o.getA(), aScale = o.getAScale();
        lowering.stage(TP_RT_ROLE_INPUT, a);
        lowering.stage(TP_RT_ROLE_INPUT_SCALE, aScale);
        lowering.stage(TP_RT_ROLE_INPUT_GLOBAL, o.getAGlobalScale());
        SmallVector<Value> bs(o.getBs());
        for (auto [i, b] : llvm::enumerate(bs)) {
          lowering.stage(TP_RT_ROLE_WEIGHT, b, i);
          lowering.stage(TP_RT_ROLE_WEIGHT_SCALE, o.getBScales()[i], i);
          lowering.stage(TP_RT_ROLE_WEIGHT_GLOBAL, o.getBGlobalScaleOf(i), i);
          lowering.stage(TP_RT_ROLE_BIAS, o.getBiasOf(i), i);
        }
        int64_t dim = o.getDim();
        bool gathered = o.getReturnGathered();
        int64_t mode = static_cast<int64_t>(o.getMode());
        lowering.entry = "tp_rt_all_gather_matmul";
        lowering.hasGroup = true;
        int32_t algorithm = algorithmCode(o.getAlgorithm());
        int64_t chunks = o.getChunks().value_or(0);
        int64_t streams = o.getStreams().value_or(0);
        lowering.attributes = {{dim, 64},      {mode, 32},      {1, 32},
                               {gathered, 32}, {algorithm, 32}, {chunks, 64},
                               {streams, 32}};
        return success();
      })
      .Case<MatmulReduceScatterOp, ScaledMatmulReduceScatterOp>(
          [&](Operation *) {
            auto plain = dyn_cast<MatmulReduceScatterOp>(op);
            auto scaled = dyn_cast<ScaledMatmulReduceScatterOp>(op);
            Value a = plain ? plain.getA() : scaled.getA();
            Value bv = plain ? plain.getB() : scaled.getB();
            lowering.stage(TP_RT_ROLE_INPUT, a);
            lowering.stage(TP_RT_ROLE_WEIGHT, bv);
            lowering.stage(TP_RT_ROLE_BIAS,
                           plain ? plain.getBias() : scaled.getBias());
            int64_t mode = -1;
            bool transposeB = true;
            if (plain) {
              lowering.stage(TP_RT_ROLE_ADDEND, plain.getAddend());
              transposeB = plain.getTransposeB();
            } else {
              lowering.stage(TP_RT_ROLE_INPUT_SCALE, scaled.getAScale());
              lowering.stage(TP_RT_ROLE_INPUT_GLOBAL, scaled.getAGlobalScale());
              lowering.stage(TP_RT_ROLE_WEIGHT_SCALE, scaled.getBScale());
              lowering.stage(TP_RT_ROLE_WEIGHT_GLOBAL,
                             scaled.getBGlobalScale());
              mode = static_cast<int64_t>(scaled.getMode());
            }
            int64_t dim = plain ? plain.getDim() : scaled.getDim();
            int64_t reduce = static_cast<int64_t>(plain ? plain.getReduce()
                                                        : scaled.getReduce());
            bool unreduced = plain ? plain.getReturnUnreduced()
                                   : scaled.getReturnUnreduced();
            auto algorithm =
                plain ? plain.getAlgorithm() : scaled.getAlgorithm();
            int64_t chunks =
                (plain ? plain.getChunks() : scaled.getChunks()).value_or(0);
            int64_t streams =
                (plain ? plain.getStreams() : scaled.getStreams()).value_or(0);
            lowering.entry = "tp_rt_matmul_reduce_scatter";
            lowering.hasGroup = true;
            int32_t algorithmValue = algorithmCode(algorithm);
            lowering.attributes = {{dim, 64},       {reduce, 32},
                                   {mode, 32},      {transposeB, 32},
                                   {unreduced, 32}, {algorithmValue, 32},
                                   {chunks, 64},    {streams, 32}};
            return success();
          })
      .Default([&](Operation *) {
        return op->emitError("has no runtime lowering; run tp-lower-linear "
                             "and tp-to-runtime first");
      });
}

static LogicalResult lowerToRuntimeCall(Operation *op, RewriterBase &rewriter,
                                        const BufferizationOptions &options,
                                        BufferizationState &state) {
  Location loc = op->getLoc();
  Value ctx = runtime::rankContextOf(op);
  if (!ctx)
    return failure();
  SmallVector<int64_t> gridShape, axes;
  if (auto gridRef = op->getAttrOfType<FlatSymbolRefAttr>("grid")) {
    SymbolTableCollection table;
    auto axesAttr = op->getAttrOfType<DenseI16ArrayAttr>("grid_axes");
    FailureOr<GroupInfo> group =
        resolveGroup(op, gridRef, axesAttr.asArrayRef(), table);
    if (failed(group))
      return failure();
    if (!group->isStatic() ||
        llvm::any_of(group->grid.getShape(), ShapedType::isDynamic))
      return op->emitError("grid @")
             << gridRef.getValue()
             << " has a dynamic size; compiled programs need static grids";
    gridShape.assign(group->grid.getShape().begin(),
                     group->grid.getShape().end());
    axes.assign(axesAttr.asArrayRef().begin(), axesAttr.asArrayRef().end());
  }
  Lowering lowering;
  if (failed(describe(op, lowering)))
    return failure();

  // Buffers: the operands', and one new buffer per result.
  struct Staging {
    int32_t role, index;
    Value buffer;
  };
  SmallVector<Staging> staging;
  for (const Lowering::Staged &s : lowering.operands) {
    FailureOr<Value> buffer = getBuffer(rewriter, s.value, options, state);
    if (failed(buffer))
      return failure();
    staging.push_back({s.role, s.index, *buffer});
  }
  // Each result's sizes, from the op's own shape rules; operand dims are
  // read before the call.
  ReifiedRankedShapedTypeDims shapes;
  if (failed(reifyResultShapes(rewriter, op, shapes)))
    return op->emitError("cannot size its results from its operands");
  SmallVector<Value> results;
  for (auto [i, result] : llvm::enumerate(op->getResults())) {
    auto type = cast<RankedTensorType>(result.getType());
    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        dynamicSizes.push_back(
            getValueOrCreateConstantIndexOp(rewriter, loc, shapes[i][d]));
    auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
    FailureOr<Value> alloc =
        options.createAlloc(rewriter, loc, memrefType, dynamicSizes);
    if (failed(alloc))
      return failure();
    staging.push_back({TP_RT_ROLE_RESULT, static_cast<int32_t>(i), *alloc});
    results.push_back(*alloc);
  }
  for (const Staging &s : staging) {
    Type elementType = cast<MemRefType>(s.buffer.getType()).getElementType();
    if (!runtimeDTypeOf(elementType))
      return op->emitError("has an element type the runtime does not have: ")
             << elementType;
  }

  // The calls, in a scope: the unranked descriptors they take live on the
  // stack, which must not grow with every iteration of a loop around the op.
  auto scope = memref::AllocaScopeOp::create(rewriter, loc, TypeRange{});
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(&scope.getBodyRegion().emplaceBlock());
  for (const Staging &s : staging) {
    Type elementType = cast<MemRefType>(s.buffer.getType()).getElementType();
    auto unranked = UnrankedMemRefType::get(elementType, 0);
    Value cast = memref::CastOp::create(rewriter, loc, unranked, s.buffer);
    std::string entry;
    llvm::raw_string_ostream os(entry);
    os << "tp_rt_buffer_" << elementType;
    runtime::call(rewriter, loc, op, entry, {},
                  {ctx, runtime::constantI32(rewriter, loc, s.role),
                   runtime::constantI32(rewriter, loc, s.index), cast});
  }
  SmallVector<Value> operands = {ctx, runtime::siteBuffer(rewriter, op)};
  if (lowering.hasGroup)
    operands.append({runtime::integerBuffer(rewriter, loc, op, gridShape),
                     runtime::integerBuffer(rewriter, loc, op, axes)});
  for (auto [value, width] : lowering.attributes)
    operands.push_back(
        arith::ConstantIntOp::create(rewriter, loc, value, width));
  runtime::call(rewriter, loc, op, lowering.entry, {}, operands);
  memref::AllocaScopeReturnOp::create(rewriter, loc, ValueRange{});
  rewriter.setInsertionPointAfter(scope);
  replaceOpWithBufferizedValues(rewriter, op, results);
  return success();
}

namespace {
/// A tp op reads its operands and writes new buffers: no aliasing, no
/// in-place writes.
template <typename OpTy>
struct RuntimeCallModel
    : public BufferizableOpInterface::ExternalModel<RuntimeCallModel<OpTy>,
                                                    OpTy> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const AnalysisState &) const {
    return false;
  }
  AliasingValueList getAliasingValues(Operation *, OpOperand &,
                                      const AnalysisState &) const {
    return {};
  }
  bool bufferizesToAllocation(Operation *, Value) const { return true; }
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    return lowerToRuntimeCall(op, rewriter, options, state);
  }
};

template <typename... OpTys> void attachModels(MLIRContext *context) {
  (OpTys::template attachInterface<RuntimeCallModel<OpTys>>(*context), ...);
}
} // namespace

void mlir::tp::registerRuntimeCallBufferization(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, TPDialect *) {
    attachModels<AllGatherOp, ReduceScatterOp, AllReduceOp, AllToAllOp,
                 MatmulOp, BatchMatmulOp, QuantizeOp, DequantizeOp,
                 ScaledMatmulOp, AllGatherMatmulOp, AllGatherScaledMatmulOp,
                 AllGatherContractOp, AllToAllMatmulOp, MatmulAllToAllOp,
                 MatmulReduceScatterOp, ScaledMatmulReduceScatterOp>(context);
  });
}
