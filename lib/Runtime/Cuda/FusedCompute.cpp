//===- FusedCompute.cpp - the compute half of the fused schedules ---------===//
//
// all_gather_matmul: each gathered piece is multiplied as soon as its event
// says it is there, products written in their final place (batched over
// leading dims, so a sequence-dim gather needs no transposed copy).
// matmul_reduce_scatter: the partial destined to each rank is written, piece
// by piece, into its own fp32 slice of a workspace; one kernel sums the staged
// slices and rounds once. Transports decide how pieces move in between.
//
//===----------------------------------------------------------------------===//

#include "CudaRank.h"
#include "Kernels.h"

using namespace mlir::tp::rt;
using namespace mlir::tp::rt::cuda;

constexpr auto pieceRange = Schedule::pieceRange;

//===----------------------------------------------------------------------===//
// Gathered operands
//===----------------------------------------------------------------------===//

Status CudaRank::placeOwnShard(const GatherLayout &l, const void *shard,
                               const void *scaleShard,
                               const std::string &context) {
  TP_RETURN_IF_ERROR(eventPool(size_t(l.g) * l.chunks, context));
  for (const void *bytes : {shard, l.scale ? scaleShard : nullptr})
    if (bytes && capturing && !onDevice(bytes))
      return Status::error(context + ": the shard to gather is host memory; "
                                     "a step captured into a CUDA graph "
                                     "reads device buffers only");
  // The shard may be host memory or already on the device.
  auto place = [&](const void *shardBytes, void *gathered, const Split &s,
                   size_t elementBytes) {
    size_t slab = s.inner * elementBytes;
    countCopy(shardBytes, l.extL * slab * s.outer, /*toDevice=*/true);
    return cudaMemcpy2DAsync(static_cast<uint8_t *>(gathered) +
                                 l.me * l.extL * slab,
                             l.extG * slab, shardBytes, l.extL * slab,
                             l.extL * slab, s.outer, cudaMemcpyDefault, comm);
  };
  TP_CUDA(place(shard, l.data, l.split, l.elementBytes));
  if (l.scale)
    TP_CUDA(place(scaleShard, l.scale, l.scaleSplit, l.scaleElementBytes));
  for (int j = 0; j < l.chunks; ++j)
    TP_CUDA(cudaEventRecord(events[j], comm));
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// all_gather_matmul
//===----------------------------------------------------------------------===//

Status CudaRank::packBlocks(const AllGatherMatmulArgs &args, int groupSize,
                            int me, GatherMatmulPlan &p, Tensor &block) {
  const std::string &context = args.site;
  const Tensor &a = *args.a.data;
  if (args.a.isScaled())
    return Status::error(context + ": an all-to-all exchanges plain A only");
  if (capturing && !onDevice(a.data()))
    return Status::error(context + ": the operand to exchange is host "
                                   "memory; a step captured into a CUDA "
                                   "graph reads device buffers only");
  AllToAllShapes shapes;
  const int64_t split = *args.exchangeSplit;
  TP_RETURN_IF_ERROR(
      allToAllShapes(a.shape(), split, split, groupSize, context, shapes));
  const Split in = splitAt(a.shape(), split);
  p.blockBytes = a.numBytes() / groupSize;
  TP_RETURN_IF_ERROR(buffer("a2am.blocks", a.numBytes(), p.dBlocks, context));
  countCopy(a.data(), a.numBytes(), /*toDevice=*/true);
  for (const StridedCopy &copy : packBlockCopies(
           in.outer, in.extent, in.inner, byteSize(a.dtype()), groupSize))
    TP_CUDA(cudaMemcpy2DAsync(
        static_cast<uint8_t *>(p.dBlocks) + copy.dst, copy.dstPitch,
        static_cast<const uint8_t *>(a.data()) + copy.src, copy.srcPitch,
        copy.width, copy.rows, cudaMemcpyDefault, comm));
  block = Tensor::borrow(a.dtype(), shapes.block,
                         static_cast<uint8_t *>(p.dBlocks) + me * p.blockBytes);
  return Status::ok();
}

Status CudaRank::prepareGatherMatmul(const AllGatherMatmulArgs &args,
                                     int groupSize, int me,
                                     GatherMatmulPlan &plan) {
  const std::string &context = args.site;
  GatherMatmulPlan &p = plan;
  // An all-to-all: A's blocks packed side by side on the device, block j for
  // member j; this rank's own block is the shard the rest plans around.
  Tensor block;
  if (args.exchangeSplit)
    TP_RETURN_IF_ERROR(packBlocks(args, groupSize, me, p, block));
  const Tensor &a = args.exchangeSplit ? block : *args.a.data;
  p.g = groupSize;
  p.me = me;
  p.dim = args.dim;
  p.kSplit = p.dim == a.rank() - 1;
  p.scaled = args.a.isScaled();
  if (p.kSplit && p.scaled)
    return Status::error(context + ": a scaled all-gather cannot split K");
  if (a.numElements() == 0 || a.shape().back() == 0)
    return Status::error(context + ": the CUDA backend does not run fused "
                                   "ops on empty operands");
  p.local = splitAt(a.shape(), p.dim);
  p.extL = p.local.extent;
  p.extG = p.extL * p.g;
  std::vector<int64_t> gatheredShape = a.shape();
  gatheredShape[p.dim] = p.extG;
  p.k = gatheredShape.back();
  p.totalRows = a.numElements() * p.g / p.k;
  p.rowsPerSlab = p.kSplit ? 0 : p.local.inner / p.k;
  p.elementBytes = byteSize(a.dtype());
  p.chunks = args.schedule.pieces(p.extL);
  p.gatherScale = p.scaled && *args.a.scaling != Scaling::PerTensor;
  // K pieces and scaled fallbacks write the products through a kernel.
  if (p.kSplit || p.scaled)
    for (DType type : args.outTypes)
      TP_RETURN_IF_ERROR(checkKernelOutput(type, context));

  // Results: the gathered A (and its scale) when returned, then products.
  p.gathered = args.returnGathered
                   ? newResult(0, a.dtype(), gatheredShape, /*zeroed=*/false)
                   : Tensor(a.dtype(), gatheredShape);
  const int firstProduct = args.returnGathered ? (p.scaled ? 2 : 1) : 0;
  TP_RETURN_IF_ERROR(buffer("agm.G", p.gathered.numBytes(), p.dG, context));
  if (p.gatherScale) {
    std::vector<int64_t> shape = args.a.scale->shape();
    shape[p.dim] *= p.g;
    p.gatheredScale =
        args.returnGathered
            ? newResult(1, args.a.scale->dtype(), shape, /*zeroed=*/false)
            : Tensor(args.a.scale->dtype(), shape);
    p.scaleSplit = splitAt(args.a.scale->shape(), p.dim);
    p.scaleElementBytes = byteSize(args.a.scale->dtype());
    TP_RETURN_IF_ERROR(
        buffer("agm.GS", p.gatheredScale.numBytes(), p.dGS, context));
  } else if (p.scaled) {
    TP_RETURN_IF_ERROR(
        upload(*args.a.scale, "agm.as", p.dAScale, compute, context));
  }
  // This rank's shard (and scale) straight into its place in the gathered
  // buffer; its pieces are then ready.
  TP_RETURN_IF_ERROR(placeOwnShard(p.layout(false), a.data(),
                                   p.gatherScale ? args.a.scale->data()
                                                 : nullptr,
                                   context));

  // B operands, biases and products.
  size_t count = args.bs.size();
  p.dB.assign(count, nullptr);
  p.dBS.assign(count, nullptr);
  p.dBias.assign(count, nullptr);
  p.dD.assign(count, nullptr);
  p.dAcc.assign(count, nullptr);
  p.ns.clear();
  p.products.clear();
  for (size_t i = 0; i < count; ++i) {
    const Operand &b = args.bs[i];
    bool trans = args.transposeB || b.isScaled();
    // B's last two dims (a per-batch B has A's leading dims before them).
    const int64_t bRank = b.data->rank();
    if (bRank > 2 && p.kSplit)
      return Status::error(context + ": a per-batch B needs the blocks "
                                     "stacked along the rows, not K");
    if (b.data->dim(bRank - (trans ? 1 : 2)) != p.k)
      return Status::error(context + ": B #" + std::to_string(i) +
                           " does not contract with the gathered A");
    p.ns.push_back(b.data->dim(bRank - (trans ? 2 : 1)));
    std::vector<int64_t> shape = gatheredShape;
    shape.back() = p.ns.back();
    p.products.push_back(newResult(firstProduct + static_cast<int>(i),
                                   args.outTypes[i], shape, /*zeroed=*/false));
    std::string id = std::to_string(i);
    TP_RETURN_IF_ERROR(
        upload(*b.data, "agm.b" + id, p.dB[i], compute, context));
    if (b.isScaled())
      TP_RETURN_IF_ERROR(
          upload(*b.scale, "agm.bs" + id, p.dBS[i], compute, context));
    if (args.biases[i])
      TP_RETURN_IF_ERROR(upload(*args.biases[i], "agm.bias" + id, p.dBias[i],
                                compute, context));
    TP_RETURN_IF_ERROR(
        resultBuffer(p.products.back(), "agm.d" + id, p.dD[i], context));
    if (p.kSplit) {
      size_t accBytes = sizeof(float) * p.totalRows * p.ns[i];
      TP_RETURN_IF_ERROR(buffer("agm.acc" + id, accBytes, p.dAcc[i], context));
      TP_CUDA(cudaMemsetAsync(p.dAcc[i], 0, accBytes, compute));
    }
  }
  return Status::ok();
}

Status CudaRank::multiplyGatheredPieces(const AllGatherMatmulArgs &args,
                                        const GatherMatmulPlan &p) {
  const std::string &context = args.site;
  const Tensor &a = *args.a.data;
  const size_t es = p.elementBytes;
  const std::vector<GemmStep> plan =
      planGather(p.g, p.me, args.schedule, p.extL);
  // K pieces add into one accumulator, and scaled GEMMs' fallbacks share a
  // workspace: those stay on one stream.
  std::vector<cudaStream_t> streams;
  TP_RETURN_IF_ERROR(forkPieceStreams(
      pieceStreamCount(args.schedule, plan.size(), p.kSplit || p.scaled),
      context, streams));
  for (size_t index = 0; index < plan.size(); ++index) {
    const GemmStep &step = plan[index];
    cudaStream_t stream = streams[index % streams.size()];
    for (const PieceRef &piece : step.pieces)
      TP_CUDA(cudaStreamWaitEvent(stream, events[piece.ordinal], 0));
    for (const ExtentRun &run : step.runs(p.extL)) {
      for (size_t i = 0; i < args.bs.size(); ++i) {
        const Operand &b = args.bs[i];
        bool trans = args.transposeB || b.isScaled();
        int64_t n = p.ns[i];
        size_t outEs = byteSize(args.outTypes[i]);
        if (p.kSplit) {
          // A K run: accumulate its contribution in fp32.
          int64_t col0 = run.begin;
          GemmProblem q;
          q.m = p.totalRows;
          q.n = n;
          q.k = run.end - run.begin;
          q.lda = p.k;
          q.ldb = trans ? p.k : n;
          q.ldd = n;
          q.aType = q.bType = a.dtype();
          q.dType = DType::F32;
          q.transposeB = trans;
          q.beta = 1.0f;
          q.smCountTarget = fusedGemmSms;
          const uint8_t *bPtr =
              static_cast<uint8_t *>(p.dB[i]) + (trans ? col0 : col0 * n) * es;
          TP_RETURN_IF_ERROR(gemm.run(q,
                                      static_cast<uint8_t *>(p.dG) + col0 * es,
                                      bPtr, p.dAcc[i], stream, context));
          continue;
        }
        int64_t row0 = run.begin * p.rowsPerSlab;
        int64_t rows = (run.end - run.begin) * p.rowsPerSlab;
        if (!p.scaled) {
          GemmProblem q;
          q.m = rows;
          q.n = n;
          q.k = p.k;
          q.lda = p.k;
          q.ldb = trans ? p.k : n;
          q.ldd = n;
          q.batch = p.local.outer;
          q.strideA = p.extG * p.rowsPerSlab * p.k;
          q.strideD = p.extG * p.rowsPerSlab * n;
          // One B per leading block (an all-to-all's experts).
          q.strideB = args.bs[i].data->rank() > 2 ? p.k * n : 0;
          q.aType = q.bType = a.dtype();
          q.dType = args.outTypes[i];
          q.transposeB = trans;
          q.bias = p.dBias[i];
          q.smCountTarget = fusedGemmSms;
          TP_RETURN_IF_ERROR(gemm.run(
              q, static_cast<uint8_t *>(p.dG) + row0 * p.k * es, p.dB[i],
              static_cast<uint8_t *>(p.dD[i]) + row0 * n * outEs, stream,
              context));
          continue;
        }
        // Scaled: one GEMM per leading block, with the rows' scales.
        size_t scaleEs = byteSize(args.a.scale->dtype());
        int64_t scalePerRow =
            p.gatherScale ? p.scaleSplit.inner / p.rowsPerSlab : 0;
        for (int64_t o = 0; o < p.local.outer; ++o) {
          int64_t r0 = o * p.extG * p.rowsPerSlab + row0;
          const void *aScale = p.gatherScale ? static_cast<uint8_t *>(p.dGS) +
                                                   r0 * scalePerRow * scaleEs
                                             : p.dAScale;
          TP_RETURN_IF_ERROR(scaledGemm(
              args.a, static_cast<uint8_t *>(p.dG) + r0 * p.k * es, aScale, b,
              p.dB[i], p.dBS[i], rows, n, p.k, p.dBias[i], args.outTypes[i],
              static_cast<uint8_t *>(p.dD[i]) + r0 * n * outEs, stream, context,
              fusedGemmSms));
        }
      }
    }
  }
  TP_RETURN_IF_ERROR(joinPieceStreams(streams, context));
  if (p.kSplit)
    for (size_t i = 0; i < args.bs.size(); ++i)
      TP_CUDA(launchConvert(static_cast<float *>(p.dAcc[i]),
                            p.totalRows * p.ns[i], p.dBias[i], args.outTypes[i],
                            p.ns[i], p.dD[i], args.outTypes[i], compute));
  return Status::ok();
}

Status CudaRank::finishGatherMatmul(const AllGatherMatmulArgs &args,
                                    GatherMatmulPlan &p,
                                    std::vector<Tensor> &results) {
  const std::string &context = args.site;
  for (size_t i = 0; i < p.products.size(); ++i)
    TP_RETURN_IF_ERROR(download(p.dD[i], p.products[i], compute, context));
  if (args.returnGathered) {
    TP_RETURN_IF_ERROR(download(p.dG, p.gathered, compute, context));
    if (p.gatherScale)
      TP_RETURN_IF_ERROR(download(p.dGS, p.gatheredScale, compute, context));
  }
  results.clear();
  if (args.returnGathered) {
    results.push_back(p.gathered);
    if (p.scaled && p.gatherScale) {
      results.push_back(p.gatheredScale);
    } else if (p.scaled) {
      // A per-tensor scale, the same on every rank: the result is a copy of
      // the operand's, made on the device like every other result.
      Tensor scale = newResult(1, args.a.scale->dtype(), args.a.scale->shape(),
                               /*zeroed=*/false);
      TP_RETURN_IF_ERROR(download(p.dAScale, scale, compute, context));
      results.push_back(std::move(scale));
    }
  }
  for (Tensor &product : p.products)
    results.push_back(std::move(product));
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// matmul_reduce_scatter
//===----------------------------------------------------------------------===//

Status CudaRank::prepareReduceScatter(const MatmulReduceScatterArgs &args,
                                      int groupSize, int me,
                                      ReduceScatterPlan &plan) {
  const std::string &context = args.site;
  ReduceScatterPlan &p = plan;
  if (args.reduction != Reduction::Sum && args.reduction != Reduction::Avg)
    return Status::error(context +
                         ": a fused reduce-scatter reduces with sum or avg");
  // The staged partials are reduced and rounded by a kernel.
  TP_RETURN_IF_ERROR(checkKernelOutput(args.outType, context));
  const Tensor &a = *args.a.data;
  p.g = groupSize;
  p.me = me;
  p.scaled = args.a.isScaled();
  p.transposeB = args.transposeB || p.scaled;
  const Tensor &b = *args.b.data;
  p.k = a.shape().back();
  p.n = b.dim(b.rank() - (p.transposeB ? 2 : 1));
  p.productShape = a.shape();
  p.productShape.back() = p.n;
  p.dim = args.dim;
  p.nSplit = p.dim == a.rank() - 1;
  p.split = splitAt(p.productShape, p.dim);
  TP_RETURN_IF_ERROR(scatterShare(p.split.extent, p.dim, p.g, context, p.extL));
  // A per-batch B (an all-to-all's experts) cuts the rows of each batch.
  p.strideB = b.rank() > 2 ? p.k * p.n : 0;
  if (p.strideB && (p.nSplit || p.dim != a.rank() - 2))
    return Status::error(context + ": a per-batch B " + b.typeString() +
                         " needs the rows cut (dim " +
                         std::to_string(a.rank() - 2) + ")");
  std::vector<int64_t> reducedShape = p.productShape;
  reducedShape[p.dim] = p.extL;
  p.slice = p.split.outer * p.extL * p.split.inner;
  // Exchanging, the result stacks the g blocks received along the concat
  // dim, where StackedBlocks places them.
  std::vector<int64_t> resultShape = reducedShape;
  if (args.exchangeConcat) {
    p.stacked = StackedBlocks(reducedShape, *args.exchangeConcat, p.g);
    resultShape[*args.exchangeConcat] *= p.g;
  }
  p.reduced = newResult(args.returnUnreduced ? 1 : 0, args.outType, resultShape,
                        /*zeroed=*/false);
  if (p.k == 0 || p.n == 0 || a.numElements() == 0)
    return Status::error(context + ": the CUDA backend does not run fused "
                                   "ops on empty operands");
  p.totalRows = a.numElements() / p.k;
  p.rowsPerSlab = p.nSplit ? 0 : p.split.inner / p.n;
  p.elementBytes = byteSize(a.dtype());
  // Per_peer on the GPU (a ring's running sums would serialize the steps).
  // A scaled GEMM writes dense blocks: an N split takes its slice whole.
  p.schedule = args.schedule;
  if (p.schedule.ring() && p.stacked)
    return Status::error(context + ": an all-to-all cannot run the ring "
                                   "schedule (each peer takes its own block)");
  if (p.schedule.ring())
    p.schedule.algorithm = Schedule::Algorithm::PerPeer;
  if (p.scaled && p.nSplit)
    p.schedule.chunks = 1;
  p.chunks = p.schedule.pieces(p.extL);

  TP_RETURN_IF_ERROR(upload(a, "rs.a", p.dA, compute, context));
  TP_RETURN_IF_ERROR(upload(*args.b.data, "rs.b", p.dB, compute, context));
  if (p.scaled) {
    TP_RETURN_IF_ERROR(upload(*args.a.scale, "rs.as", p.dAS, compute, context));
    TP_RETURN_IF_ERROR(upload(*args.b.scale, "rs.bs", p.dBS, compute, context));
  }
  p.dAddend = nullptr;
  if (args.addend) {
    // Partials accumulate in fp32: the addend joins them widened (on the
    // device: the host never reads a buffer the compiled program owns).
    void *raw;
    int64_t count = args.addend->numElements();
    TP_RETURN_IF_ERROR(
        upload(*args.addend, "rs.addend.in", raw, compute, context));
    TP_RETURN_IF_ERROR(
        buffer("rs.addend", sizeof(float) * count, p.dAddend, context));
    TP_CUDA(launchWiden(raw, args.addend->dtype(), count,
                        static_cast<float *>(p.dAddend), compute));
  }
  p.dBias = nullptr;
  if (args.bias)
    TP_RETURN_IF_ERROR(upload(*args.bias, "rs.bias", p.dBias, comm, context));
  p.sliceBytes = sizeof(float) * p.slice;
  TP_RETURN_IF_ERROR(buffer("rs.w", p.sliceBytes * p.g, p.dW, context));
  TP_RETURN_IF_ERROR(buffer("rs.stage", p.sliceBytes * p.g, p.dStage, context));
  TP_RETURN_IF_ERROR(resultBuffer(p.reduced, "rs.out", p.dOut, context));
  TP_RETURN_IF_ERROR(
      buffer("rs.pointers", sizeof(void *) * p.g, p.dPointers, context));
  TP_CUDA(launchPointerTable(static_cast<const void **>(p.dPointers),
                             p.dStage, p.sliceBytes, p.g, comm));
  return eventPool(size_t(p.g) * p.chunks, context);
}

cudaError_t CudaRank::copyPiece(const ReduceScatterPlan &p, const void *src,
                                int64_t srcPitch, int64_t srcStart, void *dst,
                                int64_t dstPitch, int64_t dstStart, int64_t lo,
                                int64_t hi, size_t elemBytes,
                                cudaMemcpyKind kind,
                                cudaStream_t stream) const {
  size_t run = p.nSplit ? elemBytes : p.split.inner * elemBytes;
  int64_t rows = p.nSplit ? p.totalRows : p.split.outer;
  return cudaMemcpy2DAsync(
      static_cast<uint8_t *>(dst) + (dstStart + lo) * run, dstPitch * run,
      static_cast<const uint8_t *>(src) + (srcStart + lo) * run, srcPitch * run,
      (hi - lo) * run, rows, kind, stream);
}

Status CudaRank::computePartialStep(const MatmulReduceScatterArgs &args,
                                    const ReduceScatterPlan &p,
                                    const GemmStep &step, cudaStream_t stream) {
  // A row split with one outer block keeps the partials of consecutive
  // ranks as consecutive rows of dW: a run of them is one GEMM.
  for (const PartialGemm &call :
       partialGemms(step, p.extL, !p.nSplit && p.split.outer == 1))
    TP_RETURN_IF_ERROR(computePartialPiece(args, p, call.destination, call.lo,
                                           call.hi, stream));
  return Status::ok();
}

Status CudaRank::computePartialPiece(const MatmulReduceScatterArgs &args,
                                     const ReduceScatterPlan &p, int c,
                                     int64_t lo, int64_t hi,
                                     cudaStream_t stream) {
  const std::string &context = args.site;
  const Tensor &a = *args.a.data;
  const size_t es = p.elementBytes;
  float *w = p.partial(c);
  // A run past one slice (computePartialStep) is one row of slabs: any pitch
  // at least its width copies it.
  if (p.dAddend)
    TP_CUDA(copyPiece(p, p.dAddend, p.nSplit ? p.n : p.split.extent, c * p.extL,
                      w, std::max(p.extL, hi), 0, lo, hi, sizeof(float),
                      cudaMemcpyDeviceToDevice, stream));
  GemmProblem q;
  q.n = p.n;
  q.k = p.k;
  q.lda = p.k;
  q.ldb = p.transposeB ? p.k : p.n;
  q.aType = q.bType = a.dtype();
  q.dType = DType::F32;
  q.transposeB = p.transposeB;
  q.beta = p.dAddend ? 1.0f : 0.0f;
  q.smCountTarget = fusedGemmSms;
  if (p.nSplit) {
    q.m = p.totalRows;
    q.n = hi - lo;
    q.ldd = p.extL;
    int64_t n0 = c * p.extL + lo;
    const uint8_t *b =
        static_cast<uint8_t *>(p.dB) + (p.transposeB ? n0 * p.k : n0) * es;
    if (!p.scaled)
      return gemm.run(q, p.dA, b, w + lo, stream, context);
    const uint8_t *bScale = static_cast<uint8_t *>(p.dBS) +
                            n0 * (args.b.scale->numElements() / p.n) *
                                byteSize(args.b.scale->dtype());
    return scaledGemm(args.a, p.dA, p.dAS, args.b, b, bScale, p.totalRows,
                      hi - lo, p.k, nullptr, DType::F32, w + lo, stream,
                      context, fusedGemmSms);
  }
  if (!p.scaled) {
    q.m = (hi - lo) * p.rowsPerSlab;
    q.ldd = p.n;
    q.batch = p.split.outer;
    q.strideA = p.split.extent * p.rowsPerSlab * p.k;
    q.strideB = p.strideB;
    q.strideD = p.extL * p.rowsPerSlab * p.n;
    int64_t row0 = (c * p.extL + lo) * p.rowsPerSlab;
    return gemm.run(q, static_cast<uint8_t *>(p.dA) + row0 * p.k * es, p.dB,
                    w + lo * p.rowsPerSlab * p.n, stream, context);
  }
  int64_t scalePerRow =
      args.a.scale->rank() == 0 ? 0 : args.a.scale->numElements() / p.totalRows;
  for (int64_t o = 0; o < p.split.outer; ++o) {
    int64_t row0 = (o * p.split.extent + c * p.extL + lo) * p.rowsPerSlab;
    const void *aScale = static_cast<uint8_t *>(p.dAS) +
                         row0 * scalePerRow * byteSize(args.a.scale->dtype());
    TP_RETURN_IF_ERROR(scaledGemm(
        args.a, static_cast<uint8_t *>(p.dA) + row0 * p.k * es, aScale, args.b,
        p.dB, p.dBS, (hi - lo) * p.rowsPerSlab, p.n, p.k, nullptr, DType::F32,
        w + (o * p.extL + lo) * p.rowsPerSlab * p.n, stream, context,
        fusedGemmSms));
  }
  return Status::ok();
}

Status CudaRank::reduceStaged(const MatmulReduceScatterArgs &args,
                              ReduceScatterPlan &p) {
  const std::string &context = args.site;
  if (p.stacked)
    return placeStaged(args, p);
  TP_CUDA(launchReduce(static_cast<const void *const *>(p.dPointers), p.g,
                       DType::F32, p.slice, args.reduction, p.dBias,
                       args.outType, p.n, p.dOut, args.outType, comm));
  return download(p.dOut, p.reduced, comm, context);
}

Status CudaRank::placeStaged(const MatmulReduceScatterArgs &args,
                             ReduceScatterPlan &p) {
  // Each member's block, rounded to the result type, then copied to its
  // offset along the concat dim.
  const std::string &context = args.site;
  const size_t es = byteSize(args.outType);
  void *rounded;
  TP_RETURN_IF_ERROR(
      buffer("a2a.rounded", es * p.slice * p.g, rounded, context));
  for (int source = 0; source < p.g; ++source) {
    uint8_t *block = static_cast<uint8_t *>(rounded) + source * p.slice * es;
    TP_CUDA(launchConvert(static_cast<const float *>(p.staged(source)), p.slice,
                          nullptr, args.outType, 1, block, args.outType, comm));
    const size_t run = p.stacked->run * es;
    TP_CUDA(cudaMemcpy2DAsync(static_cast<uint8_t *>(p.dOut) + source * run,
                              p.g * run, block, run, run, p.stacked->outer,
                              cudaMemcpyDeviceToDevice, comm));
  }
  return download(p.dOut, p.reduced, comm, context);
}

Status CudaRank::unreducedProduct(const MatmulReduceScatterArgs &args,
                                  const ReduceScatterPlan &p, Tensor &product) {
  const std::string &context = args.site;
  product = newResult(0, args.outType, p.productShape, /*zeroed=*/false);
  void *dP32, *dP;
  TP_RETURN_IF_ERROR(
      buffer("rs.p32", sizeof(float) * product.numElements(), dP32, context));
  TP_RETURN_IF_ERROR(resultBuffer(product, "rs.p", dP, context));
  for (int c = 0; c < p.g; ++c)
    TP_CUDA(copyPiece(p, p.partial(c), p.extL, 0, dP32,
                      p.nSplit ? p.n : p.split.extent, c * p.extL, 0, p.extL,
                      sizeof(float), cudaMemcpyDeviceToDevice, compute));
  TP_CUDA(launchConvert(static_cast<float *>(dP32), product.numElements(),
                        nullptr, args.outType, 1, dP, args.outType, compute));
  return download(dP, product, compute, context);
}
