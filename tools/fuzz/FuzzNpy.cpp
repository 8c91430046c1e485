//===- FuzzNpy.cpp - fuzz the .npy reader ---------------------------------===//
//
// The input is the contents of a .npy file, parsed by mlir::tp::rt::parseNpy,
// the code readNpy runs on a file's bytes. Refusal is the expected outcome; a
// crash, an abort or a sanitizer report is a bug, as is a tensor that does
// not match what the header promised.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Npy.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::tp::rt::Tensor tensor;
  std::string error;
  if (!mlir::tp::rt::parseNpy(data, size, tensor, error)) {
    // Every refusal says why, on one line (tp-run prints it as is).
    if (error.empty() || error.find('\n') != std::string::npos)
      std::abort();
    return 0;
  }
  // An accepted file is at least as long as its elements, and the tensor
  // is readable end to end.
  if (tensor.empty() || tensor.numBytes() > size * 4)
    std::abort();
  volatile double sum = 0;
  for (int64_t i = 0, e = tensor.numElements(); i < e; ++i)
    sum = sum + tensor.get(i);
  (void)sum;
  return 0;
}
