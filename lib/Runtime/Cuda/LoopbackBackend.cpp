//===- LoopbackBackend.cpp - ranks as threads sharing GPUs ----------------===//
//
// The loopback transport: every rank is a thread of this process, with its
// own device buffers (N ranks can share one GPU: NCCL refuses that, this does
// not). Collectives and fused ops publish device buffers and events through
// the World's Exchange; a peer's buffer is read only after the host has seen
// its owner enqueue the event that guards it (progress counters), then the
// reading stream waits on that event. Copies are cudaMemcpy(2D)Async between
// device buffers: copy engines, no SMs, so overlap with GEMMs can be measured
// on one GPU.
//
//===----------------------------------------------------------------------===//

#include "CudaRank.h"
#include "Kernels.h"
#include "tp/Runtime/CudaBackend.h"
#include "tp/Runtime/Trace.h"

#include <cstdlib>

using namespace mlir::tp::rt;
using namespace mlir::tp::rt::cuda;

bool mlir::tp::rt::cudaBackendBuilt() { return true; }

int mlir::tp::rt::cudaDeviceCount() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

Status mlir::tp::rt::queryCudaDevices(int &count) {
  count = 0;
  TP_RETURN_IF_ERROR(check(cudaGetDeviceCount(&count), "cudaGetDeviceCount",
                           "CUDA device query"));
  if (count == 0)
    return Status::error(
        "CUDA device query: cudaGetDeviceCount found no device");
  return Status::ok();
}

bool mlir::tp::rt::cudaDeviceRequired() {
  const char *value = std::getenv("TP_REQUIRE_CUDA_DEVICE");
  return value && *value && std::string(value) != "0";
}

namespace {

/// What a rank publishes for a collective on the GPU.
struct DevicePublished {
  const uint8_t *data = nullptr;  // input (or gathered buffer / partials)
  const uint8_t *scale = nullptr; // gathered scale (scaled all-gather)
  const std::vector<cudaEvent_t> *events = nullptr;
  /// Capture mode: recorded once this rank is done reading its peers'
  /// buffers for the op (LoopbackBackend::releaseOnDevice).
  const cudaEvent_t *released = nullptr;
  /// An all-to-all's packed blocks (GatherLayout::blocks), else null.
  const uint8_t *blocks = nullptr;
  size_t blockBytes = 0;
};

/// The progress mark of a member's `released` event: above every piece's.
constexpr int64_t kReleasedMark = int64_t(1) << 40;

class LoopbackBackend final : public CudaRank {
public:
  LoopbackBackend(World &world, int rank)
      : CudaRank(world.trace(), rank), world(world) {}
  ~LoopbackBackend() override {
    if (releasedEvent)
      cudaEventDestroy(releasedEvent);
  }

