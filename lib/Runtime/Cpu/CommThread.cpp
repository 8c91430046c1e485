//===- CommThread.cpp - a rank's thread for fused ops' communication ------===//

#include "CommThread.h"

#include "tp/Runtime/World.h"

using namespace mlir::tp::rt;
using namespace mlir::tp::rt::cpu;

CommThread::~CommThread() {
  if (!thread.joinable())
    return;
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  changed.notify_all();
  thread.join();
}

Status CommThread::run(std::function<void()> next) {
  std::unique_lock<std::mutex> lock(mutex);
  if (busy)
    return Status::error(
        "internal: a fused op started while the previous one's "
        "communication was still running");
  if (!thread.joinable())
    TP_RETURN_IF_ERROR(startThread([this] { serve(); }, thread));
  task = std::move(next);
  busy = true;
  lock.unlock();
  changed.notify_all();
  return Status::ok();
}

void CommThread::wait() {
  std::unique_lock<std::mutex> lock(mutex);
  changed.wait(lock, [&] { return !busy; });
}

void CommThread::serve() {
  std::unique_lock<std::mutex> lock(mutex);
  while (true) {
    changed.wait(lock, [&] { return busy || stopping; });
    if (!busy)
      return;
    std::function<void()> current = std::move(task);
    lock.unlock();
    current();
    lock.lock();
    busy = false;
    changed.notify_all();
  }
}
