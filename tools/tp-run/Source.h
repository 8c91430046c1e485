//===- Source.h - the program text tp-run parses ----------------*- C++ -*-===//
//
// Upstream's parser recurses once per nesting level of regions, attributes
// and types: input nested thousands of levels deep overflows the stack
// inside it. tp-run reads the text first and refuses such input with a
// message instead.
//
//===----------------------------------------------------------------------===//

#ifndef TP_TOOLS_TP_RUN_SOURCE_H
#define TP_TOOLS_TP_RUN_SOURCE_H

#include "tp/Runtime/Status.h"
#include "tp/Support/Nesting.h"

#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>

namespace mlir::tp::run {

/// The text of `path` ("-": standard input), refused when it nests deeper
/// than kDeepestNesting.
rt::Status readProgram(const std::string &path,
                       std::unique_ptr<llvm::MemoryBuffer> &text);

} // namespace mlir::tp::run

#endif // TP_TOOLS_TP_RUN_SOURCE_H
