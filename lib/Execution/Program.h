//===- Program.h - what a compiled program holds ----------------*- C++ -*-===//

#ifndef TP_LIB_EXECUTION_PROGRAM_H
#define TP_LIB_EXECUTION_PROGRAM_H

#include "Jit.h"
#include "tp/Execution/Execution.h"

namespace mlir::tp {

struct CompiledProgram::Impl {
  std::unique_ptr<exec::Jit> jit;
  /// The packed wrapper of exec::kExposedEntryName.
  void (*function)(void **) = nullptr;
  std::string entryName;
  /// Whether a signal in the compiled code is reported and ends the process.
  bool reportCrashes = false;
  /// Element types of the entry's arguments and results.
  std::vector<rt::DType> argTypes, resultTypes;
  /// The arguments' shapes, ShapedType::kDynamic where dynamic (compiled
  /// code trusts them: the driver checks every input).
  std::vector<std::vector<int64_t>> argShapes;
};

namespace exec {
/// The name the entry takes once its arguments and results are all
/// unranked, as the driver calls it.
extern const char *const kExposedEntryName;
/// How MLIR prints `type`.
std::string typeText(Type type);
} // namespace exec

} // namespace mlir::tp

#endif // TP_LIB_EXECUTION_PROGRAM_H
