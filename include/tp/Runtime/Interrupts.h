//===- Interrupts.h - SIGINT and SIGTERM end a run cleanly ------*- C++ -*-===//
//
// A run's ranks are threads running compiled code, which cannot be
// interrupted, or child processes (mpirun, launched NCCL ranks). A signal
// handler can do little safely, so the one a tool installs for SIGINT,
// SIGTERM and SIGHUP only wakes a thread of its own, which does the work:
//  - the first one stops the child processes the run tracks (SIGTERM, then
//    SIGKILL after a grace of 2 s), removes the temporary files of writes in
//    flight (and folders the children would have removed), and exits with 128 +
//    the signal's number (130, 143, 129);
//  - a second one during the grace kills the children at once and exits.
// Outputs are written to temporary files and renamed (Files.h), so an
// interrupted run leaves no half-written file; a dump folder the run created
// is removed, one it was given keeps its INCOMPLETE marker.
//
// Private to the runtime and its tools: not installed.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_INTERRUPTS_H
#define TP_RUNTIME_INTERRUPTS_H

#include "tp/Runtime/Status.h"

#include <string>
#include <sys/types.h>

namespace mlir::tp::rt {

/// Handles SIGINT, SIGTERM and SIGHUP from now on (replacing LLVM's
/// handlers, so call it after llvm::InitLLVM). `tool` names the process in
/// the message printed on the first signal; with `quiet` (a rank whose
/// launcher or mpirun reports the run) nothing is printed.
Status handleInterrupts(const std::string &tool, bool quiet);

/// Waits forever when an interrupt is being handled: the interrupt thread
/// ends the process. Code that sees a child die, or is about to exit, calls
/// it so that an interrupt's stop is not reported as a failure (or its exit
/// status replaced). Returns at once otherwise.
void awaitInterrupt();

/// Child processes the interrupt thread stops, tracked from their start
/// until they are reaped. A child that leads its own process group
/// (`wholeGroup`, as mpirun does here) is signalled with its group, so the
/// ranks it started go too.
void trackChild(pid_t child, bool wholeGroup = false);
void untrackChild(pid_t child);

/// Temporary files and folders the interrupt thread removes (a folder with
/// what it holds): tracked while in use, untracked once renamed or removed.
/// With `removeEmptyParent`, the folder holding `path` goes too when nothing
/// else is left in it.
void trackTemporaryPath(const std::string &path,
                        bool removeEmptyParent = false);
void untrackTemporaryPath(const std::string &path);
/// Removes `path` (a folder with what it holds) and untracks it.
void removeTemporaryPath(const std::string &path);

} // namespace mlir::tp::rt

#endif // TP_RUNTIME_INTERRUPTS_H