  Status allGather(const Group &group, const Tensor &input, int64_t dim,
                   const std::string &site, Tensor &result) override;
  Status reduceScatter(const Group &group, const Tensor &input, int64_t dim,
                       Reduction reduction, const std::string &site,
                       Tensor &result) override {
    return reduce(group, input, dim, true, reduction, site, result);
  }
  Status allReduce(const Group &group, const Tensor &input, Reduction reduction,
                   const std::string &site, Tensor &result) override {
    return reduce(group, input, 0, false, reduction, site, result);
  }
  Status allToAll(const Group &group, const Tensor &input, int64_t split,
                  int64_t concat, const std::string &site,
                  Tensor &result) override;
  Status allGatherMatmul(const Group &group, const AllGatherMatmulArgs &args,
                         std::vector<Tensor> &results) override;
  Status matmulReduceScatter(const Group &group,
                             const MatmulReduceScatterArgs &args,
                             std::vector<Tensor> &results) override;
  Status allGatherContract(const Group &group,
                           const AllGatherContractArgs &args,
                           std::vector<Tensor> &results) override;

private:
  /// Copies every other rank's pieces of a gathered buffer into this rank's,
  /// in schedule order, announcing each (a fused op's communication half).
  Status gatherPieces(Exchange &ex, const GatherLayout &l,
                      const std::string &context);
  Status reduce(const Group &group, const Tensor &input, int64_t dim,
                bool scatter, Reduction reduction, const std::string &site,
                Tensor &result);
  /// Waits (host side) until member `m` has enqueued its event `index`, then
  /// makes `stream` wait on it.
  Status waitPeer(Exchange &ex, int m, int64_t index, cudaStream_t stream,
                  const std::string &context) {
    TP_RETURN_IF_ERROR(world.spinFor(
        [&] { return ex.progress[m]->load(std::memory_order_acquire) > index; },
        context + " waiting for a peer"));
    auto *peer = static_cast<const DevicePublished *>(ex.published[m]);
    TP_CUDA(cudaStreamWaitEvent(stream, (*peer->events)[index], 0));
    return Status::ok();
  }
  /// Records event `index` on `stream` and announces it.
  Status announce(Exchange &ex, int me, int64_t index, cudaStream_t stream,
                  const std::string &context) {
    TP_CUDA(cudaEventRecord(events[index], stream));
    ex.progress[me]->store(index + 1, std::memory_order_release);
    return Status::ok();
  }
  /// Ends a collective: reports a failure, lets both streams' reads of peers'
  /// buffers finish (a failure may leave copies queued on either), and leaves
  /// the exchange (which waits for every peer).
  Status finish(const Group &group, const std::shared_ptr<Exchange> &ex,
                Status status, const std::string &context) {
    if (capturing && status.isOk())
      status = releaseOnDevice(*ex, group, context);
    if (!status.isOk())
      world.fail(rank, status.message());
    if (!capturing) {
      cudaStreamSynchronize(comm);
      cudaStreamSynchronize(compute);
    }
    Status left = world.leave(group, ex);
    TP_RETURN_IF_ERROR(status);
    return left;
  }
  /// Capture mode's end of a collective, where the host cannot wait for the
  /// copies: the compute stream takes in the comm stream, marks this rank
  /// done with its peers' buffers, and waits until every peer is done with
  /// this rank's, so the next op may overwrite them (a barrier in the graph).
  Status releaseOnDevice(Exchange &ex, const Group &group,
                         const std::string &context) {
    TP_RETURN_IF_ERROR(joinIntoCompute(comm, context));
    if (!releasedEvent)
      TP_CUDA(cudaEventCreateWithFlags(&releasedEvent, cudaEventDisableTiming));
    TP_CUDA(cudaEventRecord(releasedEvent, compute));
    ex.progress[group.index]->store(kReleasedMark + 1,
                                    std::memory_order_release);
    for (int m = 0; m < group.size(); ++m) {
      if (m == group.index)
        continue;
      TP_RETURN_IF_ERROR(world.spinFor(
          [&] {
            return ex.progress[m]->load(std::memory_order_acquire) >
                   kReleasedMark;
          },
          context + " waiting for a peer"));
      auto *peer = static_cast<const DevicePublished *>(ex.published[m]);
      TP_CUDA(cudaStreamWaitEvent(compute, *peer->released, 0));
    }
    return Status::ok();
  }
  /// Uploads `input`, publishes it with an event guarding it, and joins the
  /// collective: every member's input is then readable after waitPeer(.., 0).
  Status publishInput(const Group &group, const Tensor &input,
                      const std::string &purpose, const std::string &site,
                      std::shared_ptr<Exchange> &ex) {
    const std::string &context = site;
    void *in;
    TP_RETURN_IF_ERROR(upload(input, purpose, in, comm, context));
    TP_RETURN_IF_ERROR(eventPool(1, context));
    TP_CUDA(cudaEventRecord(events[0], comm));
    published = DevicePublished{static_cast<uint8_t *>(in), nullptr, &events,
                                &releasedEvent};
    TP_RETURN_IF_ERROR(world.join(group, site + " on " + input.typeString(),
                                  &published, nullptr, ex));
    ex->progress[group.index]->store(1, std::memory_order_release);
    return Status::ok();
  }

  World &world;
  /// What this rank publishes for its current collective.
  DevicePublished published;
  cudaEvent_t releasedEvent = nullptr;
};

} // namespace

