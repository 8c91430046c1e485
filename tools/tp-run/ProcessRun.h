//===- ProcessRun.h - tp-run with one process per rank ----------*- C++ -*-===//
//
// `tp-run --backend cuda --transport nccl` runs every rank in its own process
// on its own GPU. Started plainly, tp-run becomes the launcher: it spawns
// itself once per rank and reports their results. Started by mpirun, every
// process is a rank and rank 0 reports. A rank's failure ends the run.
//
//===----------------------------------------------------------------------===//

#ifndef TP_TOOLS_TP_RUN_PROCESSRUN_H
#define TP_TOOLS_TP_RUN_PROCESSRUN_H

#include "tp/Execution/Execution.h"
#include "tp/Runtime/Launch.h"

namespace tp::run {

/// This process's group when it is a rank of a multi-process run (launched
/// by tp-run or by mpirun); null when it should launch the ranks itself.
rt::Status joinProcessRun(std::unique_ptr<rt::ProcessGroup> &group);

/// Runs `entry` with one process per rank over NCCL. Without a `group`, this
/// process launches options.ranks copies of `argv` and fills every rank's
/// results; in a rank, it runs that rank and sends its results on (a rank
/// that fails sends nothing: the caller ends the run with
/// ProcessGroup::abort). `reports` says whether this process then reports the
/// run (the launcher, MPI rank 0); other ranks are done.
rt::Status runProcesses(mlir::func::FuncOp entry,
                        const mlir::tp::ExecutionOptions &options,
                        rt::ProcessGroup *group,
                        const std::vector<std::string> &argv,
                        std::vector<mlir::tp::RankValues> &perRank,
                        bool &reports);

} // namespace tp::run

#endif // TP_TOOLS_TP_RUN_PROCESSRUN_H
