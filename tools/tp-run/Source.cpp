//===- Source.cpp - the program text tp-run parses ------------------------===//

#include "Source.h"

#include "mlir/Support/FileUtilities.h"

using namespace mlir::tp;

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
