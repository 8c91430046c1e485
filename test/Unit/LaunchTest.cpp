//===- LaunchTest.cpp - ranks as processes: launcher and reports ----------===//
//
// The launcher runs tp-launch-probe (LaunchProbe.cpp) as the ranks: reports
// travel back, and every way a rank can fail ends the whole run promptly with
// a message naming the rank.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Launch.h"
#include "tp/Runtime/Wire.h"

#include <gtest/gtest.h>

#include <chrono>

using namespace mlir::tp::rt;
using Clock = std::chrono::steady_clock;

namespace {

LaunchSpec probe(int ranks, std::vector<std::string> modes) {
  LaunchSpec spec;
  spec.argv = {TP_LAUNCH_PROBE};
  spec.argv.insert(spec.argv.end(), modes.begin(), modes.end());
  spec.ranks = ranks;
  spec.bootstrap = std::string("id\0\xff", 4);
  return spec;
}

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

TEST(Launch, ThisProcessWasNotStartedByTheLauncher) {
  // The probes check the other side: launched, they see startedByLauncher().
  EXPECT_FALSE(startedByLauncher());
}

TEST(Launch, EveryRankReportsWithItsPlaceAndTheBootstrapBlob) {
  std::vector<std::string> reports;
  Status status = launchRanks(probe(4, {"report"}), reports);
  ASSERT_TRUE(status.isOk()) << status.message();
  ASSERT_EQ(reports.size(), 4u);
  for (int r = 0; r < 4; ++r) {
    Status outcome;
    std::vector<Tensor> results;
    ASSERT_TRUE(decodeOutcome(reports[r], outcome, results).isOk());
    ASSERT_TRUE(outcome.isOk());
    ASSERT_EQ(results.size(), 1u);
    const Tensor &t = results[0];
    ASSERT_EQ(t.numElements(), 3 + 4);
    EXPECT_EQ(t.get(0), r);
    EXPECT_EQ(t.get(1), 4);
    EXPECT_EQ(t.get(2), r); // one node: the local rank is the rank
    EXPECT_EQ(t.get(3), 'i');
    EXPECT_EQ(t.get(4), 'd');
    EXPECT_EQ(t.get(5), 0); // the blob is bytes, NULs included
    EXPECT_EQ(t.get(6), 255);
  }
}

TEST(Launch, AFailingRankStopsTheOthersAndIsNamed) {
  std::vector<std::string> reports;
  Clock::time_point start = Clock::now();
  // Ranks 0 and 1 hang; rank 2 fails.
  Status status = launchRanks(probe(3, {"hang", "hang", "fail"}), reports);
  ASSERT_FALSE(status.isOk());
  EXPECT_EQ(status.message(), "rank 2 failed first: probe failure on rank 2");
  EXPECT_LT(secondsSince(start), 20.0);
}

TEST(Launch, ACrashIsReportedWithItsSignal) {
  std::vector<std::string> reports;
  Status status = launchRanks(probe(2, {"hang", "crash"}), reports);
  ASSERT_FALSE(status.isOk());
  EXPECT_EQ(status.message(), "rank 1 was killed by signal 9 (Killed)");
}

TEST(Launch, ARankWithoutAReportFails) {
  std::vector<std::string> reports;
  Status status = launchRanks(probe(2, {"silent", "hang"}), reports);
  ASSERT_FALSE(status.isOk());
  EXPECT_EQ(status.message(), "rank 0 exited without a report");
}

TEST(Launch, ARunPastItsTimeoutIsStopped) {
  LaunchSpec spec = probe(2, {"report", "hang"});
  // Long enough for rank 0 to report on a loaded machine.
  spec.timeout = std::chrono::milliseconds(2000);
  std::vector<std::string> reports;
  Clock::time_point start = Clock::now();
  Status status = launchRanks(spec, reports);
  ASSERT_FALSE(status.isOk());
  EXPECT_EQ(status.message(), "timed out after 2000 ms; still running: rank 1");
  EXPECT_LT(secondsSince(start), 20.0);
}

TEST(Launch, AMissingProgramIsAnError) {
  LaunchSpec spec;
  spec.argv = {"/nonexistent/tp-rank"};
  spec.ranks = 2;
  std::vector<std::string> reports;
  Status status = launchRanks(spec, reports);
  ASSERT_FALSE(status.isOk());
  EXPECT_EQ(
      status.message().rfind("cannot start rank 0 (/nonexistent/tp-rank)", 0),
      0u)
      << status.message();
}

TEST(Launch, AProcessNotLaunchedHasNoGroup) {
  std::unique_ptr<ProcessGroup> group;
  ASSERT_TRUE(joinLaunchedRun(group).isOk());
  EXPECT_EQ(group, nullptr);
}

//===----------------------------------------------------------------------===//
// Reports on the wire
//===----------------------------------------------------------------------===//

TEST(Wire, ResultsRoundTripInEveryType) {
  std::vector<Tensor> results;
  for (DType type : {DType::F32, DType::F64, DType::F16, DType::BF16,
                     DType::F8E4M3FN, DType::F8E5M2, DType::F8E8M0FNU,
                     DType::F4E2M1FN, DType::I1, DType::I32, DType::I64}) {
    Tensor t(type, {2, 3});
    for (int64_t i = 0; i < 6; ++i)
      t.set(i, i % 2);
    results.push_back(t);
  }
  results.emplace_back(DType::F32, std::vector<int64_t>{});     // a scalar
  results.emplace_back(DType::F32, std::vector<int64_t>{0, 5}); // empty
  // Empty, with dims whose product is larger than the report (found by an
  // MPI sweep: an all-to-all of a 5x8x0 tensor).
  results.emplace_back(DType::F64, std::vector<int64_t>{20, 8, 0});
  results.emplace_back(DType::BF16, std::vector<int64_t>{1 << 20, 0, 1 << 20});
  Status outcome = Status::error("unset");
  std::vector<Tensor> decoded;
  ASSERT_TRUE(
      decodeOutcome(encodeOutcome(Status::ok(), results), outcome, decoded)
          .isOk());
  ASSERT_TRUE(outcome.isOk());
  ASSERT_EQ(decoded.size(), results.size());
  for (size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(decoded[i].dtype(), results[i].dtype());
    EXPECT_EQ(decoded[i].shape(), results[i].shape());
    for (int64_t k = 0; k < results[i].numElements(); ++k)
      EXPECT_EQ(decoded[i].get(k), results[i].get(k));
  }
}

TEST(Wire, AnErrorTravelsWithItsMessage) {
  Status outcome;
  std::vector<Tensor> decoded;
  ASSERT_TRUE(decodeOutcome(encodeOutcome(Status::error("rank 3: no GPU"), {}),
                            outcome, decoded)
                  .isOk());
  ASSERT_FALSE(outcome.isOk());
  EXPECT_EQ(outcome.message(), "rank 3: no GPU");
}

TEST(Wire, StepTimesAndHostCopiesTravelWithTheResults) {
  StepReport steps;
  steps.millis = {12.5, 3.25, 3.0};
  steps.hostToDevice = 1 << 20;
  steps.deviceToHost = 4096;
  steps.peakBufferBytes = int64_t(3) << 30;
  steps.resources = {{100, 5 << 20, 12}, {2000, int64_t(6) << 30, 13}};
  Tensor t(DType::F32, {2});
  Status outcome;
  std::vector<Tensor> decoded;
  StepReport back;
  ASSERT_TRUE(decodeOutcome(encodeOutcome(Status::ok(), {t}, steps), outcome,
                            decoded, &back)
                  .isOk());
  ASSERT_TRUE(outcome.isOk());
  EXPECT_EQ(decoded.size(), 1u);
  EXPECT_EQ(back.millis, steps.millis);
  EXPECT_EQ(back.hostToDevice, steps.hostToDevice);
  EXPECT_EQ(back.deviceToHost, steps.deviceToHost);
  EXPECT_EQ(back.peakBufferBytes, steps.peakBufferBytes);
  ASSERT_EQ(back.resources.size(), 2u);
  EXPECT_EQ(back.resources[1].step, 2000);
  EXPECT_EQ(back.resources[1].residentBytes, int64_t(6) << 30);
  EXPECT_EQ(back.resources[1].openFiles, 13);
  // A step count larger than the report could hold is refused before
  // anything is allocated for it.
  std::string bytes = encodeOutcome(Status::ok(), {}, {});
  uint32_t huge = 0xffffffffu;
  std::string hugeBytes(reinterpret_cast<const char *>(&huge), sizeof(huge));
  size_t countAt = bytes.size() - 2 * sizeof(uint32_t) - 3 * sizeof(int64_t);
  std::string hugeSteps = bytes;
  hugeSteps.replace(countAt, sizeof(huge), hugeBytes);
  EXPECT_FALSE(decodeOutcome(hugeSteps, outcome, decoded, &back).isOk());
  // So is a sample count larger than the report could hold.
  std::string hugeSamples = bytes;
  hugeSamples.replace(bytes.size() - sizeof(uint32_t), sizeof(huge), hugeBytes);
  EXPECT_FALSE(decodeOutcome(hugeSamples, outcome, decoded, &back).isOk());
}

TEST(Wire, EveryTruncationIsRefused) {
  Tensor t(DType::F32, {4, 4});
  StepReport steps;
  steps.millis = {1.0, 2.0};
  std::string bytes = encodeOutcome(Status::ok(), {t, t}, steps);
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    Status outcome;
    std::vector<Tensor> decoded;
    EXPECT_FALSE(decodeOutcome(bytes.substr(0, cut), outcome, decoded).isOk())
        << "cut at " << cut;
  }
  Status outcome;
  std::vector<Tensor> decoded;
  EXPECT_FALSE(decodeOutcome(bytes + "x", outcome, decoded).isOk());
}

