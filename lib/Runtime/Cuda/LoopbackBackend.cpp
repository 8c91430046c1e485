//===- CudaBackend.cpp - cuBLASLt GEMMs and fused schedules on streams ----===//
//
// Each rank owns a high-priority communication stream and a low-priority
// compute stream. Collectives and fused ops publish device buffers and
// events through the World's Exchange; a peer's buffer is read only after the
// host has seen its owner enqueue the event that guards it (progress
// counters), then the reading stream waits on that event. Copies are
// cudaMemcpy(2D)Async between device buffers (copy engines, no SMs).
//
// all_gather_matmul: pieces arrive on the comm stream (per_peer: from each
// owner; ring: from the left neighbour) while the compute stream multiplies
// the pieces already there, writing products in their final place (batched
// over leading dims, so a sequence-dim gather needs no transposed copy).
// matmul_reduce_scatter: the compute stream writes the partial destined to
// each rank into a workspace; the comm stream stages peers' partials for this
// rank as they are published; one kernel sums them in fp32 and rounds once.
// Workspaces are allocated once per size and reused.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/CudaBackend.h"
#include "Kernels.h"
#include "LtGemm.h"
#include "tp/Runtime/Trace.h"

#include <map>

using namespace tp::rt;
using namespace tp::rt::cuda;

bool tp::rt::cudaBackendBuilt() { return true; }

int tp::rt::cudaDeviceCount() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

namespace {

/// What a rank publishes for a collective on the GPU.
struct DevicePublished {
  const uint8_t *data = nullptr;  // input (or gathered buffer for ring)
  const uint8_t *scale = nullptr; // gathered scale (scaled all-gather)
  const std::vector<cudaEvent_t> *events = nullptr;
};

size_t bytesOf(const Tensor &t) { return t.numBytes(); }

struct Split {
  int64_t outer = 1, extent = 1, inner = 1;
};
Split splitAt(const std::vector<int64_t> &shape, int64_t dim) {
  Split s;
  for (int64_t i = 0; i < static_cast<int64_t>(shape.size()); ++i)
    (i < dim ? s.outer : i == dim ? s.extent : s.inner) *= shape[i];
  return s;
}

class CudaBackend final : public Backend {
public:
  CudaBackend(World &world, int rank) : world(world), rank(rank) {}
  ~CudaBackend() override {
    for (auto &[name, buffer] : buffers)
      cudaFree(buffer.first);
    for (cudaEvent_t e : events)
      cudaEventDestroy(e);
    if (compute)
      cudaStreamDestroy(compute);
    if (comm)
      cudaStreamDestroy(comm);
  }

  Status init() {
    std::string context = "cuda backend of rank " + std::to_string(rank);
    int count = cudaDeviceCount();
    if (count == 0)
      return Status::error(context + ": no CUDA device");
    device = rank % count;
    TP_CUDA(cudaSetDevice(device));
    int lowest = 0, highest = 0;
    TP_CUDA(cudaDeviceGetStreamPriorityRange(&lowest, &highest));
    TP_CUDA(
        cudaStreamCreateWithPriority(&compute, cudaStreamNonBlocking, lowest));
    TP_CUDA(
        cudaStreamCreateWithPriority(&comm, cudaStreamNonBlocking, highest));
    TP_CUDA(cudaDeviceGetAttribute(&smCount, cudaDevAttrMultiProcessorCount,
                                   device));
    return gemm.init(context);
  }

