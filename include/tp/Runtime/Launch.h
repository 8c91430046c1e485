//===- Launch.h - ranks as processes: launch, bootstrap, reports -*- C++
//-*-===//
//
// NCCL wants one process per GPU. Such a run has two ways to start:
//  - tp-run starts it itself on one node: launchRanks() runs the same command
//    once per rank, hands every rank the run's bootstrap blob (the NCCL unique
//    id) and collects each rank's report (Wire.h) through a pipe;
//  - `mpirun` starts it across nodes: the ranks find each other through MPI
//    (MpiGroup.h), and rank 0 reports.
// Either way a rank sees a ProcessGroup. A rank that fails ends the whole run:
// the launcher stops the others when it sees a rank fail, MPI aborts the job.
//
// Private to the runtime and its tools: not installed.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_LAUNCH_H
#define TP_RUNTIME_LAUNCH_H

#include "tp/Runtime/Status.h"

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mlir::tp::rt {

/// How a rank process reaches the others before (and besides) NCCL.
class ProcessGroup {
public:
  virtual ~ProcessGroup();

  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// This rank's place among the ranks on its node: it picks the GPU.
  virtual int localRank() const = 0;
  virtual int localSize() const = 0;

  /// The run's bootstrap blob on every rank: made once by `make` (on rank 0
  /// under MPI; by the launcher, before the ranks start, otherwise).
  virtual Status bootstrap(const std::function<Status(std::string &)> &make,
                           std::string &blob) = 0;
  /// Sends this rank's report to whoever reports the run. On the reporting
  /// rank (collects()), `all` receives every rank's report, in rank order.
  virtual Status gather(const std::string &mine,
                        std::vector<std::string> &all) = 0;
  /// Whether this process reports the run (MPI rank 0); a launched rank
  /// leaves that to its launcher.
  virtual bool collects() const = 0;
  /// Ends every rank of the run after this one failed with `message`.
  [[noreturn]] virtual void abort(const std::string &message) = 0;
};

//===----------------------------------------------------------------------===//
// Launching ranks on this node
//===----------------------------------------------------------------------===//

struct LaunchSpec {
  /// The program and its arguments, run once per rank.
  std::vector<std::string> argv;
  int ranks = 1;
  /// Handed to every rank as the run's bootstrap blob.
  std::string bootstrap;
  /// When positive: the whole run must end within it, or every rank is
  /// stopped.
  std::chrono::milliseconds timeout{0};
};

/// Runs spec.argv as spec.ranks processes and waits for them; `reports[r]`
/// is what rank r sent with ProcessGroup::gather. When a rank reports an
/// error (Wire.h), exits non-zero, dies by a signal or exits without a
/// report, the others are stopped (SIGTERM, then SIGKILL) and the error names
/// the rank that failed first (the first error report to arrive, or the first
/// rank seen to exit badly): its message, else its exit status or signal.
Status launchRanks(const LaunchSpec &spec, std::vector<std::string> &reports);

/// When this process was started by launchRanks: its ProcessGroup. Null when
/// it was not; an error when its launch environment is malformed.
Status joinLaunchedRun(std::unique_ptr<ProcessGroup> &group);

/// Whether launchRanks started this process (it may still find its launch
/// environment malformed: joinLaunchedRun says).
bool startedByLauncher();

/// Whether an MPI launcher (mpirun, srun) started this process.
bool startedByMpi();

} // namespace mlir::tp::rt

#endif // TP_RUNTIME_LAUNCH_H
