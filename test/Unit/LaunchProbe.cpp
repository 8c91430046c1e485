//===- LaunchProbe.cpp - a rank process for the launcher tests ------------===//
//
//   tp-launch-probe MODE...
//
// Started by launchRanks (LaunchTest.cpp) or by mpirun (test/Runtime), it
// joins the run and does what its MODE says; with several modes, rank r does
// mode r % count:
//   report  reports a tensor of [rank, size, localRank, the bootstrap bytes]
//   fail    fails through ProcessGroup::abort
//   crash   dies by SIGKILL (not SIGSEGV: sanitizers catch that and exit)
//   silent  exits 0 without a report
//   hang    sleeps for a minute
//   stubborn  ignores SIGTERM and sleeps for a minute (only SIGKILL ends it)
// Under mpirun the bootstrap blob is made by rank 0 ("mpi-blob"), and rank 0
// prints every rank's report.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Launch.h"
#include "tp/Runtime/Wire.h"
#ifdef TP_HAVE_MPI
#include "tp/Runtime/MpiGroup.h"
#endif

#include <chrono>
#include <csignal>
#include <cstdio>
#include <string>
#include <thread>

using namespace mlir::tp::rt;

static int fail(const std::string &message) {
  std::fprintf(stderr, "tp-launch-probe: %s\n", message.c_str());
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 2)
    return fail("usage: tp-launch-probe MODE...");
  std::unique_ptr<ProcessGroup> group;
  Status joined = joinLaunchedRun(group);
#ifdef TP_HAVE_MPI
  if (joined.isOk() && !group && startedByMpi())
    joined = joinMpiRun(group);
#endif
  if (!joined.isOk())
    return fail(joined.message());
  if (!group)
    return fail("not started by a launcher");
  // What tp-run asks before it has joined (to report interrupts quietly).
  if (!startedByMpi() && !startedByLauncher())
    return fail("joined a launched run, yet startedByLauncher() is false");

  std::string mode = argv[1 + group->rank() % (argc - 1)];
  std::string blob;
  Status booted = group->bootstrap(
      [](std::string &made) {
        made = "mpi-blob";
        return Status::ok();
      },
      blob);
  if (!booted.isOk())
    return fail(booted.message());

  if (mode == "fail")
    group->abort("probe failure on rank " + std::to_string(group->rank()));
  if (mode == "crash")
    std::raise(SIGKILL);
  if (mode == "silent")
    return 0;
  if (mode == "stubborn")
    std::signal(SIGTERM, SIG_IGN);
  if (mode == "hang" || mode == "stubborn") {
    std::this_thread::sleep_for(std::chrono::seconds(60));
    return 0;
  }
  if (mode != "report")
    return fail("unknown mode '" + mode + "'");

  Tensor info(DType::I64, {int64_t(3 + blob.size())});
  info.set(0, group->rank());
  info.set(1, group->size());
  info.set(2, group->localRank());
  for (size_t i = 0; i < blob.size(); ++i)
    info.set(3 + i, static_cast<unsigned char>(blob[i]));
  std::vector<std::string> all;
  Status sent = group->gather(encodeOutcome(Status::ok(), {info}), all);
  if (!sent.isOk())
    return fail(sent.message());
  for (size_t r = 0; r < all.size(); ++r) {
    Status outcome;
    std::vector<Tensor> results;
    Status decoded = decodeOutcome(all[r], outcome, results);
    if (!decoded.isOk() || !outcome.isOk() || results.size() != 1)
      return fail("bad report from rank " + std::to_string(r));
    const Tensor &t = results[0];
    std::string text;
    for (int64_t i = 3; i < t.numElements(); ++i)
      text.push_back(static_cast<char>(t.get(i)));
    std::printf("report %zu: rank %d of %d, local rank %d, blob '%s'\n", r,
                int(t.get(0)), int(t.get(1)), int(t.get(2)), text.c_str());
  }
  return 0;
}
