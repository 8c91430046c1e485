//===- NcclBackend.cpp - one rank per process, NCCL between GPUs ----------===//
//
// The NCCL transport: this process is one rank on its own GPU. Collectives
// are NCCL collectives on a communicator per group (split from the world
// communicator the first time a group is used). Fused ops move their pieces
// with grouped ncclSend/ncclRecv on the comm stream, in the same order on
// every rank, while the compute stream multiplies (CudaRank); pieces that are
// not contiguous (a gather or scatter along an inner dim) are packed through
// staging buffers by the copy engines.
//
// Communicators are non-blocking, so no call can hang: every wait polls the
// stream and the communicators' async errors, and when the timeout passes or
// NCCL reports an error every communicator is aborted and the op fails.
//
//===----------------------------------------------------------------------===//

#include "CudaRank.h"
#include "tp/Runtime/CudaBackend.h"
#include "tp/Runtime/Trace.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <thread>

using namespace mlir::tp::rt;
using namespace mlir::tp::rt::cuda;
using Clock = std::chrono::steady_clock;

constexpr auto pieceRange = Schedule::pieceRange;

Status mlir::tp::rt::createNcclUniqueId(std::string &blob) {
  const std::string context = "NCCL bootstrap";
  ncclUniqueId id;
  TP_CUDA(ncclGetUniqueId(&id));
  blob.assign(reinterpret_cast<const char *>(&id), sizeof(id));
  return Status::ok();
}

namespace {

/// NCCL's element type for reductions; all-gathers move bytes.
bool ncclTypeOf(DType type, ncclDataType_t &out) {
  static const std::pair<DType, ncclDataType_t> kTypes[] = {
      {DType::F32, ncclFloat32},         {DType::F64, ncclFloat64},
      {DType::F16, ncclFloat16},         {DType::BF16, ncclBfloat16},
      {DType::F8E4M3FN, ncclFloat8e4m3}, {DType::F8E5M2, ncclFloat8e5m2},
      {DType::I32, ncclInt32},           {DType::I64, ncclInt64},
  };
  for (auto [ours, theirs] : kTypes)
    if (ours == type) {
      out = theirs;
      return true;
    }
  return false;
}

/// NCCL's type for a reduction over `type`, or an error naming it.
Status reducible(DType type, const std::string &context, ncclDataType_t &out) {
  if (ncclTypeOf(type, out))
    return Status::ok();
  return Status::error(context + ": NCCL cannot reduce " +
                       std::string(mlir::tp::rt::name(type)));
}

ncclRedOp_t ncclOpOf(Reduction reduction) {
  switch (reduction) {
  case Reduction::Sum:
    return ncclSum;
  case Reduction::Avg:
    return ncclAvg;
  case Reduction::Max:
    return ncclMax;
  case Reduction::Min:
    return ncclMin;
  }
  return ncclSum;
}

/// A rectangle of bytes in a device buffer: `rows` runs of `width` bytes,
/// `pitch` apart.
struct Piece {
  uint8_t *at = nullptr;
  size_t width = 0, pitch = 0;
  int64_t rows = 1;
  bool contiguous() const { return rows == 1 || pitch == width; }
  size_t bytes() const { return width * rows; }
};

class NcclBackend final : public CudaRank {
public:
  NcclBackend(const NcclRankSetup &setup)
      : CudaRank(setup.trace, setup.rank), setup(setup) {}
  ~NcclBackend() override;

  Status connect();
  std::string whyNoGraphCapture() const override {
    return "a CUDA graph of the step takes ranks as threads of one process "
           "(--transport loopback); over NCCL it is not supported yet";
  }

