//===- MemRefCopy.cpp - memrefCopy for ahead-of-time objects --------------===//
//
// memref.copy of strided buffers lowers to a call of `memrefCopy`, which
// upstream defines in libmlir_c_runner_utils. Objects compiled ahead of time
// link the runtime instead; the definition is weak so a program that also
// links upstream's library gets one of the two, not a clash.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/ABI.h"

extern "C" __attribute__((weak)) void memrefCopy(int64_t elementSize,
                                                 TPRtUnrankedMemRef *source,
                                                 TPRtUnrankedMemRef *target) {
  tp_rt_memref_copy(elementSize, source, target);
}
