//===- CudaRank.cpp - one rank's device: streams, workspaces, GEMMs -------===//

#include "CudaRank.h"
#include "GraphCapture.h"
#include "Kernels.h"
#include "tp/Runtime/Trace.h"

#include <tuple>

using namespace mlir::tp::rt;
using namespace mlir::tp::rt::cuda;

Split mlir::tp::rt::cuda::splitAt(const std::vector<int64_t> &shape,
                                  int64_t dim) {
  Split s;
  for (int64_t i = 0; i < static_cast<int64_t>(shape.size()); ++i)
    (i < dim ? s.outer : i == dim ? s.extent : s.inner) *= shape[i];
  return s;
}

cudaError_t mlir::tp::rt::cuda::copySlabs(const void *src, int64_t srcExtent,
                                          int64_t srcStart, void *dst,
                                          int64_t dstExtent, int64_t dstStart,
                                          int64_t count, const Split &s,
                                          size_t elementBytes,
                                          cudaStream_t stream) {
  size_t slab = s.inner * elementBytes;
  return cudaMemcpy2DAsync(
      static_cast<uint8_t *>(dst) + dstStart * slab, dstExtent * slab,
      static_cast<const uint8_t *>(src) + srcStart * slab, srcExtent * slab,
      count * slab, s.outer, cudaMemcpyDeviceToDevice, stream);
}

CudaRank::~CudaRank() {
  for (auto &[name, buffer] : buffers)
    cudaFree(buffer.first);
  for (cudaEvent_t e : events)
    cudaEventDestroy(e);
  for (cudaEvent_t e : {forkEvent, joinEvent})
    if (e)
      cudaEventDestroy(e);
  for (cudaStream_t stream : pieceStreams)
    cudaStreamDestroy(stream);
  if (compute)
    cudaStreamDestroy(compute);
  if (comm)
    cudaStreamDestroy(comm);
}

Status CudaRank::init(int deviceIndex) {
  std::string context = "cuda backend of rank " + std::to_string(rank) +
                        " (GPU " + std::to_string(deviceIndex) + ")";
  device = deviceIndex;
  TP_CUDA(cudaSetDevice(device));
  int lowest = 0, highest = 0;
  TP_CUDA(cudaDeviceGetStreamPriorityRange(&lowest, &highest));
  TP_CUDA(
      cudaStreamCreateWithPriority(&compute, cudaStreamNonBlocking, lowest));
  TP_CUDA(cudaStreamCreateWithPriority(&comm, cudaStreamNonBlocking, highest));
  TP_CUDA(
      cudaDeviceGetAttribute(&smCount, cudaDevAttrMultiProcessorCount, device));
  // Every fallback to a slower GEMM path shows in the trace, as an instant on
  // the compute track.
  gemm.setObserver([this](Fallback fallback) {
    if (!trace)
      return;
    double now = trace->nowUs();
    trace->record(rank, Stream::Compute,
                  std::string("fallback: ") + cuda::name(fallback), "fallback",
                  now, now);
  });
  TP_RETURN_IF_ERROR(gemm.init(context));
  return gemm.reserveWorkspace(compute, context);
}

Status CudaRank::beginCapture(const std::string &context) {
  std::string why = whyNoGraphCapture();
  if (!why.empty())
    return Status::error(context + ": " + why);
  for (cudaEvent_t *e : {&forkEvent, &joinEvent})
    if (!*e)
      TP_CUDA(cudaEventCreateWithFlags(e, cudaEventDisableTiming));
  capturing = true;
  return Status::ok();
}

Status CudaRank::forkFromCompute(cudaStream_t stream,
                                 const std::string &context) {
  if (!capturing || stream == compute)
    return Status::ok();
  TP_CUDA(cudaEventRecord(forkEvent, compute));
  TP_CUDA(cudaStreamWaitEvent(stream, forkEvent, 0));
  return Status::ok();
}

Status CudaRank::joinIntoCompute(cudaStream_t stream,
                                 const std::string &context) {
  if (stream == compute)
    return Status::ok();
  TP_CUDA(cudaEventRecord(joinEvent, stream));
  TP_CUDA(cudaStreamWaitEvent(compute, joinEvent, 0));
  return Status::ok();
}

