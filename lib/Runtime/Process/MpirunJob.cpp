//===- MpirunJob.cpp - mpirun as a child that tp-run watches --------------===//

#include "tp/Runtime/MpirunJob.h"
#include "tp/Runtime/Interrupts.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <regex>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

using namespace mlir::tp::rt;

namespace {

/// Open MPI frames every help message with a line of dashes.
bool isBannerRule(std::string_view text) {
  return text.size() >= 20 && text.find_first_not_of('-') == std::string::npos;
}

/// Banners that repeat what the ranks said, or what tp-run says instead.
bool isRedundantBanner(const std::string &text) {
  for (const char *known :
       {"MPI_ABORT was invoked", "Primary job  terminated normally",
        "Primary job terminated normally",
        "detected that one or more processes exited with non-zero status",
        "noticed that process rank"})
    if (text.find(known) != std::string::npos)
      return true;
  return false;
}

/// Lines about banners rather than the run: Open MPI's notes that it
/// aggregated them, and its errors while relaying several ranks' aborts at
/// once (ORTE_ERROR_LOG in show_help.c, a known 4.1 race).
bool isBannerNoise(const std::string &text) {
  static const std::regex moreHelp(
      R"(^\[[^\]]*\] \d+ more process.* sent help message.*)");
  static const std::regex relayError(
      R"(^\[[^\]]*\] .*ORTE_ERROR_LOG: .*show_help\.c at line \d+$)");
  return std::regex_match(text, moreHelp) ||
         std::regex_match(text, relayError) ||
         text.rfind("Set MCA parameter \"orte_base_help_aggregate\"", 0) == 0;
}

} // namespace

std::string MpirunOutputFilter::endBanner() {
  std::string text;
  for (const std::string &l : banner)
    text += l + "\n";
  banner.clear();
  static const std::regex died(
      R"(process rank (\d+) with PID (\d+) on node (\S+) exited on signal (\d+) \(([^)]*)\))");
  std::smatch match;
  if (lost.empty() && std::regex_search(text, match, died)) {
    lost = "rank " + match[1].str();
    if (match[2].str() != "0") // Open MPI 4.1 often reports PID 0.
      lost += " (pid " + match[2].str() + ")";
    lost +=
        " was killed by signal " + match[4].str() + " (" + match[5].str() + ")";
  }
  if (isRedundantBanner(text))
    return "";
  std::string rule(70, '-');
  return rule + "\n" + text + rule + "\n";
}

std::string MpirunOutputFilter::line(std::string_view raw) {
  std::string text(raw);
  if (isBannerRule(text)) {
    if (!inBanner) {
      inBanner = true;
      return "";
    }
    inBanner = false;
    return endBanner();
  }
  if (inBanner) {
    banner.push_back(text);
    return "";
  }
  return isBannerNoise(text) ? "" : text + "\n";
}

std::string MpirunOutputFilter::feed(std::string_view chunk) {
  pending.append(chunk);
  std::string out;
  size_t start = 0;
  for (size_t end; (end = pending.find('\n', start)) != std::string::npos;
       start = end + 1)
    out += line(std::string_view(pending).substr(start, end - start));
  pending.erase(0, start);
  return out;
}

std::string MpirunOutputFilter::finish() {
  std::string out;
  if (!pending.empty())
    out += line(pending);
  pending.clear();
  // A banner that never closed is passed on as it came.
  if (inBanner) {
    out += std::string(70, '-') + "\n";
    for (const std::string &l : banner)
      out += l + "\n";
    banner.clear();
    inBanner = false;
  }
  return out;
}

namespace {

/// The processes mpirun forked on this machine: its ranks, each in a process
/// group of its own (so not reached by signalling mpirun's group).
struct Children {
  int running = 0;
  int ended = 0;
  /// The first ended child's nonzero wait status; 0 when all exited 0.
  int failedStatus = 0;
};

/// Reads /proc/PID/stat: "pid (comm) state ppid ...", where comm may hold
/// spaces and parentheses; field 52 is a zombie's wait status (Linux 3.5).
Children childrenOf(pid_t parent) {
  Children children;
  DIR *proc = ::opendir("/proc");
  if (!proc)
    return children;
  while (dirent *entry = ::readdir(proc)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9')
      continue;
    std::ifstream file(std::string("/proc/") + entry->d_name + "/stat");
    std::string stat;
    if (!std::getline(file, stat))
      continue;
    size_t close = stat.rfind(')');
    if (close == std::string::npos)
      continue;
    std::vector<std::string> fields; // From field 3 (state) on.
    size_t at = close + 2;
    while (at < stat.size()) {
      size_t end = stat.find(' ', at);
      fields.push_back(stat.substr(at, end - at));
      if (end == std::string::npos)
        break;
      at = end + 1;
    }
    if (fields.size() < 2 || std::atol(fields[1].c_str()) != parent)
      continue;
    if (fields[0] != "Z") {
      ++children.running;
      continue;
    }
    ++children.ended;
    // A kernel without the field: the outcome is unknown, so a failure.
    int status = fields.size() >= 50 ? std::atoi(fields[49].c_str()) : 1;
    if (status != 0 && children.failedStatus == 0)
      children.failedStatus = status;
  }
  ::closedir(proc);
  return children;
}

/// Open MPI 4.1 (Debian 12: with PMIx 4) can deadlock in mpirun's own
/// finalize (PMIx_server_finalize) after a rank's MPI_Abort, with every rank
/// already ended: 3 jobs in 48 on a loaded 2-core machine. mpirun that
/// outlives all its ranks by this long is stuck, and is stopped.
constexpr std::chrono::seconds kFinalizeGrace(10);

} // namespace

