//===- DType.h - element types the runtime stores ---------------*- C++ -*-===//
//
// The runtime is independent of MLIR: element types are its own enum, named
// with MLIR's spelling. FP4 is stored unpacked, one byte per element.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_DTYPE_H
#define TP_RUNTIME_DTYPE_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace mlir::tp::rt {

enum class DType : uint8_t {
  F32,
  F64,
  F16,
  BF16,
  F8E4M3FN,
  F8E5M2,
  F8E8M0FNU,
  F4E2M1FN,
  I1,
  I32,
  I64, // also `index`
};

/// Bytes one element occupies in a Tensor's storage.
size_t byteSize(DType type);

/// MLIR's spelling: "f32", "bf16", "f8E4M3FN", "i1", "i64", ...
std::string_view name(DType type);

/// The inverse of name(); "index" maps to I64.
std::optional<DType> parseDType(std::string_view text);

bool isFloat(DType type);
/// f8E4M3FN, f8E5M2, f4E2M1FN: the low-precision data types of scaled GEMMs.
bool isLowPrecision(DType type);

} // namespace mlir::tp::rt

#endif // TP_RUNTIME_DTYPE_H