  Status allGather(const Group &group, const Tensor &input, int64_t dim,
                   const std::string &site, Tensor &result) override;
  Status reduceScatter(const Group &group, const Tensor &input, int64_t dim,
                       Reduction reduction, const std::string &site,
                       Tensor &result) override;
  Status allReduce(const Group &group, const Tensor &input, Reduction reduction,
                   const std::string &site, Tensor &result) override;
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

protected:
  Status synchronize(cudaStream_t stream, const std::string &context) override;

private:
  /// Fails (after aborting every communicator) when NCCL reported an error.
  Status checkHealth(const std::string &context);
  /// `result` of an NCCL call on `comm`; waits out ncclInProgress.
  Status settle(ncclResult_t result, ncclComm_t comm, const char *call,
                const std::string &context);
  Status timedOut(const std::string &context);
  void abortAll();
  /// The communicator of `group` (members in group order).
  Status communicator(const Group &group, const std::string &context,
                      ncclComm_t &comm);
  /// On the comm stream: sends `send` to group member `to` and receives the
  /// same shape from `from` into `recv`, packing through `sendStage` /
  /// `recvStage` what is not contiguous.
  Status sendRecv(ncclComm_t nc, const Piece &send, int to, const Piece &recv,
                  int from, void *sendStage, void *recvStage,
                  const std::string &context);
  /// On the comm stream: brings every other rank's pieces of a gathered
  /// buffer into this rank's, in the same order on every rank, recording
  /// each piece's event (a fused op's communication half).
  Status gatherPieces(ncclComm_t nc, const GatherLayout &l,
                      const std::string &context);

