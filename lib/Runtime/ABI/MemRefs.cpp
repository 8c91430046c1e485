//===- MemRefs.cpp - memref descriptors to runtime tensors and back -------===//

#include "tp/Runtime/MemRefs.h"

#include <algorithm>
#include <cstring>

using namespace mlir::tp::rt;

namespace {
/// A memref's layout, read from its descriptor.
struct View {
  char *base = nullptr; // the aligned pointer plus the offset
  std::vector<int64_t> sizes, strides;
};
} // namespace

static View viewOf(const TPRtUnrankedMemRef &buffer, size_t elementSize) {
  View view;
  auto *desc = static_cast<const TPRtMemRefDescriptor *>(buffer.descriptor);
  view.base = static_cast<char *>(desc->aligned) +
              desc->offset * static_cast<int64_t>(elementSize);
  view.sizes.assign(desc->sizesAndStrides, desc->sizesAndStrides + buffer.rank);
  view.strides.assign(desc->sizesAndStrides + buffer.rank,
                      desc->sizesAndStrides + 2 * buffer.rank);
  return view;
}

/// Whether the elements lie one after the other in row-major order (dims of
/// extent 1 may have any stride).
static bool isRowMajor(const View &view) {
  int64_t expected = 1;
  for (int64_t d = static_cast<int64_t>(view.sizes.size()) - 1; d >= 0; --d) {
    if (view.sizes[d] != 1 && view.strides[d] != expected)
      return false;
    expected *= view.sizes[d];
  }
  return true;
}

static int64_t elementCount(const View &view) {
  int64_t total = 1;
  for (int64_t s : view.sizes)
    total *= s;
  return total;
}

/// Calls `copy(stridedOffset, flat)` for every element, row-major; the
/// innermost dim goes as one run when it is contiguous.
template <typename Fn>
static void forEachRun(const View &view, size_t elementSize, Fn copy) {
  int64_t rank = static_cast<int64_t>(view.sizes.size());
  int64_t total = 1;
  for (int64_t s : view.sizes)
    total *= s;
  if (total == 0)
    return;
  if (rank == 0) {
    copy(0, 0, 1);
    return;
  }
  int64_t inner = view.sizes.back();
  bool contiguous = view.strides.back() == 1;
  std::vector<int64_t> index(rank, 0);
  for (int64_t flat = 0; flat < total; flat += inner) {
    int64_t offset = 0;
    for (int64_t d = 0; d < rank - 1; ++d)
      offset += index[d] * view.strides[d];
    if (contiguous) {
      copy(offset * static_cast<int64_t>(elementSize), flat, inner);
    } else {
      for (int64_t i = 0; i < inner; ++i)
        copy((offset + i * view.strides.back()) *
                 static_cast<int64_t>(elementSize),
             flat + i, 1);
    }
    for (int64_t d = rank - 2; d >= 0; --d) {
      if (++index[d] < view.sizes[d])
        break;
      index[d] = 0;
    }
  }
}

std::vector<int64_t> abi::shapeOf(const TPRtUnrankedMemRef &buffer) {
  return viewOf(buffer, 1).sizes;
}

Tensor abi::toTensor(const TPRtUnrankedMemRef &buffer, DType dtype) {
  size_t size = byteSize(dtype);
  View view = viewOf(buffer, size);
  Tensor tensor(dtype, view.sizes);
  auto *out = static_cast<char *>(tensor.mutableData());
  forEachRun(view, size, [&](int64_t byteOffset, int64_t flat, int64_t n) {
    std::memcpy(out + flat * size, view.base + byteOffset, n * size);
  });
  return tensor;
}

Tensor abi::operandTensor(const TPRtUnrankedMemRef &buffer, DType dtype) {
  View view = viewOf(buffer, byteSize(dtype));
  if (elementCount(view) > 0 && isRowMajor(view))
    return Tensor::borrow(dtype, view.sizes, view.base);
  return toTensor(buffer, dtype);
}

bool abi::isContiguous(const TPRtUnrankedMemRef &buffer, DType dtype) {
  View view = viewOf(buffer, byteSize(dtype));
  return elementCount(view) == 0 || isRowMajor(view);
}

bool abi::isViewOf(const Tensor &value, const TPRtUnrankedMemRef &buffer,
                   DType dtype) {
  View view = viewOf(buffer, byteSize(dtype));
  return elementCount(view) == 0 ||
         (value.data() == view.base && isRowMajor(view));
}

Tensor abi::resultView(const TPRtUnrankedMemRef &buffer, DType dtype) {
  View view = viewOf(buffer, byteSize(dtype));
  if (elementCount(view) > 0 && isRowMajor(view))
    return Tensor::wrap(dtype, view.sizes, view.base);
  return Tensor();
}