  std::string name() const override { return "cuda"; }

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
  Status matmul(const Tensor &a, const Tensor &b, bool transposeB,
                const std::string &site, Tensor &result) override;
  Status scaledMatmul(const Operand &a, const Operand &b, const Tensor *bias,
                      DType outType, const std::string &site,
                      Tensor &result) override;
  Status allGatherMatmul(const Group &group, const AllGatherMatmulArgs &args,
                         std::vector<Tensor> &results) override;
  Status matmulReduceScatter(const Group &group,
                             const MatmulReduceScatterArgs &args,
                             std::vector<Tensor> &results) override;

private:
  Status reduce(const Group &group, const Tensor &input, int64_t dim,
                bool scatter, Reduction reduction, const std::string &site,
                Tensor &result);
  /// A device buffer for `purpose`, grown when too small, reused otherwise.
  Status buffer(const std::string &purpose, size_t bytes, void *&ptr,
                const std::string &context) {
    auto &slot = buffers[purpose];
    if (slot.second < bytes) {
      if (slot.first)
        TP_CUDA(cudaFree(slot.first));
      TP_CUDA(cudaMalloc(&slot.first, std::max<size_t>(bytes, 256)));
      slot.second = bytes;
    }
    ptr = slot.first;
    return Status::ok();
  }
  Status upload(const Tensor &t, const std::string &purpose, void *&ptr,
                cudaStream_t stream, const std::string &context) {
    TP_RETURN_IF_ERROR(buffer(purpose, bytesOf(t), ptr, context));
    TP_CUDA(cudaMemcpyAsync(ptr, t.data(), bytesOf(t), cudaMemcpyHostToDevice,
                            stream));
    return Status::ok();
  }
  Status download(const void *ptr, Tensor &t, cudaStream_t stream,
                  const std::string &context) {
    TP_CUDA(cudaMemcpyAsync(t.mutableData(), ptr, bytesOf(t),
                            cudaMemcpyDeviceToHost, stream));
    TP_CUDA(cudaStreamSynchronize(stream));
    return Status::ok();
  }
  /// At least `count` reusable events.
  Status eventPool(size_t count, const std::string &context) {
    while (events.size() < count) {
      cudaEvent_t e;
      TP_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
      events.push_back(e);
    }
    return Status::ok();
  }
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
  /// Ends a fused op: reports a failure, lets `stream`'s reads of peers'
  /// buffers finish, and leaves the exchange (which waits for every peer).
  Status finish(const Group &group, const std::shared_ptr<Exchange> &ex,
                const Status &status, cudaStream_t stream) {
    if (!status.isOk())
      world.fail(rank, status.message());
    cudaStreamSynchronize(stream);
    Status left = world.leave(group, ex);
    TP_RETURN_IF_ERROR(status);
    return left;
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
    published = DevicePublished{static_cast<uint8_t *>(in), nullptr, &events};
    TP_RETURN_IF_ERROR(world.join(group, site + " on " + input.typeString(),
                                  &published, nullptr, ex));
    ex->progress[group.index]->store(1, std::memory_order_release);
    return Status::ok();
  }
  /// A GEMM of row-major operands already on the device.
  Status deviceGemm(GemmProblem p, const void *a, const void *b, void *d,
                    cudaStream_t stream, const std::string &context) {
    return gemm.run(p, a, b, d, stream, context);
  }
  Status scaledGemm(const Operand &a, const void *aData, const void *aScale,
                    const Operand &b, const void *bData, const void *bScale,
                    int64_t m, int64_t n, int64_t k, const void *bias,
                    DType outType, void *d, cudaStream_t stream,
                    const std::string &context);

  World &world;
  int rank;
  int device = 0, smCount = 0;
  cudaStream_t compute = nullptr, comm = nullptr;
  LtGemm gemm;
  std::map<std::string, std::pair<void *, size_t>> buffers;
  std::vector<cudaEvent_t> events;
  /// What this rank publishes for its current collective.
  DevicePublished published;
};

} // namespace

