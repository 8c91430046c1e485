//===- TensorOps.cpp - tensor and linalg ops ------------------------------===//

#include "Machine.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/SmallBitVector.h"

#include <cstring>
#include <functional>

using namespace mlir;
using namespace mlir::tp;
using namespace mlir::tp::exec;

/// Static extents of `type`, with dynamic ones taken from `dynamicSizes`.
static std::vector<int64_t> resolveShape(RankedTensorType type,
                                         ArrayRef<int64_t> dynamicSizes) {
  std::vector<int64_t> shape;
  unsigned next = 0;
  for (int64_t d : type.getShape())
    shape.push_back(ShapedType::isDynamic(d) ? dynamicSizes[next++] : d);
  return shape;
}

/// The value of a mixed static/dynamic index list.
static std::vector<int64_t>
evalMixed(ArrayRef<OpFoldResult> mixed,
          const llvm::function_ref<int64_t(mlir::Value)> &valueOf) {
  std::vector<int64_t> result;
  for (OpFoldResult ofr : mixed) {
    if (auto attr = dyn_cast<Attribute>(ofr))
      result.push_back(cast<IntegerAttr>(attr).getInt());
    else
      result.push_back(valueOf(cast<mlir::Value>(ofr)));
  }
  return result;
}

/// Calls fn(flat index into the slice, flat index into the source) for every
/// element of the slice (offsets, sizes, strides of the same rank as src).
static void forEachSliceElement(
    const std::vector<int64_t> &srcShape, const std::vector<int64_t> &offsets,
    const std::vector<int64_t> &sizes, const std::vector<int64_t> &strides,
    const std::function<void(int64_t, int64_t)> &fn) {
  int64_t rank = srcShape.size();
  std::vector<int64_t> srcStrides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    srcStrides[d] = srcStrides[d + 1] * srcShape[d + 1];
  int64_t count = 1;
  for (int64_t s : sizes)
    count *= s;
  std::vector<int64_t> index(rank, 0);
  for (int64_t k = 0; k < count; ++k) {
    int64_t src = 0;
    for (int64_t d = 0; d < rank; ++d)
      src += (offsets[d] + index[d] * strides[d]) * srcStrides[d];
    fn(k, src);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < sizes[d])
        break;
      index[d] = 0;
    }
  }
}

