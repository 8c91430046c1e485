//===- Npy.h - NumPy .npy files for tp-run inputs and dumps -----*- C++ -*-===//

#ifndef TP_RUNTIME_NPY_H
#define TP_RUNTIME_NPY_H

#include "tp/Runtime/Tensor.h"

#include <cstddef>
#include <string>

namespace mlir::tp::rt {

/// Writes `tensor` as a version 1.0 .npy file (C order). f32 as '<f4', f64 as
/// '<f8', i64 as '<i8', i32 as '<i4', i1 as '|b1'; bf16, f16, FP8 and FP4 are
/// written as '<f4', exactly upcast. Returns false and sets `error` on I/O
/// failure.
bool writeNpy(const std::string &path, const Tensor &tensor,
              std::string &error);

/// Reads a .npy file (versions 1.0-3.0; '<f4', '<f8', '<f2', '<i8', '<i4',
/// '|b1', '|u1', '|i1'; C order only) into a tensor of its own type. Refuses,
/// without blocking, anything but a regular file (a FIFO, a directory, a
/// device). On failure `tensor` is untouched and `error` starts with 'PATH':.
bool readNpy(const std::string &path, Tensor &tensor, std::string &error);

/// Parses the `size` bytes at `data` as the contents of a .npy file, with the
/// checks and formats of readNpy (messages do not name a file). Every byte
/// is checked: this is what the fuzzer tp-fuzz-npy drives.
bool parseNpy(const void *data, size_t size, Tensor &tensor,
              std::string &error);

} // namespace mlir::tp::rt

#endif // TP_RUNTIME_NPY_H
