//===- Launch.cpp - ranks as processes on one node ------------------------===//
//
// The launcher spawns every rank with its rank, the run's size and bootstrap
// blob in the environment, and a pipe for its report on a fixed descriptor.
// It then polls: reads reports as they come (a rank blocked on a full pipe
// must not stall the run) and reaps ranks as they exit.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Launch.h"
#include "tp/Runtime/Interrupts.h"
#include "tp/Runtime/Wire.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

using namespace mlir::tp::rt;
using Clock = std::chrono::steady_clock;

ProcessGroup::~ProcessGroup() = default;

namespace {

constexpr const char *kRankVar = "TP_LAUNCH_RANK";
constexpr const char *kSizeVar = "TP_LAUNCH_SIZE";
constexpr const char *kBootstrapVar = "TP_LAUNCH_BOOTSTRAP";
constexpr const char *kReportFdVar = "TP_LAUNCH_REPORT_FD";
/// The descriptor a rank writes its report to.
constexpr int kReportFd = 3;
/// How long a stopped rank gets between SIGTERM and SIGKILL.
constexpr auto kTermGrace = std::chrono::seconds(2);

std::string toHex(const std::string &bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : bytes) {
    hex.push_back(digits[c >> 4]);
    hex.push_back(digits[c & 15]);
  }
  return hex;
}

bool fromHex(const std::string &hex, std::string &bytes) {
  auto value = [](char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                  : -1;
  };
  if (hex.size() % 2)
    return false;
  bytes.clear();
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = value(hex[i]), lo = value(hex[i + 1]);
    if (hi < 0 || lo < 0)
      return false;
    bytes.push_back(static_cast<char>(hi << 4 | lo));
  }
  return true;
}

std::string systemError(const std::string &what) {
  return what + ": " + std::strerror(errno);
}

struct Rank {
  pid_t pid = -1;
  int reportFd = -1;
  std::string report;
  bool exited = false;
};

/// Whether `report` is a whole error outcome; its message in `message`.
bool isErrorReport(const std::string &report, std::string &message) {
  Status outcome;
  std::vector<Tensor> ignored;
  if (report.empty() || !decodeOutcome(report, outcome, ignored).isOk() ||
      outcome.isOk())
    return false;
  message = outcome.message();
  return true;
}

/// Why rank `r` failed, from its exit `status` and report.
std::string describeFailure(int r, int status, const std::string &report) {
  std::string who = "rank " + std::to_string(r);
  std::string message;
  if (isErrorReport(report, message))
    return who + " failed first: " + message;
  if (WIFSIGNALED(status))
    return who + " was killed by signal " + std::to_string(WTERMSIG(status)) +
           " (" + strsignal(WTERMSIG(status)) + ")";
  if (WEXITSTATUS(status) != 0)
    return who + " exited with status " + std::to_string(WEXITSTATUS(status));
  return who + " exited without a report";
}

/// Reads what is there; closes the pipe at its end. Blocking, it waits for
/// the end at most kDrainLimit: a process the rank left behind may hold the
/// pipe open.
void drain(Rank &rank, bool block) {
  constexpr auto kDrainLimit = std::chrono::seconds(1);
  Clock::time_point giveUp = Clock::now() + kDrainLimit;
  char buffer[1 << 16];
  while (rank.reportFd >= 0) {
    ssize_t n = read(rank.reportFd, buffer, sizeof(buffer));
    if (n > 0) {
      rank.report.append(buffer, n);
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && errno == EAGAIN && !block)
      return;
    if (n < 0 && errno == EAGAIN && Clock::now() < giveUp) {
      pollfd p{rank.reportFd, POLLIN, 0};
      poll(&p, 1, 100);
      continue;
    }
    close(rank.reportFd);
    rank.reportFd = -1;
  }
}

/// The environment of rank `r`: ours without stale launch variables, plus its
/// own.
std::vector<std::string> rankEnvironment(const LaunchSpec &spec, int r) {
  std::vector<std::string> env;
  for (char **e = environ; *e; ++e)
    if (std::strncmp(*e, "TP_LAUNCH_", 10) != 0)
      env.emplace_back(*e);
  env.push_back(std::string(kRankVar) + "=" + std::to_string(r));
  env.push_back(std::string(kSizeVar) + "=" + std::to_string(spec.ranks));
  env.push_back(std::string(kBootstrapVar) + "=" + toHex(spec.bootstrap));
  env.push_back(std::string(kReportFdVar) + "=" + std::to_string(kReportFd));
  return env;
}

