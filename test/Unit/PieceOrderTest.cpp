//===- PieceOrderTest.cpp - the one order of a fused op's pieces ----------===//
//
// Every transport follows PieceOrder and the GEMM plans (Schedule.h); these
// are the properties their agreement rests on, for every group size up to 8
// and every member.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Backend.h"

#include <gtest/gtest.h>

#include <set>

using namespace mlir::tp::rt;

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

/// Every piece of `plan`, in plan order.
std::vector<PieceRef> piecesOf(const std::vector<GemmStep> &plan) {
  std::vector<PieceRef> pieces;
  for (const GemmStep &step : plan)
    pieces.insert(pieces.end(), step.pieces.begin(), step.pieces.end());
  return pieces;
}

TEST(GemmPlan, PerPeerAndRingAreOneGemmPerPieceInTodaysOrder) {
  for (Schedule::Algorithm algorithm : kAlgorithms)
    for (int g = 1; g <= 8; ++g)
      for (int me = 0; me < g; ++me)
        for (int chunks : {1, 3}) {
          const Schedule schedule{algorithm, chunks};
          const PieceOrder order(g, me, algorithm);
          const int64_t share = 7;
          std::vector<GemmStep> gather = planGather(g, me, schedule, share);
          ASSERT_EQ(gather.size(), size_t(g) * chunks);
          for (int step = 0; step < g; ++step)
            for (int j = 0; j < chunks; ++j) {
              const GemmStep &gemm = gather[step * chunks + j];
              ASSERT_EQ(gemm.pieces.size(), 1u);
              auto [lo, hi] = Schedule::pieceRange(share, chunks, j);
              EXPECT_EQ(gemm.pieces[0].ordinal, step * chunks + j);
              EXPECT_EQ(gemm.pieces[0].member, order.gatherOrigin(step));
              EXPECT_EQ(gemm.pieces[0].lo, lo);
              EXPECT_EQ(gemm.pieces[0].hi, hi);
              int64_t at = order.gatherOrigin(step) * share;
              EXPECT_EQ(gemm.runs(share),
                        (std::vector<ExtentRun>{{at + lo, at + hi}}));
            }
          std::vector<GemmStep> scatter = planScatter(g, me, schedule, share);
          ASSERT_EQ(scatter.size(), size_t(g) * chunks);
          for (int step = 0; step < g; ++step)
            for (int j = 0; j < chunks; ++j) {
              const PieceRef &piece = scatter[step * chunks + j].pieces.at(0);
              EXPECT_EQ(piece.ordinal, step * chunks + j);
              EXPECT_EQ(piece.member, schedule.ring()
                                          ? order.ringSliceAt(step)
                                          : order.partialFor(step + 1));
            }
        }
}

TEST(GemmPlan, CoalescedMovesWholeSharesAsPerPeerDoes) {
  for (int g = 1; g <= 8; ++g)
    for (int me = 0; me < g; ++me)
      for (int chunks = 1; chunks <= 8; ++chunks) {
        const Schedule coalesced{Schedule::Algorithm::Coalesced, chunks};
        const Schedule perPeer{Schedule::Algorithm::PerPeer, 1};
        EXPECT_EQ(coalesced.pieces(100), 1);
        EXPECT_FALSE(coalesced.ring());
        // The same pieces, with the same ordinals, in the same order: the
        // transports cannot tell the two apart.
        for (bool gather : {true, false}) {
          auto plan = gather ? planGather : planScatter;
          std::vector<PieceRef> mine = piecesOf(plan(g, me, coalesced, 5));
          std::vector<PieceRef> theirs = piecesOf(plan(g, me, perPeer, 5));
          ASSERT_EQ(mine.size(), theirs.size());
          for (size_t i = 0; i < mine.size(); ++i) {
            EXPECT_EQ(mine[i].ordinal, theirs[i].ordinal);
            EXPECT_EQ(mine[i].member, theirs[i].member);
            EXPECT_EQ(mine[i].lo, 0);
            EXPECT_EQ(mine[i].hi, 5);
          }
        }
      }
}