rt::Status Machine::executeTensorOp(Operation *op, Env &env, bool &handled) {
  handled = true;
  auto valueOf = [&](mlir::Value v) { return env[v].scalar.i; };
  auto setTensor = [&](rt::Tensor t) {
    env[op->getResult(0)] = Value::ofTensor(std::move(t));
    return rt::Status::ok();
  };
  auto dtypeOf = [&](Type type, rt::DType &dtype) {
    std::optional<rt::DType> d = toDType(type);
    if (!d)
      return rt::Status::error(siteOf(op) + ": unsupported element type");
    dtype = *d;
    return rt::Status::ok();
  };
  const rt::Tensor *src = nullptr;

  if (auto empty = dyn_cast<tensor::EmptyOp>(op)) {
    rt::DType dtype = rt::DType::F32;
    TP_RETURN_IF_ERROR(dtypeOf(empty.getType(), dtype));
    std::vector<int64_t> sizes;
    for (mlir::Value v : empty.getDynamicSizes())
      sizes.push_back(valueOf(v));
    return setTensor(rt::Tensor(dtype, resolveShape(empty.getType(), sizes)));
  }
  if (auto fill = dyn_cast<linalg::FillOp>(op)) {
    if (!fill.hasPureTensorSemantics())
      return rt::Status::error(siteOf(op) + ": fills buffers, not tensors");
    TP_RETURN_IF_ERROR(tensorOperand(env, fill.getOutputs()[0], op, src));
    const Value &value = env[fill.getInputs()[0]];
    bool isFloat = isa<FloatType>(fill.getInputs()[0].getType());
    rt::Tensor result(src->dtype(), src->shape());
    double v = isFloat ? value.scalar.f : static_cast<double>(value.scalar.i);
    for (int64_t k = 0, n = result.numElements(); k < n; ++k)
      result.set(k, v);
    return setTensor(std::move(result));
  }
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op)) {
    TP_RETURN_IF_ERROR(tensorOperand(env, collapse.getSrc(), op, src));
    std::vector<int64_t> shape;
    for (const ReassociationIndices &group :
         collapse.getReassociationIndices()) {
      int64_t size = 1;
      for (int64_t d : group)
        size *= src->dim(d);
      shape.push_back(size);
    }
    return setTensor(src->reshaped(shape));
  }
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
    TP_RETURN_IF_ERROR(tensorOperand(env, expand.getSrc(), op, src));
    std::vector<int64_t> shape =
        evalMixed(expand.getMixedOutputShape(), valueOf);
    rt::Tensor reshaped = src->reshaped(shape);
    if (reshaped.numElements() != src->numElements())
      return rt::Status::error(siteOf(op) + ": cannot expand " +
                               src->typeString() + " into " +
                               reshaped.typeString());
    return setTensor(std::move(reshaped));
  }
  if (auto cast = dyn_cast<tensor::CastOp>(op)) {
    TP_RETURN_IF_ERROR(tensorOperand(env, cast.getSource(), op, src));
    auto type = mlir::cast<RankedTensorType>(cast.getType());
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (!type.isDynamicDim(d) && type.getDimSize(d) != src->dim(d))
        return rt::Status::error(siteOf(op) + ": " + src->typeString() +
                                 " does not have the static shape of the cast");
    return setTensor(*src);
  }
  if (auto dim = dyn_cast<tensor::DimOp>(op)) {
    TP_RETURN_IF_ERROR(tensorOperand(env, dim.getSource(), op, src));
    int64_t index = valueOf(dim.getIndex());
    if (index < 0 || index >= src->rank())
      return rt::Status::error(siteOf(op) + ": dim index out of range");
    env[op->getResult(0)] = Value::ofScalar(Scalar{src->dim(index), 0});
    return rt::Status::ok();
  }
  if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
    TP_RETURN_IF_ERROR(tensorOperand(env, extract.getTensor(), op, src));
    int64_t flat = 0;
    for (auto [d, v] : llvm::enumerate(extract.getIndices())) {
      int64_t i = valueOf(v);
      if (i < 0 || i >= src->dim(d))
        return rt::Status::error(siteOf(op) + ": index out of bounds");
      flat = flat * src->dim(d) + i;
    }
    double v = src->get(flat);
    Scalar s;
    if (isa<FloatType>(extract.getType()))
      s.f = v;
    else
      s.i = static_cast<int64_t>(v);
    env[op->getResult(0)] = Value::ofScalar(s);
    return rt::Status::ok();
  }
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
    TP_RETURN_IF_ERROR(tensorOperand(env, slice.getSource(), op, src));
    std::vector<int64_t> offsets = evalMixed(slice.getMixedOffsets(), valueOf);
    std::vector<int64_t> sizes = evalMixed(slice.getMixedSizes(), valueOf);
    std::vector<int64_t> strides = evalMixed(slice.getMixedStrides(), valueOf);
    for (int64_t d = 0; d < src->rank(); ++d)
      if (offsets[d] < 0 || sizes[d] < 0 ||
          (sizes[d] > 0 &&
           offsets[d] + (sizes[d] - 1) * strides[d] >= src->dim(d)))
        return rt::Status::error(siteOf(op) + ": slice out of bounds of " +
                                 src->typeString());
    rt::Tensor full(src->dtype(), sizes);
    size_t bytes = rt::byteSize(src->dtype());
    auto *out = static_cast<uint8_t *>(full.mutableData());
    auto *in = static_cast<const uint8_t *>(src->data());
    forEachSliceElement(
        src->shape(), offsets, sizes, strides, [&](int64_t dst, int64_t from) {
          std::memcpy(out + dst * bytes, in + from * bytes, bytes);
        });
    // A rank-reducing slice drops unit dims: same elements, fewer dims.
    std::vector<int64_t> shape;
    llvm::SmallBitVector dropped = slice.getDroppedDims();
    for (int64_t d = 0; d < src->rank(); ++d)
      if (!dropped.test(d))
        shape.push_back(sizes[d]);
    rt::Tensor result(src->dtype(), shape);
    std::memcpy(result.mutableData(), full.data(), full.numBytes());
    return setTensor(std::move(result));
  }
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
    const rt::Tensor *dest = nullptr;
    TP_RETURN_IF_ERROR(tensorOperand(env, insert.getSource(), op, src));
    TP_RETURN_IF_ERROR(tensorOperand(env, insert.getDest(), op, dest));
    std::vector<int64_t> offsets = evalMixed(insert.getMixedOffsets(), valueOf);
    std::vector<int64_t> sizes = evalMixed(insert.getMixedSizes(), valueOf);
    std::vector<int64_t> strides = evalMixed(insert.getMixedStrides(), valueOf);
    for (int64_t d = 0; d < dest->rank(); ++d)
      if (offsets[d] < 0 ||
          (sizes[d] > 0 &&
           offsets[d] + (sizes[d] - 1) * strides[d] >= dest->dim(d)))
        return rt::Status::error(siteOf(op) + ": slice out of bounds of " +
                                 dest->typeString());
    rt::Tensor result = *dest;
    size_t bytes = rt::byteSize(dest->dtype());
    auto *out = static_cast<uint8_t *>(result.mutableData());
    auto *in = static_cast<const uint8_t *>(src->data());
    forEachSliceElement(
        dest->shape(), offsets, sizes, strides, [&](int64_t from, int64_t dst) {
          std::memcpy(out + dst * bytes, in + from * bytes, bytes);
        });
    return setTensor(std::move(result));
  }
  if (auto splat = dyn_cast<tensor::SplatOp>(op)) {
    rt::DType dtype = rt::DType::F32;
    TP_RETURN_IF_ERROR(dtypeOf(splat.getType(), dtype));
    std::vector<int64_t> sizes;
    for (mlir::Value v : splat.getDynamicSizes())
      sizes.push_back(valueOf(v));
    rt::Tensor result(dtype, resolveShape(splat.getType(), sizes));
    const Value &value = env[splat.getInput()];
    double v = isa<FloatType>(splat.getInput().getType())
                   ? value.scalar.f
                   : static_cast<double>(value.scalar.i);
    for (int64_t k = 0, n = result.numElements(); k < n; ++k)
      result.set(k, v);
    return setTensor(std::move(result));
  }
  if (isa<linalg::GenericOp>(op))
    return executeGeneric(op, env);
  if (isa<linalg::LinalgOp>(op))
    return rt::Status::error(siteOf(op) +
                             ": unsupported operation; tp-import raises float "
                             "matmul-shaped contractions, and tp-run executes "
                             "element-wise linalg.generic and linalg.fill");
  handled = false;
  return rt::Status::ok();
}

