//===- Nesting.h - how deeply program text nests ---------------*- C++ -*-===//
//
// MLIR's parser recurses once per nested region, attribute or type, so text
// nested thousands of levels deep overflows its stack. tp-opt and tp-run
// measure the nesting first and refuse such input with a diagnostic.
//
//===----------------------------------------------------------------------===//

#ifndef TP_SUPPORT_NESTING_H
#define TP_SUPPORT_NESTING_H

#include "llvm/ADT/StringRef.h"

#include <algorithm>

namespace mlir::tp {

/// The deepest nesting the tools parse; real programs stay far below.
constexpr int kDeepestNesting = 1000;

/// The deepest nesting of (), [] and {} in `text`, outside string literals
/// and `//` comments.
inline int nestingDepth(llvm::StringRef text) {
  int depth = 0, deepest = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') { // a string: skip to its closing quote
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      i = text.find('\n', i);
      if (i == llvm::StringRef::npos)
        break;
      continue;
    }
    if (c == '(' || c == '[' || c == '{')
      deepest = std::max(deepest, ++depth);
    else if ((c == ')' || c == ']' || c == '}') && depth > 0)
      --depth;
  }
  return deepest;
}

} // namespace mlir::tp

#endif // TP_SUPPORT_NESTING_H
