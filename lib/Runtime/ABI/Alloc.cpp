//===- Alloc.cpp - the allocator compiled code calls ----------------------===//
//
// tp-lower-to-llvm lowers memref allocations to upstream's generic
// allocation functions instead of malloc, so an allocation that fails (a
// dynamic intermediate far larger than memory) is reported with its size and
// the rank, and the process aborts, where compiled code would otherwise
// store through a null pointer and die with a misleading SIGSEGV. Weak, like
// memrefCopy, so an embedder's own allocator wins.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/ABI.h"
#include "tp/Runtime/MemRefs.h"
#include "tp/Runtime/Tensor.h"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <new>
#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace {
/// The rank the calling thread runs, for the report (-1: not known).
thread_local int currentRank = -1;
/// Where a CUDA graph capture sends this thread's allocations (null: none).
thread_local const mlir::tp::rt::abi::AllocationHooks *currentHooks = nullptr;
/// Bytes of this thread's compiled-code buffers live now, and at most.
thread_local int64_t liveBytes = 0, peakBytes = 0;

int64_t usableSize(void *memory) {
#ifdef __GLIBC__
  return static_cast<int64_t>(malloc_usable_size(memory));
#else
  (void)memory;
  return 0;
#endif
}

void allocated(void *memory) {
  liveBytes += usableSize(memory);
  peakBytes = std::max(peakBytes, liveBytes);
}
} // namespace

int64_t mlir::tp::rt::abi::bufferPeakBytes() { return peakBytes; }

void mlir::tp::rt::abi::resetBufferPeak() { peakBytes = liveBytes; }

void mlir::tp::rt::abi::setAllocationHooks(const AllocationHooks *hooks) {
  currentHooks = hooks;
}

void mlir::tp::rt::abi::setCurrentRank(int rank) { currentRank = rank; }

[[noreturn]] static void outOfMemory(size_t size) {
  double gib = static_cast<double>(size) / (1024.0 * 1024.0 * 1024.0);
  if (currentRank >= 0)
    std::fprintf(stderr,
                 "tp-runtime: rank %d: compiled code could not allocate %zu "
                 "bytes (%.1f GiB): out of memory\n",
                 currentRank, size, gib);
  else
    std::fprintf(stderr,
                 "tp-runtime: compiled code could not allocate %zu bytes "
                 "(%.1f GiB): out of memory\n",
                 size, gib);
  std::fflush(stderr);
  std::abort();
}

/// operator new failing inside the runtime (a tensor, a staging buffer):
/// the same report as compiled code's allocations, without LLVM's "out of
/// memory" crash and stack dump. It cannot know the size.
static void runtimeOutOfMemory() {
  if (mlir::tp::rt::insideCheckedAllocation())
    throw std::bad_alloc();
  if (currentRank >= 0)
    std::fprintf(stderr,
                 "tp-runtime: rank %d: the runtime could not allocate a "
                 "buffer: out of memory\n",
                 currentRank);
  else
    std::fprintf(stderr, "tp-runtime: the runtime could not allocate a "
                         "buffer: out of memory\n");
  std::fflush(stderr);
  std::_Exit(1);
}

void mlir::tp::rt::abi::installOutOfMemoryHandler() {
  std::set_new_handler(runtimeOutOfMemory);
}

void mlir::tp::rt::abi::keepFreedMemory() {
#ifdef __GLIBC__
  // Buffers up to 32 MiB (glibc's largest mmap threshold) come from the
  // heap, and the heap is not given back until 1 GiB of it is free; larger
  // ones are still mapped and unmapped each time, where the GEMM dominates.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

extern "C" __attribute__((weak)) void *
_mlir_memref_to_llvm_alloc(size_t size) {
  if (currentHooks) {
    void *memory =
        currentHooks->allocate(currentHooks->state, alignof(std::max_align_t), size);
    if (!memory)
      outOfMemory(size);
    return memory;
  }
  // malloc(0) may return null; compiled code never reads such a buffer.
  void *memory = std::malloc(size ? size : 1);
  if (!memory)
    outOfMemory(size);
  allocated(memory);
  return memory;
}

extern "C" __attribute__((weak)) void *
_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size) {
  void *memory = nullptr;
  if (alignment < sizeof(void *))
    alignment = sizeof(void *);
  if (currentHooks) {
    memory = currentHooks->allocate(currentHooks->state, alignment, size);
    if (!memory)
      outOfMemory(size);
    return memory;
  }
  if (posix_memalign(&memory, alignment, size ? size : 1) != 0)
    outOfMemory(size);
  allocated(memory);
  return memory;
}

extern "C" __attribute__((weak)) void _mlir_memref_to_llvm_free(void *ptr) {
  if (currentHooks && currentHooks->release(currentHooks->state, ptr))
    return;
  if (ptr)
    liveBytes -= usableSize(ptr);
  std::free(ptr);
}
