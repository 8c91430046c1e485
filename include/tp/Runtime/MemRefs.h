//===- MemRefs.h - memref descriptors to runtime tensors and back -*- C++
//-*-===//

#ifndef TP_RUNTIME_MEMREFS_H
#define TP_RUNTIME_MEMREFS_H

#include "tp/Runtime/ABI.h"
#include "tp/Runtime/Status.h"
#include "tp/Runtime/Tensor.h"

#include <string>
#include <vector>

namespace tp::rt::abi {

/// The sizes of a memref.
std::vector<int64_t> shapeOf(const TPRtUnrankedMemRef &buffer);

/// A contiguous copy of a (possibly strided) memref of `dtype`.
Tensor toTensor(const TPRtUnrankedMemRef &buffer, DType dtype);

/// Copies `value` into `buffer`, which must have its shape and element type.
Status fromTensor(const Tensor &value, const TPRtUnrankedMemRef &buffer,
                  DType dtype, const std::string &what);

/// Sets every element of `buffer` to zero bits.
void zeroFill(const TPRtUnrankedMemRef &buffer, DType dtype);

/// The text of a rank-1 i8 memref.
std::string textOf(const TPRtUnrankedMemRef *buffer);

/// The elements of a rank-1 i64 memref.
std::vector<int64_t> integersOf(const TPRtUnrankedMemRef *buffer);

/// Names the rank the calling thread runs in allocation failure reports of
/// compiled code (ABI/Alloc.cpp).
void setCurrentRank(int rank);

} // namespace tp::rt::abi

#endif // TP_RUNTIME_MEMREFS_H
