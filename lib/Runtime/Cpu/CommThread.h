//===- CommThread.h - a rank's thread for fused ops' communication -*- C++ -*-===//

#ifndef TP_LIB_RUNTIME_CPU_COMMTHREAD_H
#define TP_LIB_RUNTIME_CPU_COMMTHREAD_H

#include "tp/Runtime/Status.h"

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace mlir::tp::rt::cpu {

/// The thread that moves a fused op's pieces (or sums its partials) beside
/// the rank's GEMMs. It starts with the rank's first fused op and lives as
/// long as the backend: starting a thread per op costs tens of microseconds
/// (about 80 on a small VM), more than a small fused op's GEMMs.
class CommThread {
public:
  CommThread() = default;
  CommThread(const CommThread &) = delete;
  CommThread &operator=(const CommThread &) = delete;
  ~CommThread();

  /// Runs `task` on the thread. The task given before must have been waited
  /// for: a rank runs one fused op at a time.
  Status run(std::function<void()> task);
  /// Returns once the task given to `run` has returned.
  void wait();

private:
  void serve();

  std::mutex mutex;
  std::condition_variable changed;
  std::function<void()> task;
  bool busy = false;
  bool stopping = false;
  std::thread thread;
};

} // namespace mlir::tp::rt::cpu

#endif // TP_LIB_RUNTIME_CPU_COMMTHREAD_H
