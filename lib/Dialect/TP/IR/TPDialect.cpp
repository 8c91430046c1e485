//===- TPDialect.cpp - tp dialect, attributes and custom syntax -----------===//
//
// Holds the generated op definitions, the placement attribute and the custom
// assembly directives the ops' declarative formats use. Verifiers live in one
// file per op group.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/TP/IR/TPOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tp;

#include "tp/Dialect/TP/IR/TPDialect.cpp.inc"
#include "tp/Dialect/TP/IR/TPEnums.cpp.inc"

//===----------------------------------------------------------------------===//
// Placement: `replicated` or `shard(D)`, inside `#tp.placement<...>` or bare
// in op formats.
//===----------------------------------------------------------------------===//

static ParseResult parsePlacementBody(AsmParser &parser, int64_t &shardDim) {
  if (succeeded(parser.parseOptionalKeyword("replicated"))) {
    shardDim = PlacementAttr::kReplicated;
    return success();
  }
  if (parser.parseKeyword("shard", " or 'replicated'") || parser.parseLParen())
    return failure();
  // -1 encodes `replicated`, so a negative dim is rejected here, not mapped.
  SMLoc dimLoc = parser.getCurrentLocation();
  if (parser.parseInteger(shardDim))
    return failure();
  if (shardDim < 0)
    return parser.emitError(
               dimLoc, "placement shard dimension must be non-negative, got ")
           << shardDim;
  return parser.parseRParen();
}

static void printPlacementBody(AsmPrinter &printer, int64_t shardDim) {
  if (shardDim == PlacementAttr::kReplicated)
    printer << "replicated";
  else
    printer << "shard(" << shardDim << ")";
}

Attribute PlacementAttr::parse(AsmParser &parser, Type) {
  int64_t shardDim;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parsePlacementBody(parser, shardDim) ||
      parser.parseGreater())
    return {};
  return PlacementAttr::getChecked([&] { return parser.emitError(loc); },
                                   parser.getContext(), shardDim);
}

void PlacementAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printPlacementBody(printer, getShardDim());
  printer << ">";
}

LogicalResult
PlacementAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      int64_t shardDim) {
  if (shardDim < kReplicated)
    return emitError() << "placement shard dimension must be non-negative, got "
                       << shardDim;
  return success();
}

static ParseResult parsePlacement(OpAsmParser &parser, PlacementAttr &attr) {
  SMLoc loc = parser.getCurrentLocation();
  int64_t shardDim;
  if (parsePlacementBody(parser, shardDim))
    return failure();
  attr = PlacementAttr::getChecked([&] { return parser.emitError(loc); },
                                   parser.getContext(), shardDim);
  return success(static_cast<bool>(attr));
}

static void printPlacement(OpAsmPrinter &printer, Operation *,
                           PlacementAttr attr) {
  printPlacementBody(printer, attr.getShardDim());
}

//===----------------------------------------------------------------------===//
// Enum attributes as a bare keyword (`sum`, `row_wise`, `column`).
//===----------------------------------------------------------------------===//

template <typename EnumAttrT>
static ParseResult parseEnumKeyword(OpAsmParser &parser, EnumAttrT &attr) {
  using EnumT = decltype(std::declval<EnumAttrT>().getValue());
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<EnumT> value = symbolizeEnum<EnumT>(keyword);
  if (!value)
    return parser.emitError(loc, "unknown keyword '") << keyword << "'";
  attr = EnumAttrT::get(parser.getContext(), *value);
  return success();
}

template <typename EnumAttrT>
static void printEnumKeyword(OpAsmPrinter &printer, Operation *,
                             EnumAttrT attr) {
  printer << stringifyEnum(attr.getValue());
}

//===----------------------------------------------------------------------===//
// Weight lists of fused ops: `[%b0 bias %c0, %b1]` and, scaled,
// `[%b0 scale %s0 global %g0 bias %c0, ...]`.
//===----------------------------------------------------------------------===//

using UnresolvedOperands = SmallVectorImpl<OpAsmParser::UnresolvedOperand>;

