//===- ProcessRun.cpp - runs with one process per rank --------------------===//

#include "tp/Execution/ProcessRun.h"
#include "tp/Runtime/MpirunJob.h"
#include "tp/Runtime/Wire.h"
#include "tp/Runtime/World.h"
#ifdef TP_HAVE_CUDA
#include "tp/Runtime/CudaBackend.h"
#endif
#ifdef TP_HAVE_MPI
#include "tp/Runtime/MpiGroup.h"
#endif

#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>

using namespace mlir::tp;

rt::Status mlir::tp::joinProcessRun(std::unique_ptr<rt::ProcessGroup> &group) {
  TP_RETURN_IF_ERROR(rt::joinLaunchedRun(group));
  if (group || !rt::startedByMpi())
    return rt::Status::ok();
#ifdef TP_HAVE_MPI
  return rt::joinMpiRun(group);
#else
  return rt::Status::error("started by an MPI launcher, but this build has no "
                           "MPI (configure with TP_ENABLE_MPI)");
#endif
}

std::chrono::seconds
mlir::tp::rankSetupAllowance(const std::string &transport) {
  return std::chrono::seconds(transport == "nccl" ? 30 : 10);
}

std::chrono::seconds
mlir::tp::mpirunJobLimit(std::chrono::milliseconds runLimit, int runs,
                         int ranks) {
  // Starting the processes and parsing, before any watchdog runs: generous,
  // since ranks outnumber cores in CI and a loaded machine starts slowly.
  std::chrono::seconds launch = std::chrono::seconds(30 + 2 * ranks);
  std::chrono::milliseconds perRun =
      runLimit + runLimit / 4 + rankSetupAllowance("mpi");
  return std::chrono::ceil<std::chrono::seconds>(runs * perRun + launch);
}

rt::Status mlir::tp::runUnderMpirun(const std::vector<std::string> &argv,
                                    int ranks, std::chrono::seconds limit,
                                    int &exitStatus) {
  exitStatus = 1;
#ifndef TP_HAVE_MPI
  (void)argv;
  (void)ranks;
  (void)limit;
  return rt::Status::error("the mpi transport needs MPI, and this build has "
                           "none (configure with TP_ENABLE_MPI)");
#else
  const char *given = std::getenv("TP_MPIRUN");
  std::string mpirun = given && *given ? given : "mpirun";
  // Not --quiet: mpirun's banner is the only word of a rank that died by a
  // signal. runMpirun keeps that and drops the banners that repeat the ranks.
  // Help messages unaggregated: Open MPI 4.1's aggregation of the ranks'
  // aborts garbles its own output (ORTE_ERROR_LOG ... show_help.c).
  std::vector<std::string> args = {mpirun,
                                   "--oversubscribe",
                                   "--mca",
                                   "orte_base_help_aggregate",
                                   "0",
                                   "--timeout",
                                   std::to_string(limit.count()),
                                   "-n",
                                   std::to_string(ranks)};
  // The ranks run on this machine, over shared memory: the ob1 messaging
  // layer is what Open MPI picks for that anyway, after trying the
  // interconnect layers (cm: PSM, PSM2, OFI), whose probing doubles its
  // start-up (0.41 -> 0.22 s for 4 ranks). A choice in the environment wins.
  const char *pml = std::getenv("OMPI_MCA_pml");
  if (!pml || !*pml)
    args.insert(args.end(), {"--mca", "pml", "ob1"});
  args.insert(args.end(), argv.begin(), argv.end());
  return rt::runMpirun(args, exitStatus);
#endif
}

#if defined(TP_HAVE_CUDA) || defined(TP_HAVE_MPI)
namespace {
/// Compiled code cannot be interrupted: a rank whose run lasts past its
/// timeout (a quarter more, and `setup` to compile and, for NCCL, create
/// communicators) ends the whole job, naming itself, even when every rank
/// spins and none waits on another.
class RunWatchdog {
public:
  RunWatchdog(rt::ProcessGroup &group, std::chrono::milliseconds timeout,
              std::chrono::seconds setup)
      : limit(rt::World::clampTimeout(timeout)), setup(setup) {
    std::chrono::milliseconds allowed = limit + limit / 4 + setup;
    auto deadline = std::chrono::steady_clock::now() + allowed;
    rt::Status started = rt::startThread(
        [this, &group, deadline] {
          std::unique_lock<std::mutex> lock(mutex);
          if (done.wait_until(lock, deadline, [this] { return finished; }))
            return;
          group.abort("rank " + std::to_string(group.rank()) +
                      ": the run took longer than the timeout of " +
                      std::to_string(limit.count()) +
                      " ms (and a quarter more, and " +
                      std::to_string(this->setup.count()) +
                      " s to start); compiled code cannot be interrupted, "
                      "so the job ends");
        },
        thread);
    (void)started; // Without a watchdog the peers' own timeouts still apply.
  }
  ~RunWatchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      finished = true;
    }
    done.notify_all();
    if (thread.joinable())
      thread.join();
  }

