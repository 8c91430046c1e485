//===- Inputs.cpp - element types, argument shapes and random inputs ------===//

#include "Program.h"
#include "tp/Dialect/TP/IR/TPDialect.h"
#include "tp/Runtime/Numerics.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tp;

std::string exec::typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

std::optional<rt::DType> mlir::tp::toDType(Type type) {
  type = getElementTypeOrSelf(type);
  if (type.isIndex())
    return rt::DType::I64;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return rt::parseDType(text);
}

std::vector<std::string> mlir::tp::availableBackends() {
#ifdef TP_HAVE_CUDA
  return {"cpu", "cuda"};
#else
  return {"cpu"};
#endif
}

rt::Status mlir::tp::resolveArgumentShapes(
    func::FuncOp entry,
    const std::map<unsigned, std::vector<int64_t>> &argShapes,
    int64_t dynamicSize, std::vector<std::vector<int64_t>> &shapes) {
  shapes.clear();
  unsigned numArgs = entry.getNumArguments();
  for (const auto &[index, shape] : argShapes) {
    if (index >= numArgs)
      return rt::Status::error(
          "--arg-shape " + std::to_string(index) + "=...: @" +
          entry.getName().str() + " takes " + std::to_string(numArgs) +
          " argument" + (numArgs == 1 ? "" : "s") +
          (numArgs ? " (0 to " + std::to_string(numArgs - 1) + ")" : ""));
    if (!isa<RankedTensorType>(entry.getArgumentTypes()[index]))
      return rt::Status::error(
          "--arg-shape " + std::to_string(index) + "=...: argument " +
          std::to_string(index) + " is " +
          exec::typeText(entry.getArgumentTypes()[index]) +
          ", not a ranked tensor");
  }
  if (dynamicSize < 0)
    return rt::Status::error("the size of dynamic dims must not be negative, "
                             "got " +
                             std::to_string(dynamicSize));
  for (auto [i, type] : llvm::enumerate(entry.getArgumentTypes())) {
    auto tensorType = dyn_cast<RankedTensorType>(type);
    if (!tensorType) {
      if (!type.isIntOrIndexOrFloat() || !toDType(type))
        return rt::Status::error("argument " + std::to_string(i) + " is " +
                                 exec::typeText(type) +
                                 ", which tp-run cannot feed");
      shapes.push_back({});
      continue;
    }
    if (!toDType(tensorType))
      return rt::Status::error("argument " + std::to_string(i) +
                               " has an element type tp-run cannot feed");
    auto given = argShapes.find(i);
    std::vector<int64_t> shape(tensorType.getShape());
    if (given != argShapes.end()) {
      bool matches = given->second.size() == shape.size();
      for (size_t d = 0; matches && d < shape.size(); ++d)
        matches =
            ShapedType::isDynamic(shape[d]) || shape[d] == given->second[d];
      if (!matches)
        return rt::Status::error("--arg-shape for argument " +
                                 std::to_string(i) + " does not fit its type");
      shape = given->second;
    }
    for (int64_t &d : shape) {
      if (!ShapedType::isDynamic(d))
        continue;
      if (dynamicSize <= 0)
        return rt::Status::error(
            "argument " + std::to_string(i) +
            " has dynamic dims; give their sizes with --dim-size N or "
            "--arg-shape " +
            std::to_string(i) + "=AxB...");
      d = dynamicSize;
    }
    shapes.push_back(shape);
  }
  return rt::Status::ok();
}

/// splitmix64: a fast, well-mixed hash of (seed, rank, argument, element).
static uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

rt::Status mlir::tp::makeRandomInputs(
    func::FuncOp entry, const std::vector<std::vector<int64_t>> &shapes,
    uint64_t seed, int rank, std::vector<rt::Tensor> &args) {
  args.clear();
  for (auto [i, type] : llvm::enumerate(entry.getArgumentTypes())) {
    rt::DType dtype = *toDType(type);
    rt::Tensor tensor;
    std::string error;
    if (!rt::Tensor::tryAllocate(dtype, shapes[i], tensor, error))
      return rt::Status::error("argument " + std::to_string(i) + " of rank " +
                               std::to_string(rank) + ": " + error);
    // A `tp.replicated` argument is the same on every rank, as the program
    // promises; the others differ per rank.
    uint64_t streamRank = entry.getArgAttr(i, mlir::tp::kReplicatedArgAttrName)
                              ? 0
                              : uint64_t(rank);
    uint64_t stream = mix(seed ^ mix(streamRank << 32 ^ i));
    for (int64_t k = 0, n = tensor.numElements(); k < n; ++k) {
      uint64_t bits = mix(stream + k);
      double unit = (bits >> 11) * 0x1.0p-53; // [0, 1)
      switch (dtype) {
      case rt::DType::F8E4M3FN:
      case rt::DType::F8E5M2:
      case rt::DType::F4E2M1FN:
        // Uniform over the representable range, then rounded: finite codes.
        tensor.set(k, (2 * unit - 1) * rt::maxFinite(dtype));
        break;
      case rt::DType::F8E8M0FNU:
        tensor.set(k, std::ldexp(1.0, static_cast<int>(unit * 8) - 4));
        break;
      case rt::DType::I1:
        tensor.set(k, bits & 1);
        break;
      case rt::DType::I32:
      case rt::DType::I64:
        tensor.set(k, static_cast<double>(bits % 4));
        break;
      default:
        tensor.set(k, 2 * unit - 1);
      }
    }
    args.push_back(std::move(tensor));
  }
  return rt::Status::ok();
}
