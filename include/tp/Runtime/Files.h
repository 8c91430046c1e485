//===- Files.h - outputs written safely, inputs read safely -----*- C++ -*-===//
//
// Tools write what users ask for (dumps, traces) next to files they care
// about, often as root in containers. Outputs are therefore written to a
// temporary file beside the target and renamed over it: a failed write
// leaves the old file alone, and nothing the tool did not create is removed.
// Links are never written through, and only regular files are replaced.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_FILES_H
#define TP_RUNTIME_FILES_H

#include <string>
#include <string_view>
#include <vector>

namespace mlir::tp::rt {

/// Replaces `path` with the concatenation of `pieces`. Refuses a `path` that
/// exists and is not a regular file (a link, a directory, a device, a FIFO).
/// Returns false and sets `error` (naming `path`) on failure.
bool writeFileAtomically(const std::string &path,
                         const std::vector<std::string_view> &pieces,
                         std::string &error);

/// Creates directory `path` unless it exists; an existing `path` must be a
/// directory and not a link to one (so writes below it stay below it).
bool makeDirectoryNoFollow(const std::string &path, std::string &error);

/// Why `path` cannot be read as an input ("" when it is a regular file):
/// FIFOs, devices and directories would block or mislead a reader.
std::string checkRegularInput(const std::string &path);

} // namespace mlir::tp::rt

#endif // TP_RUNTIME_FILES_H