rt::Status Machine::executeGeneric(Operation *op, Env &env) {
  auto generic = cast<linalg::GenericOp>(op);
  if (!generic.hasPureTensorSemantics() ||
      generic.getNumLoops() != generic.getNumParallelLoops())
    return rt::Status::error(siteOf(op) +
                             ": unsupported operation; tp-run "
                             "executes element-wise linalg.generic only");
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  for (AffineMap map : maps)
    if (!map.isProjectedPermutation())
      return rt::Status::error(siteOf(op) + ": indexing maps must be "
                                            "projected permutations");
  for (unsigned i = 0; i < generic.getNumDpsInits(); ++i)
    if (!maps[generic.getNumDpsInputs() + i].isIdentity())
      return rt::Status::error(siteOf(op) + ": outputs must use identity "
                                            "indexing maps");

  SmallVector<const Value *> operands;
  for (mlir::Value v : op->getOperands())
    operands.push_back(&env[v]);
  const Value &firstInit = *operands[generic.getNumDpsInputs()];
  if (!firstInit.isTensor)
    return rt::Status::error(siteOf(op) + ": expected tensor outputs");
  std::vector<int64_t> loopShape = firstInit.tensor.shape();
  // Dynamic shapes pass the verifier; every operand must still fit the loops.
  for (auto [i, operand] : llvm::enumerate(operands)) {
    if (!operand->isTensor)
      continue;
    AffineMap map = maps[i];
    bool fits = operand->tensor.rank() == map.getNumResults();
    for (unsigned r = 0; fits && r < map.getNumResults(); ++r)
      fits = operand->tensor.dim(r) == loopShape[map.getDimPosition(r)];
    if (!fits)
      return rt::Status::error(siteOf(op) + ": operand " + std::to_string(i) +
                               " " + operand->tensor.typeString() +
                               " does not fit the loops of the output");
  }
  std::vector<rt::Tensor> results;
  for (unsigned i = 0; i < generic.getNumDpsInits(); ++i) {
    std::optional<rt::DType> dtype = toDType(op->getResult(i).getType());
    if (!dtype)
      return rt::Status::error(siteOf(op) + ": unsupported element type");
    results.emplace_back(*dtype, loopShape);
  }

  // Number the body's values once; evaluate per element into slots.
  Block &body = generic.getRegion().front();
  llvm::DenseMap<mlir::Value, unsigned> slotOf;
  for (BlockArgument arg : body.getArguments())
    slotOf[arg] = slotOf.size();
  for (Operation &inner : body.without_terminator()) {
    if (inner.getNumResults() != 1 ||
        !(isa<arith::ArithDialect, math::MathDialect>(inner.getDialect()) ||
          isa<linalg::IndexOp>(inner)))
      return rt::Status::error(siteOf(&inner) +
                               ": unsupported in a linalg.generic body");
    slotOf[inner.getResult(0)] = slotOf.size();
  }
  std::vector<Scalar> slots(slotOf.size());
  auto slot = [&](mlir::Value v) -> Scalar {
    auto it = slotOf.find(v);
    if (it != slotOf.end())
      return slots[it->second];
    return env[v].scalar; // captured from above
  };
  int64_t count = 1;
  for (int64_t d : loopShape)
    count *= d;
  std::vector<int64_t> index(loopShape.size(), 0);
  SmallVector<Scalar> in;
  for (int64_t k = 0; k < count; ++k) {
    for (auto [i, operand] : llvm::enumerate(operands)) {
      const Value &value = *operand;
      Scalar &s = slots[i];
      if (!value.isTensor) {
        s = value.scalar;
        continue;
      }
      int64_t flat = 0;
      AffineMap map = maps[i];
      for (unsigned r = 0; r < map.getNumResults(); ++r)
        flat = flat * value.tensor.dim(r) + index[map.getDimPosition(r)];
      double v = value.tensor.get(flat);
      if (isa<FloatType>(body.getArgument(i).getType()))
        s.f = v;
      else
        s.i = static_cast<int64_t>(v);
    }
    for (Operation &inner : body.without_terminator()) {
      Scalar &out = slots[slotOf[inner.getResult(0)]];
      if (auto indexOp = dyn_cast<linalg::IndexOp>(inner)) {
        out = Scalar{index[indexOp.getDim()], 0};
        continue;
      }
      in.clear();
      for (mlir::Value v : inner.getOperands())
        in.push_back(slot(v));
      TP_RETURN_IF_ERROR(evalScalarOp(&inner, in, out));
    }
    for (auto [i, v] : llvm::enumerate(body.getTerminator()->getOperands())) {
      Scalar s = slot(v);
      results[i].set(k, isa<FloatType>(v.getType()) ? s.f
                                                    : static_cast<double>(s.i));
    }
    for (int64_t d = static_cast<int64_t>(loopShape.size()) - 1; d >= 0; --d) {
      if (++index[d] < loopShape[d])
        break;
      index[d] = 0;
    }
  }
  for (auto [result, tensor] : llvm::zip_equal(op->getResults(), results))
    env[result] = Value::ofTensor(std::move(tensor));
  return rt::Status::ok();
}