Status tp::rt::createCudaBackend(World &world, int rank,
                                 std::unique_ptr<Backend> &backend) {
  auto cuda = std::make_unique<CudaBackend>(world, rank);
  TP_RETURN_IF_ERROR(cuda->init());
  backend = std::move(cuda);
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

/// Copies slabs [lo, hi) along the split dim of every outer block between
/// device buffers of extents srcExtent / dstExtent (one 2-D copy).
static cudaError_t copySlabs(const uint8_t *src, int64_t srcExtent,
                             int64_t srcStart, uint8_t *dst, int64_t dstExtent,
                             int64_t dstStart, int64_t count, const Split &s,
                             size_t bytes, cudaStream_t stream) {
  size_t slab = s.inner * bytes;
  return cudaMemcpy2DAsync(dst + dstStart * slab, dstExtent * slab,
                           src + srcStart * slab, srcExtent * slab,
                           count * slab, s.outer, cudaMemcpyDeviceToDevice,
                           stream);
}

Status CudaBackend::allGather(const Group &group, const Tensor &input,
                              int64_t dim, const std::string &site,
                              Tensor &result) {
  const std::string &context = site;
  TraceScope scope(world.trace(), rank, Stream::Comm, "all_gather", "comm");
  Split s = splitAt(input.shape(), dim);
  int g = group.size();
  std::vector<int64_t> shape = input.shape();
  shape[dim] *= g;
  result = Tensor(input.dtype(), shape);
  void *out;
  TP_RETURN_IF_ERROR(buffer("ag.out", bytesOf(result), out, context));
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
  return finish(group, ex, status, comm);
}

Status CudaBackend::reduce(const Group &group, const Tensor &input, int64_t dim,
                           bool scatter, Reduction reduction,
                           const std::string &site, Tensor &result) {
  const std::string &context = site;
  TraceScope scope(world.trace(), rank, Stream::Comm,
                   scatter ? "reduce_scatter" : "all_reduce", "comm");
  int g = group.size();
  Split s = splitAt(input.shape(), scatter ? dim : 0);
  if (scatter && s.extent % g != 0)
    return Status::error(site + ": dim " + std::to_string(dim) +
                         " is not divisible by the group size " +
                         std::to_string(g));
  std::vector<int64_t> shape = input.shape();
  int64_t extent = scatter ? s.extent / g : s.extent;
  if (scatter)
    shape[dim] = extent;
  result = Tensor(input.dtype(), shape);
  size_t sliceBytes = bytesOf(result);
  void *staging, *out, *pointers;
  TP_RETURN_IF_ERROR(buffer("rd.staging", sliceBytes * g, staging, context));
  TP_RETURN_IF_ERROR(buffer("rd.out", sliceBytes, out, context));
  TP_RETURN_IF_ERROR(
      buffer("rd.pointers", sizeof(void *) * g, pointers, context));
  std::vector<const void *> slots(g);
  for (int i = 0; i < g; ++i)
    slots[i] = static_cast<uint8_t *>(staging) + i * sliceBytes;
  TP_CUDA(cudaMemcpyAsync(pointers, slots.data(), sizeof(void *) * g,
                          cudaMemcpyHostToDevice, comm));
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
  return finish(group, ex, status, comm);
}

//===----------------------------------------------------------------------===//
// GEMMs
//===----------------------------------------------------------------------===//

Status CudaBackend::matmul(const Tensor &a, const Tensor &b, bool transposeB,
                           const std::string &site, Tensor &result) {
  const std::string &context = site;
  TraceScope scope(world.trace(), rank, Stream::Compute, "matmul", "gemm");
  int64_t k = a.shape().back();
  int64_t n = b.dim(b.rank() - (transposeB ? 2 : 1));
  if (b.dim(b.rank() - (transposeB ? 1 : 2)) != k || a.dtype() != b.dtype())
    return Status::error(site + ": cannot multiply " + a.typeString() + " by " +
                         b.typeString());
  std::vector<int64_t> shape = a.shape();
  shape.back() = n;
  result = Tensor(a.dtype(), shape);
  void *da, *db, *dd;
  TP_RETURN_IF_ERROR(upload(a, "mm.a", da, compute, context));
  TP_RETURN_IF_ERROR(upload(b, "mm.b", db, compute, context));
  TP_RETURN_IF_ERROR(buffer("mm.d", bytesOf(result), dd, context));
  GemmProblem p;
  p.k = k;
  p.n = n;
  p.lda = k;
  p.ldb = transposeB ? k : n;
  p.ldd = n;
  p.aType = p.bType = p.dType = a.dtype();
  p.transposeB = transposeB;
  if (b.rank() == 2) {
    p.m = a.numElements() / k;
    TP_RETURN_IF_ERROR(deviceGemm(p, da, db, dd, compute, context));
  } else {
    // Batched B: one GEMM per batch entry.
    int64_t batch = 1;
    for (int64_t d = 0; d + 2 < b.rank(); ++d)
      batch *= b.dim(d);
    p.m = a.numElements() / k / batch;
    size_t es = byteSize(a.dtype());
    for (int64_t i = 0; i < batch; ++i)
      TP_RETURN_IF_ERROR(deviceGemm(
          p, static_cast<uint8_t *>(da) + i * p.m * k * es,
          static_cast<uint8_t *>(db) + i * k * n * es,
          static_cast<uint8_t *>(dd) + i * p.m * n * es, compute, context));
  }
  return download(dd, result, compute, context);
}

/// A scaled GEMM of operands on the device: native FP8 for per-tensor and
/// (when cuBLASLt has it) row-wise scales; block scales are dequantized to
/// bf16 first (native MXFP8/NVFP4 GEMMs need sm_100).
Status CudaBackend::scaledGemm(const Operand &a, const void *aData,
                               const void *aScale, const Operand &b,
                               const void *bData, const void *bScale, int64_t m,
                               int64_t n, int64_t k, const void *bias,
                               DType outType, void *d, cudaStream_t stream,
                               const std::string &context) {
  Scaling mode = *a.scaling;
  GemmProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.lda = p.ldb = k;
  p.ldd = n;
  p.transposeB = true;
  p.dType = outType;
  p.bias = bias;
  bool fp8 = mode == Scaling::PerTensor || mode == Scaling::RowWise;
  if (fp8) {
    p.aType = a.data->dtype();
    p.bType = b.data->dtype();
    p.aScale = static_cast<const float *>(aScale);
    p.bScale = static_cast<const float *>(bScale);
    p.rowWise = mode == Scaling::RowWise;
    if (gemm.supports(p, aData, bData, d))
      return deviceGemm(p, aData, bData, d, stream, context);
    if (mode == Scaling::RowWise) {
      // Unit-scaled FP8 GEMM to fp32, then the row and column scales.
      void *unit, *acc;
      TP_RETURN_IF_ERROR(buffer("sc.unit", sizeof(float) * 2, unit, context));
      float ones[2] = {1.0f, 1.0f};
      TP_CUDA(cudaMemcpyAsync(unit, ones, sizeof(ones), cudaMemcpyHostToDevice,
                              stream));
      TP_RETURN_IF_ERROR(buffer("sc.acc", sizeof(float) * m * n, acc, context));
      GemmProblem unitScaled = p;
      unitScaled.rowWise = false;
      unitScaled.aScale = unitScaled.bScale = static_cast<float *>(unit);
      unitScaled.dType = DType::F32;
      unitScaled.bias = nullptr;
      TP_RETURN_IF_ERROR(
          deviceGemm(unitScaled, aData, bData, acc, stream, context));
      TP_CUDA(launchScaleRowsCols(static_cast<float *>(acc), m, n,
                                  static_cast<const float *>(aScale),
                                  static_cast<const float *>(bScale), stream));
      TP_CUDA(launchConvert(static_cast<float *>(acc), m * n, bias, outType, n,
                            d, outType, stream));
      return Status::ok();
    }
  }
  // Dequantize both operands to bf16, then a bf16 GEMM.
  void *wideA, *wideB, *globals;
  TP_RETURN_IF_ERROR(buffer("sc.a16", 2 * m * k, wideA, context));
  TP_RETURN_IF_ERROR(buffer("sc.b16", 2 * n * k, wideB, context));
  TP_RETURN_IF_ERROR(buffer("sc.globals", 2 * sizeof(float), globals, context));
  float hostGlobals[2] = {
      a.globalScale ? static_cast<float>(a.globalScale->get(0)) : 1.0f,
      b.globalScale ? static_cast<float>(b.globalScale->get(0)) : 1.0f};
  TP_CUDA(cudaMemcpyAsync(globals, hostGlobals, sizeof(hostGlobals),
                          cudaMemcpyHostToDevice, stream));
  TP_CUDA(launchDequantizeToBF16(static_cast<const uint8_t *>(aData),
                                 a.data->dtype(), aScale, a.scale->dtype(),
                                 static_cast<float *>(globals), mode, m, k,
                                 static_cast<uint16_t *>(wideA), stream));
  TP_CUDA(launchDequantizeToBF16(static_cast<const uint8_t *>(bData),
                                 b.data->dtype(), bScale, b.scale->dtype(),
                                 static_cast<float *>(globals) + 1, mode, n, k,
                                 static_cast<uint16_t *>(wideB), stream));
  p.aType = p.bType = DType::BF16;
  p.aScale = p.bScale = nullptr;
  p.rowWise = false;
  return deviceGemm(p, wideA, wideB, d, stream, context);
}

Status CudaBackend::scaledMatmul(const Operand &a, const Operand &b,
                                 const Tensor *bias, DType outType,
                                 const std::string &site, Tensor &result) {
  const std::string &context = site;
  TraceScope scope(world.trace(), rank, Stream::Compute, "scaled_matmul",
                   "gemm");
  int64_t k = a.data->shape().back(), n = b.data->dim(0);
  int64_t m = a.data->numElements() / k;
  std::vector<int64_t> shape = a.data->shape();
  shape.back() = n;
  result = Tensor(outType, shape);
  void *da, *sa, *db, *sb, *dbias = nullptr, *dd;
  TP_RETURN_IF_ERROR(upload(*a.data, "sm.a", da, compute, context));
  TP_RETURN_IF_ERROR(upload(*a.scale, "sm.as", sa, compute, context));
  TP_RETURN_IF_ERROR(upload(*b.data, "sm.b", db, compute, context));
  TP_RETURN_IF_ERROR(upload(*b.scale, "sm.bs", sb, compute, context));
  if (bias)
    TP_RETURN_IF_ERROR(upload(*bias, "sm.bias", dbias, compute, context));
  TP_RETURN_IF_ERROR(buffer("sm.d", bytesOf(result), dd, context));
  TP_RETURN_IF_ERROR(scaledGemm(a, da, sa, b, db, sb, m, n, k, dbias, outType,
                                dd, compute, context));
  return download(dd, result, compute, context);
}

//===----------------------------------------------------------------------===//
// Fused schedules
//===----------------------------------------------------------------------===//

constexpr auto pieceRange = Schedule::pieceRange;

Status CudaBackend::allGatherMatmul(const Group &group,
                                    const AllGatherMatmulArgs &args,
                                    std::vector<Tensor> &results) {
  const std::string &context = args.site;
  const Tensor &a = *args.a.data;
  const int g = group.size(), me = group.index;
  const int64_t d = args.dim;
  const bool kSplit = d == a.rank() - 1;
  const bool ring = args.schedule.algorithm == Schedule::Algorithm::Ring;
  const bool scaled = args.a.isScaled();
  if (kSplit && scaled)
    return Status::error(context + ": a scaled all-gather cannot split K");
  if (a.numElements() == 0 || a.shape().back() == 0)
    return Status::error(context + ": the CUDA backend does not run fused "
                                   "ops on empty operands");
  const Split local = splitAt(a.shape(), d);
  const int64_t extL = local.extent, extG = extL * g;
  std::vector<int64_t> gatheredShape = a.shape();
  gatheredShape[d] = extG;
  const int64_t k = gatheredShape.back();
  const int64_t totalRows = a.numElements() * g / k;
  const int64_t rowsPerSlab = kSplit ? 0 : local.inner / k;
  const size_t es = byteSize(a.dtype());
  const int chunks = args.schedule.pieces(extL);
  const bool gatherScale = scaled && *args.a.scaling != Scaling::PerTensor;

  Tensor gathered(a.dtype(), gatheredShape);
  Tensor gatheredScale;
  Split scaleSplit;
  void *dG, *dGS = nullptr, *dAScale = nullptr;
  TP_RETURN_IF_ERROR(buffer("agm.G", bytesOf(gathered), dG, context));
  if (gatherScale) {
    std::vector<int64_t> shape = args.a.scale->shape();
    shape[d] *= g;
    gatheredScale = Tensor(args.a.scale->dtype(), shape);
    scaleSplit = splitAt(args.a.scale->shape(), d);
    TP_RETURN_IF_ERROR(buffer("agm.GS", bytesOf(gatheredScale), dGS, context));
  } else if (scaled) {
    TP_RETURN_IF_ERROR(
        upload(*args.a.scale, "agm.as", dAScale, compute, context));
  }
  // This rank's shard (and scale) straight into its place in the gathered
  // buffer; its pieces are then ready.
  TP_RETURN_IF_ERROR(eventPool(size_t(g) * chunks, context));
  size_t slab = local.inner * es;
  TP_CUDA(cudaMemcpy2DAsync(static_cast<uint8_t *>(dG) + me * extL * slab,
                            extG * slab, a.data(), extL * slab, extL * slab,
                            local.outer, cudaMemcpyHostToDevice, comm));
  if (gatherScale) {
    size_t scaleSlab = scaleSplit.inner * byteSize(args.a.scale->dtype());
    TP_CUDA(cudaMemcpy2DAsync(
        static_cast<uint8_t *>(dGS) + me * extL * scaleSlab, extG * scaleSlab,
        args.a.scale->data(), extL * scaleSlab, extL * scaleSlab,
        scaleSplit.outer, cudaMemcpyHostToDevice, comm));
  }
  for (int j = 0; j < chunks; ++j)
    TP_CUDA(cudaEventRecord(events[j], comm));

  // B operands, biases and products.
  std::vector<void *> dB(args.bs.size()), dBS(args.bs.size(), nullptr),
      dBias(args.bs.size(), nullptr), dD(args.bs.size()),
      dAcc(args.bs.size(), nullptr);
  std::vector<int64_t> ns;
  std::vector<Tensor> products;
  for (size_t i = 0; i < args.bs.size(); ++i) {
    const Operand &b = args.bs[i];
    bool trans = args.transposeB || b.isScaled();
    int64_t bk = b.data->dim(trans ? 1 : 0);
    if (bk != k)
      return Status::error(context + ": B #" + std::to_string(i) +
                           " does not contract with the gathered A");
    ns.push_back(b.data->dim(trans ? 0 : 1));
    std::vector<int64_t> shape = gatheredShape;
    shape.back() = ns.back();
    products.emplace_back(args.outTypes[i], shape);
    std::string id = std::to_string(i);
    TP_RETURN_IF_ERROR(upload(*b.data, "agm.b" + id, dB[i], compute, context));
    if (b.isScaled())
      TP_RETURN_IF_ERROR(
          upload(*b.scale, "agm.bs" + id, dBS[i], compute, context));
    if (args.biases[i])
      TP_RETURN_IF_ERROR(
          upload(*args.biases[i], "agm.bias" + id, dBias[i], compute, context));
    TP_RETURN_IF_ERROR(
        buffer("agm.d" + id, bytesOf(products.back()), dD[i], context));
    if (kSplit) {
      TP_RETURN_IF_ERROR(buffer(
          "agm.acc" + id, sizeof(float) * totalRows * ns[i], dAcc[i], context));
      TP_CUDA(cudaMemsetAsync(dAcc[i], 0, sizeof(float) * totalRows * ns[i],
                              compute));
    }
  }

  DevicePublished mine{static_cast<uint8_t *>(dG), static_cast<uint8_t *>(dGS),
                       &events};
  std::shared_ptr<Exchange> ex;
  TP_RETURN_IF_ERROR(world.join(
      group,
      context + (ring ? " (ring) on " : " (per_peer) on ") + a.typeString(),
      &mine, nullptr, ex));
  ex->progress[me]->store(chunks, std::memory_order_release);
  auto originOf = [&](int step) {
    return ring ? (me - step + g) % g : (me + step) % g;
  };

  Status status;
  // Communication: every other rank's pieces, in schedule order.
  for (int step = 1; step < g && status.isOk(); ++step) {
    int origin = originOf(step);
    for (int j = 0; j < chunks && status.isOk(); ++j) {
      auto [lo, hi] = pieceRange(extL, chunks, j);
      int from = ring ? (me - 1 + g) % g : origin;
      int64_t needed = ring ? int64_t(step - 1) * chunks + j : j;
      status = waitPeer(*ex, from, needed, comm, context);
      if (!status.isOk())
        break;
      auto *peer = static_cast<const DevicePublished *>(ex->published[from]);
      int64_t at = origin * extL + lo;
      status = check(copySlabs(peer->data, extG, at, static_cast<uint8_t *>(dG),
                               extG, at, hi - lo, local, es, comm),
                     "cudaMemcpy2DAsync", context);
      if (status.isOk() && gatherScale)
        status =
            check(copySlabs(peer->scale, extG, at, static_cast<uint8_t *>(dGS),
                            extG, at, hi - lo, scaleSplit,
                            byteSize(args.a.scale->dtype()), comm),
                  "cudaMemcpy2DAsync", context);
      if (status.isOk())
        status = announce(*ex, me, int64_t(step) * chunks + j, comm, context);
    }
  }
  // Compute: each piece as soon as it is there, products in final place.
  for (int step = 0; step < g && status.isOk(); ++step) {
    int origin = originOf(step);
    for (int j = 0; j < chunks && status.isOk(); ++j) {
      status = check(cudaStreamWaitEvent(compute, events[step * chunks + j], 0),
                     "cudaStreamWaitEvent", context);
      auto [lo, hi] = pieceRange(extL, chunks, j);
      for (size_t i = 0; i < args.bs.size() && status.isOk(); ++i) {
        const Operand &b = args.bs[i];
        bool trans = args.transposeB || b.isScaled();
        int64_t n = ns[i];
        size_t outEs = byteSize(args.outTypes[i]);
        if (kSplit) {
          int64_t col0 = origin * extL + lo;
          GemmProblem p;
          p.m = totalRows;
          p.n = n;
          p.k = hi - lo;
          p.lda = k;
          p.ldb = trans ? k : n;
          p.ldd = n;
          p.aType = p.bType = a.dtype();
          p.dType = DType::F32;
          p.transposeB = trans;
          p.beta = 1.0f;
          const uint8_t *bPtr =
              static_cast<uint8_t *>(dB[i]) + (trans ? col0 : col0 * n) * es;
          status = deviceGemm(p, static_cast<uint8_t *>(dG) + col0 * es, bPtr,
                              dAcc[i], compute, context);
          continue;
        }
        int64_t row0 = (origin * extL + lo) * rowsPerSlab;
        int64_t rows = (hi - lo) * rowsPerSlab;
        if (!scaled) {
          GemmProblem p;
          p.m = rows;
          p.n = n;
          p.k = k;
          p.lda = k;
          p.ldb = trans ? k : n;
          p.ldd = n;
          p.batch = local.outer;
          p.strideA = extG * rowsPerSlab * k;
          p.strideD = extG * rowsPerSlab * n;
          p.aType = p.bType = a.dtype();
          p.dType = args.outTypes[i];
          p.transposeB = trans;
          p.bias = dBias[i];
          status =
              deviceGemm(p, static_cast<uint8_t *>(dG) + row0 * k * es, dB[i],
                         static_cast<uint8_t *>(dD[i]) + row0 * n * outEs,
                         compute, context);
          continue;
        }
        // Scaled: one GEMM per leading block, with the rows' scales.
        size_t scaleEs = byteSize(args.a.scale->dtype());
        int64_t scalePerRow = gatherScale ? scaleSplit.inner / rowsPerSlab : 0;
        for (int64_t o = 0; o < local.outer && status.isOk(); ++o) {
          int64_t r0 = o * extG * rowsPerSlab + row0;
          const void *aScale = gatherScale ? static_cast<uint8_t *>(dGS) +
                                                 r0 * scalePerRow * scaleEs
                                           : dAScale;
          Operand aPiece = args.a;
          status = scaledGemm(
              aPiece, static_cast<uint8_t *>(dG) + r0 * k * es, aScale, b,
              dB[i], dBS[i], rows, n, k, dBias[i], args.outTypes[i],
              static_cast<uint8_t *>(dD[i]) + r0 * n * outEs, compute, context);
        }
      }
    }
  }
  if (status.isOk() && kSplit)
    for (size_t i = 0; i < args.bs.size() && status.isOk(); ++i)
      status =
          check(launchConvert(static_cast<float *>(dAcc[i]), totalRows * ns[i],
                              dBias[i], args.outTypes[i], ns[i], dD[i],
                              args.outTypes[i], compute),
                "convert kernel", context);
  for (size_t i = 0; i < products.size() && status.isOk(); ++i)
    status = download(dD[i], products[i], compute, context);
  if (status.isOk() && args.returnGathered) {
    status = download(dG, gathered, compute, context);
    if (status.isOk() && gatherScale)
      status = download(dGS, gatheredScale, compute, context);
  }
  TP_RETURN_IF_ERROR(finish(group, ex, status, comm));
  results.clear();
  if (args.returnGathered) {
    results.push_back(gathered);
    if (scaled)
      results.push_back(gatherScale ? gatheredScale : *args.a.scale);
  }
  for (Tensor &product : products)
    results.push_back(std::move(product));
  return Status::ok();
}

Status CudaBackend::matmulReduceScatter(const Group &group,
                                        const MatmulReduceScatterArgs &args,
                                        std::vector<Tensor> &results) {
  const std::string &context = args.site;
  if (args.reduction != Reduction::Sum && args.reduction != Reduction::Avg)
    return Status::error(context +
                         ": a fused reduce-scatter reduces with sum or avg");
  const Tensor &a = *args.a.data;
  const int g = group.size(), me = group.index;
  const bool scaled = args.a.isScaled();
  const bool trans = args.transposeB || scaled;
  const int64_t k = a.shape().back();
  const int64_t n = args.b.data->dim(trans ? 0 : 1);
  std::vector<int64_t> productShape = a.shape();
  productShape.back() = n;
  const int64_t d = args.dim;
  const bool nSplit = d == a.rank() - 1;
  const Split split = splitAt(productShape, d);
  if (split.extent % g != 0)
    return Status::error(context + ": dim " + std::to_string(d) +
                         " is not divisible by the group size " +
                         std::to_string(g));
  const int64_t extL = split.extent / g;
  std::vector<int64_t> reducedShape = productShape;
  reducedShape[d] = extL;
  Tensor reduced(args.outType, reducedShape);
  const int64_t slice = reduced.numElements();
  if (k == 0 || n == 0 || a.numElements() == 0)
    return Status::error(context + ": the CUDA backend does not run fused "
                                   "ops on empty operands");
  const int64_t totalRows = a.numElements() / k;
  const int64_t rowsPerSlab = nSplit ? 0 : split.inner / n;
  const size_t es = byteSize(a.dtype());
  // A scaled GEMM writes dense blocks: an N split takes its slice whole.
  const int chunks = scaled && nSplit ? 1 : args.schedule.pieces(extL);

  void *dA, *dAS = nullptr, *dB, *dBS = nullptr, *dAddend = nullptr,
            *dBias = nullptr, *dW, *dStage, *dOut, *dPointers;
  TP_RETURN_IF_ERROR(upload(a, "rs.a", dA, compute, context));
  TP_RETURN_IF_ERROR(upload(*args.b.data, "rs.b", dB, compute, context));
  if (scaled) {
    TP_RETURN_IF_ERROR(upload(*args.a.scale, "rs.as", dAS, compute, context));
    TP_RETURN_IF_ERROR(upload(*args.b.scale, "rs.bs", dBS, compute, context));
  }
  if (args.addend) {
    // Partials accumulate in fp32: the addend joins them widened.
    Tensor wide(DType::F32, args.addend->shape());
    for (int64_t i = 0, e = wide.numElements(); i < e; ++i)
      wide.set(i, args.addend->get(i));
    TP_RETURN_IF_ERROR(upload(wide, "rs.addend", dAddend, compute, context));
  }
  if (args.bias)
    TP_RETURN_IF_ERROR(upload(*args.bias, "rs.bias", dBias, comm, context));
  size_t sliceBytes = sizeof(float) * slice;
  TP_RETURN_IF_ERROR(buffer("rs.w", sliceBytes * g, dW, context));
  TP_RETURN_IF_ERROR(buffer("rs.stage", sliceBytes * g, dStage, context));
  TP_RETURN_IF_ERROR(buffer("rs.out", bytesOf(reduced), dOut, context));
  TP_RETURN_IF_ERROR(
      buffer("rs.pointers", sizeof(void *) * g, dPointers, context));
  std::vector<const void *> slots(g);
  for (int i = 0; i < g; ++i)
    slots[i] = static_cast<uint8_t *>(dStage) + i * sliceBytes;
  TP_CUDA(cudaMemcpyAsync(dPointers, slots.data(), sizeof(void *) * g,
                          cudaMemcpyHostToDevice, comm));
  TP_RETURN_IF_ERROR(eventPool(size_t(g) * chunks, context));
  auto partial = [&](int c) {
    return static_cast<float *>(dW) + int64_t(c) * slice;
  };

  DevicePublished mine{static_cast<uint8_t *>(dW), nullptr, &events};
  std::shared_ptr<Exchange> ex;
  TP_RETURN_IF_ERROR(
      world.join(group,
                 context + " (per_peer) on " + a.typeString() + " " +
                     args.b.data->typeString() +
                     (args.addend ? " " + args.addend->typeString() : "") +
                     (args.bias ? " " + args.bias->typeString() : ""),
                 &mine, nullptr, ex));
  /// Copies piece [lo, hi) of a [.., extL, ..] slice between f32 buffers
  /// (slices of the product along dim d, or column blocks for an N split).
  auto copyPiece = [&](const void *src, int64_t srcPitchElems, int64_t srcStart,
                       void *dst, int64_t dstPitchElems, int64_t dstStart,
                       int64_t lo, int64_t hi, size_t elemBytes,
                       cudaMemcpyKind kind, cudaStream_t stream) {
    if (nSplit)
      return cudaMemcpy2DAsync(
          static_cast<uint8_t *>(dst) + (dstStart + lo) * elemBytes,
          dstPitchElems * elemBytes,
          static_cast<const uint8_t *>(src) + (srcStart + lo) * elemBytes,
          srcPitchElems * elemBytes, (hi - lo) * elemBytes, totalRows, kind,
          stream);
    size_t run = split.inner * elemBytes;
    return cudaMemcpy2DAsync(
        static_cast<uint8_t *>(dst) + (dstStart + lo) * run,
        dstPitchElems * run,
        static_cast<const uint8_t *>(src) + (srcStart + lo) * run,
        srcPitchElems * run, (hi - lo) * run, split.outer, kind, stream);
  };

  Status status;
  // Partials for the next ranks first, this rank's own slice last.
  for (int step = 1; step <= g && status.isOk(); ++step) {
    int c = (me + step) % g;
    for (int j = 0; j < chunks && status.isOk(); ++j) {
      auto [lo, hi] = pieceRange(extL, chunks, j);
      float *w = partial(c);
      if (args.addend)
        status = check(
            nSplit
                ? copyPiece(dAddend, n, c * extL, w, extL, 0, lo, hi,
                            sizeof(float), cudaMemcpyDeviceToDevice, compute)
                : copyPiece(dAddend, split.extent, c * extL, w, extL, 0, lo, hi,
                            sizeof(float), cudaMemcpyDeviceToDevice, compute),
            "cudaMemcpy2DAsync", context);
      GemmProblem p;
      p.n = n;
      p.k = k;
      p.lda = k;
      p.ldb = trans ? k : n;
      p.aType = p.bType = a.dtype();
      p.dType = DType::F32;
      p.transposeB = trans;
      p.beta = args.addend ? 1.0f : 0.0f;
      if (!status.isOk())
        break;
      if (nSplit) {
        p.m = totalRows;
        p.n = hi - lo;
        p.ldd = extL;
        int64_t n0 = c * extL + lo;
        const uint8_t *b =
            static_cast<uint8_t *>(dB) + (trans ? n0 * k : n0) * es;
        status = scaled
                     ? scaledGemm(args.a, dA, dAS, args.b, b,
                                  static_cast<uint8_t *>(dBS) +
                                      n0 * (args.b.scale->numElements() / n) *
                                          byteSize(args.b.scale->dtype()),
                                  totalRows, hi - lo, k, nullptr, DType::F32,
                                  w + lo, compute, context)
                     : deviceGemm(p, dA, b, w + lo, compute, context);
      } else if (!scaled) {
        p.m = (hi - lo) * rowsPerSlab;
        p.ldd = n;
        p.batch = split.outer;
        p.strideA = split.extent * rowsPerSlab * k;
        p.strideD = extL * rowsPerSlab * n;
        int64_t row0 = (c * extL + lo) * rowsPerSlab;
        status = deviceGemm(p, static_cast<uint8_t *>(dA) + row0 * k * es, dB,
                            w + lo * rowsPerSlab * n, compute, context);
      } else {
        int64_t scalePerRow = args.a.scale->rank() == 0
                                  ? 0
                                  : args.a.scale->numElements() / totalRows;
        for (int64_t o = 0; o < split.outer && status.isOk(); ++o) {
          int64_t row0 = (o * split.extent + c * extL + lo) * rowsPerSlab;
          const void *aScale =
              static_cast<uint8_t *>(dAS) +
              row0 * scalePerRow * byteSize(args.a.scale->dtype());
          status = scaledGemm(
              args.a, static_cast<uint8_t *>(dA) + row0 * k * es, aScale,
              args.b, dB, dBS, (hi - lo) * rowsPerSlab, n, k, nullptr,
              DType::F32, w + (o * extL + lo) * rowsPerSlab * n, compute,
              context);
        }
      }
      if (status.isOk())
        status =
            announce(*ex, me, int64_t(step - 1) * chunks + j, compute, context);
    }
  }
  // Stage every rank's partial for this rank's slice, then reduce once.
  for (int j = 0; j < chunks && status.isOk(); ++j) {
    auto [lo, hi] = pieceRange(extL, chunks, j);
    for (int p = 0; p < g && status.isOk(); ++p) {
      int64_t needed = int64_t((me - p - 1 + 2 * g) % g) * chunks + j;
      status = waitPeer(*ex, p, needed, comm, context);
      auto *peer = static_cast<const DevicePublished *>(ex->published[p]);
      if (status.isOk())
        status = check(
            copyPiece(peer->data + me * sliceBytes, extL, 0,
                      static_cast<uint8_t *>(dStage) + p * sliceBytes, extL, 0,
                      lo, hi, sizeof(float), cudaMemcpyDeviceToDevice, comm),
            "cudaMemcpy2DAsync", context);
    }
  }
  if (status.isOk())
    status = check(launchReduce(static_cast<const void *const *>(dPointers), g,
                                DType::F32, slice, args.reduction, dBias,
                                args.outType, n, dOut, args.outType, comm),
                   "reduce kernel", context);
  if (status.isOk())
    status = download(dOut, reduced, comm, context);
  Tensor unreduced;
  if (status.isOk() && args.returnUnreduced) {
    // This rank's product, from its partials, converted once.
    unreduced = Tensor(args.outType, productShape);
    void *dP32, *dP;
    status = buffer("rs.p32", sizeof(float) * unreduced.numElements(), dP32,
                    context);
    if (status.isOk())
      status = buffer("rs.p", bytesOf(unreduced), dP, context);
    for (int c = 0; c < g && status.isOk(); ++c)
      status = check(nSplit ? copyPiece(partial(c), extL, 0, dP32, n, c * extL,
                                        0, extL, sizeof(float),
                                        cudaMemcpyDeviceToDevice, compute)
                            : copyPiece(partial(c), extL, 0, dP32, split.extent,
                                        c * extL, 0, extL, sizeof(float),
                                        cudaMemcpyDeviceToDevice, compute),
                     "cudaMemcpy2DAsync", context);
    if (status.isOk())
      status = check(launchConvert(static_cast<float *>(dP32),
                                   unreduced.numElements(), nullptr,
                                   args.outType, 1, dP, args.outType, compute),
                     "convert kernel", context);
    if (status.isOk())
      status = download(dP, unreduced, compute, context);
  }
  TP_RETURN_IF_ERROR(finish(group, ex, status, compute));
  results.clear();
  if (args.returnUnreduced)
    results.push_back(std::move(unreduced));
  results.push_back(std::move(reduced));
  return Status::ok();
}
