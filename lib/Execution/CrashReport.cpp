//===- CrashReport.cpp - name the rank whose compiled code died -----------===//

#include "CrashReport.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <unistd.h>

using namespace mlir::tp::exec;

namespace {
/// The rank and entry this thread runs (rank -1: none).
thread_local int currentRank = -1;
thread_local const char *currentEntry = nullptr;
/// This thread's alternate signal stack, unregistered before it is freed.
struct AlternateStack {
  std::unique_ptr<char[]> memory;
  ~AlternateStack() {
    if (!memory)
      return;
    stack_t disabled;
    std::memset(&disabled, 0, sizeof(disabled));
    disabled.ss_flags = SS_DISABLE;
    sigaltstack(&disabled, nullptr);
  }
};
thread_local AlternateStack alternateStack;

constexpr int kFatalSignals[] = {SIGFPE, SIGSEGV, SIGBUS, SIGILL, SIGABRT};
struct sigaction previousActions[NSIG];
} // namespace

static const char *describeSignal(int sig) {
  switch (sig) {
  case SIGFPE:
    return "SIGFPE, an arithmetic fault (integer division by zero or "
           "overflow)";
  case SIGABRT:
    return "SIGABRT: a runtime check failed (its report is above) or the "
           "program aborted";
  case SIGSEGV:
    return "SIGSEGV, an invalid memory access or a stack overflow (runtime "
           "checks find out-of-bounds slices and bad casts)";
  case SIGBUS:
    return "SIGBUS, an invalid memory access";
  default:
    return "SIGILL, an illegal instruction";
  }
}

/// Hands the signal to the handler installed before ours.
static void chain(int sig, siginfo_t *info, void *context) {
  const struct sigaction &previous = previousActions[sig];
  if ((previous.sa_flags & SA_SIGINFO) && previous.sa_sigaction) {
    previous.sa_sigaction(sig, info, context);
    return;
  }
  if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
    previous.sa_handler(sig);
    return;
  }
  // The default action: restore it and deliver the signal again.
  sigaction(sig, &previous, nullptr);
  raise(sig);
}

static void onFatalSignal(int sig, siginfo_t *info, void *context) {
  if (currentRank < 0)
    return chain(sig, info, context);
  // Runtime checks report through stdout's buffer before they abort; the
  // process ends here, so flushing it cannot deadlock anything that matters.
  fflush(stdout);
  char message[512];
  int n =
      snprintf(message, sizeof(message), "%s: rank %d died running @%s: %s\n",
               program_invocation_short_name, currentRank,
               currentEntry ? currentEntry : "?", describeSignal(sig));
  if (n > 0)
    (void)!write(STDERR_FILENO, message,
                 std::min<size_t>(n, sizeof(message) - 1));
  _exit(1);
}

CrashScope::CrashScope(int rank, const char *entry) {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action;
    std::memset(&action, 0, sizeof(action));
    action.sa_sigaction = onFatalSignal;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    for (int sig : kFatalSignals)
      sigaction(sig, &action, &previousActions[sig]);
  });
  if (!alternateStack.memory) {
    constexpr size_t kSize = 64 * 1024;
    alternateStack.memory = std::make_unique<char[]>(kSize);
    stack_t stack;
    std::memset(&stack, 0, sizeof(stack));
    stack.ss_sp = alternateStack.memory.get();
    stack.ss_size = kSize;
    sigaltstack(&stack, nullptr);
  }
  currentRank = rank;
  currentEntry = entry;
}

CrashScope::~CrashScope() { currentRank = -1; }