Status CudaRank::forkPieceStreams(int count, const std::string &context,
                                  std::vector<cudaStream_t> &streams) {
  streams.assign(1, compute);
  if (count <= 1)
    return Status::ok();
  if (pieceStreams.size() + 1 < size_t(count) && capturing)
    return Status::error(context + ": this step runs its GEMMs on " +
                         std::to_string(count) +
                         " streams, more than the step before the CUDA graph "
                         "capture made; the capture cannot make streams");
  int lowest = 0, highest = 0;
  TP_CUDA(cudaDeviceGetStreamPriorityRange(&lowest, &highest));
  while (pieceStreams.size() + 1 < size_t(count)) {
    cudaStream_t stream;
    TP_CUDA(
        cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, lowest));
    pieceStreams.push_back(stream);
    TP_RETURN_IF_ERROR(gemm.reserveWorkspace(stream, context));
  }
  for (cudaEvent_t *e : {&forkEvent, &joinEvent})
    if (!*e)
      TP_CUDA(cudaEventCreateWithFlags(e, cudaEventDisableTiming));
  TP_CUDA(cudaEventRecord(forkEvent, compute));
  for (int i = 1; i < count; ++i) {
    TP_CUDA(cudaStreamWaitEvent(pieceStreams[i - 1], forkEvent, 0));
    streams.push_back(pieceStreams[i - 1]);
  }
  return Status::ok();
}

Status CudaRank::joinPieceStreams(const std::vector<cudaStream_t> &streams,
                                  const std::string &context) {
  for (cudaStream_t stream : streams)
    TP_RETURN_IF_ERROR(joinIntoCompute(stream, context));
  return Status::ok();
}

Status CudaRank::synchronize(cudaStream_t stream, const std::string &context) {
  if (capturing)
    return joinIntoCompute(stream, context);
  TP_CUDA(cudaStreamSynchronize(stream));
  return Status::ok();
}

Status CudaRank::buffer(const std::string &purpose, size_t bytes, void *&ptr,
                        const std::string &context) {
  auto &slot = buffers[purpose];
  if (slot.second < bytes && capturing)
    // Freeing the smaller buffer would pull memory from under captured work.
    return Status::error(
        context + ": workspace '" + purpose + "' would grow from " +
        std::to_string(slot.second) + " to " + std::to_string(bytes) +
        " bytes while a CUDA graph is captured; the step that ran before the "
        "capture sizes every workspace, so this step differs from it");
  if (slot.second < bytes) {
    if (slot.first)
      TP_CUDA(cudaFree(slot.first));
    slot.first = nullptr;
    TP_CUDA(cudaMalloc(&slot.first, std::max<size_t>(bytes, 256)));
    slot.second = bytes;
  }
  ptr = slot.first;
  return Status::ok();
}

bool CudaRank::onDevice(const void *ptr) const {
  if (!ptr)
    return false;
  cudaPointerAttributes attributes;
  if (cudaPointerGetAttributes(&attributes, ptr) != cudaSuccess) {
    cudaGetLastError(); // not a pointer CUDA knows: host memory
    return false;
  }
  return attributes.type == cudaMemoryTypeManaged ||
         (attributes.type == cudaMemoryTypeDevice &&
          attributes.device == device);
}

Status CudaRank::upload(const Tensor &t, const std::string &purpose, void *&ptr,
                        cudaStream_t stream, const std::string &context) {
  // Compiled code's buffers on the device (managed or this GPU's memory) are
  // read in place; FP8 GEMMs need 16-byte pointers, which workspaces have.
  bool device = onDevice(t.data());
  if (device && alignmentOf(t.data()) >= kFp8MatrixAlignment) {
    ptr = const_cast<void *>(t.data());
    return Status::ok();
  }
  if (!device && capturing)
    return Status::error(context + ": an operand (" + t.typeString() +
                         ") is host memory; a step captured into a CUDA graph "
                         "reads device buffers only");
  TP_RETURN_IF_ERROR(buffer(purpose, t.numBytes(), ptr, context));
  TP_CUDA(
      cudaMemcpyAsync(ptr, t.data(), t.numBytes(), cudaMemcpyDefault, stream));
  countCopy(t.data(), t.numBytes(), /*toDevice=*/true);
  return Status::ok();
}

