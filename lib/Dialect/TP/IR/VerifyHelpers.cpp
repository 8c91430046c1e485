//===- VerifyHelpers.cpp - shape rules shared by tp verifiers -------------===//

#include "VerifyHelpers.h"
#include "tp/Runtime/ScaleLayout.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tp;

static std::string formatType(ArrayRef<int64_t> shape, Type elementType) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << RankedTensorType::get(shape, elementType);
  return text;
}

static std::string formatAxes(ArrayRef<int16_t> axes) {
  std::string text = "[";
  for (auto [i, axis] : llvm::enumerate(axes))
    text += (i ? ", " : "") + std::to_string(axis);
  return text + "]";
}

std::optional<int64_t> mlir::tp::checkedMul(int64_t a, int64_t b) {
  int64_t product;
  if (llvm::MulOverflow(a, b, product))
    return std::nullopt;
  return product;
}

LogicalResult mlir::tp::verifyTensorSizesFit(Operation *op) {
  auto check = [&](Type type, StringRef kind, unsigned index) -> LogicalResult {
    auto shaped = dyn_cast<RankedTensorType>(type);
    if (!shaped)
      return success();
    // Sub-byte elements are stored one per byte by the runtime; index and
    // other element types as 8 bytes.
    Type element = shaped.getElementType();
    int64_t bits =
        element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 64;
    int64_t bytes = std::max<int64_t>(1, llvm::divideCeil(bits, 8));
    // A static zero dim anywhere makes the tensor empty.
    if (llvm::is_contained(shaped.getShape(), 0))
      return success();
    std::optional<int64_t> total = bytes;
    for (int64_t d : shaped.getShape())
      if (total && !ShapedType::isDynamic(d))
        total = checkedMul(*total, d);
    if (total)
      return success();
    return op->emitOpError() << kind << " #" << index << " (" << type
                             << ") holds more bytes than int64 counts";
  };
  for (auto [i, type] : llvm::enumerate(op->getOperandTypes()))
    if (failed(check(type, "operand", i)))
      return failure();
  for (auto [i, type] : llvm::enumerate(op->getResultTypes()))
    if (failed(check(type, "result", i)))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Groups
//===----------------------------------------------------------------------===//

FailureOr<GroupInfo>
mlir::tp::resolveGroup(Operation *op, FlatSymbolRefAttr gridRef,
                       ArrayRef<int16_t> axes,
                       SymbolTableCollection &symbolTable) {
  auto grid = symbolTable.lookupNearestSymbolFrom<shard::GridOp>(op, gridRef);
  if (!grid)
    return op->emitOpError("'grid' ")
           << gridRef << " does not name a shard.grid";
  if (axes.empty())
    return op->emitOpError("'grid_axes' must name at least one axis of ")
           << gridRef;
  GroupInfo info{grid, {}, 1};
  ArrayRef<int64_t> shape = grid.getShape();
  int64_t staticSize = 1;
  for (int16_t axis : axes) {
    if (axis < 0 || axis >= static_cast<int64_t>(shape.size()))
      return op->emitOpError("grid axis ")
             << axis << " is out of range for grid " << gridRef << " of rank "
             << shape.size();
    if (llvm::is_contained(info.axes, axis))
      return op->emitOpError("grid axis ") << axis << " is named twice";
    info.axes.push_back(axis);
    int64_t extent = shape[axis];
    if (!ShapedType::isDynamic(extent) && extent < 1)
      return op->emitOpError("grid axis ")
             << axis << " of " << gridRef << " has extent " << extent
             << "; a group needs at least one rank";
    // The static extents must multiply without overflow, whatever the
    // order of the axes and wherever the dynamic ones are.
    if (ShapedType::isDynamic(extent))
      continue;
    std::optional<int64_t> size = checkedMul(staticSize, extent);
    if (!size)
      return op->emitOpError("the group over axes ")
             << formatAxes(axes) << " of " << gridRef
             << " has more ranks than int64 holds";
    staticSize = *size;
  }
  bool dynamic = llvm::any_of(info.axes, [&](int16_t axis) {
    return ShapedType::isDynamic(shape[axis]);
  });
  info.size = dynamic ? ShapedType::kDynamic : staticSize;
  return info;
}

std::optional<int64_t> mlir::tp::getStaticGroupSize(Operation *op) {
  auto gridRef = op->getAttrOfType<FlatSymbolRefAttr>("grid");
  auto axes = op->getAttrOfType<DenseI16ArrayAttr>("grid_axes");
  if (!gridRef || !axes)
    return std::nullopt;
  auto grid = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(op, gridRef);
  if (!grid)
    return std::nullopt;
  int64_t size = 1;
  for (int16_t axis : axes.asArrayRef()) {
    if (axis < 0 || axis >= grid.getRank())
      return std::nullopt;
    int64_t extent = grid.getShape()[axis];
    // Invalid groups (empty, or too many ranks) have no size to fold with.
    std::optional<int64_t> product = ShapedType::isDynamic(extent) || extent < 1
                                         ? std::nullopt
                                         : checkedMul(size, extent);
    if (!product)
      return std::nullopt;
    size = *product;
  }
  return size;
}

int64_t mlir::tp::scaleExtent(int64_t extent, int64_t groupSize) {
  if (ShapedType::isDynamic(extent) || ShapedType::isDynamic(groupSize))
    return ShapedType::kDynamic;
  std::optional<int64_t> scaled = checkedMul(extent, groupSize);
  assert(scaled && "scaling a verified extent cannot overflow");
  return *scaled;
}

FailureOr<int64_t> rules::scaleExtentChecked(Operation *op, StringRef name,
                                             int64_t dim, int64_t extent,
                                             int64_t groupSize) {
  if (ShapedType::isDynamic(extent) || ShapedType::isDynamic(groupSize))
    return ShapedType::kDynamic;
  if (std::optional<int64_t> scaled = checkedMul(extent, groupSize))
    return *scaled;
  return op->emitOpError("'")
         << name << "' dim " << dim << " (" << extent
         << ") times the group size " << groupSize << " overflows int64";
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

LogicalResult rules::verifyDimInRange(Operation *op, StringRef dimName,
                                      int64_t dim, StringRef tensorName,
                                      int64_t rank) {
  if (dim >= 0 && dim < rank)
    return success();
  return op->emitOpError("'")
         << dimName << "' " << dim << " is out of range for '" << tensorName
         << "' of rank " << rank;
}

LogicalResult rules::verifyGatheredShape(Operation *op, StringRef localName,
                                         RankedTensorType local,
                                         StringRef fullName,
                                         RankedTensorType full, int64_t dim,
                                         int64_t groupSize,
                                         bool localIsDerived) {
  // Messages blame the derived side: the gathered result of a gather, the
  // scattered result of a scatter.
  StringRef derivedName = localIsDerived ? localName : fullName;
  StringRef sourceName = localIsDerived ? fullName : localName;
  RankedTensorType derived = localIsDerived ? local : full;
  RankedTensorType source = localIsDerived ? full : local;
  if (local.getRank() != full.getRank())
    return op->emitOpError("'")
           << derivedName << "' rank " << derived.getRank() << " differs from '"
           << sourceName << "' rank " << source.getRank();
  if (local.getElementType() != full.getElementType())
    return op->emitOpError("'")
           << derivedName << "' element type " << derived.getElementType()
           << " differs from '" << sourceName << "' element type "
           << source.getElementType();
  for (int64_t i = 0, e = local.getRank(); i < e; ++i) {
    int64_t l = local.getDimSize(i), f = full.getDimSize(i);
    if (i != dim) {
      if (!extentsCompatible(l, f))
        return op->emitOpError("'")
               << derivedName << "' dim " << i << " (" << derived.getDimSize(i)
               << ") differs from '" << sourceName << "' dim " << i << " ("
               << source.getDimSize(i) << ")";
      continue;
    }
    if (ShapedType::isDynamic(groupSize))
      continue;
    if (!ShapedType::isDynamic(l) && !checkedMul(l, groupSize))
      return op->emitOpError("'")
             << localName << "' dim " << i << " (" << l
             << ") times the group size " << groupSize << " overflows int64";
    if (ShapedType::isDynamic(f))
      continue;
    if (f % groupSize != 0)
      return op->emitOpError("'")
             << fullName << "' dim " << i << " (" << f
             << ") is not divisible by the group size " << groupSize;
    // l * groupSize was checked for overflow above.
    if (ShapedType::isDynamic(l) || l * groupSize == f)
      continue;
    if (localIsDerived)
      return op->emitOpError("'") << localName << "' dim " << i << " (" << l
                                  << ") must be '" << fullName << "' dim " << i
                                  << " (" << f << ") divided by the group size "
                                  << groupSize << " = " << f / groupSize;
    return op->emitOpError("'")
           << fullName << "' dim " << i << " (" << f << ") must be '"
           << localName << "' dim " << i << " (" << l
           << ") times the group size " << groupSize << " = " << l * groupSize;
  }
  return success();
}

FailureOr<SmallVector<int64_t>>
rules::inferProductShape(function_ref<InFlightDiagnostic()> emitError,
                         StringRef aName, RankedTensorType a, StringRef bName,
                         RankedTensorType b, bool transposeB) {
  if (b.getRank() != 2) {
    emitError() << "'" << bName << "' must be 2-D, got " << b;
    return failure();
  }
  int64_t k = lastDim(a);
  int64_t bk = b.getDimSize(transposeB ? 1 : 0);
  int64_t n = b.getDimSize(transposeB ? 0 : 1);
  if (!extentsCompatible(k, bk)) {
    emitError() << "contraction dims differ: '" << aName << "' has K = " << k
                << ", '" << bName << "' has K = " << bk
                << (transposeB ? " (B is [N, K])" : " (B is [K, N])");
    return failure();
  }
  SmallVector<int64_t> shape(a.getShape().drop_back());
  shape.push_back(n);
  return shape;
}

std::string rules::indexed(StringRef name, unsigned i) {
  return (name + "[" + Twine(i) + "]").str();
}

LogicalResult rules::verifyResultCount(Operation *op, size_t expected,
                                       StringRef what) {
  if (op->getNumResults() == expected)
    return success();
  return op->emitOpError("expected ") << expected << " results (" << what
                                      << "), got " << op->getNumResults();
}

/// `type` (operand `name`) gathered along `dim` over a group of `groupSize`.
FailureOr<RankedTensorType> rules::withDimScaled(Operation *op, StringRef name,
                                                 RankedTensorType type,
                                                 int64_t dim,
                                                 int64_t groupSize) {
  SmallVector<int64_t> shape(type.getShape());
  FailureOr<int64_t> scaled =
      scaleExtentChecked(op, name, dim, shape[dim], groupSize);
  if (failed(scaled))
    return failure();
  shape[dim] = *scaled;
  return RankedTensorType::get(shape, type.getElementType());
}

LogicalResult rules::verifyTypeIs(Operation *op, StringRef name,
                                  RankedTensorType actual,
                                  ArrayRef<int64_t> shape, Type elementType,
                                  const Twine &why) {
  bool ok = actual.getElementType() == elementType &&
            actual.getRank() == static_cast<int64_t>(shape.size());
  for (int64_t i = 0; ok && i < actual.getRank(); ++i)
    ok = extentsCompatible(actual.getDimSize(i), shape[i]);
  if (ok)
    return success();
  return op->emitOpError("'")
         << name << "' must be " << formatType(shape, elementType) << why
         << ", got " << actual;
}

LogicalResult rules::verifyBias(Operation *op, StringRef name, Value bias,
                                int64_t n, Type elementType) {
  if (!bias)
    return success();
  return verifyTypeIs(op, name, cast<RankedTensorType>(bias.getType()), {n},
                      elementType);
}

LogicalResult rules::verifyFusableReduction(Operation *op, ReductionKind kind) {
  if (kind == ReductionKind::Sum || kind == ReductionKind::Avg)
    return success();
  return op->emitOpError("reduction '")
         << stringifyReductionKind(kind)
         << "' cannot be fused with a matmul: only sum and avg distribute "
            "over the chunked product";
}

//===----------------------------------------------------------------------===//
// Scales
//===----------------------------------------------------------------------===//

LogicalResult rules::verifyScaledOperand(Operation *op, StringRef dataName,
                                         RankedTensorType data,
                                         StringRef scaleName,
                                         RankedTensorType scale,
                                         StringRef globalName,
                                         Value globalScale, ScalingMode mode) {
  Type element = data.getElementType();
  bool isFp4 = isa<Float4E2M1FNType>(element);
  StringRef modeName = stringifyScalingMode(mode);
  if (mode == ScalingMode::NVFP4 && !isFp4)
    return op->emitOpError("'")
           << dataName << "' of nvfp4 scaling must hold f4E2M1FN, got "
           << element;
  if (mode != ScalingMode::NVFP4 && isFp4)
    return op->emitOpError("'")
           << dataName << "' of " << modeName
           << " scaling must hold f8E4M3FN or f8E5M2, got " << element;
  if (mode == ScalingMode::NVFP4 && !globalScale)
    return op->emitOpError("'")
           << globalName << "' is required by nvfp4 scaling";
  if (mode != ScalingMode::NVFP4 && globalScale)
    return op->emitOpError("'")
           << globalName << "' is only allowed with nvfp4 scaling, not "
           << modeName;
  if (data.getRank() < 1)
    return op->emitOpError("'") << dataName << "' must have at least one dim";

  Builder b(op->getContext());
  SmallVector<int64_t> shape(data.getShape());
  Type scaleElement = b.getF32Type();
  int64_t k = lastDim(data);
  auto blocked = [&](int64_t block, Type elementType) -> LogicalResult {
    if (!ShapedType::isDynamic(k) && k % block != 0)
      return op->emitOpError("'") << dataName << "' last dim (" << k
                                  << ") must be a multiple of the " << modeName
                                  << " block size " << block;
    shape.back() = ShapedType::isDynamic(k) ? k : k / block;
    scaleElement = elementType;
    return success();
  };
  switch (mode) {
  case ScalingMode::PerTensor:
    shape.clear();
    break;
  case ScalingMode::RowWise:
    shape.back() = 1;
    break;
  case ScalingMode::MXFP8:
    if (failed(blocked(::mlir::tp::rt::kMXFP8BlockSize,
                       b.getType<Float8E8M0FNUType>())))
      return failure();
    break;
  case ScalingMode::NVFP4:
    if (failed(blocked(::mlir::tp::rt::kNVFP4BlockSize,
                       b.getType<Float8E4M3FNType>())))
      return failure();
    break;
  }
  std::string dataText;
  llvm::raw_string_ostream(dataText) << data;
  return verifyTypeIs(op, scaleName, scale, shape, scaleElement,
                      " for " + modeName + " scaling of '" + dataName + "' (" +
                          dataText + ")");
}
