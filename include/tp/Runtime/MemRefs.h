//===- MemRefs.h - memref descriptors to runtime tensors and back -*- C++
//-*-===//

#ifndef TP_RUNTIME_MEMREFS_H
#define TP_RUNTIME_MEMREFS_H

#include "tp/Runtime/ABI.h"
#include "tp/Runtime/Status.h"
#include "tp/Runtime/Tensor.h"

#include <string>
#include <vector>

namespace mlir::tp::rt::abi {

/// The sizes of a memref.
std::vector<int64_t> shapeOf(const TPRtUnrankedMemRef &buffer);

/// A contiguous copy of a (possibly strided) memref of `dtype`.
Tensor toTensor(const TPRtUnrankedMemRef &buffer, DType dtype);

/// An operand's tensor: a read-only view of `buffer` when its elements are
/// contiguous in row-major order (the common case: no copy), else a copy.
/// A view is valid while compiled code keeps the buffer, i.e. for one call.
Tensor operandTensor(const TPRtUnrankedMemRef &buffer, DType dtype);

/// A writable view of `buffer` for a result to be written in place, or an
/// empty tensor when its elements are not contiguous row-major or it has
/// none.
Tensor resultView(const TPRtUnrankedMemRef &buffer, DType dtype);

/// Whether `buffer`'s elements (if any) are contiguous in row-major order:
/// the runtime reads and writes it in place, with no copy on the host.
bool isContiguous(const TPRtUnrankedMemRef &buffer, DType dtype);

/// Whether `value` is `buffer`'s own bytes (a result written in place).
bool isViewOf(const Tensor &value, const TPRtUnrankedMemRef &buffer,
              DType dtype);

/// Whether the bytes `a` and `b` may touch overlap (empty buffers touch
/// none).
bool mayOverlap(const TPRtUnrankedMemRef &a, DType aType,
                const TPRtUnrankedMemRef &b, DType bType);

/// Copies `value` into `buffer` (nothing to copy when `value` is already a
/// view of it), which must have its shape and element type.
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

/// The bytes of compiled code's memref allocations (malloc's usable sizes)
/// live on the calling thread at once, at most, since the last
/// resetBufferPeak on it: a rank's activations and temporaries, without its
/// inputs, the runtime's tensors and staging, and the code itself. A rank's
/// compiled code allocates and frees on that rank's thread.
int64_t bufferPeakBytes();
void resetBufferPeak();

/// Makes a failed operator new (a runtime tensor or buffer) print which rank
/// ran out of memory and exit with status 1, instead of LLVM's crash report.
/// For drivers (tp-run); call after llvm::InitLLVM, which installs its own.
void installOutOfMemoryHandler();

/// Makes freed memory stay in the process (glibc's malloc; elsewhere a
/// no-op) up to 32 MiB a buffer. Each op's results and workspaces are
/// otherwise fresh pages from the kernel every time, and on a small VM their
/// page faults cost more than the op: a fused matmul-reduce-scatter of
/// 1024x512x128 on 2 thread ranks took 2.6x as long. For drivers (tp-run).
void keepFreedMemory();

/// Where compiled code's memref allocations go on the calling thread while a
/// CUDA graph of its step is captured: memory the graph keeps (a captured
/// copy or kernel keeps the address it saw), and frees deferred until the
/// graph goes. `release` returns false for memory it does not own, which is
/// then freed as usual.
struct AllocationHooks {
  void *(*allocate)(void *state, size_t alignment, size_t size) = nullptr;
  bool (*release)(void *state, void *ptr) = nullptr;
  void *state = nullptr;
};

/// Sends the calling thread's compiled-code allocations to `hooks` (null:
/// back to malloc and free).
void setAllocationHooks(const AllocationHooks *hooks);

} // namespace mlir::tp::rt::abi

#endif // TP_RUNTIME_MEMREFS_H