Status CudaRank::resultBuffer(Tensor &result, const std::string &purpose,
                              void *&ptr, const std::string &context) {
  void *bytes = result.mutableData();
  if (onDevice(bytes) && alignmentOf(bytes) >= kFp8MatrixAlignment) {
    ptr = bytes;
    return Status::ok();
  }
  return buffer(purpose, result.numBytes(), ptr, context);
}

Status CudaRank::download(const void *ptr, Tensor &t, cudaStream_t stream,
                          const std::string &context) {
  void *destination = t.mutableData();
  if (destination == ptr) // computed in place
    return synchronize(stream, context);
  if (capturing) {
    if (!onDevice(destination))
      return Status::error(context + ": a result (" + t.typeString() +
                           ") is not device memory; a step captured into a "
                           "CUDA graph writes its results in place");
    TP_CUDA(cudaMemcpyAsync(destination, ptr, t.numBytes(),
                            cudaMemcpyDeviceToDevice, stream));
    return synchronize(stream, context);
  }
  // A copy into pageable memory returns only when the stream has drained: wait
  // through synchronize() first, which transports can bound.
  TP_RETURN_IF_ERROR(synchronize(stream, context));
  TP_CUDA(cudaMemcpyAsync(destination, ptr, t.numBytes(), cudaMemcpyDefault,
                          stream));
  countCopy(destination, t.numBytes(), /*toDevice=*/false);
  return synchronize(stream, context);
}

Backend::HostTransfers CudaRank::hostTransfers() const {
  HostTransfers all = transfers;
  const GlueTransfers &glue = glueTransfers();
  all.hostToDevice += glue.hostToDevice;
  all.deviceToHost += glue.deviceToHost;
  return all;
}

void CudaRank::countCopy(const void *hostSide, size_t bytes, bool toDevice) {
  if (onDevice(hostSide))
    return; // device to device: no host traffic
  (toDevice ? transfers.hostToDevice : transfers.deviceToHost) +=
      static_cast<int64_t>(bytes);
}

Status CudaRank::eventPool(size_t count, const std::string &context) {
  while (events.size() < count) {
    cudaEvent_t e;
    TP_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    events.push_back(e);
  }
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// GEMMs
//===----------------------------------------------------------------------===//

Status CudaRank::matmul(const Tensor &a, const Tensor &b, bool transposeB,
                        const std::string &site, Tensor &result) {
  const std::string &context = site;
  TraceScope scope(trace, rank, Stream::Compute, "matmul", "gemm");
  int64_t k = a.shape().back();
  int64_t n = b.dim(b.rank() - (transposeB ? 2 : 1));
  if (b.dim(b.rank() - (transposeB ? 1 : 2)) != k || a.dtype() != b.dtype())
    return Status::error(site + ": cannot multiply " + a.typeString() + " by " +
                         b.typeString());
  std::vector<int64_t> shape = a.shape();
  shape.back() = n;
  result = newResult(0, a.dtype(), shape, /*zeroed=*/false);
  void *da, *db, *dd;
  TP_RETURN_IF_ERROR(upload(a, "mm.a", da, compute, context));
  TP_RETURN_IF_ERROR(upload(b, "mm.b", db, compute, context));
  TP_RETURN_IF_ERROR(resultBuffer(result, "mm.d", dd, context));
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
    TP_RETURN_IF_ERROR(gemm.run(p, da, db, dd, compute, context));
  } else {
    // Batched B: one GEMM per batch entry.
    int64_t batch = 1;
    for (int64_t d = 0; d + 2 < b.rank(); ++d)
      batch *= b.dim(d);
    p.m = a.numElements() / k / batch;
    size_t es = byteSize(a.dtype());
    for (int64_t i = 0; i < batch; ++i)
      TP_RETURN_IF_ERROR(gemm.run(
          p, static_cast<uint8_t *>(da) + i * p.m * k * es,
          static_cast<uint8_t *>(db) + i * k * n * es,
          static_cast<uint8_t *>(dd) + i * p.m * n * es, compute, context));
  }
  return download(dd, result, compute, context);
}

