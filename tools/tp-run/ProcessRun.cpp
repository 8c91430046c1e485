//===- ProcessRun.cpp - tp-run with one process per rank ------------------===//

#include "ProcessRun.h"
#include "tp/Runtime/World.h"
#include "tp/Runtime/Wire.h"
#ifdef TP_HAVE_CUDA
#include "tp/Runtime/CudaBackend.h"
#endif
#ifdef TP_HAVE_MPI
#include "tp/Runtime/MpiGroup.h"
#endif

using namespace tp;

rt::Status run::joinProcessRun(std::unique_ptr<rt::ProcessGroup> &group) {
  TP_RETURN_IF_ERROR(rt::joinLaunchedRun(group));
  if (group || !rt::startedByMpi())
    return rt::Status::ok();
#ifdef TP_HAVE_MPI
  return rt::joinMpiRun(group);
#else
  return rt::Status::error("started by an MPI launcher, but this tp-run was "
                           "built without MPI (configure with TP_ENABLE_MPI)");
#endif
}

#ifdef TP_HAVE_CUDA
/// Fills perRank[r].results from rank r's report.
static rt::Status decodeReports(const std::vector<std::string> &reports,
                                std::vector<mlir::tp::RankValues> &perRank) {
  if (reports.size() != perRank.size())
    return rt::Status::error(std::to_string(reports.size()) +
                             " reports for a run of " +
                             std::to_string(perRank.size()) + " ranks");
  for (size_t r = 0; r < reports.size(); ++r) {
    rt::Status outcome;
    std::string where = "rank " + std::to_string(r) + ": ";
    rt::Status decoded =
        rt::decodeOutcome(reports[r], outcome, perRank[r].results);
    if (!decoded.isOk())
      return rt::Status::error(where + decoded.message());
    if (!outcome.isOk())
      return rt::Status::error(where + outcome.message());
  }
  return rt::Status::ok();
}

/// Runs this process's rank; the backend (and its communicators) is gone
/// before the results travel.
static rt::Status runRank(mlir::func::FuncOp entry,
                          const mlir::tp::ExecutionOptions &options,
                          rt::ProcessGroup &group,
                          mlir::tp::RankValues &values) {
  rt::NcclRankSetup setup;
  setup.rank = group.rank();
  setup.size = group.size();
  setup.localRank = group.localRank();
  setup.localSize = group.localSize();
  setup.timeout = options.timeout;
  setup.trace = options.trace;
  TP_RETURN_IF_ERROR(group.bootstrap(rt::createNcclUniqueId, setup.uniqueId));
  std::unique_ptr<rt::Backend> backend;
  TP_RETURN_IF_ERROR(rt::createCudaNcclBackend(setup, backend));
  return mlir::tp::executeOneRank(entry, options, setup.rank, *backend, values);
}
#endif

rt::Status run::runProcesses(mlir::func::FuncOp entry,
                             const mlir::tp::ExecutionOptions &options,
                             rt::ProcessGroup *group,
                             const std::vector<std::string> &argv,
                             std::vector<mlir::tp::RankValues> &perRank,
                             bool &reports) {
  reports = false;
#ifndef TP_HAVE_CUDA
  return rt::Status::error("the NCCL transport needs the CUDA backend, and "
                           "this build has none");
#else
  if (!group) {
    rt::LaunchSpec spec;
    spec.argv = argv;
    spec.ranks = options.ranks;
    // The ranks' own run, as with threads, plus what threads do not pay:
    // starting the processes, compiling, and creating NCCL communicators.
    std::chrono::milliseconds timeout = rt::World::clampTimeout(options.timeout);
    spec.timeout = timeout + timeout / 4 + std::chrono::seconds(30);
    TP_RETURN_IF_ERROR(rt::createNcclUniqueId(spec.bootstrap));
    std::vector<std::string> all;
    TP_RETURN_IF_ERROR(rt::launchRanks(spec, all));
    reports = true;
    return decodeReports(all, perRank);
  }
  int rank = group->rank();
  // A failed rank sends no results: the caller ends the run (abort).
  TP_RETURN_IF_ERROR(runRank(entry, options, *group, perRank[rank]));
  std::vector<std::string> all;
  TP_RETURN_IF_ERROR(group->gather(
      rt::encodeOutcome(rt::Status::ok(), perRank[rank].results), all));
  reports = group->collects();
  return reports ? decodeReports(all, perRank) : rt::Status::ok();
#endif
}