static ParseResult
parseWeightListImpl(OpAsmParser &parser, UnresolvedOperands &bs,
                    UnresolvedOperands *scales, UnresolvedOperands *globals,
                    UnresolvedOperands &biases, DenseBoolArrayAttr &biasMask) {
  SmallVector<bool> mask;
  auto parseOne = [&]() -> ParseResult {
    if (parser.parseOperand(bs.emplace_back()))
      return failure();
    if (scales && (parser.parseKeyword("scale") ||
                   parser.parseOperand(scales->emplace_back())))
      return failure();
    if (globals && succeeded(parser.parseOptionalKeyword("global")) &&
        parser.parseOperand(globals->emplace_back()))
      return failure();
    bool hasBias = succeeded(parser.parseOptionalKeyword("bias"));
    if (hasBias && parser.parseOperand(biases.emplace_back()))
      return failure();
    mask.push_back(hasBias);
    return success();
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square, parseOne))
    return failure();
  biasMask = DenseBoolArrayAttr::get(parser.getContext(), mask);
  return success();
}

static void printWeightListImpl(OpAsmPrinter &printer, OperandRange bs,
                                OperandRange scales, OperandRange globals,
                                OperandRange biases,
                                DenseBoolArrayAttr biasMask) {
  printer << "[";
  unsigned nextBias = 0;
  for (unsigned i = 0, e = bs.size(); i < e; ++i) {
    if (i)
      printer << ", ";
    printer << bs[i];
    if (!scales.empty())
      printer << " scale " << scales[i];
    if (!globals.empty())
      printer << " global " << globals[i];
    if (i < biasMask.size() && biasMask[i] && nextBias < biases.size())
      printer << " bias " << biases[nextBias++];
  }
  printer << "]";
}

static ParseResult parseWeightList(OpAsmParser &parser, UnresolvedOperands &bs,
                                   UnresolvedOperands &biases,
                                   DenseBoolArrayAttr &biasMask) {
  return parseWeightListImpl(parser, bs, nullptr, nullptr, biases, biasMask);
}

static void printWeightList(OpAsmPrinter &printer, Operation *op,
                            OperandRange bs, OperandRange biases,
                            DenseBoolArrayAttr biasMask) {
  OperandRange none = op->getOperands().take_front(0);
  printWeightListImpl(printer, bs, none, none, biases, biasMask);
}

static ParseResult parseScaledWeightList(OpAsmParser &parser,
                                         UnresolvedOperands &bs,
                                         UnresolvedOperands &scales,
                                         UnresolvedOperands &globals,
                                         UnresolvedOperands &biases,
                                         DenseBoolArrayAttr &biasMask) {
  return parseWeightListImpl(parser, bs, &scales, &globals, biases, biasMask);
}

static void printScaledWeightList(OpAsmPrinter &printer, Operation *,
                                  OperandRange bs, OperandRange scales,
                                  OperandRange globals, OperandRange biases,
                                  DenseBoolArrayAttr biasMask) {
  printWeightListImpl(printer, bs, scales, globals, biases, biasMask);
}

//===----------------------------------------------------------------------===//
// Dialect
//===----------------------------------------------------------------------===//

#define GET_ATTRDEF_CLASSES
#include "tp/Dialect/TP/IR/TPAttrs.cpp.inc"

Operation *TPDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                          Type type, Location loc) {
  // Only tp.group_rank folds to a constant (0 over a single rank).
  if (auto integer = dyn_cast<IntegerAttr>(value); integer && type.isIndex())
    return arith::ConstantOp::create(builder, loc, type, integer);
  return nullptr;
}

LogicalResult TPDialect::verifyRegionArgAttribute(Operation *op,
                                                  unsigned regionIndex,
                                                  unsigned argIndex,
                                                  NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  if (name != kReplicatedArgAttrName && name != kRankContextAttrName)
    return op->emitError() << "unknown tp argument attribute '" << name
                           << "' on argument #" << argIndex;
  if (!isa<UnitAttr>(attribute.getValue()))
    return op->emitError() << "'" << name << "' on argument #" << argIndex
                           << " must be a unit attribute, got "
                           << attribute.getValue();
  if (!isa<FunctionOpInterface>(op) || regionIndex != 0)
    return op->emitError() << "'" << name
                           << "' marks function arguments, not argument #"
                           << argIndex << " of region #" << regionIndex
                           << " of '" << op->getName() << "'";
  return success();
}

void TPDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tp/Dialect/TP/IR/TPAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "tp/Dialect/TP/IR/TPOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "tp/Dialect/TP/IR/TPOps.cpp.inc"