TEST(GemmPlan, CoalescedIsTheOwnShareThenTheRestInChunksGemms) {
  for (int g = 2; g <= 8; ++g)
    for (int me = 0; me < g; ++me)
      for (int chunks = 1; chunks <= 8; ++chunks) {
        const Schedule schedule{Schedule::Algorithm::Coalesced, chunks};
        const int groups = std::min(chunks, g - 1);
        std::vector<GemmStep> gather = planGather(g, me, schedule, 4);
        ASSERT_EQ(gather.size(), size_t(1 + groups));
        EXPECT_EQ(gather[0].pieces.size(), 1u);
        EXPECT_EQ(gather[0].pieces[0].member, me);
        std::vector<GemmStep> scatter = planScatter(g, me, schedule, 4);
        ASSERT_EQ(scatter.size(), size_t(1 + groups));
        EXPECT_EQ(scatter.back().pieces.size(), 1u);
        EXPECT_EQ(scatter.back().pieces[0].member, me);
        // Remote steps hold near-equal numbers of shares, and their runs
        // cover the shares exactly: one run, or two where they wrap past
        // the last member.
        std::vector<GemmStep> remote(gather.begin() + 1, gather.end());
        remote.insert(remote.end(), scatter.begin(), scatter.end() - 1);
        for (const GemmStep &step : remote) {
          size_t size = step.pieces.size();
          EXPECT_GE(size, size_t((g - 1) / groups));
          EXPECT_LE(size, size_t((g - 1 + groups - 1) / groups));
          std::vector<ExtentRun> runs = step.runs(4);
          EXPECT_LE(runs.size(), 2u);
          int64_t covered = 0;
          for (const ExtentRun &run : runs)
            covered += run.end - run.begin;
          EXPECT_EQ(covered, int64_t(4 * size));
        }
      }
  // Member 2 of 4 with one GEMM for the rest: shares 3, 0 and 1 arrive
  // (in that order), rows [12, 16) and [0, 8).
  std::vector<GemmStep> plan =
      planGather(4, 2, {Schedule::Algorithm::Coalesced, 1}, 4);
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[1].pieces[0].member, 3);
  EXPECT_EQ(plan[1].pieces[2].member, 1);
  EXPECT_EQ(plan[1].runs(4), (std::vector<ExtentRun>{{0, 8}, {12, 16}}));
  EXPECT_EQ(Schedule({Schedule::Algorithm::Coalesced, 2}).name(), "coalesced");
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

TEST(StackedBlocks, EachMembersBlockLandsAtItsOffsetAlongTheConcatDim) {
  // Blocks [2, 3] stacked along dim 0 by 4 members: member p's rows follow
  // the previous members' (one run of 6 elements each).
  StackedBlocks rows({2, 3}, 0, 4);
  EXPECT_EQ(rows.outer, 1);
  EXPECT_EQ(rows.run, 6);
  EXPECT_EQ(rows.destination(0, 0), 0);
  EXPECT_EQ(rows.destination(2, 5), 17);
  // Along dim 1: each block row is a run of 3, rows 4 * 3 apart.
  StackedBlocks cols({2, 3}, 1, 4);
  EXPECT_EQ(cols.outer, 2);
  EXPECT_EQ(cols.run, 3);
  EXPECT_EQ(cols.destination(1, 0), 3);
  EXPECT_EQ(cols.destination(1, 4), 12 + 3 + 1);
  EXPECT_EQ(cols.destination(3, 5), 12 + 9 + 2);
  // Every element of every member lands once, and the result is covered.
  StackedBlocks experts({2, 3, 4}, 1, 3);
  std::vector<int> hits(2 * 3 * 4 * 3, 0);
  for (int p = 0; p < 3; ++p)
    for (int64_t i = 0; i < 2 * 3 * 4; ++i)
      ++hits[experts.destination(p, i)];
  for (int h : hits)
    EXPECT_EQ(h, 1);
  // Element [e, c, h] of member p lands at [e, p * 3 + c, h] of [2, 9, 4].
  EXPECT_EQ(experts.destination(2, (1 * 3 + 1) * 4 + 3),
            (1 * 9 + 2 * 3 + 1) * 4 + 3);
}
