//===- Source.cpp - the program text tp-run parses ------------------------===//

#include "Source.h"

#include "mlir/Support/FileUtilities.h"

using namespace tp;

int run::nestingDepth(llvm::StringRef text) {
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

rt::Status run::readProgram(const std::string &path,
                            std::unique_ptr<llvm::MemoryBuffer> &text) {
  std::string error;
  text = mlir::openInputFile(path, &error);
  if (!text)
    return rt::Status::error(error);
  int depth = nestingDepth(text->getBuffer());
  if (depth > kDeepestNesting)
    return rt::Status::error(
        "'" + path + "' nests regions, attributes or types " +
        std::to_string(depth) + " levels deep; tp-run parses at most " +
        std::to_string(kDeepestNesting) +
        " (the parser recurses once per level)");
  return rt::Status::ok();
}