/// A scaled GEMM of operands on the device, by the first path that runs (see
/// scaledGemmOrder): native FP8 for per-tensor and row-wise scales, then for
/// row-wise a unit-scaled FP8 GEMM with the scales applied after, then bf16
/// on dequantized operands (the only way for block scales: native MXFP8 and
/// NVFP4 GEMMs need sm_100). Every path but the first is counted and traced.
Status CudaRank::scaledGemm(const Operand &a, const void *aData,
                            const void *aScale, const Operand &b,
                            const void *bData, const void *bScale, int64_t m,
                            int64_t n, int64_t k, const void *bias,
                            DType outType, void *d, cudaStream_t stream,
                            const std::string &context, int smCountTarget) {
  GemmProblem p;
  p.smCountTarget = smCountTarget;
  p.m = m;
  p.n = n;
  p.k = k;
  p.lda = p.ldb = k;
  p.ldd = n;
  p.transposeB = true;
  p.dType = outType;
  p.bias = bias;
  const ScaledGemmCall call{a,      b, aData,  aScale,  bData,
                            bScale, d, stream, context, p};
  return runFirstAccepted(
      scaledGemmOrder(*a.scaling, alignmentOf(aScale), alignmentOf(bScale)),
      [&](ScaledPath path, Status &error) {
        switch (path) {
        case ScaledPath::Native:
          return scaledGemmNative(call, error);
        case ScaledPath::UnitScaled:
          return scaledGemmUnitScaled(call, error);
        case ScaledPath::Dequantize:
          return scaledGemmDequantized(call, error);
        }
        return Attempt::Refused;
      },
      [&](Fallback fallback) { gemm.note(fallback); }, context);
}

Attempt CudaRank::scaledGemmNative(const ScaledGemmCall &call, Status &error) {
  GemmProblem q = call.problem;
  q.aType = call.a.data->dtype();
  q.bType = call.b.data->dtype();
  q.aScale = static_cast<const float *>(call.aScale);
  q.bScale = static_cast<const float *>(call.bScale);
  q.rowWise = *call.a.scaling == Scaling::RowWise;
  return gemm.attempt(q, call.aData, call.bData, call.d, call.stream,
                      call.context, error);
}

/// Row-wise: a unit-scaled FP8 GEMM to fp32, then the row and column scales
/// and the bias.
Attempt CudaRank::scaledGemmUnitScaled(const ScaledGemmCall &call,
                                       Status &error) {
  const GemmProblem &p = call.problem;
  const std::string &context = call.context;
  auto failed = [&](Status status) {
    error = std::move(status);
    return Attempt::Failed;
  };
  void *unit, *acc;
  if (Status s = buffer("sc.unit", sizeof(float) * 2, unit, context); !s.isOk())
    return failed(std::move(s));
  if (Status s = buffer("sc.acc", sizeof(float) * p.m * p.n, acc, context);
      !s.isOk())
    return failed(std::move(s));
  GemmProblem q = p;
  q.aType = call.a.data->dtype();
  q.bType = call.b.data->dtype();
  q.aScale = q.bScale = static_cast<float *>(unit);
  q.dType = DType::F32;
  q.bias = nullptr;
  if (!gemm.supports(q, call.aData, call.bData, acc)) {
    error = Status::error(context + ": no unit-scaled FP8 algorithm");
    return Attempt::Refused;
  }
  if (Status s = check(
          launchSetFloats(static_cast<float *>(unit), 1.0f, 1.0f, call.stream),
          "constant kernel", context);
      !s.isOk())
    return failed(std::move(s));
  Attempt outcome =
      gemm.attempt(q, call.aData, call.bData, acc, call.stream, context, error);
  if (outcome != Attempt::Done)
    return outcome;
  if (Status s =
          check(launchScaleRowsCols(static_cast<float *>(acc), p.m, p.n,
                                    static_cast<const float *>(call.aScale),
                                    static_cast<const float *>(call.bScale),
                                    call.stream),
                "scaling kernel", context);
      !s.isOk())
    return failed(std::move(s));
  if (Status s =
          check(launchConvert(static_cast<float *>(acc), p.m * p.n, p.bias,
                              p.dType, p.n, call.d, p.dType, call.stream),
                "conversion kernel", context);
      !s.isOk())
    return failed(std::move(s));
  return Attempt::Done;
}

