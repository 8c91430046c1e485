//===- Tensor.h - a host tensor of the runtime ------------------*- C++ -*-===//
//
// Row-major, contiguous, shared storage: tensors are SSA values, so ops make
// new tensors and copies share bytes until someone asks for mutable data.
// A tensor may also view bytes it does not own (compiled code's buffers,
// which the ABI hands to an op for the length of one call): read-only views
// copy on the first write; a writable view is written in place while it is
// the only holder of its bytes.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_TENSOR_H
#define TP_RUNTIME_TENSOR_H

#include "tp/Runtime/DType.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir::tp::rt {

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
  const void *data() const { return storage ? storage->bytes() : nullptr; }
  /// Writable bytes; detaches from copies first.
  void *mutableData();
  template <typename T> const T *as() const {
    return static_cast<const T *>(data());
  }
  template <typename T> T *mutableAs() {
    return static_cast<T *>(mutableData());
  }

  /// A read-only view of `bytes` (at least numBytes() of them), which must
  /// outlive every use of the view and its copies.
  static Tensor borrow(DType dtype, std::vector<int64_t> shape,
                       const void *bytes);
  /// A writable view of `bytes`: mutableData() returns them while this
  /// tensor is the only holder, so a result lands in place.
  static Tensor wrap(DType dtype, std::vector<int64_t> shape, void *bytes);
  /// Whether the bytes are someone else's (a view).
  bool isView() const { return storage && storage->external; }

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
  struct Storage {
    std::vector<uint8_t> owned;
    /// Bytes of someone else's buffer, or null when `owned` holds them.
    uint8_t *external = nullptr;
    bool writable = true;
    uint8_t *bytes() { return external ? external : owned.data(); }
  };
  std::shared_ptr<Storage> storage;
};

/// Whether the calling thread is inside Tensor::tryAllocate, which reports a
/// failed allocation itself: an out-of-memory handler then throws
/// std::bad_alloc for it instead of ending the process.
bool insideCheckedAllocation();

} // namespace mlir::tp::rt

#endif // TP_RUNTIME_TENSOR_H
