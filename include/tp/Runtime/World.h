//===- World.h - ranks as threads of one process ----------------*- C++ -*-===//
//
// The CPU backend runs every rank as a thread. Collectives rendezvous through
// an Exchange that the ranks of a group share: every rank publishes its
// buffers there and reads its peers' directly. All waiting goes through
// World::waitFor, which gives up when any rank has failed (so one failure
// stops every rank promptly) or when the timeout passes (so a rank that never
// arrives cannot hang the run).
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_WORLD_H
#define TP_RUNTIME_WORLD_H

#include "tp/Runtime/Status.h"
#include "tp/Runtime/Tensor.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace mlir::tp::rt {

class TraceRecorder;

/// The ranks one collective spans, in group order, and this rank's place.
struct Group {
  std::vector<int> ranks;
  int index = 0;

  int size() const { return static_cast<int>(ranks.size()); }
  int worldRank() const { return ranks[index]; }
  /// The world rank of group member `i` (modulo the size).
  int member(int i) const {
    int n = size();
    return ranks[((i % n) + n) % n];
  }
};

/// The group of `worldRank` on a row-major grid of `gridShape` along `axes`:
/// the ranks that differ from it only along those axes.
Group makeGroup(const std::vector<int64_t> &gridShape,
                const std::vector<int> &axes, int worldRank);

/// Starts `body` on a new thread; an error (instead of an exception) when
/// the system refuses one. For callers built without exceptions.
Status startThread(std::function<void()> body, std::thread &thread);

/// State the ranks of one collective call share.
struct Exchange {
  explicit Exchange(int size)
      : published(size, nullptr), extra(size, nullptr), signature(size),
        rounds(size, 0), progress(size) {
    for (auto &p : progress)
      p = std::make_unique<std::atomic<int64_t>>(0);
  }

  std::mutex mutex;
  std::condition_variable changed;
  /// Per group member: its input, and an op-specific second buffer (a
  /// gathered buffer, a workspace of partials).
  std::vector<const void *> published;
  std::vector<void *> extra;
  /// Per member: "op at loc: type" for mismatch reports.
  std::vector<std::string> signature;
  /// Per member: barriers it has reached; members that have left.
  std::vector<int> rounds;
  int left = 0;
  /// Members between a successful join and their leave: they may be reading
  /// peers' published buffers. A member that gives up (a failure elsewhere,
  /// a timeout) marks the exchange abandoned, so no member starts reading,
  /// and waits for these to finish before its buffers can be freed.
  int active = 0;
  bool abandoned = false;
  /// Per member: pipeline steps it has completed (chunks it holds, partials
  /// it has published). Read by peers while it runs.
  std::vector<std::unique_ptr<std::atomic<int64_t>>> progress;
};

class World {
public:
  World(int numRanks, std::chrono::milliseconds timeout,
        TraceRecorder *trace = nullptr);

  int numRanks() const { return size; }
  /// `timeout` within [1 ms, 10 years]: deadlines computed from it fit the
  /// clock.
  static std::chrono::milliseconds clampTimeout(std::chrono::milliseconds timeout);
  TraceRecorder *trace() const { return recorder; }

  /// Records the first failure; every waiting rank then gives up.
  void fail(int rank, const std::string &message);
  bool failed() const { return hasFailed.load(); }
  /// The first failure: its rank and message.
  int firstFailedRank() const;
  std::string firstFailure() const;

  /// Marks `rank` as done with its program: a collective still waiting for
  /// it can never complete, and fails at once instead of at the timeout.
  void markFinished(int rank);

  /// Waits until `ready()` holds. Returns an error naming `what` when another
  /// rank failed or the timeout passed. `ready` is polled with `lock` held.
  Status waitFor(std::unique_lock<std::mutex> &lock,
                 std::condition_variable &cv,
                 const std::function<bool()> &ready, const std::string &what);
  /// Spins (yielding) until `ready()` holds; for lock-free progress counters.
  Status spinFor(const std::function<bool()> &ready, const std::string &what);

  /// Joins the exchange of this rank's next collective on `group`: publishes
  /// `input` and `extra`, waits for every member, and checks they all call it
  /// with the same `signature` ("op at loc: types"). All members get the
  /// same Exchange.
  Status join(const Group &group, const std::string &signature,
              const void *input, void *extra,
              std::shared_ptr<Exchange> &exchange);
  /// Waits for every member, so buffers published on the exchange stay valid
  /// while peers read them; the last member out releases the exchange.
  Status leave(const Group &group, const std::shared_ptr<Exchange> &exchange);
  /// Every member has reached this barrier of the exchange.
  Status barrier(const Group &group, Exchange &exchange,
                 const std::string &what);

private:
  /// Marks `exchange` abandoned and waits (at most the timeout) until no
  /// member is reading published buffers any more.
  void abandon(Exchange &exchange);

  /// An error when another rank failed or `deadline` passed.
  Status giveUp(std::chrono::steady_clock::time_point deadline,
                const std::string &what) const;

  int size;
  /// Per rank: whether its program has returned (markFinished).
  std::unique_ptr<std::atomic<bool>[]> finished;
  std::chrono::milliseconds timeout;
  TraceRecorder *recorder;
  std::atomic<bool> hasFailed{false};
  mutable std::mutex failureMutex;
  int failedRank = -1;
  std::string failure;

  std::mutex exchangesMutex;
  /// Keyed by group members and the call's sequence number on that group.
  std::map<std::pair<std::vector<int>, int64_t>, std::shared_ptr<Exchange>>
      exchanges;
  /// Per world rank, per group: how many collectives it has joined.
  std::vector<std::map<std::vector<int>, int64_t>> sequence;
};

} // namespace mlir::tp::rt

#endif // TP_RUNTIME_WORLD_H
