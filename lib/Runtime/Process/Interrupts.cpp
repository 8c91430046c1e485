//===- Interrupts.cpp - SIGINT and SIGTERM end a run cleanly --------------===//
//
// The handler writes the signal's number to a pipe (write() is
// async-signal-safe); a thread reading the pipe stops the children, removes
// temporary files and exits. Any thread may take the signal, including
// threads a library started before main.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Interrupts.h"
#include "tp/Runtime/World.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <ftw.h>
#include <map>
#include <mutex>
#include <poll.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace mlir::tp::rt;

namespace {

/// How long stopped children get between SIGTERM and SIGKILL.
constexpr auto kChildGrace = std::chrono::seconds(2);
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

struct Registry {
  std::mutex mutex;
  /// Tracked children, and whether each is signalled with its group.
  std::map<pid_t, bool> children;
  /// Temporary paths, and whether their folder goes too when left empty.
  std::map<std::string, bool> temporaries;
  std::string tool;
  bool quiet = false;
};

/// Never destroyed: the interrupt thread may use it while exit() runs.
Registry &registry() {
  static Registry *instance = new Registry;
  return *instance;
}

int signalPipe[2] = {-1, -1};
std::atomic<bool> interrupting{false};

extern "C" void onInterrupt(int sig) {
  int saved = errno;
  unsigned char byte = static_cast<unsigned char>(sig);
  ssize_t ignored = ::write(signalPipe[1], &byte, 1);
  (void)ignored;
  errno = saved;
}

/// The next signal from the pipe within `timeoutMs` (-1: forever); 0 if none.
int nextSignal(int timeoutMs) {
  pollfd p{signalPipe[0], POLLIN, 0};
  int ready = ::poll(&p, 1, timeoutMs);
  if (ready <= 0)
    return 0;
  unsigned char byte = 0;
  return ::read(signalPipe[0], &byte, 1) == 1 ? byte : 0;
}

void say(const Registry &r, const std::string &text) {
  if (r.quiet)
    return;
  std::string line = r.tool + ": " + text + "\n";
  ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
  (void)ignored;
}

void signalChildren(const std::map<pid_t, bool> &children, int sig) {
  for (auto [pid, wholeGroup] : children)
    ::kill(wholeGroup ? -pid : pid, sig);
}

/// Whether every child has exited (a zombie counts: it runs nothing).
bool childrenExited(const std::map<pid_t, bool> &children) {
  for (auto [pid, wholeGroup] : children) {
    siginfo_t info;
    info.si_pid = 0;
    int waited = ::waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT);
    if (waited == 0 && info.si_pid == 0)
      return false;
  }
  return true;
}

int removeEntry(const char *path, const struct stat *, int type, FTW *) {
  type == FTW_DP ? ::rmdir(path) : ::unlink(path);
  return 0;
}

/// Removes `path`, and what it holds when it is a folder; links are removed,
/// not followed.
void removeTree(const std::string &path) {
  ::nftw(path.c_str(), removeEntry, 16, FTW_DEPTH | FTW_PHYS);
}

[[noreturn]] void stopAndExit(int sig) {
  interrupting = true;
  Registry &r = registry();
  std::map<pid_t, bool> children;
  std::map<std::string, bool> temporaries;
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    children = r.children;
    temporaries = r.temporaries;
  }
  std::string name = sigabbrev_np(sig) ? std::string("SIG") + sigabbrev_np(sig)
                                       : "signal " + std::to_string(sig);
  if (children.empty()) {
    say(r, "interrupted by " + name);
  } else {
    say(r, "interrupted by " + name +
               "; stopping the rank processes (interrupt again to kill them "
               "at once)");
    signalChildren(children, SIGTERM);
    auto giveUp = std::chrono::steady_clock::now() + kChildGrace;
    while (!childrenExited(children) &&
           std::chrono::steady_clock::now() < giveUp)
      if (int again = nextSignal(20); again) {
        say(r, "interrupted again; killing the child processes");
        break;
      }
    // A group's leader may have exited while the ranks it started still
    // run: the group is killed either way.
    signalChildren(children, SIGKILL);
    // SIGKILL takes effect asynchronously: exit once the children are gone
    // (a loaded machine takes a few ms), so nothing of the run outlives it.
    auto killed = std::chrono::steady_clock::now() + kChildGrace;
    while (!childrenExited(children) &&
           std::chrono::steady_clock::now() < killed)
      ::poll(nullptr, 0, 10);
  }
  for (const auto &[path, removeEmptyParent] : temporaries) {
    removeTree(path);
    if (size_t slash = path.rfind('/');
        removeEmptyParent && slash != std::string::npos && slash > 0)
      ::rmdir(path.substr(0, slash).c_str());
  }
  ::_exit(128 + sig);
}

} // namespace

Status mlir::tp::rt::handleInterrupts(const std::string &tool, bool quiet) {
  Registry &r = registry();
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    r.tool = tool;
    r.quiet = quiet;
    if (signalPipe[0] >= 0)
      return Status::ok();
  }
  if (::pipe2(signalPipe, O_CLOEXEC) != 0)
    return Status::error(std::string("cannot handle interrupts: pipe: ") +
                         std::strerror(errno));
  // The handler must never block on a full pipe.
  ::fcntl(signalPipe[1], F_SETFL, O_NONBLOCK);
  std::thread watcher;
  TP_RETURN_IF_ERROR(startThread(
      [] {
        for (;;)
          if (int sig = nextSignal(-1); sig)
            stopAndExit(sig);
      },
      watcher));
  watcher.detach();
  // exit() from another thread waits for the interrupt thread's _exit.
  std::atexit(awaitInterrupt);
  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_handler = onInterrupt;
  // Interrupted system calls resume: the thread does the stopping.
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  for (int sig : kSignals)
    if (::sigaction(sig, &action, nullptr) != 0)
      return Status::error(std::string("cannot handle interrupts: ") +
                           std::strerror(errno));
  return Status::ok();
}

void mlir::tp::rt::awaitInterrupt() {
  if (!interrupting)
    return;
  for (;;)
    ::pause();
}

void mlir::tp::rt::trackChild(pid_t child, bool wholeGroup) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.children[child] = wholeGroup;
}

void mlir::tp::rt::untrackChild(pid_t child) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.children.erase(child);
}

void mlir::tp::rt::trackTemporaryPath(const std::string &path,
                                      bool removeEmptyParent) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.temporaries[path] = removeEmptyParent;
}

void mlir::tp::rt::untrackTemporaryPath(const std::string &path) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.temporaries.erase(path);
}

void mlir::tp::rt::removeTemporaryPath(const std::string &path) {
  untrackTemporaryPath(path);
  removeTree(path);
}