/// `tensor`'s report with `value` written over its bytes at each of `at`.
template <typename T>
std::string patchedReport(const Tensor &tensor, std::initializer_list<size_t> at,
                          T value) {
  std::string bytes = encodeOutcome(Status::ok(), {tensor});
  for (size_t offset : at)
    bytes.replace(offset, sizeof(value),
                  reinterpret_cast<const char *>(&value), sizeof(value));
  return bytes;
}

/// Decoding `bytes` fails with a message containing `why`.
::testing::AssertionResult refusedWith(const std::string &bytes,
                                       const std::string &why) {
  Status outcome;
  std::vector<Tensor> decoded;
  Status status = decodeOutcome(bytes, outcome, decoded);
  if (status.isOk())
    return ::testing::AssertionFailure() << "decoded";
  if (status.message().find(why) == std::string::npos)
    return ::testing::AssertionFailure() << status.message();
  return ::testing::AssertionSuccess();
}

// Offsets: magic (4), ok (1), count (4), then per result its type (1), rank
// (4) and dims (8 each).
TEST(Wire, AHugeShapeIsRefusedBeforeAllocating) {
  EXPECT_TRUE(refusedWith(
      patchedReport(Tensor(DType::F32, {1}), {14}, int64_t(1) << 40),
      "bad result shape"));
}

TEST(Wire, AHugeRankIsRefusedBeforeAllocating) {
  EXPECT_TRUE(refusedWith(
      patchedReport(Tensor(DType::F32, {1}), {10}, uint32_t(1) << 31),
      "bad result rank"));
}

TEST(Wire, AnEmptyShapeWhoseDimsOverflowIsRefused) {
  // Dims 1 and 2 of a 0x2x2 tensor become 2^40: their product, 2^80,
  // overflows.
  EXPECT_TRUE(refusedWith(
      patchedReport(Tensor(DType::F32, std::vector<int64_t>{0, 2, 2}),
                    {22, 30}, int64_t(1) << 40),
      "bad result shape"));
}

} // namespace
