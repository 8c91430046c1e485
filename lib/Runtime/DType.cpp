//===- DType.cpp - element types the runtime stores -----------------------===//

#include "tp/Runtime/DType.h"

using namespace mlir::tp::rt;

namespace {
struct DTypeInfo {
  DType type;
  std::string_view name;
  size_t bytes;
};
constexpr DTypeInfo kInfo[] = {
    {DType::F32, "f32", 4},
    {DType::F64, "f64", 8},
    {DType::F16, "f16", 2},
    {DType::BF16, "bf16", 2},
    {DType::F8E4M3FN, "f8E4M3FN", 1},
    {DType::F8E5M2, "f8E5M2", 1},
    {DType::F8E8M0FNU, "f8E8M0FNU", 1},
    {DType::F4E2M1FN, "f4E2M1FN", 1},
    {DType::I1, "i1", 1},
    {DType::I32, "i32", 4},
    {DType::I64, "i64", 8},
};
} // namespace

size_t mlir::tp::rt::byteSize(DType type) {
  return kInfo[static_cast<int>(type)].bytes;
}

std::string_view mlir::tp::rt::name(DType type) {
  return kInfo[static_cast<int>(type)].name;
}

std::optional<DType> mlir::tp::rt::parseDType(std::string_view text) {
  if (text == "index")
    return DType::I64;
  for (const DTypeInfo &info : kInfo)
    if (info.name == text)
      return info.type;
  return std::nullopt;
}

bool mlir::tp::rt::isFloat(DType type) {
  return type != DType::I1 && type != DType::I32 && type != DType::I64;
}

bool mlir::tp::rt::isLowPrecision(DType type) {
  return type == DType::F8E4M3FN || type == DType::F8E5M2 ||
         type == DType::F4E2M1FN;
}
