//===- asan_interface.h - no manual poisoning in fuzz builds ----*- C++ -*-===//
//
// Fuzz builds only (TP_ENABLE_FUZZERS), found before the compiler's own
// header. Under Clang's ASan, llvm/Support/Compiler.h includes this header
// and LLVM's inline allocators (BumpPtrAllocator, Recycler) poison and
// unpoison the memory they hand out. Debian's MLIR libraries are not
// instrumented and never unpoison, so memory poisoned by our instrumented
// copy of that inline code and then handed out by the library would be
// reported on first use. The existing sanitizer build avoids the same
// mismatch with -U__SANITIZE_ADDRESS__, which Clang does not consult.
//
//===----------------------------------------------------------------------===//

#ifndef TP_FUZZ_ASAN_INTERFACE_SHIM_H
#define TP_FUZZ_ASAN_INTERFACE_SHIM_H

#define __asan_poison_memory_region(addr, size) ((void)(addr), (void)(size))
#define __asan_unpoison_memory_region(addr, size) ((void)(addr), (void)(size))

#endif // TP_FUZZ_ASAN_INTERFACE_SHIM_H
