//===- PieceOrderTest.cpp - the one order of a fused op's pieces ----------===//
//
// Every transport follows PieceOrder (Backend.h); these are the properties
// their agreement rests on, for every group size up to 8 and every member.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Backend.h"

#include <gtest/gtest.h>

#include <set>

using namespace tp::rt;

namespace {

constexpr Schedule::Algorithm kAlgorithms[] = {Schedule::Algorithm::PerPeer,
                                               Schedule::Algorithm::Ring};

TEST(PieceOrder, TodaysOrdersArePinned) {
  PieceOrder perPeer(4, 1, Schedule::Algorithm::PerPeer);
  PieceOrder ring(4, 1, Schedule::Algorithm::Ring);
  std::vector<int> perPeerOrigins, ringOrigins, partials;
  for (int step = 0; step < 4; ++step) {
    perPeerOrigins.push_back(perPeer.gatherOrigin(step));
    ringOrigins.push_back(ring.gatherOrigin(step));
  }
  for (int step = 1; step <= 4; ++step)
    partials.push_back(perPeer.partialFor(step));
  EXPECT_EQ(perPeerOrigins, (std::vector<int>{1, 2, 3, 0}));
  EXPECT_EQ(ringOrigins, (std::vector<int>{1, 0, 3, 2}));
  EXPECT_EQ(partials, (std::vector<int>{2, 3, 0, 1}));
  EXPECT_EQ(ring.left(), 0);
  EXPECT_EQ(ring.right(), 2);
}

TEST(PieceOrder, AGatherTakesEveryShardOnceItsOwnFirst) {
  for (Schedule::Algorithm algorithm : kAlgorithms)
    for (int g = 1; g <= 8; ++g)
      for (int me = 0; me < g; ++me) {
        PieceOrder order(g, me, algorithm);
        std::set<int> seen;
        for (int step = 0; step < g; ++step)
          seen.insert(order.gatherOrigin(step));
        EXPECT_EQ(order.gatherOrigin(0), me);
        EXPECT_EQ(static_cast<int>(seen.size()), g);
      }
}

TEST(PieceOrder, PerPeerReadersAndRingForwardsMatchTheOrigins) {
  for (int g = 1; g <= 8; ++g)
    for (int me = 0; me < g; ++me)
      for (int step = 1; step < g; ++step) {
        PieceOrder perPeer(g, me, Schedule::Algorithm::PerPeer);
        int reader = perPeer.gatherReader(step);
        EXPECT_EQ(PieceOrder(g, reader, Schedule::Algorithm::PerPeer)
                      .gatherOrigin(step),
                  me);
        // A ring member takes at `step` what its left neighbour took the
        // step before.
        PieceOrder ring(g, me, Schedule::Algorithm::Ring);
        EXPECT_EQ(ring.gatherOrigin(step),
                  PieceOrder(g, ring.left(), Schedule::Algorithm::Ring)
                      .gatherOrigin(step - 1));
      }
}

TEST(PieceOrder, ReductionStepsPairSendersWithReceivers) {
  for (int g = 1; g <= 8; ++g)
    for (int me = 0; me < g; ++me) {
      PieceOrder order(g, me, Schedule::Algorithm::PerPeer);
      EXPECT_EQ(order.partialFor(g), me);
      for (int step = 1; step <= g; ++step) {
        int target = order.partialFor(step);
        EXPECT_EQ(PieceOrder(g, target, Schedule::Algorithm::PerPeer)
                      .partialFrom(step),
                  me);
        EXPECT_EQ(order.stepOfPartialFrom(order.partialFrom(step)), step);
      }
      // The ring extends, at every step, the slice its left neighbour
      // extended the step before, and completes its own at the last.
      PieceOrder ring(g, me, Schedule::Algorithm::Ring);
      EXPECT_EQ(ring.ringSliceAt(g - 1), me);
      for (int step = 1; step < g; ++step)
        EXPECT_EQ(ring.ringSliceAt(step),
                  PieceOrder(g, ring.left(), Schedule::Algorithm::Ring)
                      .ringSliceAt(step - 1));
    }
}

TEST(ScatterShare, EachMemberGetsAnEqualShareOrTheDimIsNamed) {
  int64_t share = -1;
  ASSERT_TRUE(scatterShare(12, 1, 4, "site", share).isOk());
  EXPECT_EQ(share, 3);
  ASSERT_TRUE(scatterShare(0, 0, 4, "site", share).isOk());
  EXPECT_EQ(share, 0);
  Status uneven = scatterShare(10, 2, 4, "'tp.reduce_scatter' at f:1:2", share);
  ASSERT_FALSE(uneven.isOk());
  EXPECT_EQ(uneven.message(), "'tp.reduce_scatter' at f:1:2: dim 2 (10) is not "
                              "divisible by the group size 4");
  EXPECT_FALSE(scatterShare(4, 0, 0, "site", share).isOk());
}

} // namespace