static void writeAll(int fd, const std::string &text) {
  size_t at = 0;
  while (at < text.size()) {
    ssize_t n = ::write(fd, text.data() + at, text.size() - at);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return;
    at += static_cast<size_t>(n);
  }
}

Status mlir::tp::rt::runMpirun(const std::vector<std::string> &command,
                               int &exitStatus) {
  exitStatus = 1;
  if (command.empty())
    return Status::error("runMpirun: no command");
  int errPipe[2];
  if (::pipe2(errPipe, O_CLOEXEC) != 0)
    return Status::error(std::string("cannot start mpirun: pipe: ") +
                         std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // The ranks never read standard input; mpirun in a background group that
  // read the terminal would be stopped (SIGTTIN).
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null",
                                   O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, errPipe[1], STDERR_FILENO);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  // Its own group: mpirun and its ranks are signalled together.
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  std::vector<std::string> args = command;
  // Session folders under a base of this job's own. Open MPI 4.1 makes
  // $TMPDIR/ompi.<host>.<uid> when a job starts and removes it when the last
  // one ends, and two jobs starting together race on it (orte_init fails:
  // "mkdir ... File exists"). A base given in the environment wins.
  std::string base;
  const char *givenBase = std::getenv("OMPI_MCA_orte_tmpdir_base");
  if (!givenBase || !*givenBase) {
    const char *tmpdir = std::getenv("TMPDIR");
    std::string parent = tmpdir && *tmpdir ? tmpdir : "/tmp";
    std::string pattern = parent + "/tp-mpirun.XXXXXX";
    if (!::mkdtemp(pattern.data())) {
      ::close(errPipe[0]);
      ::close(errPipe[1]);
      posix_spawn_file_actions_destroy(&actions);
      posix_spawnattr_destroy(&attributes);
      return Status::error("cannot make a session folder for mpirun in " +
                           parent + " (TMPDIR): " + std::strerror(errno));
    }
    base = pattern;
    trackTemporaryPath(base);
    args.insert(args.begin() + 1, {"--mca", "orte_tmpdir_base", base});
  }
  std::vector<char *> argv;
  for (std::string &arg : args)
    argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  int error = ::posix_spawnp(&pid, argv[0], &actions, &attributes, argv.data(),
                             environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  ::close(errPipe[1]);
  if (error != 0) {
    ::close(errPipe[0]);
    if (!base.empty())
      removeTemporaryPath(base);
    return Status::error("cannot run " + command[0] +
                         " to start the MPI ranks: " + std::strerror(error) +
                         " (Debian: openmpi-bin; or set TP_MPIRUN)");
  }
  trackChild(pid, /*wholeGroup=*/true);
  // Open MPI 4's session folder for this job, under the given base: mpirun
  // removes it, unless it is killed. Our own base goes whole.
  std::string session;
  if (base.empty()) {
    char host[256] = "";
    ::gethostname(host, sizeof(host) - 1);
    session = std::string(givenBase) + "/ompi." + host + "." +
              std::to_string(::getuid()) + "/pid." + std::to_string(pid);
    trackTemporaryPath(session, /*removeEmptyParent=*/true);
  }

  MpirunOutputFilter filter;
  ::fcntl(errPipe[0], F_SETFL, O_NONBLOCK);
  char buffer[1 << 14];
  // Until the output ends, or mpirun has exited and its output is drained
  // (a process it left behind may hold the pipe open).
  bool sawRanks = false, stuck = false;
  int ranksStatus = 0;
  bool ranksEnded = false;
  std::chrono::steady_clock::time_point ranksEndedAt;
  for (bool exited = false;;) {
    pollfd p{errPipe[0], POLLIN, 0};
    ::poll(&p, 1, 100);
    ssize_t n = ::read(errPipe[0], buffer, sizeof(buffer));
    if (n > 0) {
      writeAll(STDERR_FILENO, filter.feed(std::string_view(buffer, n)));
      continue;
    }
    if (n == 0 || (errno != EAGAIN && errno != EINTR) || exited)
      break;
    siginfo_t info;
    info.si_pid = 0;
    exited = ::waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0 ||
             info.si_pid == pid;
    if (exited || stuck)
      continue;
    Children ranks = childrenOf(pid);
    auto now = std::chrono::steady_clock::now();
    if (ranks.running > 0) {
      sawRanks = true;
      ranksEnded = false;
    } else if (sawRanks && !ranksEnded) {
      ranksEnded = true;
      ranksEndedAt = now;
    } else if (ranksEnded && now - ranksEndedAt > kFinalizeGrace) {
      stuck = true;
      // Ranks mpirun already reaped leave no status to read: a failure.
      ranksStatus = ranks.ended > 0 ? ranks.failedStatus : 1 << 8;
      ::kill(-pid, SIGKILL);
    }
  }
  writeAll(STDERR_FILENO, filter.finish());
  ::close(errPipe[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  // Stopped by an interrupt: its exit status is not the run's.
  awaitInterrupt();
  // Ranks mpirun left behind (it was killed, or crashed) go with it.
  ::kill(-pid, SIGKILL);
  untrackChild(pid);
  if (base.empty())
    untrackTemporaryPath(session);
  else
    removeTemporaryPath(base);
  if (stuck) {
    // The job's outcome is its ranks', which mpirun never got to report.
    std::fprintf(stderr,
                 "mpirun did not exit within %lld s after all its ranks ended "
                 "(Open MPI's finalize can hang after an abort); it was "
                 "stopped\n",
                 static_cast<long long>(kFinalizeGrace.count()));
    status = ranksStatus;
  }
  exitStatus =
      WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
  if (!filter.lostRank().empty())
    return Status::error(filter.lostRank() +
                         "; mpirun saw it die and ended the job");
  return Status::ok();
}
