//===- InterruptsTest.cpp - signals end a run; mpirun's output filtered ---===//
//
// A forked launcher (handleInterrupts, then launchRanks over
// tp-launch-probe) is sent SIGINT or SIGTERM: it must exit with 128 + the
// signal, leave no rank process running and remove its temporary files.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Interrupts.h"
#include "tp/Runtime/Launch.h"
#include "tp/Runtime/MpirunJob.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace mlir::tp::rt;
using Clock = std::chrono::steady_clock;

namespace {

/// The children of process `pid` (its main thread's).
std::vector<pid_t> childrenOf(pid_t pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/task/" +
                     std::to_string(pid) + "/children");
  std::vector<pid_t> children;
  for (pid_t child; file >> child;)
    children.push_back(child);
  return children;
}

/// Whether `pid` still runs (a zombie runs nothing).
bool isRunning(pid_t pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(file, line))
    return false;
  size_t close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() &&
         line[close + 2] != 'Z';
}

struct Interrupted {
  int exitStatus = -1;
  double secondsAfterFirstSignal = 0;
  std::vector<pid_t> ranks;
  std::string temporary;
};

/// Forks a launcher of two probe ranks in `modes`, sends it `signals` (the
/// second 200 ms after the first) once both ranks run, and waits for it.
Interrupted interruptLauncher(const std::vector<std::string> &modes,
                              const std::vector<int> &signals) {
  Interrupted result;
  char path[] = "/tmp/tp-interrupts-test-XXXXXX";
  int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  close(fd);
  result.temporary = path;
  pid_t launcher = fork();
  if (launcher == 0) {
    if (!handleInterrupts("launcher", /*quiet=*/true).isOk())
      _exit(90);
    trackTemporaryPath(path);
    LaunchSpec spec;
    spec.argv = {TP_LAUNCH_PROBE};
    spec.argv.insert(spec.argv.end(), modes.begin(), modes.end());
    spec.ranks = 2;
    std::vector<std::string> reports;
    (void)launchRanks(spec, reports);
    _exit(91); // The probes sleep for a minute: the signal must come first.
  }
  Clock::time_point giveUp = Clock::now() + std::chrono::seconds(20);
  while (childrenOf(launcher).size() < 2 && Clock::now() < giveUp)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  result.ranks = childrenOf(launcher);
  EXPECT_EQ(result.ranks.size(), 2u);
  // The probes are running (not only forked) once they sleep.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  Clock::time_point first = Clock::now();
  for (size_t i = 0; i < signals.size(); ++i) {
    if (i)
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    kill(launcher, signals[i]);
  }
  int status = 0;
  while (waitpid(launcher, &status, WNOHANG) == 0) {
    if (Clock::now() > giveUp) {
      kill(launcher, SIGKILL);
      waitpid(launcher, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  result.secondsAfterFirstSignal =
      std::chrono::duration<double>(Clock::now() - first).count();
  result.exitStatus = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

void expectCleanedUp(const Interrupted &run) {
  for (pid_t rank : run.ranks)
    EXPECT_FALSE(isRunning(rank)) << "rank process " << rank << " survived";
  EXPECT_NE(access(run.temporary.c_str(), F_OK), 0)
      << run.temporary << " was left behind";
  unlink(run.temporary.c_str());
}

TEST(Interrupts, SigintStopsTheRanksAndExits130) {
  Interrupted run = interruptLauncher({"hang"}, {SIGINT});
  EXPECT_EQ(run.exitStatus, 130);
  EXPECT_LT(run.secondsAfterFirstSignal, 2.0);
  expectCleanedUp(run);
}

TEST(Interrupts, SigtermExits143) {
  Interrupted run = interruptLauncher({"hang"}, {SIGTERM});
  EXPECT_EQ(run.exitStatus, 143);
  expectCleanedUp(run);
}

TEST(Interrupts, RanksThatIgnoreSigtermAreKilledAfterTheGrace) {
  Interrupted run = interruptLauncher({"stubborn"}, {SIGINT});
  EXPECT_EQ(run.exitStatus, 130);
  EXPECT_GE(run.secondsAfterFirstSignal, 1.9);
  EXPECT_LT(run.secondsAfterFirstSignal, 10.0);
  expectCleanedUp(run);
}

TEST(Interrupts, ASecondSigintKillsAtOnce) {
  Interrupted run = interruptLauncher({"stubborn"}, {SIGINT, SIGINT});
  EXPECT_EQ(run.exitStatus, 130);
  // 200 ms between the signals, then no grace.
  EXPECT_LT(run.secondsAfterFirstSignal, 1.5);
  expectCleanedUp(run);
}

//===----------------------------------------------------------------------===//
// mpirun's standard error
//===----------------------------------------------------------------------===//

const char *kRule = "------------------------------------------------------"
                    "--------------------";

std::string banner(const std::string &body) {
  return std::string(kRule) + "\n" + body + "\n" + kRule + "\n";
}

TEST(MpirunOutput, ARankKilledBySignalIsNamedAndItsBannersDropped) {
  MpirunOutputFilter filter;
  std::string out =
      filter.feed("MPI rank 0 failed: timed out\n" +
                  banner("Primary job  terminated normally, but 1 process "
                         "returned\na non-zero exit code. Per user-direction, "
                         "the job has been aborted.") +
                  banner("mpirun noticed that process rank 2 with PID 0 on "
                         "node vm exited on signal 9 (Killed)."));
  out += filter.finish();
  EXPECT_EQ(out, "MPI rank 0 failed: timed out\n");
  EXPECT_EQ(filter.lostRank(), "rank 2 was killed by signal 9 (Killed)");
}

TEST(MpirunOutput, ThePidIsKeptWhenMpirunKnowsIt) {
  MpirunOutputFilter filter;
  (void)filter.feed(banner("mpirun noticed that process rank 1 with PID 4242 "
                           "on node n1 exited on signal 15 (Terminated)."));
  EXPECT_EQ(filter.lostRank(),
            "rank 1 (pid 4242) was killed by signal 15 (Terminated)");
}

TEST(MpirunOutput, AbortBannersAndRelayNoiseAreDropped) {
  MpirunOutputFilter filter;
  std::string out = filter.feed(
      banner("MPI_ABORT was invoked on rank 1 in communicator MPI_COMM_WORLD\n"
             "with errorcode 1.") +
      "[vm:06124] [[31506,0],0] ORTE_ERROR_LOG: Data unpack would read past "
      "end of buffer in file ../../../orte/util/show_help.c at line 501\n"
      "[vm:01234] 2 more processes have sent help message help-mpi-api.txt / "
      "mpi-abort\n"
      "Set MCA parameter \"orte_base_help_aggregate\" to 0 to see all help / "
      "error messages\n");
  EXPECT_EQ(out + filter.finish(), "");
  EXPECT_EQ(filter.lostRank(), "");
}

TEST(MpirunOutput, OtherBannersPassWholeAcrossChunks) {
  MpirunOutputFilter filter;
  std::string text = banner("The user-provided time limit for job execution "
                            "has been reached:\n\n  Timeout: 30 seconds");
  std::string out;
  // One byte at a time: lines and banners span reads.
  for (char c : text)
    out += filter.feed(std::string_view(&c, 1));
  out += filter.finish();
  EXPECT_NE(out.find("time limit for job execution has been reached"),
            std::string::npos);
  EXPECT_NE(out.find("Timeout: 30 seconds"), std::string::npos);
}

TEST(MpirunOutput, AnUnfinishedBannerOrLineIsPassedOnAtTheEnd) {
  MpirunOutputFilter filter;
  std::string out = filter.feed(std::string(kRule) + "\nhalf a banner\nand");
  EXPECT_EQ(out, "");
  out = filter.finish();
  EXPECT_NE(out.find("half a banner\nand\n"), std::string::npos);
}

/// The exit status of runMpirun over a stand-in mpirun running `body` (a
/// shell script), and the seconds it took.
std::pair<int, double> runStandInMpirun(const std::string &body) {
  char folder[] = "/tmp/tp-stuck-mpirun.XXXXXX";
  if (!::mkdtemp(folder))
    return {-1, 0};
  std::string script = std::string(folder) + "/mpirun";
  {
    std::ofstream file(script);
    file << "#!/bin/sh\n" << body;
  }
  ::chmod(script.c_str(), 0755);
  auto start = Clock::now();
  int exitStatus = -1;
  Status job = runMpirun({script}, exitStatus);
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_TRUE(job.isOk()) << job.message();
  ::unlink(script.c_str());
  ::rmdir(folder);
  return {exitStatus, seconds};
}

/// Open MPI 4.1's mpirun can hang in its finalize after every rank ended.
/// A stand-in does that: it forks two "ranks" (one exits 0, one 3) and
/// then sleeps without reaping them. runMpirun stops it after the grace and
/// takes the job's outcome from its ranks.
TEST(MpirunJob, AnMpirunThatOutlivesItsRanksIsStoppedWithTheirOutcome) {
  auto [exitStatus, seconds] = runStandInMpirun(
      "(sleep 1; exit 0) &\n(sleep 1; exit 3) &\nexec sleep 120\n");
  EXPECT_EQ(exitStatus, 3);
  EXPECT_LT(seconds, 60.0);
}

/// Ranks it reaped before hanging leave no status: the job failed, as far
/// as anyone can tell.
TEST(MpirunJob, AnMpirunStuckAfterReapingItsRanksFails) {
  auto [exitStatus, seconds] =
      runStandInMpirun("(sleep 1; exit 0) &\nwait\nexec sleep 120\n");
  EXPECT_EQ(exitStatus, 1);
  EXPECT_LT(seconds, 60.0);
}

} // namespace
