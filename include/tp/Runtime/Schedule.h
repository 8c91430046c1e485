//===- Schedule.h - the one plan of a fused op's pieces ---------*- C++ -*-===//
//
// A fused collective-matmul runs as pieces: shares of the gathered (or
// scattered) dim that move between ranks, and GEMMs over them. This header
// is the one definition of both, for every transport (CPU threads, MPI,
// CUDA loopback, NCCL) and for the cost model, which plans the same GEMMs it
// predicts. It depends on the standard library only, so the compiler's cost
// model includes it as the runtime does.
//
//  - PieceOrder: in which order pieces move, seen from one member.
//  - planGather / planScatter: which pieces each GEMM takes (or makes), and
//    the contiguous runs of the dim it multiplies in one call.
//  - StackedBlocks: where an all-to-all's received blocks land.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_SCHEDULE_H
#define TP_RUNTIME_SCHEDULE_H

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mlir::tp::rt {

/// How a fused op runs: the algorithm, and `chunks`:
///  - ring, per_peer: how many pieces each rank's share is cut into (more
///    pieces: finer overlap, smaller GEMMs); one GEMM per piece;
///  - coalesced: shares move whole, as per_peer moves them; the own share is
///    one GEMM, and the remote shares, in arrival order, merge into `chunks`
///    GEMMs (1: the two-GEMM form "own shard, then the rest").
/// `streams`: how many GEMM steps a GPU may run at once, on as many compute
/// streams (step i on stream i % streams), where they write disjoint
/// results; steps that accumulate into one result (a gather along K, a
/// weight gradient) stay on one, as a GPU backend decides. A CPU rank runs its
/// steps one after another on the cores its BLAS shares: there the order is the
/// schedule.
struct Schedule {
  enum class Algorithm { Ring, PerPeer, Coalesced };
  Algorithm algorithm = Algorithm::PerPeer;
  int chunks = 1;
  int streams = 1;

  /// "ring", "per_peer" or "coalesced", for messages and for the signature
  /// every rank of a fused op must agree on.
  std::string name() const {
    switch (algorithm) {
    case Algorithm::Ring:
      return "ring";
    case Algorithm::Coalesced:
      return "coalesced";
    case Algorithm::PerPeer:
      break;
    }
    return "per_peer";
  }
  /// Whether shares move around a ring (else straight from their owner).
  bool ring() const { return algorithm == Algorithm::Ring; }
  /// Pieces a share of `extent` is cut into while it moves: `chunks`,
  /// clamped to [1, extent]; coalesced moves whole shares.
  int pieces(int64_t extent) const {
    if (algorithm == Algorithm::Coalesced)
      return 1;
    int64_t n = chunks < 1 ? 1 : chunks;
    return static_cast<int>(extent < 1 ? 1 : (n < extent ? n : extent));
  }
  /// [lo, hi) of piece `j` of `extent` cut into `count` near-equal parts.
  static std::pair<int64_t, int64_t> pieceRange(int64_t extent, int count,
                                                int j) {
    return {extent * j / count, extent * (j + 1) / count};
  }
};

/// The order in which a fused op's pieces move between the `g` members of
/// its group, seen from member `me` (indices within the group). Every
/// transport follows it, so that they add the same partials in the same
/// order and agree bit for bit; a backend only moves, multiplies and reduces
/// pieces. Coalesced moves as per_peer does.
///
/// Gathers run in g steps, step 0 being this member's own shard; reductions
/// make this member's partials in g steps, its own slice last.
struct PieceOrder {
  int g = 1, me = 0;
  bool ring = false;

  PieceOrder(int groupSize, int member, Schedule::Algorithm algorithm)
      : g(groupSize), me(member), ring(algorithm == Schedule::Algorithm::Ring) {
  }

  /// `member` taken around the group.
  int wrap(int member) const { return ((member % g) + g) % g; }
  /// The ring's neighbours: shards and running sums flow left to right.
  int left() const { return wrap(me - 1); }
  int right() const { return wrap(me + 1); }

  /// All-gather: the member whose shard this member takes at `step`. Ring:
  /// shards pass left to right, so step s brings the shard of the member s
  /// to the left; per_peer: the member s to the right, read directly.
  int gatherOrigin(int step) const {
    return ring ? wrap(me - step) : wrap(me + step);
  }
  /// Per_peer all-gather: the member that takes this member's shard at
  /// `step` (the one whose gatherOrigin(step) is `me`).
  int gatherReader(int step) const { return wrap(me - step); }

  /// Per_peer reduce-scatter: the member whose slice this member's partial
  /// at `step` (1 to g) belongs to: the next members first, its own last.
  int partialFor(int step) const { return wrap(me + step); }
  /// ... and the member whose partial of this member's slice arrives then.
  int partialFrom(int step) const { return wrap(me - step); }
  /// The step (1 to g) at which `member` makes its partial of this member's
  /// slice: the inverse of partialFrom.
  int stepOfPartialFrom(int member) const { return wrap(me - member - 1) + 1; }
  /// Ring reduce-scatter: the slice whose running sum this member extends at
  /// `step` (0 to g - 1), adding its left neighbour's sum of step - 1; the
  /// last step completes its own.
  int ringSliceAt(int step) const { return wrap(me - step - 1); }
};

/// One piece a member takes (gather) or makes (scatter): the `ordinal`-th
/// it moves (the index transports count pieces by), and [lo, hi) of the
/// share of group member `member`.
struct PieceRef {
  int64_t ordinal = 0;
  int member = 0;
  int64_t lo = 0, hi = 0;
};

/// [begin, end) of the whole dim, the group's shares side by side (member c
/// holds [c * share, (c + 1) * share)).
struct ExtentRun {
  int64_t begin = 0, end = 0;
  bool operator==(const ExtentRun &other) const {
    return begin == other.begin && end == other.end;
  }
};

/// One GEMM step of a fused schedule: the pieces it needs (gather: all of
/// them arrived) or makes (scatter: each is sent once made), in order.
struct GemmStep {
  std::vector<PieceRef> pieces;

  /// The pieces as few contiguous runs of the whole dim as they allow,
  /// ascending: a backend multiplies each run in one call where its layout
  /// keeps the run's rows contiguous. Coalesced steps whose shares wrap past
  /// the last member are two runs.
  std::vector<ExtentRun> runs(int64_t share) const {
    std::vector<ExtentRun> spans;
    for (const PieceRef &p : pieces)
      spans.push_back({p.member * share + p.lo, p.member * share + p.hi});
    std::sort(spans.begin(), spans.end(),
              [](const ExtentRun &a, const ExtentRun &b) {
                return a.begin < b.begin;
              });
    std::vector<ExtentRun> merged;
    for (const ExtentRun &s : spans) {
      if (!merged.empty() && merged.back().end == s.begin)
        merged.back().end = s.end;
      else
        merged.push_back(s);
    }
    return merged;
  }
};

namespace detail {
/// Steps [first, first + count) merged into `groups` near-equal GEMM steps
/// of whole shares, via `member(step)` and ordinal `ordinalBase + step`.
template <typename MemberOf>
void groupSteps(int first, int count, int groups, int64_t share,
                int64_t ordinalBase, MemberOf member,
                std::vector<GemmStep> &plan) {
  groups = std::clamp(groups, 1, std::max(count, 1));
  for (int i = 0; i < groups && count > 0; ++i) {
    auto [lo, hi] = Schedule::pieceRange(count, groups, i);
    GemmStep step;
    for (int64_t s = first + lo; s < first + hi; ++s)
      step.pieces.push_back(
          {ordinalBase + s, member(static_cast<int>(s)), 0, share});
    plan.push_back(std::move(step));
  }
}
} // namespace detail

/// The GEMM steps of member `me`'s all-gather-matmul, in the order it runs
/// them. Ring, per_peer: one per piece, as the pieces arrive (step s brings
/// gatherOrigin(s), cut into schedule.pieces(share) pieces, ordinal
/// s * pieces + j). Coalesced: the own share, then the g - 1 remote shares
/// (per_peer's arrival order, ordinal s) in schedule.chunks steps.
inline std::vector<GemmStep> planGather(int g, int me, const Schedule &schedule,
                                        int64_t share) {
  const PieceOrder order(g, me, schedule.algorithm);
  std::vector<GemmStep> plan;
  if (schedule.algorithm == Schedule::Algorithm::Coalesced) {
    plan.push_back({{{0, me, 0, share}}});
    detail::groupSteps(
        1, g - 1, schedule.chunks, share, 0,
        [&](int step) { return order.gatherOrigin(step); }, plan);
    return plan;
  }
  const int pieces = schedule.pieces(share);
  for (int step = 0; step < g; ++step)
    for (int j = 0; j < pieces; ++j) {
      auto [lo, hi] = Schedule::pieceRange(share, pieces, j);
      plan.push_back(
          {{{int64_t(step) * pieces + j, order.gatherOrigin(step), lo, hi}}});
    }
  return plan;
}

/// The GEMM steps of member `me`'s matmul-reduce-scatter: which members'
/// partials each computes, in order. Per_peer: one per piece, the next
/// members' slices first and its own last (step s makes partialFor(s),
/// ordinal (s - 1) * pieces + j). Coalesced: the g - 1 remote slices in
/// schedule.chunks steps, then its own. Ring: step s extends the running
/// sum of ringSliceAt(s) (ordinal s * pieces + j).
inline std::vector<GemmStep>
planScatter(int g, int me, const Schedule &schedule, int64_t share) {
  const PieceOrder order(g, me, schedule.algorithm);
  std::vector<GemmStep> plan;
  if (schedule.algorithm == Schedule::Algorithm::Coalesced) {
    detail::groupSteps(
        1, g - 1, schedule.chunks, share, -1,
        [&](int step) { return order.partialFor(step); }, plan);
    plan.push_back({{{g - 1, me, 0, share}}});
    return plan;
  }
  const int pieces = schedule.pieces(share);
  for (int step = 0; step < g; ++step)
    for (int j = 0; j < pieces; ++j) {
      auto [lo, hi] = Schedule::pieceRange(share, pieces, j);
      int member = schedule.ring() ? order.ringSliceAt(step)
                                   : order.partialFor(step + 1);
      plan.push_back({{{int64_t(step) * pieces + j, member, lo, hi}}});
    }
  return plan;
}

/// Where an all-to-all puts the blocks it receives: member p's block (a
/// dense tensor of `blockShape`) lands at offset p along dim `concat` of the
/// result, i.e. as `outer` runs of `run` elements, `members` runs apart. The
/// one definition every transport places (or copies) blocks by.
struct StackedBlocks {
  int64_t outer = 1, run = 1;
  int members = 1;

  StackedBlocks(const std::vector<int64_t> &blockShape, int64_t concat,
                int groupSize)
      : members(groupSize) {
    for (int64_t d = 0; d < static_cast<int64_t>(blockShape.size()); ++d)
      (d < concat ? outer : run) *= blockShape[d];
  }
  /// The result index of element `i` of member `member`'s block.
  int64_t destination(int member, int64_t i) const {
    return (i / run * members + member) * run + i % run;
  }
};

} // namespace mlir::tp::rt

#endif // TP_RUNTIME_SCHEDULE_H