  NcclRankSetup setup;
  ncclComm_t world = nullptr;
  std::map<std::vector<int>, ncclComm_t> groups;
  /// Where ncclCommSplit writes; one whose split did not finish stays
  /// allocated after this backend is gone.
  LateWriteSlots<ncclComm_t> splitSlots;
  bool aborted = false;
};

NcclBackend::~NcclBackend() {
  if (aborted)
    return;
  // Finalize flushes outstanding work; a peer that is gone must not hang the
  // exit, so it is bounded by the timeout like every other wait.
  std::vector<ncclComm_t> comms;
  for (auto &[ranks, comm] : groups)
    comms.push_back(comm);
  if (world)
    comms.push_back(world);
  Clock::time_point deadline = Clock::now() + setup.timeout;
  for (ncclComm_t comm : comms) {
    ncclResult_t state = ncclCommFinalize(comm);
    while (state == ncclInProgress && Clock::now() < deadline) {
      std::this_thread::yield();
      if (ncclCommGetAsyncError(comm, &state) != ncclSuccess)
        break;
    }
    if (state == ncclSuccess)
      ncclCommDestroy(comm);
    else
      ncclCommAbort(comm);
  }
}

void NcclBackend::abortAll() {
  if (aborted)
    return;
  aborted = true;
  for (auto &[ranks, comm] : groups)
    ncclCommAbort(comm);
  if (world)
    ncclCommAbort(world);
  // The handles are gone: nothing may touch them again.
  groups.clear();
  world = nullptr;
}

Status NcclBackend::timedOut(const std::string &context) {
  abortAll();
  return Status::error(context + ": rank " + std::to_string(rank) +
                       " timed out after " +
                       std::to_string(setup.timeout.count()) +
                       " ms waiting for its peers; NCCL communicators aborted");
}

Status NcclBackend::checkHealth(const std::string &context) {
  std::vector<ncclComm_t> comms;
  for (auto &[ranks, comm] : groups)
    comms.push_back(comm);
  if (world)
    comms.push_back(world);
  for (ncclComm_t comm : comms) {
    ncclResult_t state;
    ncclResult_t queried = ncclCommGetAsyncError(comm, &state);
    if (queried != ncclSuccess)
      state = queried;
    if (state != ncclSuccess && state != ncclInProgress) {
      std::string message =
          context + ": NCCL failed on rank " + std::to_string(rank) + ": " +
          ncclGetErrorString(state) + " (" + ncclGetLastError(comm) +
          "); NCCL communicators aborted";
      abortAll();
      return Status::error(message);
    }
  }
  return Status::ok();
}

Status NcclBackend::settle(ncclResult_t result, ncclComm_t comm,
                           const char *call, const std::string &context) {
  Clock::time_point deadline = Clock::now() + setup.timeout;
  while (result == ncclInProgress) {
    if (Clock::now() > deadline)
      return timedOut(context + ": " + call);
    std::this_thread::yield();
    if (ncclCommGetAsyncError(comm, &result) != ncclSuccess)
      break;
  }
  if (result != ncclSuccess) {
    Status failed = check(result, call, context);
    abortAll();
    return Status::error(failed.message() + "; NCCL communicators aborted");
  }
  return Status::ok();
}

Status NcclBackend::synchronize(cudaStream_t stream,
                                const std::string &context) {
  Clock::time_point deadline = Clock::now() + setup.timeout;
  for (;;) {
    cudaError_t state = cudaStreamQuery(stream);
    if (state == cudaSuccess)
      return Status::ok();
    if (state != cudaErrorNotReady)
      return check(state, "cudaStreamQuery", context);
    TP_RETURN_IF_ERROR(checkHealth(context));
    if (Clock::now() > deadline)
      return timedOut(context);
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

Status NcclBackend::connect() {
  std::string context = "NCCL rank " + std::to_string(setup.rank) + " of " +
                        std::to_string(setup.size);
  int count = cudaDeviceCount();
  if (count == 0)
    return Status::error(context + ": no CUDA device");
  if (setup.localSize > count)
    return Status::error(
        context + ": " + std::to_string(setup.localSize) +
        " ranks on this node but " + std::to_string(count) +
        " GPUs; NCCL needs a GPU per rank (--transport loopback shares one)");
  if (setup.uniqueId.size() != sizeof(ncclUniqueId))
    return Status::error(context + ": the bootstrap blob is " +
                         std::to_string(setup.uniqueId.size()) +
                         " bytes, not an NCCL unique id");
  TP_RETURN_IF_ERROR(init(setup.localRank));
  // Chunk GEMMs leave SMs to NCCL's kernels (TP_NCCL_GEMM_SM_RESERVE, default
  // 16: enough channels for NVLink send/recv on Hopper).
  int reserve = 16;
  if (const char *text = std::getenv("TP_NCCL_GEMM_SM_RESERVE"))
    reserve = std::atoi(text);
  fusedGemmSms = reserve > 0 && reserve < smCount ? smCount - reserve : 0;

  ncclUniqueId id;
  std::memcpy(&id, setup.uniqueId.data(), sizeof(id));
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  ncclResult_t result =
      ncclCommInitRankConfig(&world, setup.size, id, setup.rank, &config);
  if (result != ncclSuccess && result != ncclInProgress)
    return check(result, "ncclCommInitRankConfig", context);
  return settle(result, world, "ncclCommInitRankConfig", context);
}

Status NcclBackend::communicator(const Group &group, const std::string &context,
                                 ncclComm_t &comm) {
  if (aborted)
    return Status::error(context + ": rank " + std::to_string(rank) +
                         "'s NCCL communicators were aborted after an "
                         "earlier failure");
  bool whole = group.size() == setup.size;
  for (int i = 0; whole && i < group.size(); ++i)
    whole = group.ranks[i] == i;
  if (whole) {
    comm = world;
    return Status::ok();
  }
  auto found = groups.find(group.ranks);
  if (found != groups.end()) {
    comm = found->second;
    return Status::ok();
  }
  // Every rank reaches this op at once (SPMD), each with its own group, so the
  // split is collective over the world as NCCL requires. Caching per group
  // keeps that as long as a group determines the whole partition, which holds
  // for the row-major groups of grid axes (a group is a strided box; its
  // translates tile the world one way): a rank's group is then new exactly
  // when every rank's is. A group's smallest rank names it; its members keep
  // group order.
  int color = *std::min_element(group.ranks.begin(), group.ranks.end());
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  // A non-blocking split writes the new handle when it is done, which may be
  // after a timeout made this function return: the slot outlives it.
  ncclComm_t *slot = splitSlots.acquire();
  ncclResult_t result = ncclCommSplit(world, color, group.index, slot, &config);
  if (result != ncclSuccess && result != ncclInProgress) {
    splitSlots.release(slot); // refused at once: nothing will write it
    return check(result, "ncclCommSplit", context);
  }
  TP_RETURN_IF_ERROR(settle(result, world, "ncclCommSplit", context));
  ncclComm_t split = *slot;
  if (!split)
    return Status::error(context + ": ncclCommSplit made no communicator "
                                   "for this rank's group");
  TP_RETURN_IF_ERROR(settle(ncclInProgress, split, "ncclCommSplit", context));
  splitSlots.release(slot);
  groups[group.ranks] = split;
  comm = split;
  return Status::ok();
}

Status NcclBackend::sendRecv(ncclComm_t nc, const Piece &send, int to,
                             const Piece &recv, int from, void *sendStage,
                             void *recvStage, const std::string &context) {
  const void *sendFrom = send.at;
  void *recvInto = recv.at;
  if (!send.contiguous()) {
    TP_CUDA(cudaMemcpy2DAsync(sendStage, send.width, send.at, send.pitch,
                              send.width, send.rows, cudaMemcpyDeviceToDevice,
                              comm));
    sendFrom = sendStage;
  }
  if (!recv.contiguous())
    recvInto = recvStage;
  TP_RETURN_IF_ERROR(settle(ncclGroupStart(), nc, "ncclGroupStart", context));
  ncclResult_t sent = ncclSend(sendFrom, send.bytes(), ncclUint8, to, nc, comm);
  ncclResult_t received =
      ncclRecv(recvInto, recv.bytes(), ncclUint8, from, nc, comm);
  TP_RETURN_IF_ERROR(settle(ncclGroupEnd(), nc, "ncclGroupEnd", context));
  TP_RETURN_IF_ERROR(settle(sent, nc, "ncclSend", context));
  TP_RETURN_IF_ERROR(settle(received, nc, "ncclRecv", context));
  if (!recv.contiguous())
    TP_CUDA(cudaMemcpy2DAsync(recv.at, recv.pitch, recvStage, recv.width,
                              recv.width, recv.rows, cudaMemcpyDeviceToDevice,
                              comm));
  return Status::ok();
}

} // namespace

Status mlir::tp::rt::createCudaNcclBackend(const NcclRankSetup &setup,
                                           std::unique_ptr<Backend> &backend) {
  auto nccl = std::make_unique<NcclBackend>(setup);
  TP_RETURN_IF_ERROR(nccl->connect());
  backend = std::move(nccl);
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

Status NcclBackend::allGather(const Group &group, const Tensor &input,
                              int64_t dim, const std::string &site,
                              Tensor &result) {
  std::string context = site + " on " + input.typeString();
  TraceScope scope(trace, rank, Stream::Comm, "all_gather", "comm");
  ncclComm_t nc;
  TP_RETURN_IF_ERROR(communicator(group, context, nc));
  Split s = splitAt(input.shape(), dim);
  int g = group.size();
  std::vector<int64_t> shape = input.shape();
  shape[dim] *= g;
  result = newResult(0, input.dtype(), shape, /*zeroed=*/false);
  size_t bytes = input.numBytes();
  void *in, *out, *stage;
  TP_RETURN_IF_ERROR(upload(input, "ag.in", in, comm, context));
  TP_RETURN_IF_ERROR(buffer("ag.out", result.numBytes(), out, context));
  // NCCL gathers whole shards rank after rank; along an inner dim they are
  // interleaved into place afterwards.
  bool direct = s.outer == 1;
  if (!direct)
    TP_RETURN_IF_ERROR(buffer("ag.stage", bytes * g, stage, context));
  TP_RETURN_IF_ERROR(settle(
      ncclAllGather(in, direct ? out : stage, bytes, ncclUint8, nc, comm), nc,
      "ncclAllGather", context));
  for (int i = 0; !direct && i < g; ++i)
    TP_CUDA(copySlabs(static_cast<uint8_t *>(stage) + i * bytes, s.extent, 0,
                      out, s.extent * g, i * s.extent, s.extent, s,
                      byteSize(input.dtype()), comm));
  return download(out, result, comm, context);
}

Status NcclBackend::reduceScatter(const Group &group, const Tensor &input,
                                  int64_t dim, Reduction reduction,
                                  const std::string &site, Tensor &result) {
  std::string context = site + " on " + input.typeString();
  TraceScope scope(trace, rank, Stream::Comm, "reduce_scatter", "comm");
  int g = group.size();
  Split s = splitAt(input.shape(), dim);
  int64_t extL = 0;
  TP_RETURN_IF_ERROR(scatterShare(s.extent, dim, g, context, extL));
  ncclDataType_t type;
  TP_RETURN_IF_ERROR(reducible(input.dtype(), context, type));
  ncclComm_t nc;
  TP_RETURN_IF_ERROR(communicator(group, context, nc));
  std::vector<int64_t> shape = input.shape();
  shape[dim] = extL;
  result = newResult(0, input.dtype(), shape, /*zeroed=*/false);
  size_t sliceBytes = result.numBytes();
  void *in, *out, *stage;
  TP_RETURN_IF_ERROR(upload(input, "rd.in", in, comm, context));
  TP_RETURN_IF_ERROR(buffer("rd.out", sliceBytes, out, context));
  // NCCL scatters whole blocks rank after rank: along an inner dim, each
  // rank's slices are gathered into its block first.
  bool direct = s.outer == 1;
  if (!direct) {
    TP_RETURN_IF_ERROR(buffer("rd.stage", sliceBytes * g, stage, context));
    for (int i = 0; i < g; ++i)
      TP_CUDA(copySlabs(in, s.extent, i * extL,
                        static_cast<uint8_t *>(stage) + i * sliceBytes, extL, 0,
                        extL, s, byteSize(input.dtype()), comm));
  }
  TP_RETURN_IF_ERROR(
      settle(ncclReduceScatter(direct ? in : stage, out, result.numElements(),
                               type, ncclOpOf(reduction), nc, comm),
             nc, "ncclReduceScatter", context));
  return download(out, result, comm, context);
}

Status NcclBackend::allReduce(const Group &group, const Tensor &input,
                              Reduction reduction, const std::string &site,
                              Tensor &result) {
  std::string context = site + " on " + input.typeString();
  TraceScope scope(trace, rank, Stream::Comm, "all_reduce", "comm");
  ncclDataType_t type;
  TP_RETURN_IF_ERROR(reducible(input.dtype(), context, type));
  ncclComm_t nc;
  TP_RETURN_IF_ERROR(communicator(group, context, nc));
  result = newResult(0, input.dtype(), input.shape(), /*zeroed=*/false);
  void *in, *out;
  TP_RETURN_IF_ERROR(upload(input, "ar.in", in, comm, context));
  TP_RETURN_IF_ERROR(buffer("ar.out", result.numBytes(), out, context));
  TP_RETURN_IF_ERROR(settle(ncclAllReduce(in, out, input.numElements(), type,
                                          ncclOpOf(reduction), nc, comm),
                            nc, "ncclAllReduce", context));
  return download(out, result, comm, context);
}

Status NcclBackend::allToAll(const Group &group, const Tensor &input,
                             int64_t split, int64_t concat,
                             const std::string &site, Tensor &result) {
  std::string context = site + " on " + input.typeString();
  TraceScope scope(trace, rank, Stream::Comm, "all_to_all", "comm");
  int g = group.size();
  AllToAllShapes shapes;
  TP_RETURN_IF_ERROR(
      allToAllShapes(input.shape(), split, concat, g, context, shapes));
  Split in = splitAt(input.shape(), split);
  ncclComm_t nc;
  TP_RETURN_IF_ERROR(communicator(group, context, nc));
  result = newResult(0, input.dtype(), shapes.result, /*zeroed=*/false);
  int64_t blockExtent = shapes.block[split];
  Split block = splitAt(shapes.block, concat);
  size_t blockBytes = input.numBytes() / g, bytes = byteSize(input.dtype());
  void *dIn, *out, *sendStage = nullptr, *recvStage = nullptr;
  TP_RETURN_IF_ERROR(upload(input, "a2a.in", dIn, comm, context));
  TP_RETURN_IF_ERROR(buffer("a2a.out", result.numBytes(), out, context));
  // Blocks go out whole: along an inner split dim they are packed first, and
  // along an inner concat dim the received ones are interleaved afterwards.
  bool packed = in.outer == 1, placed = block.outer == 1;
  if (!packed) {
    TP_RETURN_IF_ERROR(
        buffer("a2a.send", blockBytes * g, sendStage, context));
    for (int j = 0; j < g; ++j)
      TP_CUDA(copySlabs(dIn, in.extent, j * blockExtent,
                        static_cast<uint8_t *>(sendStage) + j * blockBytes,
                        blockExtent, 0, blockExtent, in, bytes, comm));
  }
  if (!placed)
    TP_RETURN_IF_ERROR(
        buffer("a2a.recv", blockBytes * g, recvStage, context));
  auto *send = static_cast<uint8_t *>(packed ? dIn : sendStage);
  auto *recv = static_cast<uint8_t *>(placed ? out : recvStage);
  TP_RETURN_IF_ERROR(settle(ncclGroupStart(), nc, "ncclGroupStart", context));
  ncclResult_t sent = ncclSuccess, received = ncclSuccess;
  for (int j = 0; j < g; ++j) {
    ncclResult_t s = ncclSend(send + j * blockBytes, blockBytes, ncclUint8, j,
                              nc, comm);
    ncclResult_t r = ncclRecv(recv + j * blockBytes, blockBytes, ncclUint8, j,
                              nc, comm);
    if (sent == ncclSuccess || sent == ncclInProgress)
      sent = s;
    if (received == ncclSuccess || received == ncclInProgress)
      received = r;
  }
  TP_RETURN_IF_ERROR(settle(ncclGroupEnd(), nc, "ncclGroupEnd", context));
  TP_RETURN_IF_ERROR(settle(sent, nc, "ncclSend", context));
  TP_RETURN_IF_ERROR(settle(received, nc, "ncclRecv", context));
  for (int i = 0; !placed && i < g; ++i)
    TP_CUDA(copySlabs(static_cast<uint8_t *>(recvStage) + i * blockBytes,
                      block.extent, 0, out, block.extent * g, i * block.extent,
                      block.extent, block, bytes, comm));
  return download(out, result, comm, context);
}

//===----------------------------------------------------------------------===//
// Fused schedules
//===----------------------------------------------------------------------===//

Status NcclBackend::gatherPieces(ncclComm_t nc, const GatherLayout &l,
                                 const std::string &context) {
  // Piece j of `origin`'s shard in the gathered buffer (or its scale).
  auto piece = [&](bool scale, int origin, int j) {
    auto [lo, hi] = pieceRange(l.extL, l.chunks, j);
    const Split &s = scale ? l.scaleSplit : l.split;
    size_t slab = s.inner * (scale ? l.scaleElementBytes : l.elementBytes);
    Piece p;
    p.at = static_cast<uint8_t *>(scale ? l.scale : l.data) +
           (origin * l.extL + lo) * slab;
    p.width = (hi - lo) * slab;
    p.pitch = l.extG * slab;
    p.rows = s.outer;
    return p;
  };
  // An all-to-all sends member `to` its own block, laid out as a shard.
  auto sendPiece = [&](int origin, int to, int j) {
    if (!l.blocks)
      return piece(false, origin, j);
    auto [lo, hi] = pieceRange(l.extL, l.chunks, j);
    StridedCopy send =
        exchangeSendPiece(l.blockBytes, to, l.extL, lo, hi,
                          l.split.inner * l.elementBytes, l.split.outer);
    Piece p;
    p.at = static_cast<uint8_t *>(l.blocks) + send.src;
    p.width = send.width;
    p.pitch = send.srcPitch;
    p.rows = send.rows;
    return p;
  };
  // Staging for pieces that are not contiguous: a whole shard is the most
  // a piece (of the data or of its scale) can be.
  void *sendStage = nullptr, *recvStage = nullptr;
  if (!piece(false, 0, 0).contiguous() ||
      (l.scale && !piece(true, 0, 0).contiguous())) {
    auto shardBytes = [&](const Split &s, size_t elementBytes) {
      return size_t(s.outer * l.extL * s.inner) * elementBytes;
    };
    size_t most = std::max(shardBytes(l.split, l.elementBytes),
                           l.scale ? shardBytes(l.scaleSplit,
                                                l.scaleElementBytes)
                                   : size_t(0));
    TP_RETURN_IF_ERROR(buffer("gather.send", most, sendStage, context));
    TP_RETURN_IF_ERROR(buffer("gather.recv", most, recvStage, context));
  }

  // Ring: pass on what arrived last step to the right, take the next shard
  // from the left. Per-peer: send this rank's piece to the rank `step` to
  // the left, take the piece of the rank `step` to the right.
  const int g = l.g, me = l.me;
  const PieceOrder order = l.order();
  for (int step = 1; step < g; ++step) {
    int sendOrigin = l.ring ? order.gatherOrigin(step - 1) : me;
    int to = l.ring ? order.right() : order.gatherReader(step);
    int recvOrigin = order.gatherOrigin(step);
    int from = l.ring ? order.left() : recvOrigin;
    for (int j = 0; j < l.chunks; ++j) {
      TP_RETURN_IF_ERROR(sendRecv(nc, sendPiece(sendOrigin, to, j), to,
                                  piece(false, recvOrigin, j), from, sendStage,
                                  recvStage, context));
      if (l.scale)
        TP_RETURN_IF_ERROR(sendRecv(nc, piece(true, sendOrigin, j), to,
                                    piece(true, recvOrigin, j), from, sendStage,
                                    recvStage, context));
      TP_CUDA(cudaEventRecord(events[step * l.chunks + j], comm));
    }
  }
  return Status::ok();
}

Status NcclBackend::allGatherMatmul(const Group &group,
                                    const AllGatherMatmulArgs &args,
                                    std::vector<Tensor> &results) {
  std::string context = args.site + " on " + args.a.data->typeString();
  const int g = group.size(), me = group.index;
  const bool ring = args.schedule.ring();
  ncclComm_t nc;
  TP_RETURN_IF_ERROR(communicator(group, context, nc));
  GatherMatmulPlan plan;
  TP_RETURN_IF_ERROR(prepareGatherMatmul(args, g, me, plan));
  const GatherLayout layout = plan.layout(ring);
  TP_RETURN_IF_ERROR(gatherPieces(nc, layout, context));
  TP_RETURN_IF_ERROR(multiplyGatheredPieces(args, plan));
  TP_RETURN_IF_ERROR(synchronize(comm, context));
  return finishGatherMatmul(args, plan, results);
}

Status NcclBackend::allGatherContract(const Group &group,
                                      const AllGatherContractArgs &args,
                                      std::vector<Tensor> &results) {
  std::string context = args.site + " on " + args.x->typeString();
  for (const Tensor *other : args.others)
    context += " " + other->typeString();
  const int g = group.size(), me = group.index;
  const bool ring = args.schedule.ring();
  ncclComm_t nc;
  TP_RETURN_IF_ERROR(communicator(group, context, nc));
  ContractDevicePlan plan;
  TP_RETURN_IF_ERROR(prepareContract(args, g, me, ring, plan));
  TP_RETURN_IF_ERROR(gatherPieces(nc, plan.gather, context));
  TP_RETURN_IF_ERROR(contractGatheredPieces(args, plan));
  TP_RETURN_IF_ERROR(synchronize(comm, context));
  return finishContract(args, plan, results);
}

Status NcclBackend::matmulReduceScatter(const Group &group,
                                        const MatmulReduceScatterArgs &args,
                                        std::vector<Tensor> &results) {
  std::string context = args.site + " on " + args.a.data->typeString() + " " +
                        args.b.data->typeString();
  const int g = group.size(), me = group.index;
  ncclComm_t nc;
  TP_RETURN_IF_ERROR(communicator(group, context, nc));
  ReduceScatterPlan plan;
  TP_RETURN_IF_ERROR(prepareReduceScatter(args, g, me, plan));
  const int chunks = plan.chunks;
  // Piece j of a slice-shaped fp32 buffer (a partial or a staged slice).
  auto piece = [&](void *slice, int j) {
    auto [lo, hi] = pieceRange(plan.extL, chunks, j);
    size_t run = plan.nSplit ? sizeof(float) : plan.split.inner * sizeof(float);
    Piece p;
    p.at = static_cast<uint8_t *>(slice) + lo * run;
    p.width = (hi - lo) * run;
    p.pitch = plan.extL * run;
    p.rows = plan.nSplit ? plan.totalRows : plan.split.outer;
    return p;
  };
  // Staging for pieces that are not contiguous: at most a whole slice.
  void *sendStage = nullptr, *recvStage = nullptr;
  if (!piece(plan.dW, 0).contiguous()) {
    TP_RETURN_IF_ERROR(buffer("rs.send", plan.sliceBytes, sendStage, context));
    TP_RETURN_IF_ERROR(buffer("rs.recv", plan.sliceBytes, recvStage, context));
  }

  // Per_peer on the GPU (a ring's running sums would serialize the steps).
  const PieceOrder order(g, me, Schedule::Algorithm::PerPeer);
  // Compute: partials for the next ranks first, this rank's own last; event
  // (step - 1) * chunks + j marks piece j of step `step` written.
  const std::vector<GemmStep> steps =
      planScatter(g, me, plan.schedule, plan.extL);
  std::vector<cudaStream_t> streams;
  TP_RETURN_IF_ERROR(forkPieceStreams(
      pieceStreamCount(plan.schedule, steps.size(), /*serial=*/plan.scaled),
      context, streams));
  for (size_t index = 0; index < steps.size(); ++index) {
    cudaStream_t stream = streams[index % streams.size()];
    TP_RETURN_IF_ERROR(computePartialStep(args, plan, steps[index], stream));
    for (const PieceRef &made : steps[index].pieces)
      TP_CUDA(cudaEventRecord(events[made.ordinal], stream));
  }
  TP_RETURN_IF_ERROR(joinPieceStreams(streams, context));
  // Communication: at step s, send the partial for the rank s to the right,
  // take the partial of the rank s to the left; then stage this rank's own.
  for (int step = 1; step < g; ++step) {
    int to = order.partialFor(step), from = order.partialFrom(step);
    for (int j = 0; j < chunks; ++j) {
      TP_CUDA(cudaStreamWaitEvent(comm, events[(step - 1) * chunks + j], 0));
      TP_RETURN_IF_ERROR(sendRecv(nc, piece(plan.partial(to), j), to,
                                  piece(plan.staged(from), j), from, sendStage,
                                  recvStage, context));
    }
  }
  for (int j = 0; j < chunks; ++j) {
    auto [lo, hi] = pieceRange(plan.extL, chunks, j);
    TP_CUDA(cudaStreamWaitEvent(comm, events[(g - 1) * chunks + j], 0));
    TP_CUDA(copyPiece(plan, plan.partial(me), plan.extL, 0, plan.staged(me),
                      plan.extL, 0, lo, hi, sizeof(float),
                      cudaMemcpyDeviceToDevice, comm));
  }
  TP_RETURN_IF_ERROR(reduceStaged(args, plan));
  Tensor unreduced;
  if (args.returnUnreduced)
    TP_RETURN_IF_ERROR(unreducedProduct(args, plan, unreduced));
  results.clear();
  if (args.returnUnreduced)
    results.push_back(std::move(unreduced));
  results.push_back(std::move(plan.reduced));
  return Status::ok();
}