private:
  std::chrono::milliseconds limit;
  std::chrono::seconds setup;
  std::mutex mutex;
  std::condition_variable done;
  bool finished = false;
  std::thread thread;
};
} // namespace

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
    rt::Status decoded = rt::decodeOutcome(
        reports[r], outcome, perRank[r].results, &perRank[r].steps);
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
                          const std::string &transport, rt::ProcessGroup &group,
                          mlir::tp::RankValues &values) {
  std::unique_ptr<rt::Backend> backend;
  if (transport == "mpi") {
#ifdef TP_HAVE_MPI
    TP_RETURN_IF_ERROR(
        rt::createMpiCpuBackend(options.timeout, options.trace, backend));
    return mlir::tp::executeOneRank(entry, options, group.rank(), *backend,
                                    values);
#else
    return rt::Status::error("the mpi transport needs MPI, and this build "
                             "has none (configure with TP_ENABLE_MPI)");
#endif
  }
#ifndef TP_HAVE_CUDA
  return rt::Status::error("the NCCL transport needs the CUDA backend, and "
                           "this build has none");
#else
  rt::NcclRankSetup setup;
  setup.rank = group.rank();
  setup.size = group.size();
  setup.localRank = group.localRank();
  setup.localSize = group.localSize();
  setup.timeout = options.timeout;
  setup.trace = options.trace;
  TP_RETURN_IF_ERROR(group.bootstrap(rt::createNcclUniqueId, setup.uniqueId));
  TP_RETURN_IF_ERROR(rt::createCudaNcclBackend(setup, backend));
  return mlir::tp::executeOneRank(entry, options, setup.rank, *backend, values);
#endif
}
#endif

rt::Status mlir::tp::runProcesses(mlir::func::FuncOp entry,
                                  const mlir::tp::ExecutionOptions &options,
                                  const std::string &transport,
                                  rt::ProcessGroup *group,
                                  const std::vector<std::string> &argv,
                                  std::vector<mlir::tp::RankValues> &perRank,
                                  bool &reports) {
  reports = false;
#if !defined(TP_HAVE_CUDA) && !defined(TP_HAVE_MPI)
  (void)entry, (void)options, (void)transport, (void)group, (void)argv,
      (void)perRank;
  return rt::Status::error("the NCCL transport needs the CUDA backend, and "
                           "this build has none");
#else
  if (!group) {
#ifndef TP_HAVE_CUDA
    (void)argv;
    return rt::Status::error("the NCCL transport needs the CUDA backend, and "
                             "this build has none");
#else
    rt::LaunchSpec spec;
    spec.argv = argv;
    spec.ranks = options.ranks;
    // The ranks' own run, as with threads, plus what threads do not pay:
    // starting the processes, compiling, and creating NCCL communicators.
    std::chrono::milliseconds timeout = mlir::tp::runLimit(options);
    spec.timeout = timeout + timeout / 4 + std::chrono::seconds(30);
    TP_RETURN_IF_ERROR(rt::createNcclUniqueId(spec.bootstrap));
    std::vector<std::string> all;
    TP_RETURN_IF_ERROR(rt::launchRanks(spec, all));
    reports = true;
    return decodeReports(all, perRank);
#endif
  }
  int rank = group->rank();
  // A failed rank sends no results: the caller ends the run (abort).
  rt::Status ran;
  {
    // As the launchers allow: NCCL communicators take longer to create.
    RunWatchdog watchdog(*group, mlir::tp::runLimit(options),
                         mlir::tp::rankSetupAllowance(transport));
    ran = runRank(entry, options, transport, *group, perRank[rank]);
  }
  TP_RETURN_IF_ERROR(ran);
  std::vector<std::string> all;
  TP_RETURN_IF_ERROR(
      group->gather(rt::encodeOutcome(rt::Status::ok(), perRank[rank].results,
                                      perRank[rank].steps),
                    all));
  reports = group->collects();
  return reports ? decodeReports(all, perRank) : rt::Status::ok();
#endif
}