/// [lo, hi) of the bytes `view`'s elements may occupy; empty when it has none.
static std::pair<const char *, const char *> byteSpan(const View &view,
                                                      size_t elementSize) {
  if (elementCount(view) == 0)
    return {view.base, view.base};
  int64_t low = 0, high = 0;
  for (size_t d = 0; d < view.sizes.size(); ++d) {
    int64_t reach = (view.sizes[d] - 1) * view.strides[d];
    (reach < 0 ? low : high) += reach;
  }
  int64_t size = static_cast<int64_t>(elementSize);
  return {view.base + low * size, view.base + (high + 1) * size};
}

bool abi::mayOverlap(const TPRtUnrankedMemRef &a, DType aType,
                     const TPRtUnrankedMemRef &b, DType bType) {
  auto [aLow, aHigh] = byteSpan(viewOf(a, byteSize(aType)), byteSize(aType));
  auto [bLow, bHigh] = byteSpan(viewOf(b, byteSize(bType)), byteSize(bType));
  return aLow < aHigh && bLow < bHigh && aLow < bHigh && bLow < aHigh;
}

Status abi::fromTensor(const Tensor &value, const TPRtUnrankedMemRef &buffer,
                       DType dtype, const std::string &what) {
  size_t size = byteSize(dtype);
  View view = viewOf(buffer, size);
  if (value.dtype() != dtype || value.shape() != view.sizes) {
    std::string expected = "tensor<";
    for (int64_t d : view.sizes)
      expected += std::to_string(d) + "x";
    expected += std::string(name(dtype)) + ">";
    return Status::error(what + " is " + value.typeString() +
                         " but the program expects " + expected);
  }
  const auto *in = static_cast<const char *>(value.data());
  // A result the backend wrote in place (a view of this buffer).
  if (in == view.base && isRowMajor(view))
    return Status::ok();
  forEachRun(view, size, [&](int64_t byteOffset, int64_t flat, int64_t n) {
    std::memcpy(view.base + byteOffset, in + flat * size, n * size);
  });
  return Status::ok();
}

void abi::zeroFill(const TPRtUnrankedMemRef &buffer, DType dtype) {
  size_t size = byteSize(dtype);
  View view = viewOf(buffer, size);
  forEachRun(view, size, [&](int64_t byteOffset, int64_t, int64_t n) {
    std::memset(view.base + byteOffset, 0, n * size);
  });
}

std::string abi::textOf(const TPRtUnrankedMemRef *buffer) {
  View view = viewOf(*buffer, 1);
  if (view.sizes.size() != 1)
    return "?";
  std::string text;
  for (int64_t i = 0; i < view.sizes[0]; ++i)
    text += view.base[i * view.strides[0]];
  return text;
}

std::vector<int64_t> abi::integersOf(const TPRtUnrankedMemRef *buffer) {
  View view = viewOf(*buffer, sizeof(int64_t));
  std::vector<int64_t> values;
  if (view.sizes.size() != 1)
    return values;
  for (int64_t i = 0; i < view.sizes[0]; ++i) {
    int64_t v;
    std::memcpy(&v, view.base + i * view.strides[0] * sizeof(int64_t),
                sizeof(v));
    values.push_back(v);
  }
  return values;
}

extern "C" void tp_rt_memref_copy(int64_t elementSize,
                                  TPRtUnrankedMemRef *source,
                                  TPRtUnrankedMemRef *target) {
  auto size = static_cast<int64_t>(elementSize);
  View from = viewOf(*source, size);
  View to = viewOf(*target, size);
  // memref.copy has equal shapes on both sides: walk rows of both at once.
  // Without runtime checks a program may claim otherwise; the common part is
  // copied then, never past either buffer.
  int64_t rank = static_cast<int64_t>(from.sizes.size());
  if (rank != static_cast<int64_t>(to.sizes.size()))
    return;
  for (int64_t d = 0; d < rank; ++d)
    from.sizes[d] = std::min(from.sizes[d], to.sizes[d]);
  int64_t total = 1;
  for (int64_t s : from.sizes)
    total *= s;
  if (total == 0)
    return;
  if (rank == 0) {
    std::memcpy(to.base, from.base, size);
    return;
  }
  int64_t inner = from.sizes.back();
  bool rows = from.strides.back() == 1 && to.strides.back() == 1;
  std::vector<int64_t> index(rank, 0);
  for (int64_t flat = 0; flat < total; flat += inner) {
    int64_t src = 0, dst = 0;
    for (int64_t d = 0; d < rank - 1; ++d) {
      src += index[d] * from.strides[d];
      dst += index[d] * to.strides[d];
    }
    if (rows) {
      std::memcpy(to.base + dst * size, from.base + src * size, inner * size);
    } else {
      for (int64_t i = 0; i < inner; ++i)
        std::memcpy(to.base + (dst + i * to.strides.back()) * size,
                    from.base + (src + i * from.strides.back()) * size, size);
    }
    for (int64_t d = rank - 2; d >= 0; --d) {
      if (++index[d] < from.sizes[d])
        break;
      index[d] = 0;
    }
  }
}
