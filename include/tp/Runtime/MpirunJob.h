//===- MpirunJob.h - mpirun as a child that tp-run watches ------*- C++ -*-===//
//
// `tp-run --transport mpi` starts its ranks with mpirun. mpirun runs as a
// child, not in tp-run's place, so that tp-run
//  - names a rank that died without a word (SIGKILL, the OOM killer), which
//    only mpirun sees, from mpirun's report;
//  - stops mpirun and every rank it started when interrupted (Interrupts.h),
//    and leaves no process behind even when mpirun itself dies.
// Open MPI's banners say again what the ranks already said ("MPI_ABORT was
// invoked"); they are dropped, and the one that names a dead rank becomes a
// line of tp-run's. Any other banner is passed on whole.
//
// Private to the runtime and its tools: not installed.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_MPIRUNJOB_H
#define TP_RUNTIME_MPIRUNJOB_H

#include "tp/Runtime/Status.h"

#include <string>
#include <string_view>
#include <vector>

namespace mlir::tp::rt {

/// Reads mpirun's standard error in chunks and says what to print.
class MpirunOutputFilter {
public:
  /// The text to print now, given the next `chunk` of mpirun's output.
  std::string feed(std::string_view chunk);
  /// What is left when the output ends (an unfinished line or banner).
  std::string finish();
  /// "rank R (pid P) was killed by signal S (Name)" when mpirun reported a
  /// rank that died by a signal; empty otherwise.
  const std::string &lostRank() const { return lost; }

private:
  std::string line(std::string_view text);
  std::string endBanner();

  std::string pending;
  bool inBanner = false;
  std::vector<std::string> banner;
  std::string lost;
};

/// Runs `command` (mpirun and its arguments) in a process group of its own,
/// with standard input from /dev/null and standard error through
/// MpirunOutputFilter, and waits for it. `exitStatus` is its exit status
/// (128 + the signal when a signal ended it). Whatever is left of its group
/// is then killed. Its session folders live in a folder of its own (removed
/// after it), so that jobs started together do not race on Open MPI's
/// shared one. mpirun that outlives all its ranks by 10 s is stuck (Open
/// MPI 4.1 can deadlock in its finalize after an abort): it is stopped, and
/// `exitStatus` is then its ranks' (the first failed one's). The error says
/// when it could not start, or names the rank mpirun saw die.
Status runMpirun(const std::vector<std::string> &command, int &exitStatus);

} // namespace mlir::tp::rt

#endif // TP_RUNTIME_MPIRUNJOB_H