Status mlir::tp::rt::createCudaBackend(World &world, int rank,
                                       std::unique_ptr<Backend> &backend) {
  int count = cudaDeviceCount();
  if (count == 0)
    return Status::error("cuda backend of rank " + std::to_string(rank) +
                         ": no CUDA device");
  auto cuda = std::make_unique<LoopbackBackend>(world, rank);
  TP_RETURN_IF_ERROR(cuda->init(rank % count));
  backend = std::move(cuda);
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

Status LoopbackBackend::allGather(const Group &group, const Tensor &input,
                                  int64_t dim, const std::string &site,
                                  Tensor &result) {
  const std::string &context = site;
  TP_RETURN_IF_ERROR(forkFromCompute(comm, context));
  TraceScope scope(trace, rank, Stream::Comm, "all_gather", "comm");
  Split s = splitAt(input.shape(), dim);
  int g = group.size();
  std::vector<int64_t> shape = input.shape();
  shape[dim] *= g;
  result = newResult(0, input.dtype(), shape, /*zeroed=*/false);
  void *out;
  TP_RETURN_IF_ERROR(buffer("ag.out", result.numBytes(), out, context));
  std::shared_ptr<Exchange> ex;
  TP_RETURN_IF_ERROR(publishInput(group, input, "ag.in", site, ex));
  Status status;
  for (int i = 0; i < g && status.isOk(); ++i) {
    status = waitPeer(*ex, i, 0, comm, context);
    auto *peer = static_cast<const DevicePublished *>(ex->published[i]);
    if (status.isOk())
      status =
          check(copySlabs(peer->data, s.extent, 0, static_cast<uint8_t *>(out),
                          s.extent * g, i * s.extent, s.extent, s,
                          byteSize(input.dtype()), comm),
                "cudaMemcpy2DAsync", context);
  }
  if (status.isOk())
    status = download(out, result, comm, context);
  return finish(group, ex, status, context);
}

Status LoopbackBackend::allToAll(const Group &group, const Tensor &input,
                                 int64_t split, int64_t concat,
                                 const std::string &site, Tensor &result) {
  const std::string &context = site;
  TP_RETURN_IF_ERROR(forkFromCompute(comm, context));
  TraceScope scope(trace, rank, Stream::Comm, "all_to_all", "comm");
  int g = group.size();
  AllToAllShapes shapes;
  TP_RETURN_IF_ERROR(
      allToAllShapes(input.shape(), split, concat, g, site, shapes));
  Split in = splitAt(input.shape(), split);
  result = newResult(0, input.dtype(), shapes.result, /*zeroed=*/false);
  int64_t blockExtent = shapes.block[split];
  Split block = splitAt(shapes.block, concat);
  size_t blockBytes = input.numBytes() / g, bytes = byteSize(input.dtype());
  void *out, *stage;
  TP_RETURN_IF_ERROR(buffer("a2a.out", result.numBytes(), out, context));
  TP_RETURN_IF_ERROR(buffer("a2a.stage", blockBytes * g, stage, context));
  std::shared_ptr<Exchange> ex;
  TP_RETURN_IF_ERROR(publishInput(group, input, "a2a.in", site, ex));
  Status status;
  // Copy-engine copies on the comm stream: block `group.index` of member i
  // is packed from its device buffer into stage slot i, then placed i-th
  // along the concat dim of the result.
  for (int i = 0; i < g && status.isOk(); ++i) {
    status = waitPeer(*ex, i, 0, comm, context);
    auto *peer = static_cast<const DevicePublished *>(ex->published[i]);
    uint8_t *slot = static_cast<uint8_t *>(stage) + i * blockBytes;
    if (status.isOk())
      status = check(copySlabs(peer->data, in.extent, group.index * blockExtent,
                               slot, blockExtent, 0, blockExtent, in, bytes,
                               comm),
                     "cudaMemcpy2DAsync", context);
    if (status.isOk())
      status = check(copySlabs(slot, block.extent, 0, out, block.extent * g,
                               i * block.extent, block.extent, block, bytes,
                               comm),
                     "cudaMemcpy2DAsync", context);
  }
  if (status.isOk())
    status = download(out, result, comm, context);
  return finish(group, ex, status, context);
}

Status LoopbackBackend::reduce(const Group &group, const Tensor &input,
                               int64_t dim, bool scatter, Reduction reduction,
                               const std::string &site, Tensor &result) {
  const std::string &context = site;
  TP_RETURN_IF_ERROR(forkFromCompute(comm, context));
  TraceScope scope(trace, rank, Stream::Comm,
                   scatter ? "reduce_scatter" : "all_reduce", "comm");
  // The reduction kernel would return zeros for types it cannot load and
  // store (FP8, integers).
  TP_RETURN_IF_ERROR(checkKernelReduction(input.dtype(), site));
  int g = group.size();
  Split s = splitAt(input.shape(), scatter ? dim : 0);
  std::vector<int64_t> shape = input.shape();
  int64_t extent = s.extent;
  if (scatter) {
    TP_RETURN_IF_ERROR(scatterShare(s.extent, dim, g, site, extent));
    shape[dim] = extent;
  }
  result = newResult(0, input.dtype(), shape, /*zeroed=*/false);
  size_t sliceBytes = result.numBytes();
  void *staging, *out, *pointers;
  TP_RETURN_IF_ERROR(buffer("rd.staging", sliceBytes * g, staging, context));
  TP_RETURN_IF_ERROR(buffer("rd.out", sliceBytes, out, context));
  TP_RETURN_IF_ERROR(
      buffer("rd.pointers", sizeof(void *) * g, pointers, context));
  TP_CUDA(launchPointerTable(static_cast<const void **>(pointers), staging,
                             sliceBytes, g, comm));
  std::shared_ptr<Exchange> ex;
  TP_RETURN_IF_ERROR(publishInput(group, input, "rd.in", site, ex));
  Status status;
  Split slice{s.outer, extent, s.inner};
  for (int i = 0; i < g && status.isOk(); ++i) {
    status = waitPeer(*ex, i, 0, comm, context);
    auto *peer = static_cast<const DevicePublished *>(ex->published[i]);
    if (status.isOk())
      status = check(
          copySlabs(peer->data, s.extent, scatter ? group.index * extent : 0,
                    static_cast<uint8_t *>(staging) + i * sliceBytes, extent, 0,
                    extent, slice, byteSize(input.dtype()), comm),
          "cudaMemcpy2DAsync", context);
  }
  if (status.isOk())
    status =
        check(launchReduce(static_cast<const void *const *>(pointers), g,
                           input.dtype(), result.numElements(), reduction,
                           nullptr, input.dtype(), 1, out, input.dtype(), comm),
              "reduce kernel", context);
  if (status.isOk())
    status = download(out, result, comm, context);
  return finish(group, ex, status, context);
}

//===----------------------------------------------------------------------===//
// Fused schedules
//===----------------------------------------------------------------------===//

constexpr auto pieceRange = Schedule::pieceRange;

Status LoopbackBackend::allGatherMatmul(const Group &group,
                                        const AllGatherMatmulArgs &args,
                                        std::vector<Tensor> &results) {
  const std::string &context = args.site;
  TP_RETURN_IF_ERROR(forkFromCompute(comm, context));
  const int g = group.size(), me = group.index;
  const bool ring = args.schedule.ring();
  GatherMatmulPlan plan;
  TP_RETURN_IF_ERROR(prepareGatherMatmul(args, g, me, plan));
  const GatherLayout layout = plan.layout(ring);

  DevicePublished mine{static_cast<uint8_t *>(plan.dG),
                       static_cast<uint8_t *>(plan.dGS),
                       &events,
                       &releasedEvent,
                       static_cast<uint8_t *>(plan.dBlocks),
                       plan.blockBytes};
  std::shared_ptr<Exchange> ex;
  TP_RETURN_IF_ERROR(world.join(group,
                                context + " (" + args.schedule.name() +
                                    ") on " + args.a.data->typeString(),
                                &mine, nullptr, ex));
  ex->progress[me]->store(layout.chunks, std::memory_order_release);

  Status status = gatherPieces(*ex, layout, context);
  if (status.isOk())
    status = multiplyGatheredPieces(args, plan);
  if (status.isOk())
    status = synchronize(compute, context);
  TP_RETURN_IF_ERROR(finish(group, ex, status, context));
  return finishGatherMatmul(args, plan, results);
}

Status LoopbackBackend::gatherPieces(Exchange &ex, const GatherLayout &l,
                                     const std::string &context) {
  // Every other rank's pieces, in schedule order (ring: from the left
  // neighbour once it holds them; per_peer: from their owners).
  for (int step = 1; step < l.g; ++step) {
    int origin = l.originOf(step);
    for (int j = 0; j < l.chunks; ++j) {
      auto [lo, hi] = pieceRange(l.extL, l.chunks, j);
      int from = l.ring ? (l.me - 1 + l.g) % l.g : origin;
      int64_t needed = l.ring ? int64_t(step - 1) * l.chunks + j : j;
      TP_RETURN_IF_ERROR(waitPeer(ex, from, needed, comm, context));
      auto *peer = static_cast<const DevicePublished *>(ex.published[from]);
      int64_t at = origin * l.extL + lo;
      // An all-to-all reads the block the peer packed for this rank.
      TP_RETURN_IF_ERROR(
          check(l.blocks ? copySlabs(peer->blocks + l.me * peer->blockBytes,
                                     l.extL, lo, l.data, l.extG, at, hi - lo,
                                     l.split, l.elementBytes, comm)
                         : copySlabs(peer->data, l.extG, at, l.data, l.extG, at,
                                     hi - lo, l.split, l.elementBytes, comm),
                "cudaMemcpy2DAsync", context));
      if (l.scale)
        TP_RETURN_IF_ERROR(check(copySlabs(peer->scale, l.extG, at, l.scale,
                                           l.extG, at, hi - lo, l.scaleSplit,
                                           l.scaleElementBytes, comm),
                                 "cudaMemcpy2DAsync", context));
      TP_RETURN_IF_ERROR(
          announce(ex, l.me, int64_t(step) * l.chunks + j, comm, context));
    }
  }
  return Status::ok();
}

Status LoopbackBackend::allGatherContract(const Group &group,
                                          const AllGatherContractArgs &args,
                                          std::vector<Tensor> &results) {
  const std::string &context = args.site;
  TP_RETURN_IF_ERROR(forkFromCompute(comm, context));
  const int g = group.size(), me = group.index;
  const bool ring = args.schedule.ring();
  ContractDevicePlan plan;
  TP_RETURN_IF_ERROR(prepareContract(args, g, me, ring, plan));

  std::string operands = args.x->typeString();
  for (const Tensor *other : args.others)
    operands += " " + other->typeString();
  DevicePublished mine{static_cast<uint8_t *>(plan.gather.data), nullptr,
                       &events, &releasedEvent};
  std::shared_ptr<Exchange> ex;
  TP_RETURN_IF_ERROR(world.join(
      group, context + " (" + args.schedule.name() + ") on " + operands, &mine,
      nullptr, ex));
  ex->progress[me]->store(plan.gather.chunks, std::memory_order_release);

  Status status = gatherPieces(*ex, plan.gather, context);
  if (status.isOk())
    status = contractGatheredPieces(args, plan);
  if (status.isOk())
    status = synchronize(compute, context);
  TP_RETURN_IF_ERROR(finish(group, ex, status, context));
  return finishContract(args, plan, results);
}

Status LoopbackBackend::matmulReduceScatter(const Group &group,
                                            const MatmulReduceScatterArgs &args,
                                            std::vector<Tensor> &results) {
  const std::string &context = args.site;
  TP_RETURN_IF_ERROR(forkFromCompute(comm, context));
  const int g = group.size(), me = group.index;
  ReduceScatterPlan plan;
  TP_RETURN_IF_ERROR(prepareReduceScatter(args, g, me, plan));
  const int chunks = plan.chunks;
  const int64_t extL = plan.extL;

  DevicePublished mine{static_cast<uint8_t *>(plan.dW), nullptr, &events,
                       &releasedEvent};
  std::shared_ptr<Exchange> ex;
  TP_RETURN_IF_ERROR(
      world.join(group,
                 context + " (per_peer) on " + args.a.data->typeString() + " " +
                     args.b.data->typeString() +
                     (args.addend ? " " + args.addend->typeString() : "") +
                     (args.bias ? " " + args.bias->typeString() : ""),
                 &mine, nullptr, ex));

  Status status;
  // Partials for the next ranks first, this rank's own slice last.
  const PieceOrder order(g, me, Schedule::Algorithm::PerPeer);
  const std::vector<GemmStep> steps = planScatter(g, me, plan.schedule, extL);
  std::vector<cudaStream_t> streams;
  status = forkPieceStreams(
      pieceStreamCount(plan.schedule, steps.size(), /*serial=*/plan.scaled),
      context, streams);
  for (size_t index = 0; index < steps.size() && status.isOk(); ++index) {
    cudaStream_t stream = streams[index % streams.size()];
    status = computePartialStep(args, plan, steps[index], stream);
    for (const PieceRef &made : steps[index].pieces)
      if (status.isOk())
        status = announce(*ex, me, made.ordinal, stream, context);
  }
  if (status.isOk())
    status = joinPieceStreams(streams, context);
  // Stage every rank's partial for this rank's slice, then reduce once.
  for (int j = 0; j < chunks && status.isOk(); ++j) {
    auto [lo, hi] = pieceRange(extL, chunks, j);
    for (int p = 0; p < g && status.isOk(); ++p) {
      int64_t needed = int64_t(order.stepOfPartialFrom(p) - 1) * chunks + j;
      status = waitPeer(*ex, p, needed, comm, context);
      auto *peer = static_cast<const DevicePublished *>(ex->published[p]);
      if (status.isOk())
        status = check(copyPiece(plan, peer->data + me * plan.sliceBytes, extL,
                                 0, plan.staged(p), extL, 0, lo, hi,
                                 sizeof(float), cudaMemcpyDeviceToDevice, comm),
                       "cudaMemcpy2DAsync", context);
    }
  }
  if (status.isOk())
    status = reduceStaged(args, plan);
  Tensor unreduced;
  if (status.isOk() && args.returnUnreduced)
    status = unreducedProduct(args, plan, unreduced);
  TP_RETURN_IF_ERROR(finish(group, ex, status, context));
  results.clear();
  if (args.returnUnreduced)
    results.push_back(std::move(unreduced));
  results.push_back(std::move(plan.reduced));
  return Status::ok();
}
