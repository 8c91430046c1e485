//===- Tensor.h - a host tensor of the runtime ------------------*- C++ -*-===//
//
// Row-major, contiguous, shared storage: tensors are SSA values, so ops make
// new tensors and copies share bytes until someone asks for mutable data.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_TENSOR_H
#define TP_RUNTIME_TENSOR_H

#include "tp/Runtime/DType.h"

#include <memory>
#include <string>
#include <vector>

namespace tp::rt {

class Tensor {
public:
  Tensor() = default;
  /// A zero-filled tensor.
  Tensor(DType dtype, std::vector<int64_t> shape);

  /// A zero-filled tensor, or false with `error` when its size overflows or
  /// memory runs out. For callers built without exceptions.
  static bool tryAllocate(DType dtype, std::vector<int64_t> shape, Tensor &out,
                          std::string &error);

  DType dtype() const { return type; }
  const std::vector<int64_t> &shape() const { return dims; }
  int64_t rank() const { return static_cast<int64_t>(dims.size()); }
  int64_t dim(int64_t i) const { return dims[i]; }
  int64_t numElements() const;
  size_t numBytes() const { return numElements() * byteSize(type); }
  bool empty() const { return !storage; }

  /// Read-only bytes; shared with copies.
  const void *data() const { return storage ? storage->data() : nullptr; }
  /// Writable bytes; detaches from copies first.
  void *mutableData();
  template <typename T> const T *as() const {
    return static_cast<const T *>(data());
  }
  template <typename T> T *mutableAs() {
    return static_cast<T *>(mutableData());
  }

  /// Element `flat` (row-major) as a double, decoding low-precision types.
  double get(int64_t flat) const;
  /// Stores `value` at `flat`, rounding to the element type (to nearest even;
  /// FP8/FP4 saturate to their largest finite value).
  void set(int64_t flat, double value);

  /// Integer elements exactly (i1, i32, i64); floats truncated toward zero
  /// and clamped to int64.
  int64_t getInt(int64_t flat) const;
  /// Stores an integer exactly in an integer tensor (wrapping to i32 or i1
  /// like a truncation); a float tensor rounds it.
  void setInt(int64_t flat, int64_t value);
  /// Copies `from`'s elements into this tensor of the same element count,
  /// converting the element type; integers stay exact.
  void assignConverted(const Tensor &from);

  /// The same elements under another shape of equal size; shares storage.
  Tensor reshaped(std::vector<int64_t> shape) const;

  /// Row-major element strides.
  std::vector<int64_t> strides() const;
  /// MLIR's spelling: "tensor<4x8xf32>".
  std::string typeString() const;
  static std::string typeStringOf(DType dtype,
                                  const std::vector<int64_t> &shape);

private:
  DType type = DType::F32;
  std::vector<int64_t> dims;
  std::shared_ptr<std::vector<uint8_t>> storage;
};

} // namespace tp::rt

#endif // TP_RUNTIME_TENSOR_H