/// Both operands dequantized to bf16, then a bf16 GEMM: the only way for
/// block scales here (native MXFP8 and NVFP4 GEMMs need sm_100).
Attempt CudaRank::scaledGemmDequantized(const ScaledGemmCall &call,
                                        Status &error) {
  const GemmProblem &p = call.problem;
  const std::string &context = call.context;
  const Operand &a = call.a, &b = call.b;
  auto failed = [&](Status status) {
    error = std::move(status);
    return Attempt::Failed;
  };
  void *wideA, *wideB, *globals;
  for (auto [purpose, bytes, ptr] :
       {std::tuple{"sc.a16", size_t(2 * p.m * p.k), &wideA},
        std::tuple{"sc.b16", size_t(2 * p.n * p.k), &wideB},
        std::tuple{"sc.globals", 2 * sizeof(float), &globals}})
    if (Status s = buffer(purpose, bytes, *ptr, context); !s.isOk())
      return failed(std::move(s));
  // NVFP4's global scales (1 where absent), read on the device.
  if (Status s = check(launchSetFloats(static_cast<float *>(globals), 1.0f,
                                       1.0f, call.stream),
                       "constant kernel", context);
      !s.isOk())
    return failed(std::move(s));
  int slot = 0;
  for (const Tensor *global : {a.globalScale, b.globalScale}) {
    float *into = static_cast<float *>(globals) + slot++;
    if (!global)
      continue;
    void *on;
    if (Status s = upload(*global, slot == 1 ? "sc.ga" : "sc.gb", on,
                          call.stream, context);
        !s.isOk())
      return failed(std::move(s));
    if (Status s = check(launchWiden(on, global->dtype(), 1, into, call.stream),
                         "conversion kernel", context);
        !s.isOk())
      return failed(std::move(s));
  }
  const Scaling mode = *a.scaling;
  if (Status s = check(
          launchDequantizeToBF16(static_cast<const uint8_t *>(call.aData),
                                 a.data->dtype(), call.aScale, a.scale->dtype(),
                                 static_cast<float *>(globals), mode, p.m, p.k,
                                 static_cast<uint16_t *>(wideA), call.stream),
          "dequantization kernel", context);
      !s.isOk())
    return failed(std::move(s));
  if (Status s = check(launchDequantizeToBF16(
                           static_cast<const uint8_t *>(call.bData),
                           b.data->dtype(), call.bScale, b.scale->dtype(),
                           static_cast<float *>(globals) + 1, mode, p.n, p.k,
                           static_cast<uint16_t *>(wideB), call.stream),
                       "dequantization kernel", context);
      !s.isOk())
    return failed(std::move(s));
  GemmProblem q = p;
  q.aType = q.bType = DType::BF16;
  return gemm.attempt(q, wideA, wideB, call.d, call.stream, context, error);
}

Status CudaRank::scaledMatmul(const Operand &a, const Operand &b,
                              const Tensor *bias, DType outType,
                              const std::string &site, Tensor &result) {
  const std::string &context = site;
  TraceScope scope(trace, rank, Stream::Compute, "scaled_matmul", "gemm");
  int64_t k = a.data->shape().back(), n = b.data->dim(0);
  int64_t m = a.data->numElements() / k;
  std::vector<int64_t> shape = a.data->shape();
  shape.back() = n;
  result = newResult(0, outType, shape, /*zeroed=*/false);
  void *da, *sa, *db, *sb, *dbias = nullptr, *dd;
  TP_RETURN_IF_ERROR(upload(*a.data, "sm.a", da, compute, context));
  TP_RETURN_IF_ERROR(upload(*a.scale, "sm.as", sa, compute, context));
  TP_RETURN_IF_ERROR(upload(*b.data, "sm.b", db, compute, context));
  TP_RETURN_IF_ERROR(upload(*b.scale, "sm.bs", sb, compute, context));
  if (bias)
    TP_RETURN_IF_ERROR(upload(*bias, "sm.bias", dbias, compute, context));
  TP_RETURN_IF_ERROR(resultBuffer(result, "sm.d", dd, context));
  TP_RETURN_IF_ERROR(scaledGemm(a, da, sa, b, db, sb, m, n, k, dbias, outType,
                                dd, compute, context));
  return download(dd, result, compute, context);
}
