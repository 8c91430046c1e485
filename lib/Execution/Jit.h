//===- Jit.h - JIT a lowered module, two code generation levels -*- C++ -*-===//
//
// Upstream's ExecutionEngine generates machine code for a whole module at one
// optimization level. A deep model's entry is one long loop-free function
// (tp-unoptimized-straight-code marks it optnone), and even without
// optimizations LLVM's default code generator takes superlinear time over
// it: the greedy register allocator splits its live ranges block-locally.
// This JIT generates the optnone functions' machine code at
// CodeGenOptLevel::None (fast instruction selection and register
// allocation, linear) and the rest at Default, from one optimized module
// split in two.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_EXECUTION_JIT_H
#define TP_LIB_EXECUTION_JIT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"

#include <functional>
#include <memory>

namespace llvm::orc {
class LLJIT;
} // namespace llvm::orc

namespace mlir::tp::exec {

class Jit {
public:
  struct Options {
    /// The symbols compiled code calls that the process does not export.
    std::function<llvm::orc::SymbolMap(llvm::orc::MangleAndInterner)> symbols;
    /// Report compiled functions to perf (a jitdump file per compile).
    bool perfListener = false;
  };

  /// Translates `module` (LLVM dialect) to LLVM IR, gives `entry` the packed
  /// form `_mlir_<entry>` (`void(void **)`: argument pointers, then a
  /// pointer to the result; the entry itself becomes that function when
  /// nothing else calls it), optimizes at -O2 and generates code for `host`.
  static llvm::Expected<std::unique_ptr<Jit>>
  create(ModuleOp module, llvm::StringRef entry,
         const llvm::orc::JITTargetMachineBuilder &host, Options options);
  ~Jit();

  /// The packed wrapper of `entry` (generates all code on the first call).
  llvm::Expected<void (*)(void **)> lookupPacked(llvm::StringRef entry);

private:
  Jit() = default;
  std::unique_ptr<llvm::orc::LLJIT> jit;
};

} // namespace mlir::tp::exec

#endif // TP_LIB_EXECUTION_JIT_H
