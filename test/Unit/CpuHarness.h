//===- CpuHarness.h - ranks as threads, for CPU backend tests ---*- C++ -*-===//
//
// Each test runs one body per rank on its own thread and CPU backend; the
// ranks meet in a World. Random inputs use only mt19937_64's output (whose
// sequence the standard fixes), so cases are the same with every standard
// library.
//
//===----------------------------------------------------------------------===//

#ifndef TP_TEST_UNIT_CPUHARNESS_H
#define TP_TEST_UNIT_CPUHARNESS_H

#include "tp/Runtime/Backend.h"
#include "tp/Runtime/World.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <random>
#include <sstream>
#include <thread>

namespace mlir::tp::rt::cputest {

using Clock = std::chrono::steady_clock;
using Milliseconds = std::chrono::milliseconds;

/// Long enough for any correct run on a loaded machine, short enough that a
/// hang fails the test instead of stalling the suite.
constexpr Milliseconds kTimeout(5000);

//===----------------------------------------------------------------------===//
// Harness
//===----------------------------------------------------------------------===//

/// What one rank runs: its world rank and its own backend.
using RankBody = std::function<Status(int rank, Backend &backend)>;

/// Runs `body` on one thread per rank of `world`, each with its own CPU
/// backend, and returns every rank's status.
inline std::vector<Status> runRanks(World &world, const RankBody &body) {
  const int n = world.numRanks();
  std::vector<Status> statuses(n);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r)
    threads.emplace_back([&, r] {
      std::unique_ptr<Backend> backend = createCpuBackend(world, r);
      statuses[r] = body(r, *backend);
    });
  for (std::thread &thread : threads)
    thread.join();
  return statuses;
}

/// The same in a fresh world of `ranks` with the default timeout.
inline std::vector<Status> runRanks(int ranks, const RankBody &body) {
  World world(ranks, kTimeout);
  return runRanks(world, body);
}

/// Success when every rank succeeded; else every failing rank's message.
inline ::testing::AssertionResult allOk(const std::vector<Status> &statuses) {
  std::ostringstream failures;
  for (size_t r = 0; r < statuses.size(); ++r)
    if (!statuses[r].isOk())
      failures << "\n  rank " << r << ": " << statuses[r].message();
  if (failures.str().empty())
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << failures.str();
}

/// The group of `rank` in a world of `size` ranks on a 1-D grid.
inline Group wholeWorld(int size, int rank) { return makeGroup({size}, {0}, rank); }

//===----------------------------------------------------------------------===//
// Random inputs. Draws use only mt19937_64's output (whose sequence the
// standard fixes), so cases are the same with every standard library.
//===----------------------------------------------------------------------===//

class Rng {
public:
  explicit Rng(uint64_t seed) : engine(seed) {}

  /// Uniform in [lo, hi].
  int64_t uniform(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(engine() % uint64_t(hi - lo + 1));
  }
  double real(double lo, double hi) {
    return lo + (hi - lo) * double(engine() >> 11) * 0x1.0p-53;
  }
  bool coin() { return engine() & 1; }
  template <typename T> T pick(std::initializer_list<T> choices) {
    return choices.begin()[uniform(0, int64_t(choices.size()) - 1)];
  }

private:
  std::mt19937_64 engine;
};

/// Values uniform in [-1, 1], rounded to `type`.
inline Tensor randomTensor(DType type, std::vector<int64_t> shape, Rng &rng) {
  Tensor t(type, std::move(shape));
  for (int64_t i = 0, e = t.numElements(); i < e; ++i)
    t.set(i, rng.real(-1, 1));
  return t;
}

} // namespace mlir::tp::rt::cputest

#endif // TP_TEST_UNIT_CPUHARNESS_H