std::vector<char *> pointers(std::vector<std::string> &strings) {
  std::vector<char *> result;
  for (std::string &s : strings)
    result.push_back(s.data());
  result.push_back(nullptr);
  return result;
}

Status spawnRank(const LaunchSpec &spec, int r, Rank &rank) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    return Status::error(systemError("pipe"));
  // The write end must not be kReportFd itself: dup2 onto the same number
  // would leave it close-on-exec.
  int writeFd = fcntl(fds[1], F_DUPFD_CLOEXEC, kReportFd + 1);
  close(fds[1]);
  if (writeFd < 0) {
    close(fds[0]);
    return Status::error(systemError("fcntl"));
  }
  fcntl(fds[0], F_SETFL, O_NONBLOCK);
  rank.reportFd = fds[0];

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, writeFd, kReportFd);
  std::vector<std::string> args = spec.argv;
  std::vector<std::string> env = rankEnvironment(spec, r);
  std::vector<char *> argv = pointers(args), envp = pointers(env);
  int error = posix_spawnp(&rank.pid, argv[0], &actions, nullptr, argv.data(),
                           envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(writeFd);
  if (error != 0) {
    rank.pid = -1;
    return Status::error("cannot start rank " + std::to_string(r) + " (" +
                         spec.argv[0] + "): " + std::strerror(error));
  }
  trackChild(rank.pid);
  return Status::ok();
}

} // namespace

