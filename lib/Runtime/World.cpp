//===- World.cpp - ranks as threads of one process ------------------------===//

#include "tp/Runtime/World.h"

#include <algorithm>
#include <system_error>
#include <thread>

using namespace mlir::tp::rt;

Group mlir::tp::rt::makeGroup(const std::vector<int64_t> &gridShape,
                              const std::vector<int> &axes, int worldRank) {
  // Row-major coordinates of this rank (last axis fastest).
  std::vector<int64_t> coords(gridShape.size());
  int64_t rest = worldRank;
  for (int64_t i = static_cast<int64_t>(gridShape.size()) - 1; i >= 0; --i) {
    coords[i] = rest % gridShape[i];
    rest /= gridShape[i];
  }
  auto linear = [&](const std::vector<int64_t> &c) {
    int64_t r = 0;
    for (size_t i = 0; i < gridShape.size(); ++i)
      r = r * gridShape[i] + c[i];
    return static_cast<int>(r);
  };
  int64_t size = 1;
  for (int axis : axes)
    size *= gridShape[axis];
  Group group;
  // Group order: row-major over the listed axes, like the linear index.
  for (int64_t g = 0; g < size; ++g) {
    std::vector<int64_t> c = coords;
    int64_t left = g;
    for (int64_t j = static_cast<int64_t>(axes.size()) - 1; j >= 0; --j) {
      c[axes[j]] = left % gridShape[axes[j]];
      left /= gridShape[axes[j]];
    }
    int member = linear(c);
    if (member == worldRank)
      group.index = static_cast<int>(group.ranks.size());
    group.ranks.push_back(member);
  }
  return group;
}

Status mlir::tp::rt::startThread(std::function<void()> body,
                                 std::thread &thread) {
  try {
    thread = std::thread(std::move(body));
  } catch (const std::system_error &e) {
    return Status::error(e.what());
  }
  return Status::ok();
}

World::World(int numRanks, std::chrono::milliseconds timeout,
             TraceRecorder *trace)
    : size(numRanks), finished(new std::atomic<bool>[numRanks]),
      timeout(clampTimeout(timeout)), recorder(trace), sequence(numRanks) {
  for (int r = 0; r < numRanks; ++r)
    finished[r].store(false);
}

void World::markFinished(int rank) {
  if (rank >= 0 && rank < size)
    finished[rank].store(true);
}

std::chrono::milliseconds
World::clampTimeout(std::chrono::milliseconds timeout) {
  // steady_clock counts nanoseconds in int64: now() + timeout must not wrap.
  constexpr std::chrono::milliseconds kLongest = std::chrono::hours(24 * 3650);
  return std::clamp(timeout, std::chrono::milliseconds(1), kLongest);
}

void World::fail(int rank, const std::string &message) {
  std::lock_guard<std::mutex> lock(failureMutex);
  if (!hasFailed.load()) {
    failedRank = rank;
    failure = message;
    hasFailed.store(true);
  }
}

int World::firstFailedRank() const {
  std::lock_guard<std::mutex> lock(failureMutex);
  return failedRank;
}

std::string World::firstFailure() const {
  std::lock_guard<std::mutex> lock(failureMutex);
  return failure;
}

Status World::giveUp(std::chrono::steady_clock::time_point deadline,
                     const std::string &what) const {
  if (hasFailed.load())
    return Status::error("stopped in " + what + ": another rank failed");
  if (std::chrono::steady_clock::now() > deadline)
    return Status::error("timed out in " + what + " after " +
                         std::to_string(timeout.count()) +
                         " ms waiting for the other ranks");
  return Status::ok();
}

Status World::waitFor(std::unique_lock<std::mutex> &lock,
                      std::condition_variable &cv,
                      const std::function<bool()> &ready,
                      const std::string &what) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  // Short waits, so a failure elsewhere (which cannot notify this cv) is
  // noticed promptly.
  while (!ready()) {
    TP_RETURN_IF_ERROR(giveUp(deadline, what));
    cv.wait_for(lock, std::chrono::milliseconds(5));
  }
  return Status::ok();
}

Status World::spinFor(const std::function<bool()> &ready,
                      const std::string &what) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (int spins = 0; !ready(); ++spins) {
    TP_RETURN_IF_ERROR(giveUp(deadline, what));
    if (spins < 64)
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  return Status::ok();
}

Status World::barrier(const Group &group, Exchange &exchange,
                      const std::string &what) {
  std::unique_lock<std::mutex> lock(exchange.mutex);
  int round = ++exchange.rounds[group.index];
  exchange.changed.notify_all();
  // A member that has not arrived and whose program has returned never will.
  int gone = -1;
  Status status = waitFor(
      lock, exchange.changed,
      [&] {
        bool all = true;
        for (int i = 0; i < group.size(); ++i)
          if (exchange.rounds[i] < round) {
            all = false;
            if (finished[group.ranks[i]].load())
              gone = group.ranks[i];
          }
        return all || gone >= 0;
      },
      what);
  if (status.isOk() && gone >= 0)
    return Status::error("stopped in " + what + ": rank " +
                         std::to_string(gone) +
                         " finished its program without entering it");
  return status;
}

Status World::join(const Group &group, const std::string &signature,
                   const void *input, void *extra,
                   std::shared_ptr<Exchange> &exchange) {
  {
    std::lock_guard<std::mutex> lock(exchangesMutex);
    int64_t seq = sequence[group.worldRank()][group.ranks]++;
    auto &slot = exchanges[{group.ranks, seq}];
    if (!slot)
      slot = std::make_shared<Exchange>(group.size());
    exchange = slot;
  }
  {
    std::lock_guard<std::mutex> lock(exchange->mutex);
    exchange->published[group.index] = input;
    exchange->extra[group.index] = extra;
    exchange->signature[group.index] = signature;
  }
  // This rank's buffers are published: from here on it may only return once
  // no peer reads them.
  if (Status arrived = barrier(group, *exchange, signature); !arrived.isOk()) {
    abandon(*exchange);
    return arrived;
  }
  for (int i = 0; i < group.size(); ++i)
    if (exchange->signature[i] != signature) {
      abandon(*exchange);
      return Status::error("ranks disagree on a collective: rank " +
                           std::to_string(group.worldRank()) + " runs " +
                           signature + " but rank " +
                           std::to_string(group.ranks[i]) + " runs " +
                           exchange->signature[i]);
    }
  std::lock_guard<std::mutex> lock(exchange->mutex);
  if (exchange->abandoned)
    return Status::error("stopped in " + signature + ": another rank failed");
  ++exchange->active;
  return Status::ok();
}

void World::abandon(Exchange &exchange) {
  std::unique_lock<std::mutex> lock(exchange.mutex);
  exchange.abandoned = true;
  // Readers notice the failure at their next wait, or end their copy.
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (exchange.active > 0 && std::chrono::steady_clock::now() < deadline)
    exchange.changed.wait_for(lock, std::chrono::milliseconds(5));
}

Status World::leave(const Group &group,
                    const std::shared_ptr<Exchange> &exchange) {
  {
    // This rank reads no peer's buffers any more.
    std::lock_guard<std::mutex> lock(exchange->mutex);
    --exchange->active;
    exchange->changed.notify_all();
  }
  Status status = barrier(group, *exchange, exchange->signature[group.index]);
  if (!status.isOk())
    abandon(*exchange);
  std::lock_guard<std::mutex> lock(exchangesMutex);
  if (++exchange->left == group.size()) {
    for (auto it = exchanges.begin(); it != exchanges.end(); ++it)
      if (it->second == exchange) {
        exchanges.erase(it);
        break;
      }
  }
  return status;
}
