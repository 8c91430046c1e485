//===- MpiBackend.cpp - the CPU backend with ranks as MPI processes -------===//
//
// The same GEMMs and fused schedules as the thread backend (it derives from
// CpuBackend); only the moving of data differs. Every byte travels by MPI
// point-to-point messages on a duplicate of MPI_COMM_WORLD, straight from and
// into the tensors (strided pieces are MPI vector types, not packed copies):
//  - collectives: every member sends what each other member needs and
//    reduces what it receives in group order, in double, exactly as the
//    thread backend does, so both give the same bits;
//  - fused ops: a piece is sent with MPI_Isend the moment it is ready and
//    received where the schedule needs it, so the GEMMs of the pieces already
//    there overlap the transfer of the next ones.
// Every collective first exchanges its signature ("op at loc: types"), so
// ranks that disagree fail with both signatures rather than mismatching
// bytes. Every wait polls MPI_Test* against the run's timeout: a peer that
// never arrives is an error, which ends the job (ProcessGroup::abort), not a
// hang. MPI is called under one mutex: the library needs only
// MPI_THREAD_SERIALIZED.
//
//===----------------------------------------------------------------------===//

#include "CpuBackend.h"
#include "tp/Runtime/MpiGroup.h"

#include <mpi.h>

#include <atomic>
#include <climits>
#include <cstring>
#include <mutex>
#include <thread>

using namespace mlir::tp::rt;
using namespace mlir::tp::rt::cpu;

