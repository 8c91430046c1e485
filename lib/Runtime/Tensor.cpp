//===- Tensor.cpp - a host tensor of the runtime --------------------------===//

#include "tp/Runtime/Tensor.h"
#include "tp/Runtime/Numerics.h"

using namespace tp::rt;

Tensor::Tensor(DType dtype, std::vector<int64_t> shape)
    : type(dtype), dims(std::move(shape)) {
  storage = std::make_shared<std::vector<uint8_t>>(numBytes(), 0);
}

int64_t Tensor::numElements() const {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

void *Tensor::mutableData() {
  if (!storage)
    return nullptr;
  if (storage.use_count() > 1)
    storage = std::make_shared<std::vector<uint8_t>>(*storage);
  return storage->data();
}

double Tensor::get(int64_t flat) const {
  return loadElement(data(), type, flat);
}

void Tensor::set(int64_t flat, double value) {
  storeElement(mutableData(), type, flat, value);
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

std::string Tensor::typeString() const {
  std::string text = "tensor<";
  for (int64_t d : dims)
    text += std::to_string(d) + "x";
  text += std::string(name(type)) + ">";
  return text;
}
