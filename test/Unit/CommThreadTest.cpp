//===- CommThreadTest.cpp - the rank's communication thread ---------------===//
//
// A fused op hands its communication to the rank's CommThread and waits for
// it before returning; the thread is started once and then reused, and it
// runs one op's communication at a time.
//
//===----------------------------------------------------------------------===//

#include "CommThread.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

using namespace mlir::tp::rt;
using namespace mlir::tp::rt::cpu;

TEST(CommThread, RunsEveryTaskOnOneThreadStartedOnce) {
  CommThread comm;
  std::set<std::thread::id> threads;
  int done = 0;
  for (int i = 0; i < 200; ++i) {
    ASSERT_TRUE(comm.run([&] {
                      threads.insert(std::this_thread::get_id());
                      ++done;
                    })
                    .isOk());
    comm.wait();
    // wait() returns only after the task: its writes are visible here.
    EXPECT_EQ(done, i + 1);
  }
  ASSERT_EQ(threads.size(), 1u);
  EXPECT_NE(*threads.begin(), std::this_thread::get_id());
}

TEST(CommThread, RefusesASecondTaskWhileTheFirstRuns) {
  CommThread comm;
  std::atomic<bool> release{false};
  ASSERT_TRUE(comm.run([&] {
                    while (!release.load())
                      std::this_thread::yield();
                  })
                  .isOk());
  Status second = comm.run([] {});
  EXPECT_FALSE(second.isOk());
  EXPECT_NE(second.message().find("still running"), std::string::npos)
      << second.message();
  release.store(true);
  comm.wait();
  EXPECT_TRUE(comm.run([] {}).isOk());
  comm.wait();
}

TEST(CommThread, WaitWithoutATaskReturnsAndAnUnusedThreadIsNeverStarted) {
  CommThread comm;
  comm.wait();
  // Destroying it joins nothing and must not hang.
}
