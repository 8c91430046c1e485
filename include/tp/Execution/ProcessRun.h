//===- ProcessRun.h - runs with one process per rank ------------*- C++ -*-===//
//
// Two transports run every rank in its own process:
//  - nccl (the cuda backend): one GPU per rank. Started plainly, a program
//    becomes the launcher: it spawns itself once per rank and reports their
//    results. Started by mpirun, every process is a rank and rank 0 reports.
//  - mpi (the cpu backend): the ranks exchange MPI messages, so they are
//    always started by mpirun; a plain tp-run runs mpirun on itself.
// A rank's failure ends the run. tp-run and the C API (tpRunAsRank) run
// ranks through these.
//
// Private to the project's libraries and tools (it hands out the runtime's
// ProcessGroup): not installed.
//
//===----------------------------------------------------------------------===//

#ifndef TP_EXECUTION_PROCESSRUN_H
#define TP_EXECUTION_PROCESSRUN_H

#include "tp/Execution/Execution.h"
#include "tp/Runtime/Launch.h"

#include <chrono>

namespace mlir::tp {

/// This process's group when it is a rank of a multi-process run (launched
/// by tp-run or by mpirun); null when it should launch the ranks itself.
rt::Status joinProcessRun(std::unique_ptr<rt::ProcessGroup> &group);

/// What a rank's watchdog allows one run beyond its timeout and a quarter
/// more: time to compile and, for NCCL, to create communicators.
std::chrono::seconds rankSetupAllowance(const std::string &transport);

/// mpirun's own limit for a job of `runs` runs on `ranks` processes. It is
/// only a backstop: each rank's watchdog ends a run that outlasts its
/// timeout and names the rank, but it counts from the rank's start, after
/// mpirun has started the processes and they have parsed the program; the
/// job limit allows for that too, so it never ends the job (silently) first.
std::chrono::seconds mpirunJobLimit(std::chrono::milliseconds runLimit,
                                    int runs, int ranks);

/// Runs Open MPI's `mpirun --oversubscribe --timeout limit -n ranks argv...`
/// (mpirun from $TP_MPIRUN, else from PATH) as a child and waits for it
/// (MpirunJob.h); `exitStatus` is mpirun's. The error names a rank mpirun saw
/// die, or says why mpirun could not start.
rt::Status runUnderMpirun(const std::vector<std::string> &argv, int ranks,
                          std::chrono::seconds limit, int &exitStatus);

/// Runs `entry` with one process per rank over `transport` (nccl or mpi).
/// Without a `group` (nccl only), this process launches options.ranks copies
/// of `argv` and fills every rank's results; in a rank, it runs that rank
/// and sends its results on (a rank that fails sends nothing: the caller
/// ends the run with ProcessGroup::abort). `reports` says whether this
/// process then reports the run (the launcher, MPI rank 0); other ranks are
/// done.
rt::Status runProcesses(mlir::func::FuncOp entry,
                        const ExecutionOptions &options,
                        const std::string &transport, rt::ProcessGroup *group,
                        const std::vector<std::string> &argv,
                        std::vector<RankValues> &perRank, bool &reports);

} // namespace mlir::tp

#endif // TP_EXECUTION_PROCESSRUN_H