namespace {

/// Tags: 0 for signatures, then data, folded into a span every MPI offers
/// (MPI_TAG_UB >= 32767). Messages between two ranks arrive in the order
/// they were sent, and both sides walk a schedule in the same order, so a
/// folded tag never matches the wrong piece.
constexpr int kSignatureTag = 0;
constexpr int64_t kTagSpan = 32000;
int dataTag(int64_t ordinal) { return 1 + static_cast<int>(ordinal % kTagSpan); }

/// Bytes of a signature on the wire: a 64-bit hash of the whole text, its
/// length, then as much of the text as fits (for the report). Ranks compare
/// the hash and length, so signatures that differ only past what fits (a
/// long path in the site) still disagree.
constexpr size_t kSignatureBytes = 512;
constexpr size_t kSignatureHeader = 2 * sizeof(uint64_t);

/// FNV-1a: stable across processes and builds, unlike std::hash.
uint64_t signatureHash(const std::string &text) {
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

/// The wire form of `signature` (kSignatureBytes).
std::vector<char> signatureRecord(const std::string &signature) {
  std::vector<char> record(kSignatureBytes, '\0');
  uint64_t header[2] = {signatureHash(signature), signature.size()};
  std::memcpy(record.data(), header, sizeof(header));
  std::memcpy(record.data() + kSignatureHeader, signature.data(),
              std::min(signature.size(),
                       kSignatureBytes - kSignatureHeader - 1));
  return record;
}

/// The text of a record, marked when it was cut.
std::string signatureText(const std::vector<char> &record) {
  uint64_t header[2];
  std::memcpy(header, record.data(), sizeof(header));
  std::string text(record.data() + kSignatureHeader,
                   strnlen(record.data() + kSignatureHeader,
                           kSignatureBytes - kSignatureHeader - 1));
  if (header[1] > text.size())
    text += "... (" + std::to_string(header[1]) + " characters)";
  return text;
}

/// `count` blocks of `block` bytes, `stride` bytes apart, from `base`.
struct Region {
  void *base = nullptr;
  int64_t count = 1, block = 0, stride = 0;
};

/// The World the base class waits and traces with: built before it.
struct LocalWorld {
  LocalWorld(int ranks, std::chrono::milliseconds timeout, TraceRecorder *trace)
      : local(ranks, timeout, trace) {}
  World local;
};

class MpiBackend final : private LocalWorld, public CpuBackend {
public:
  MpiBackend(MPI_Comm comm, int rank, int size,
             std::chrono::milliseconds timeout, TraceRecorder *trace)
      : LocalWorld(size, timeout, trace), CpuBackend(local, rank), comm(comm) {}
  ~MpiBackend() override {
    std::lock_guard<std::mutex> lock(mpiMutex);
    MPI_Comm_free(&comm);
  }

  std::string name() const override { return "cpu (MPI)"; }

  Status allGather(const Group &group, const Tensor &input, int64_t dim,
                   const std::string &site, Tensor &result) override;
  Status allToAll(const Group &group, const Tensor &input, int64_t split,
                  int64_t concat, const std::string &site,
                  Tensor &result) override;

  /// Starts sending `region` to world rank `to` / receiving it from `from`.
  Status post(bool send, const Region &region, int peer, int tag,
              std::vector<MPI_Request> &requests, const std::string &site);
  /// Waits for `requests` within the timeout (giving up when this rank's
  /// world has failed); they are cancelled when it gives up.
  Status waitAll(std::vector<MPI_Request> &requests, const std::string &what);
  /// Every member of `group` calls a collective with the same signature.
  Status agree(const Group &group, const std::string &signature);

  World &localWorld() { return local; }
  int worldRank() const { return rank; }

  Status waitForPeersToStart(std::chrono::milliseconds within) override;

protected:
  Status reduce(const Group &group, const Tensor &input, int64_t dim,
                bool scatter, Reduction reduction, const std::string &site,
                Tensor &result) override;
  Status startGather(const Group &group, const std::string &signature,
                     const std::vector<GatherBuffer> &buffers,
                     int64_t shardExtent, bool ring, int chunks,
                     const std::string &site,
                     std::unique_ptr<PieceGather> &gather) override;
  Status startReduce(const Group &group, const std::string &signature,
                     const std::vector<void *> &buffers,
                     const SliceLayout &layout, bool ring, int chunks,
                     const std::string &site,
                     std::unique_ptr<PartialReduce> &reduce) override;

private:
  MPI_Comm comm;
  std::mutex mpiMutex;
};

std::string signatureOf(const std::string &site, const Tensor &input) {
  return site + " on " + input.typeString();
}

/// A contiguous run of bytes as a region.
Region bytesAt(const void *base, int64_t bytes) {
  return {const_cast<void *>(base), 1, bytes, bytes};
}

/// Slabs [lo, lo + count) of every outer block of a buffer cut by `split`
/// with `extent` slabs per block.
Region slabs(const void *base, const DimSplit &split, int64_t extent,
             int64_t lo, int64_t count, size_t elementBytes) {
  int64_t slab = split.inner * static_cast<int64_t>(elementBytes);
  return {static_cast<uint8_t *>(const_cast<void *>(base)) + lo * slab,
          split.outer, count * slab, extent * slab};
}

Status MpiBackend::post(bool send, const Region &region, int peer, int tag,
                        std::vector<MPI_Request> &requests,
                        const std::string &site) {
  if (region.count <= 0 || region.block <= 0)
    return Status::ok();
  if (region.count > INT_MAX || region.block > INT_MAX)
    return Status::error(site + ": a message of " +
                         std::to_string(region.count) + " x " +
                         std::to_string(region.block) +
                         " bytes is too large for MPI");
  std::lock_guard<std::mutex> lock(mpiMutex);
  MPI_Datatype type;
  int count = 1;
  if (region.count == 1) {
    type = MPI_BYTE;
    count = static_cast<int>(region.block);
  } else {
    MPI_Type_create_hvector(static_cast<int>(region.count),
                            static_cast<int>(region.block), region.stride,
                            MPI_BYTE, &type);
    MPI_Type_commit(&type);
  }
  MPI_Request request;
  if (send)
    MPI_Isend(region.base, count, type, peer, tag, comm, &request);
  else
    MPI_Irecv(region.base, count, type, peer, tag, comm, &request);
  // A type in use by a pending operation lives until the operation ends.
  if (type != MPI_BYTE)
    MPI_Type_free(&type);
  requests.push_back(request);
  return Status::ok();
}

Status MpiBackend::waitAll(std::vector<MPI_Request> &requests,
                           const std::string &what) {
  Status status = local.spinFor(
      [&] {
        std::lock_guard<std::mutex> lock(mpiMutex);
        int done = 0;
        MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done,
                    MPI_STATUSES_IGNORE);
        return done != 0;
      },
      what);
  std::lock_guard<std::mutex> lock(mpiMutex);
  if (!status.isOk())
    for (MPI_Request &request : requests)
      if (request != MPI_REQUEST_NULL) {
        MPI_Cancel(&request);
        MPI_Request_free(&request);
      }
  requests.clear();
  return status;
}

Status MpiBackend::waitForPeersToStart(std::chrono::milliseconds within) {
  MPI_Request request;
  {
    std::lock_guard<std::mutex> lock(mpiMutex);
    MPI_Ibarrier(comm, &request);
  }
  const auto deadline = std::chrono::steady_clock::now() + within;
  while (true) {
    {
      std::lock_guard<std::mutex> lock(mpiMutex);
      int done = 0;
      MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      if (done)
        return Status::ok();
    }
    // A barrier cannot be cancelled: the caller ends the job (the run fails
    // on this rank, and tp-run aborts the others).
    if (std::chrono::steady_clock::now() > deadline)
      return Status::error(
          "rank " + std::to_string(rank) + ": the other ranks were not ready "
          "to run within " + std::to_string(within.count()) +
          " ms (one failed, or compiles far slower)");
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

Status MpiBackend::agree(const Group &group, const std::string &signature) {
  const int g = group.size();
  if (g == 1)
    return Status::ok();
  std::vector<char> mine = signatureRecord(signature);
  std::vector<std::vector<char>> theirs(g, std::vector<char>(kSignatureBytes));
  std::vector<MPI_Request> requests;
  for (int i = 0; i < g; ++i) {
    if (i == group.index)
      continue;
    TP_RETURN_IF_ERROR(post(false, bytesAt(theirs[i].data(), kSignatureBytes),
                            group.ranks[i], kSignatureTag, requests,
                            signature));
    TP_RETURN_IF_ERROR(post(true, bytesAt(mine.data(), kSignatureBytes),
                            group.ranks[i], kSignatureTag, requests,
                            signature));
  }
  TP_RETURN_IF_ERROR(waitAll(requests, signature));
  for (int i = 0; i < g; ++i) {
    if (i == group.index || std::memcmp(theirs[i].data(), mine.data(),
                                        kSignatureHeader) == 0)
      continue;
    return Status::error("ranks disagree on a collective: rank " +
                         std::to_string(group.worldRank()) + " runs " +
                         signature + " but rank " +
                         std::to_string(group.ranks[i]) + " runs " +
                         signatureText(theirs[i]));
  }
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

Status MpiBackend::allGather(const Group &group, const Tensor &input,
                             int64_t dim, const std::string &site,
                             Tensor &result) {
  TraceScope scope(local.trace(), rank, Stream::Comm, "all_gather", "comm");
  const int g = group.size();
  std::vector<int64_t> shape = input.shape();
  shape[dim] *= g;
  result = newResult(0, input.dtype(), shape);
  TP_RETURN_IF_ERROR(agree(group, signatureOf(site, input)));
  const DimSplit split = splitAt(input.shape(), dim);
  const size_t bytes = byteSize(input.dtype());
  uint8_t *out = static_cast<uint8_t *>(result.mutableData());
  std::vector<MPI_Request> requests;
  for (int i = 0; i < g; ++i) {
    if (i == group.index)
      continue;
    // Member i's shard lands as slabs [i * extent, (i + 1) * extent).
    TP_RETURN_IF_ERROR(post(false,
                            slabs(out, split, split.extent * g,
                                  i * split.extent, split.extent, bytes),
                            group.ranks[i], dataTag(0), requests, site));
    TP_RETURN_IF_ERROR(post(true, bytesAt(input.data(), input.numBytes()),
                            group.ranks[i], dataTag(0), requests, site));
  }
  copySlabs(static_cast<const uint8_t *>(input.data()), split.extent, 0, out,
            split.extent * g, group.index * split.extent, split.extent, split,
            bytes);
  return waitAll(requests, site);
}

Status MpiBackend::reduce(const Group &group, const Tensor &input, int64_t dim,
                          bool scatter, Reduction reduction,
                          const std::string &site, Tensor &result) {
  const int g = group.size();
  DimSplit split = splitAt(input.shape(), scatter ? dim : 0);
  std::vector<int64_t> shape = input.shape();
  int64_t extent = split.extent;
  if (scatter) {
    TP_RETURN_IF_ERROR(scatterShare(split.extent, dim, g, site, extent));
    shape[dim] = extent;
  }
  result = newResult(0, input.dtype(), shape);
  TP_RETURN_IF_ERROR(agree(group, signatureOf(site, input)));
  const size_t bytes = byteSize(input.dtype());
  const int64_t sliceBytes = result.numBytes();
  // Every member's contribution to this rank's slice, in the slice's layout.
  std::vector<std::vector<uint8_t>> received(g);
  std::vector<const void *> sources(g);
  std::vector<MPI_Request> requests;
  for (int i = 0; i < g; ++i) {
    if (i == group.index)
      continue;
    received[i].resize(sliceBytes);
    sources[i] = received[i].data();
    TP_RETURN_IF_ERROR(post(false, bytesAt(received[i].data(), sliceBytes),
                            group.ranks[i], dataTag(0), requests, site));
    Region mine = scatter ? slabs(input.data(), split, split.extent,
                                  i * extent, extent, bytes)
                          : bytesAt(input.data(), input.numBytes());
    TP_RETURN_IF_ERROR(
        post(true, mine, group.ranks[i], dataTag(0), requests, site));
  }
  if (scatter) {
    received[group.index].resize(sliceBytes);
    copySlabs(static_cast<const uint8_t *>(input.data()), split.extent,
              group.index * extent, received[group.index].data(), extent, 0,
              extent, split, bytes);
    sources[group.index] = received[group.index].data();
  } else {
    sources[group.index] = input.data();
  }
  TP_RETURN_IF_ERROR(waitAll(requests, site));
  int64_t elements = result.numElements();
  reduceRuns(sources, input.dtype(), reduction, 1, elements, elements, 0,
             result.mutableData());
  return Status::ok();
}

Status MpiBackend::allToAll(const Group &group, const Tensor &input,
                            int64_t split, int64_t concat,
                            const std::string &site, Tensor &result) {
  TraceScope scope(local.trace(), rank, Stream::Comm, "all_to_all", "comm");
  const int g = group.size();
  AllToAllShapes shapes;
  TP_RETURN_IF_ERROR(
      allToAllShapes(input.shape(), split, concat, g, site, shapes));
  result = newResult(0, input.dtype(), shapes.result);
  TP_RETURN_IF_ERROR(agree(group, signatureOf(site, input)));
  const DimSplit in = splitAt(input.shape(), split);
  const DimSplit block = splitAt(shapes.block, concat);
  const int64_t blockExtent = shapes.block[split];
  const size_t bytes = byteSize(input.dtype());
  const int64_t blockBytes = input.numBytes() / g;
  uint8_t *out = static_cast<uint8_t *>(result.mutableData());
  // Block j of the input goes to member j; the block from member i lands
  // i-th along the concat dim.
  std::vector<MPI_Request> requests;
  std::vector<std::vector<uint8_t>> received(g);
  for (int i = 0; i < g; ++i) {
    if (i == group.index)
      continue;
    received[i].resize(blockBytes);
    TP_RETURN_IF_ERROR(post(false, bytesAt(received[i].data(), blockBytes),
                            group.ranks[i], dataTag(0), requests, site));
    TP_RETURN_IF_ERROR(post(true,
                            slabs(input.data(), in, in.extent, i * blockExtent,
                                  blockExtent, bytes),
                            group.ranks[i], dataTag(0), requests, site));
  }
  received[group.index].resize(blockBytes);
  copySlabs(static_cast<const uint8_t *>(input.data()), in.extent,
            group.index * blockExtent, received[group.index].data(),
            blockExtent, 0, blockExtent, in, bytes);
  TP_RETURN_IF_ERROR(waitAll(requests, site));
  for (int i = 0; i < g; ++i)
    copySlabs(received[i].data(), block.extent, 0, out, block.extent * g,
              i * block.extent, block.extent, block, bytes);
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Fused pieces
//===----------------------------------------------------------------------===//

/// The all-gather half of a fused op: a communication thread sends this
/// rank's pieces (per_peer: its shard, to the member that takes it at each
/// step; ring: what it last received, to its right neighbour) and receives
/// the next ones straight into the gathered buffers.
class MpiGather final : public PieceGather {
public:
  MpiGather(MpiBackend &backend, CommThread &commThread, const Group &group,
            std::vector<GatherBuffer> buffers, int64_t shardExtent, bool ring,
            int chunks, std::string site)
      : backend(backend), commThread(commThread), group(group),
        buffers(std::move(buffers)),
        shardExtent(shardExtent), ring(ring), chunks(chunks),
        site(std::move(site)) {}

  Status start(const std::string &signature) {
    TP_RETURN_IF_ERROR(backend.agree(group, signature));
    const int64_t gatheredExtent = shardExtent * group.size();
    for (const GatherBuffer &b : buffers)
      copySlabs(b.shardFor(group.index), shardExtent, 0, b.gathered,
                gatheredExtent, group.index * shardExtent, shardExtent, b.split,
                b.elementBytes);
    progress.store(chunks, std::memory_order_release);
    Status started = commThread.run([this] { communicate(); });
    communicating = started.isOk();
    return started;
  }

  Status waitFor(int64_t piece, const std::string &what) override {
    Status status = backend.localWorld().spinFor(
        [&] {
          return progress.load(std::memory_order_acquire) > piece ||
                 commFailed.load(std::memory_order_acquire);
        },
        what);
    if (status.isOk() && commFailed.load(std::memory_order_acquire))
      return Status::error(site + ": its communication failed");
    return status;
  }

  Status finish(const Status &computed) override {
    if (!computed.isOk())
      backend.localWorld().fail(backend.worldRank(), computed.message());
    if (communicating)
      commThread.wait();
    TP_RETURN_IF_ERROR(commStatus);
    return computed;
  }

private:
  void communicate() {
    const int g = group.size(), me = group.index;
    const int64_t gatheredExtent = shardExtent * g;
    const PieceOrder order(
        g, me, ring ? Schedule::Algorithm::Ring : Schedule::Algorithm::PerPeer);
    const int right = group.member(order.right()),
              left = group.member(order.left());
    std::vector<MPI_Request> requests;
    for (int step = 1; step < g && commStatus.isOk(); ++step) {
      int origin = order.gatherOrigin(step);
      // Per_peer: the member that takes this rank's shard at this step;
      // ring: this rank forwards the piece it took at the previous step.
      int sendTo = ring ? right : group.member(order.gatherReader(step));
      int recvFrom = ring ? left : group.member(origin);
      int forwarded = order.gatherOrigin(step - 1);
      for (int j = 0; j < chunks && commStatus.isOk(); ++j) {
        auto [lo, hi] = Schedule::pieceRange(shardExtent, chunks, j);
        TraceScope scope(backend.localWorld().trace(), backend.worldRank(),
                         Stream::Comm,
                         "recv r" + std::to_string(group.member(origin)) +
                             " piece " + std::to_string(j),
                         "comm");
        int64_t ordinal = (int64_t(step - 1) * chunks + j) * 2;
        for (size_t b = 0; b < buffers.size() && commStatus.isOk(); ++b) {
          const GatherBuffer &buf = buffers[b];
          Region out =
              ring ? slabs(buf.gathered, buf.split, gatheredExtent,
                           forwarded * shardExtent + lo, hi - lo,
                           buf.elementBytes)
                   : slabs(buf.shardFor(order.gatherReader(step)), buf.split,
                           shardExtent, lo, hi - lo, buf.elementBytes);
          Region in = slabs(buf.gathered, buf.split, gatheredExtent,
                            origin * shardExtent + lo, hi - lo,
                            buf.elementBytes);
          int tag = dataTag(ordinal + static_cast<int64_t>(b));
          commStatus = backend.post(false, in, recvFrom, tag, requests, site);
          if (commStatus.isOk())
            commStatus = backend.post(true, out, sendTo, tag, requests, site);
        }
        if (commStatus.isOk())
          commStatus = backend.waitAll(
              requests, site + " waiting for rank " + std::to_string(recvFrom));
        if (!commStatus.isOk()) {
          commFailed.store(true, std::memory_order_release);
          return;
        }
        progress.fetch_add(1, std::memory_order_release);
      }
    }
  }

  MpiBackend &backend;
  CommThread &commThread;
  const Group &group;
  std::vector<GatherBuffer> buffers;
  int64_t shardExtent;
  bool ring;
  int chunks;
  std::string site;
  std::atomic<int64_t> progress{0};
  std::atomic<bool> commFailed{false};
  bool communicating = false;
  Status commStatus;
};

/// The reduce-scatter half of a fused op: a piece made for another member
/// (per_peer) or the next one in the ring is sent at once; a piece needed is
/// received into a staging slice laid out as the buffers.
class MpiReduce final : public PartialReduce {
public:
  MpiReduce(MpiBackend &backend, const Group &group,
            std::vector<void *> buffers, const SliceLayout &layout, bool ring,
            std::string site)
      : backend(backend), group(group), buffers(std::move(buffers)),
        layout(layout), ring(ring), site(std::move(site)),
        staging(layout.elements() * layout.elementBytes) {}

  Status start(const std::string &signature) {
    return backend.agree(group, signature);
  }

  Status made(int buffer, int64_t ordinal, int64_t lo, int64_t hi) override {
    made_.fetch_add(1, std::memory_order_release);
    const int g = group.size(), me = group.index;
    int to = ring ? (buffer < g - 1 ? group.member(me + 1) : -1)
                  : (buffer != me ? group.member(buffer) : -1);
    if (to < 0)
      return Status::ok();
    return backend.post(true, piece(buffers[buffer], lo, hi), to,
                        dataTag(ordinal), sends, site);
  }

  Status fetch(int member, int buffer, int64_t ordinal, int64_t lo, int64_t hi,
               const void *&slice) override {
    if (member == group.index) {
      slice = buffers[buffer];
      return backend.localWorld().spinFor(
          [&] { return made_.load(std::memory_order_acquire) > ordinal; },
          site + " waiting for its own partials");
    }
    std::vector<MPI_Request> requests;
    int from = group.member(member);
    TP_RETURN_IF_ERROR(backend.post(false, piece(staging.data(), lo, hi), from,
                                    dataTag(ordinal), requests, site));
    slice = staging.data();
    return backend.waitAll(requests,
                           site + " waiting for rank " + std::to_string(from));
  }

  void cancel(const Status &why) override {
    backend.localWorld().fail(backend.worldRank(), why.message());
  }

  Status finish(const Status &computed) override {
    if (!computed.isOk())
      cancel(computed);
    // Sends still in flight read buffers the caller is about to free.
    Status sent = backend.waitAll(sends, site + " sending its partials");
    TP_RETURN_IF_ERROR(computed);
    return sent;
  }

private:
  Region piece(void *base, int64_t lo, int64_t hi) const {
    int64_t bytes = static_cast<int64_t>(layout.elementBytes);
    return {static_cast<uint8_t *>(base) + lo * layout.unit * bytes,
            layout.count, (hi - lo) * layout.unit * bytes,
            layout.stride * bytes};
  }

  MpiBackend &backend;
  const Group &group;
  std::vector<void *> buffers;
  SliceLayout layout;
  bool ring;
  std::string site;
  std::vector<uint8_t> staging;
  std::vector<MPI_Request> sends;
  std::atomic<int64_t> made_{0};
};

Status MpiBackend::startGather(const Group &group, const std::string &signature,
                               const std::vector<GatherBuffer> &buffers,
                               int64_t shardExtent, bool ring, int chunks,
                               const std::string &site,
                               std::unique_ptr<PieceGather> &gather) {
  auto mpi = std::make_unique<MpiGather>(*this, commThread, group, buffers,
                                         shardExtent, ring, chunks, site);
  TP_RETURN_IF_ERROR(mpi->start(signature));
  gather = std::move(mpi);
  return Status::ok();
}

Status MpiBackend::startReduce(const Group &group, const std::string &signature,
                               const std::vector<void *> &buffers,
                               const SliceLayout &layout, bool ring, int,
                               const std::string &site,
                               std::unique_ptr<PartialReduce> &reduce) {
  auto mpi =
      std::make_unique<MpiReduce>(*this, group, buffers, layout, ring, site);
  TP_RETURN_IF_ERROR(mpi->start(signature));
  reduce = std::move(mpi);
  return Status::ok();
}

} // namespace

Status mlir::tp::rt::createMpiCpuBackend(std::chrono::milliseconds timeout,
                                         TraceRecorder *trace,
                                         std::unique_ptr<Backend> &backend) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized)
    return Status::error("the MPI CPU backend needs MPI initialized first");
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  if (level < MPI_THREAD_SERIALIZED)
    return Status::error("the MPI CPU backend needs MPI_THREAD_SERIALIZED or "
                         "better; this MPI provides level " +
                         std::to_string(level));
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Its own communicator: its messages never match the launcher's.
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  backend = std::make_unique<MpiBackend>(comm, rank, size,
                                         World::clampTimeout(timeout), trace);
  return Status::ok();
}