Status mlir::tp::rt::launchRanks(const LaunchSpec &spec,
                                 std::vector<std::string> &reports) {
  if (spec.argv.empty() || spec.ranks < 1)
    return Status::error("launch: no command or no ranks");
  std::vector<Rank> ranks(spec.ranks);
  std::string failure;
  Clock::time_point start = Clock::now(), killAt = Clock::time_point::max();
  auto stopAll = [&](const std::string &why) {
    if (failure.empty())
      failure = why;
    if (killAt != Clock::time_point::max())
      return;
    for (Rank &rank : ranks)
      if (rank.pid > 0 && !rank.exited)
        kill(rank.pid, SIGTERM);
    killAt = Clock::now() + kTermGrace;
  };

  for (int r = 0; r < spec.ranks; ++r) {
    Status spawned = spawnRank(spec, r, ranks[r]);
    if (!spawned.isOk()) {
      stopAll(spawned.message());
      break;
    }
  }

  for (;;) {
    std::vector<pollfd> open;
    for (Rank &rank : ranks)
      if (rank.reportFd >= 0)
        open.push_back({rank.reportFd, POLLIN, 0});
    if (!open.empty())
      poll(open.data(), open.size(), 20);
    else
      usleep(20000);
    // A failure counts from when its report arrives, not when its rank exits:
    // a rank may take a while to exit (aborting NCCL), and its peers may fail
    // in turn meanwhile.
    // A report is looked at once, when its pipe closes.
    for (int r = 0; r < spec.ranks; ++r) {
      bool wasOpen = ranks[r].reportFd >= 0;
      drain(ranks[r], /*block=*/false);
      std::string message;
      if (wasOpen && ranks[r].reportFd < 0 &&
          isErrorReport(ranks[r].report, message))
        stopAll("rank " + std::to_string(r) + " failed first: " + message);
    }

    bool running = false;
    for (int r = 0; r < spec.ranks; ++r) {
      Rank &rank = ranks[r];
      if (rank.pid <= 0 || rank.exited)
        continue;
      int status = 0;
      pid_t done = waitpid(rank.pid, &status, WNOHANG);
      if (done == 0) {
        running = true;
        continue;
      }
      rank.exited = true;
      untrackChild(rank.pid);
      // Its pipe may still hold the end of its report.
      drain(rank, /*block=*/true);
      bool clean = done == rank.pid && WIFEXITED(status) &&
                   WEXITSTATUS(status) == 0 && !rank.report.empty();
      // A rank stopped by an interrupt did not fail: the interrupt ends the
      // run and says so.
      if (!clean)
        awaitInterrupt();
      if (!clean)
        stopAll(describeFailure(r, status, rank.report));
    }
    if (!running)
      break;
    Clock::time_point now = Clock::now();
    if (spec.timeout.count() > 0 && now - start > spec.timeout) {
      std::string late;
      for (int r = 0; r < spec.ranks; ++r)
        if (ranks[r].pid > 0 && !ranks[r].exited)
          late += (late.empty() ? "" : ", ") + std::to_string(r);
      stopAll("timed out after " + std::to_string(spec.timeout.count()) +
              " ms; still running: rank " + late);
    }
    if (now > killAt)
      for (Rank &rank : ranks)
        if (rank.pid > 0 && !rank.exited)
          kill(rank.pid, SIGKILL);
  }
  for (Rank &rank : ranks)
    if (rank.reportFd >= 0)
      close(rank.reportFd);
  if (!failure.empty())
    return Status::error(failure);
  reports.clear();
  for (Rank &rank : ranks)
    reports.push_back(std::move(rank.report));
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// A launched rank
//===----------------------------------------------------------------------===//

namespace {

class LaunchedRank final : public ProcessGroup {
public:
  LaunchedRank(int rank, int size, std::string blob, int reportFd)
      : myRank(rank), worldSize(size), blob(std::move(blob)),
        reportFd(reportFd) {}

  int rank() const override { return myRank; }
  int size() const override { return worldSize; }
  int localRank() const override { return myRank; }
  int localSize() const override { return worldSize; }
  bool collects() const override { return false; }

  Status bootstrap(const std::function<Status(std::string &)> &,
                   std::string &result) override {
    result = blob;
    return Status::ok();
  }

  Status gather(const std::string &mine,
                std::vector<std::string> &all) override {
    all.clear();
    if (reportFd < 0)
      return Status::error("rank " + std::to_string(myRank) +
                           ": the report was already sent");
    size_t at = 0;
    while (at < mine.size()) {
      ssize_t n = write(reportFd, mine.data() + at, mine.size() - at);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return Status::error(systemError("rank " + std::to_string(myRank) +
                                         ": writing its report"));
      at += n;
    }
    close(reportFd);
    reportFd = -1;
    return Status::ok();
  }

  [[noreturn]] void abort(const std::string &message) override {
    std::vector<std::string> ignored;
    if (reportFd >= 0)
      (void)gather(encodeOutcome(Status::error(message), {}), ignored);
    _exit(1);
  }

private:
  int myRank, worldSize;
  std::string blob;
  int reportFd;
};

bool parseInt(const char *text, int &value) {
  if (!text || !*text)
    return false;
  char *end;
  errno = 0;
  long v = std::strtol(text, &end, 10);
  if (*end || errno || v < 0 || v > 1 << 20)
    return false;
  value = static_cast<int>(v);
  return true;
}

} // namespace

Status mlir::tp::rt::joinLaunchedRun(std::unique_ptr<ProcessGroup> &group) {
  group.reset();
  const char *rankText = std::getenv(kRankVar);
  if (!rankText)
    return Status::ok();
  int rank, size, fd;
  std::string blob;
  const char *hex = std::getenv(kBootstrapVar);
  if (!parseInt(rankText, rank) || !parseInt(std::getenv(kSizeVar), size) ||
      !parseInt(std::getenv(kReportFdVar), fd) || rank >= size || !hex ||
      !fromHex(hex, blob))
    return Status::error("malformed launch environment (TP_LAUNCH_*); was "
                         "this process started by tp-run?");
  if (fcntl(fd, F_GETFD) < 0)
    return Status::error("launched rank " + std::to_string(rank) +
                         " has no report pipe (descriptor " +
                         std::to_string(fd) + ")");
  // Whatever this rank starts must not hold its report pipe open.
  fcntl(fd, F_SETFD, FD_CLOEXEC);
  group = std::make_unique<LaunchedRank>(rank, size, std::move(blob), fd);
  return Status::ok();
}

bool mlir::tp::rt::startedByLauncher() {
  return std::getenv(kRankVar) != nullptr;
}

bool mlir::tp::rt::startedByMpi() {
  for (const char *var :
       {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(var))
      return true;
  return false;
}
