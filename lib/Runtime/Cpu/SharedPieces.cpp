//===- SharedPieces.cpp - fused pieces between threads of one process -----===//
//
// Ranks are threads: every rank publishes its buffers on the op's Exchange
// and counts the pieces it has made there; a rank that needs a piece waits
// for its owner's counter and reads the owner's buffer.
//
//===----------------------------------------------------------------------===//

#include "CpuBackend.h"

#include <atomic>

using namespace mlir::tp::rt;
using namespace mlir::tp::rt::cpu;

PieceGather::~PieceGather() = default;
PartialReduce::~PartialReduce() = default;

namespace {

class SharedGather final : public PieceGather {
public:
  SharedGather(World &world, int rank, CommThread &commThread,
               const Group &group, std::vector<GatherBuffer> buffers,
               int64_t shardExtent, bool ring, int chunks, std::string site)
      : world(world), rank(rank), commThread(commThread), group(group),
        buffers(std::move(buffers)), shardExtent(shardExtent), ring(ring),
        chunks(chunks), site(std::move(site)) {}

  Status start(const std::string &signature) {
    TP_RETURN_IF_ERROR(world.join(group, signature, &buffers, nullptr, ex));
    copyPiece(buffers, /*fromShard=*/true, group.index, 0, shardExtent);
    ex->progress[group.index]->store(chunks, std::memory_order_release);
    Status started = commThread.run([this] { communicate(); });
    communicating = started.isOk();
    if (!communicating) {
      // Peers stop waiting for this rank's pieces.
      world.fail(rank, started.message());
      (void)world.leave(group, ex);
    }
    return started;
  }

  Status waitFor(int64_t piece, const std::string &what) override {
    std::atomic<int64_t> &mine = *ex->progress[group.index];
    return world.spinFor(
        [&] { return mine.load(std::memory_order_acquire) > piece; }, what);
  }

  Status finish(const Status &computed) override {
    if (!computed.isOk())
      world.fail(rank, computed.message());
    if (communicating)
      commThread.wait();
    Status left = world.leave(group, ex);
    TP_RETURN_IF_ERROR(computed);
    TP_RETURN_IF_ERROR(commStatus);
    return left;
  }

private:
  /// Slabs [lo, hi) of `origin`'s shard, from a member's buffers (its shard
  /// when `fromShard`, else its gathered buffer) into this rank's.
  void copyPiece(const std::vector<GatherBuffer> &from, bool fromShard,
                 int origin, int64_t lo, int64_t hi) {
    const int64_t gatheredExtent = shardExtent * group.size();
    for (size_t b = 0; b < buffers.size(); ++b)
      copySlabs(fromShard ? from[b].shardFor(group.index) : from[b].gathered,
                fromShard ? shardExtent : gatheredExtent,
                fromShard ? lo : origin * shardExtent + lo, buffers[b].gathered,
                gatheredExtent, origin * shardExtent + lo, hi - lo,
                buffers[b].split, buffers[b].elementBytes);
  }

  /// Every other rank's shard in schedule order: per_peer straight from its
  /// owner, ring from the left neighbour's gathered buffer once it holds it.
  void communicate() {
    const int g = group.size(), me = group.index;
    std::atomic<int64_t> &myProgress = *ex->progress[me];
    const PieceOrder order(
        g, me, ring ? Schedule::Algorithm::Ring : Schedule::Algorithm::PerPeer);
    for (int step = 1; step < g && commStatus.isOk(); ++step) {
      int origin = order.gatherOrigin(step);
      for (int j = 0; j < chunks && commStatus.isOk(); ++j) {
        auto [lo, hi] = Schedule::pieceRange(shardExtent, chunks, j);
        TraceScope scope(world.trace(), rank, Stream::Comm,
                         "recv r" + std::to_string(group.member(origin)) +
                             " piece " + std::to_string(j),
                         "comm");
        int from = origin;
        if (ring) {
          from = order.left();
          int64_t needed = int64_t(step - 1) * chunks + j;
          commStatus = world.spinFor(
              [&] {
                return ex->progress[from]->load(std::memory_order_acquire) >
                       needed;
              },
              site + " waiting for rank " + std::to_string(group.member(from)));
          if (!commStatus.isOk())
            break;
        }
        copyPiece(
            *static_cast<const std::vector<GatherBuffer> *>(ex->published[from]),
            /*fromShard=*/!ring, origin, lo, hi);
        myProgress.fetch_add(1, std::memory_order_release);
      }
    }
  }

  World &world;
  int rank;
  CommThread &commThread;
  const Group &group;
  std::vector<GatherBuffer> buffers;
  int64_t shardExtent;
  bool ring;
  int chunks;
  std::string site;
  std::shared_ptr<Exchange> ex;
  bool communicating = false;
  Status commStatus;
};

class SharedReduce final : public PartialReduce {
public:
  SharedReduce(World &world, int rank, const Group &group,
               std::vector<void *> buffers, std::string site)
      : world(world), rank(rank), group(group), buffers(std::move(buffers)),
        site(std::move(site)) {}

  Status start(const std::string &signature) {
    return world.join(group, signature, &buffers, nullptr, ex);
  }

  Status made(int, int64_t, int64_t, int64_t) override {
    ex->progress[group.index]->fetch_add(1, std::memory_order_release);
    return Status::ok();
  }

  Status fetch(int member, int buffer, int64_t ordinal, int64_t, int64_t,
               const void *&slice) override {
    std::atomic<int64_t> &progress = *ex->progress[member];
    TP_RETURN_IF_ERROR(world.spinFor(
        [&] { return progress.load(std::memory_order_acquire) > ordinal; },
        site + " waiting for rank " + std::to_string(group.member(member))));
    slice = (*static_cast<const std::vector<void *> *>(
        ex->published[member]))[buffer];
    return Status::ok();
  }

  void cancel(const Status &why) override { world.fail(rank, why.message()); }

  Status finish(const Status &computed) override {
    if (!computed.isOk())
      world.fail(rank, computed.message());
    Status left = world.leave(group, ex);
    TP_RETURN_IF_ERROR(computed);
    return left;
  }

private:
  World &world;
  int rank;
  const Group &group;
  std::vector<void *> buffers;
  std::string site;
  std::shared_ptr<Exchange> ex;
};

} // namespace

Status CpuBackend::startGather(const Group &group, const std::string &signature,
                               const std::vector<GatherBuffer> &buffers,
                               int64_t shardExtent, bool ring, int chunks,
                               const std::string &site,
                               std::unique_ptr<PieceGather> &gather) {
  auto shared = std::make_unique<SharedGather>(
      world, rank, commThread, group, buffers, shardExtent, ring, chunks, site);
  TP_RETURN_IF_ERROR(shared->start(signature));
  gather = std::move(shared);
  return Status::ok();
}

Status CpuBackend::startReduce(const Group &group, const std::string &signature,
                               const std::vector<void *> &buffers,
                               const SliceLayout &, bool, int,
                               const std::string &site,
                               std::unique_ptr<PartialReduce> &reduce) {
  auto shared =
      std::make_unique<SharedReduce>(world, rank, group, buffers, site);
  TP_RETURN_IF_ERROR(shared->start(signature));
  reduce = std::move(shared);
  return Status::ok();
}
