//===- Tensor.cpp - a host tensor of the runtime --------------------------===//

#include "tp/Runtime/Tensor.h"
#include "tp/Runtime/Numerics.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>
#include <stdexcept>

using namespace mlir::tp::rt;

Tensor::Tensor(DType dtype, std::vector<int64_t> shape)
    : type(dtype), dims(std::move(shape)) {
  storage = std::make_shared<Storage>();
  storage->owned.assign(numBytes(), 0);
}

Tensor Tensor::borrow(DType dtype, std::vector<int64_t> shape,
                      const void *bytes) {
  Tensor t = wrap(dtype, std::move(shape), const_cast<void *>(bytes));
  t.storage->writable = false;
  return t;
}

Tensor Tensor::wrap(DType dtype, std::vector<int64_t> shape, void *bytes) {
  Tensor t;
  t.type = dtype;
  t.dims = std::move(shape);
  t.storage = std::make_shared<Storage>();
  t.storage->external = static_cast<uint8_t *>(bytes);
  return t;
}

namespace {
thread_local bool checkedAllocation = false;
} // namespace

bool mlir::tp::rt::insideCheckedAllocation() { return checkedAllocation; }

bool Tensor::tryAllocate(DType dtype, std::vector<int64_t> shape, Tensor &out,
                         std::string &error) {
  int64_t bytes = static_cast<int64_t>(byteSize(dtype));
  // A zero dim anywhere makes it empty, however large the others are.
  bool empty = std::find(shape.begin(), shape.end(), 0) != shape.end();
  for (int64_t d : shape)
    if (d < 0 || (!empty && __builtin_mul_overflow(bytes, d, &bytes))) {
      error = "a tensor of this shape holds more bytes than int64 counts";
      return false;
    }
  struct Checked {
    Checked() { checkedAllocation = true; }
    ~Checked() { checkedAllocation = false; }
  };
  try {
    Checked checked;
    out = Tensor(dtype, std::move(shape));
  } catch (const std::bad_alloc &) {
    error = "out of memory allocating " + std::to_string(bytes) + " bytes";
    return false;
  } catch (const std::length_error &) {
    error = "cannot allocate " + std::to_string(bytes) + " bytes";
    return false;
  }
  return true;
}

int64_t Tensor::numElements() const {
  // Empty first: the product of the other dims may not fit int64.
  if (std::find(dims.begin(), dims.end(), 0) != dims.end())
    return 0;
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

void *Tensor::mutableData() {
  if (!storage)
    return nullptr;
  // Shared bytes, or a read-only view: write a copy instead.
  if (storage.use_count() > 1 || !storage->writable) {
    auto copy = std::make_shared<Storage>();
    const uint8_t *from = storage->bytes();
    copy->owned.assign(from, from + numBytes());
    storage = std::move(copy);
  }
  return storage->bytes();
}

double Tensor::get(int64_t flat) const {
  return loadElement(data(), type, flat);
}

void Tensor::set(int64_t flat, double value) {
  storeElement(mutableData(), type, flat, value);
}

int64_t Tensor::getInt(int64_t flat) const {
  switch (type) {
  case DType::I64:
    return as<int64_t>()[flat];
  case DType::I32:
    return as<int32_t>()[flat];
  case DType::I1:
    return as<uint8_t>()[flat] != 0;
  default: {
    double value = get(flat);
    if (std::isnan(value))
      return 0;
    // 2^63 is the first double above int64's range.
    if (value >= 0x1p63)
      return INT64_MAX;
    if (value < -0x1p63)
      return INT64_MIN;
    return static_cast<int64_t>(value);
  }
  }
}

void Tensor::setInt(int64_t flat, int64_t value) {
  switch (type) {
  case DType::I64:
    mutableAs<int64_t>()[flat] = value;
    return;
  case DType::I32:
    mutableAs<int32_t>()[flat] =
        static_cast<int32_t>(static_cast<uint32_t>(value));
    return;
  case DType::I1:
    mutableAs<uint8_t>()[flat] = value & 1;
    return;
  default:
    set(flat, static_cast<double>(value));
  }
}

void Tensor::assignConverted(const Tensor &from) {
  if (from.dtype() == type) {
    std::memcpy(mutableData(), from.data(), numBytes());
    return;
  }
  bool integral = !isFloat(type) && !isFloat(from.dtype());
  for (int64_t k = 0, n = numElements(); k < n; ++k) {
    if (integral)
      setInt(k, from.getInt(k));
    else
      set(k, from.get(k));
  }
}

Tensor Tensor::reshaped(std::vector<int64_t> shape) const {
  Tensor result = *this;
  result.dims = std::move(shape);
  return result;
}

std::vector<int64_t> Tensor::strides() const {
  std::vector<int64_t> result(dims.size(), 1);
  for (int64_t i = rank() - 2; i >= 0; --i)
    result[i] = result[i + 1] * dims[i + 1];
  return result;
}

std::string Tensor::typeString() const { return typeStringOf(type, dims); }

std::string Tensor::typeStringOf(DType dtype,
                                 const std::vector<int64_t> &shape) {
  std::string text = "tensor<";
  for (int64_t d : shape)
    text += std::to_string(d) + "x";
  text += std::string(name(dtype)) + ">";
  return text;
}
