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

#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>

namespace tp::run {

/// The deepest nesting tp-run parses; real programs stay far below.
constexpr int kDeepestNesting = 1000;

/// The deepest nesting of (), [] and {} in `text`, outside string literals
/// and `//` comments.
int nestingDepth(llvm::StringRef text);

/// The text of `path` ("-": standard input), refused when it nests deeper
/// than kDeepestNesting.
rt::Status readProgram(const std::string &path,
                       std::unique_ptr<llvm::MemoryBuffer> &text);

} // namespace tp::run

#endif // TP_TOOLS_TP_RUN_SOURCE_H
