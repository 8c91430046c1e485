//===- CpuFused.cpp - pipelined fused schedules of the CPU backend --------===//
//
// all_gather_matmul: a communication thread brings the group's shards into
// this rank's gathered buffer piece by piece (per_peer: straight from each
// owner; ring: from the left neighbour's gathered buffer once it holds the
// piece) while this thread multiplies the pieces already there, writing each
// product piece in its final place.
//
// matmul_reduce_scatter: this thread computes the partial product destined to
// each rank piece by piece into a workspace. per_peer: the rank's
// communication thread sums the pieces destined to this rank as their owners
// make them; ring: each rank adds its left neighbour's running sum to its own
// partial and passes it on, so after group-size steps every rank holds its
// slice.
//
// Pieces: each rank's share along the gather/scatter dim is cut into
// `schedule.chunks` near-equal parts, made and taken in schedule order. How
// a piece travels (threads reading peers' buffers, or MPI messages) is the
// PieceGather / PartialReduce of startGather / startReduce (Pieces.h).
//
//===----------------------------------------------------------------------===//

#include "CpuBackend.h"
#include "Kernels.h"
#include "tp/Runtime/Numerics.h"

#include <algorithm>
#include <thread>

using namespace mlir::tp::rt;
using namespace mlir::tp::rt::cpu;

namespace {

constexpr auto pieceRange = Schedule::pieceRange;

/// What every rank of a fused op must agree on: the op, its schedule and
/// every operand's type (a peer with another B would read out of bounds).
std::string fusedSignature(const std::string &site, const Schedule &schedule,
                           std::initializer_list<const Tensor *> fixed,
                           const std::vector<Operand> &bs = {}) {
  std::string text = site + " (" + schedule.name() + ") on";
  for (const Tensor *t : fixed)
    text += " " + (t ? t->typeString() : std::string("-"));
  for (const Operand &b : bs)
    text += " " + b.data->typeString();
  return text;
}

/// Extent of the last dim (the contraction or output dim); 0 for scalars.
int64_t lastExtent(const Tensor &t) { return t.rank() ? t.shape().back() : 0; }

} // namespace

/// A GEMM step's trace label: "gemm r2 piece 1" (one piece), or the ranks
/// whose shares it merges, "gemm r2 r3 r0".
std::string cpu::gemmLabel(const Group &group, const GemmStep &step,
                           int chunks) {
  std::string label = "gemm";
  for (const PieceRef &piece : step.pieces)
    label += " r" + std::to_string(group.member(piece.member));
  if (step.pieces.size() == 1)
    label += " piece " + std::to_string(step.pieces[0].ordinal % chunks);
  return label;
}

Status CpuBackend::allGatherMatmul(const Group &group,
                                   const AllGatherMatmulArgs &args,
                                   std::vector<Tensor> &results) {
  bool degenerate = lastExtent(*args.a.data) == 0;
  for (size_t i = 0; i < args.bs.size(); ++i) {
    bool trans = args.transposeB || args.bs[i].isScaled();
    const Tensor &b = *args.bs[i].data;
    degenerate |= b.rank() == 2 && b.dim(trans ? 0 : 1) == 0;
  }
  if (degenerate)
    return composeAllGatherMatmul(group, args, results);
  bool wide = args.a.data->dtype() == DType::F64;
  for (const Operand &b : args.bs)
    wide |= b.data->dtype() == DType::F64;
  if (wide)
    return runAllGatherMatmul<double>(group, args, results);
  return runAllGatherMatmul<float>(group, args, results);
}

template <typename T>
Status CpuBackend::runAllGatherMatmul(const Group &group,
                                      const AllGatherMatmulArgs &args,
                                      std::vector<Tensor> &results) {
  const int g = group.size(), me = group.index;
  // An all-to-all moves this rank's block j to member j: the blocks, packed
  // side by side, are the shards, one per destination.
  Tensor packed, block;
  size_t destinationStride = 0;
  if (args.exchangeSplit) {
    std::vector<int64_t> blockShape;
    TP_RETURN_IF_ERROR(packAllToAllBlocks(*args.a.data, *args.exchangeSplit, g,
                                          args.site, packed, blockShape));
    destinationStride = packed.numBytes() / g;
    block = Tensor::borrow(packed.dtype(), blockShape,
                           static_cast<const uint8_t *>(packed.data()) +
                               me * destinationStride);
  }
  const Tensor &a = args.exchangeSplit ? block : *args.a.data;
  const int64_t d = args.dim;
  const bool kSplit = d == a.rank() - 1;
  const bool ring = args.schedule.ring();
  const DimSplit local = splitAt(a.shape(), d);
  std::vector<int64_t> gatheredShape = a.shape();
  gatheredShape[d] *= g;
  const int64_t extL = local.extent, extG = extL * g;
  const int64_t k = gatheredShape.back();
  const int64_t totalRows = k ? a.numElements() * g / k : 0;

  // Results: the gathered A (and its scale when gathered), then products.
  Tensor gathered = args.returnGathered
                        ? newResult(0, a.dtype(), gatheredShape)
                        : Tensor(a.dtype(), gatheredShape);
  const int firstProduct =
      args.returnGathered ? (args.a.isScaled() ? 2 : 1) : 0;
  // Row-wise and block scales travel with A; a per-tensor scale is shared.
  const bool gatherScale =
      args.a.isScaled() && *args.a.scaling != Scaling::PerTensor;
  Tensor gatheredScale;
  DimSplit scaleSplit;
  if (gatherScale) {
    std::vector<int64_t> shape = args.a.scale->shape();
    shape[d] *= g;
    gatheredScale = Tensor(args.a.scale->dtype(), shape);
    scaleSplit = splitAt(args.a.scale->shape(), d);
  }
  std::vector<GatherBuffer> buffers{
      {static_cast<const uint8_t *>(args.exchangeSplit ? packed.data()
                                                       : a.data()),
       static_cast<uint8_t *>(gathered.mutableData()), local,
       byteSize(a.dtype()), destinationStride}};
  if (gatherScale)
    buffers.push_back({static_cast<const uint8_t *>(args.a.scale->data()),
                       static_cast<uint8_t *>(gatheredScale.mutableData()),
                       scaleSplit, byteSize(args.a.scale->dtype())});

  // B operands as dense T matrices, and the product tensors.
  std::vector<DenseMatrix<T>> bs;
  std::vector<Tensor> products;
  std::vector<int64_t> ns;
  // One B per leading block of A (an all-to-all's experts), or one for all.
  std::vector<int64_t> bBatchStrides;
  for (size_t i = 0; i < args.bs.size(); ++i) {
    bs.emplace_back(args.bs[i]);
    bool trans = args.transposeB || args.bs[i].isScaled();
    const Tensor &b = *args.bs[i].data;
    int64_t perBatch = b.rank() > 2 ? b.numElements() / local.outer : 0;
    bBatchStrides.push_back(perBatch);
    int64_t bRows = perBatch ? b.dim(b.rank() - 2) : bs.back().rows();
    int64_t bk = trans ? bs.back().cols() : bRows;
    if (bk != k)
      return Status::error(args.site + ": B #" + std::to_string(i) + " " +
                           args.bs[i].data->typeString() +
                           " does not contract with the gathered A " +
                           gathered.typeString());
    ns.push_back(trans ? bRows : bs.back().cols());
    std::vector<int64_t> shape = gatheredShape;
    shape.back() = ns.back();
    products.push_back(newResult(firstProduct + static_cast<int>(i),
                                 args.outTypes[i], shape));
  }
  // A K-split gather accumulates every piece into whole products.
  std::vector<std::vector<T>> accumulators;
  if (kSplit)
    for (int64_t n : ns)
      accumulators.emplace_back(totalRows * n, T(0));

  const int chunks = args.schedule.pieces(extL);
  std::unique_ptr<PieceGather> gather;
  TP_RETURN_IF_ERROR(startGather(
      group, fusedSignature(args.site, args.schedule, {&a}, args.bs), buffers,
      extL, ring, chunks, args.site, gather));

  // The gathered A as an operand (scales gathered alongside when they are).
  Operand gatheredA = args.a;
  gatheredA.data = &gathered;
  if (gatherScale)
    gatheredA.scale = &gatheredScale;
  const bool directA =
      !args.a.isScaled() && std::is_same_v<T, float> && a.dtype() == DType::F32;
  const int64_t rowsPerSlab = kSplit ? 0 : local.inner / k;
  std::vector<T> aBlock, cBlock;
  Status status;
  for (const GemmStep &gemmStep : planGather(g, me, args.schedule, extL)) {
    for (const PieceRef &piece : gemmStep.pieces) {
      status = gather->waitFor(piece.ordinal,
                               args.site + " waiting for its communication");
      if (!status.isOk())
        break;
    }
    if (!status.isOk())
      break;
    TraceScope scope(world.trace(), rank, Stream::Compute,
                     gemmLabel(group, gemmStep, chunks), "gemm");
    for (const ExtentRun &run : gemmStep.runs(extL)) {
      if (kSplit) {
        // Columns [col0, col0 + cols) of A against rows of B.
        int64_t col0 = run.begin, cols = run.end - run.begin;
        aBlock.resize(totalRows * cols);
        loadBlock(gatheredA, 0, totalRows, col0, cols, aBlock.data());
        for (size_t i = 0; i < bs.size(); ++i) {
          bool trans = args.transposeB || args.bs[i].isScaled();
          const T *b = bs[i].data() + (trans ? col0 : col0 * ns[i]);
          gemm<T>(trans, totalRows, ns[i], cols, aBlock.data(), cols, b,
                  trans ? k : ns[i], accumulators[i].data(), ns[i], T(1));
        }
        continue;
      }
      for (int64_t o = 0; o < local.outer; ++o) {
        int64_t row0 = (o * extG + run.begin) * rowsPerSlab;
        int64_t rows = (run.end - run.begin) * rowsPerSlab;
        const T *aRows;
        if (directA) {
          aRows = reinterpret_cast<const T *>(gathered.as<float>() + row0 * k);
        } else {
          aBlock.resize(rows * k);
          loadBlock(gatheredA, row0, rows, 0, k, aBlock.data());
          aRows = aBlock.data();
        }
        for (size_t i = 0; i < bs.size(); ++i) {
          bool trans = args.transposeB || args.bs[i].isScaled();
          cBlock.resize(rows * ns[i]);
          gemm<T>(trans, rows, ns[i], k, aRows, k,
                  bs[i].data() + o * bBatchStrides[i], trans ? k : ns[i],
                  cBlock.data(), ns[i], T(0));
          if (args.biases[i])
            addBias(*args.biases[i], 0, rows, ns[i], cBlock.data());
          storeBlock(cBlock.data(), row0, rows, 0, ns[i], products[i]);
        }
      }
    }
  }
  TP_RETURN_IF_ERROR(gather->finish(status));

  if (kSplit)
    for (size_t i = 0; i < bs.size(); ++i) {
      if (args.biases[i])
        addBias(*args.biases[i], 0, totalRows, ns[i], accumulators[i].data());
      storeBlock(accumulators[i].data(), 0, totalRows, 0, ns[i], products[i]);
    }
  results.clear();
  if (args.returnGathered) {
    results.push_back(gathered);
    if (args.a.isScaled())
      results.push_back(gatherScale ? gatheredScale : *args.a.scale);
  }
  for (Tensor &product : products)
    results.push_back(std::move(product));
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// matmul_reduce_scatter
//===----------------------------------------------------------------------===//

Status CpuBackend::matmulReduceScatter(const Group &group,
                                       const MatmulReduceScatterArgs &args,
                                       std::vector<Tensor> &results) {
  if (args.reduction != Reduction::Sum && args.reduction != Reduction::Avg)
    return Status::error(args.site +
                         ": a fused reduce-scatter reduces with sum or avg");
  const Tensor &b = *args.b.data;
  bool trans = args.transposeB || args.b.isScaled();
  if (lastExtent(*args.a.data) == 0 ||
      (b.rank() >= 2 && b.dim(b.rank() - (trans ? 2 : 1)) == 0))
    return composeMatmulReduceScatter(group, args, results);
  if (needsDouble(args.a, args.b))
    return runMatmulReduceScatter<double>(group, args, results);
  return runMatmulReduceScatter<float>(group, args, results);
}

template <typename T>
Status CpuBackend::runMatmulReduceScatter(const Group &group,
                                          const MatmulReduceScatterArgs &args,
                                          std::vector<Tensor> &results) {
  const Tensor &a = *args.a.data;
  const int g = group.size(), me = group.index;
  const bool ring = args.schedule.ring();
  const PieceOrder order(g, me, args.schedule.algorithm);
  const bool trans = args.transposeB || args.b.isScaled();
  const bool exchange = args.exchangeConcat.has_value();
  if (exchange && ring)
    return Status::error(args.site +
                         ": an all-to-all cannot run the ring "
                         "schedule (each peer takes its own block)");
  DenseMatrix<T> bm(args.b);
  const Tensor &b = *args.b.data;
  const int64_t k = a.shape().back();
  // One B per batch (experts), or one for every row.
  const bool perBatchB = b.rank() > 2;
  const int64_t bRows = perBatchB ? b.dim(b.rank() - 2) : bm.rows();
  const int64_t n = trans ? bRows : bm.cols();
  if ((trans ? bm.cols() : bRows) != k)
    return Status::error(args.site + ": contraction dims differ: " +
                         a.typeString() + " and " + b.typeString());
  std::vector<int64_t> productShape = a.shape();
  productShape.back() = n;
  const int64_t d = args.dim;
  const bool nSplit = d == a.rank() - 1;
  const DimSplit split = splitAt(productShape, d);
  int64_t extL = 0;
  TP_RETURN_IF_ERROR(scatterShare(split.extent, d, g, args.site, extL));
  if (perBatchB &&
      (nSplit || d != a.rank() - 2 || b.numElements() != split.outer * k * n))
    return Status::error(args.site + ": a per-batch B " + b.typeString() +
                         " needs A's batch dims and the rows cut (dim " +
                         std::to_string(a.rank() - 2) + ")");
  const int64_t bBatchStride = perBatchB ? k * n : 0;
  // The slice this rank reduces (or, exchanging, the block it sends each
  // member), and the result: the slice, or the g blocks it receives stacked
  // along the concat dim.
  std::vector<int64_t> reducedShape = productShape;
  reducedShape[d] = extL;
  const int64_t sliceSize = split.outer * extL * split.inner;
  std::vector<int64_t> resultShape = reducedShape;
  if (exchange)
    resultShape[*args.exchangeConcat] *= g;
  Tensor reduced =
      newResult(args.returnUnreduced ? 1 : 0, args.outType, resultShape);
  // A block received from member p lands at offset p of the concat dim.
  const StackedBlocks stacked(reducedShape, args.exchangeConcat.value_or(0), g);
  const int64_t totalRows = n ? a.numElements() / k : 0;
  const int64_t rowsPerSlab = nSplit ? 0 : split.inner / n;

  // partials[c]: this rank's a @ b (+ addend) for the slice of rank c, in the
  // reduced slice's layout, the slices side by side (so a run of whole
  // slices of a row split is one GEMM). sums[s]: a ring rank's running sum
  // after step s.
  std::vector<T> partialStore(g * sliceSize);
  std::vector<T *> partials(g);
  for (int c = 0; c < g; ++c)
    partials[c] = partialStore.data() + c * sliceSize;
  std::vector<std::vector<T>> sums(ring ? g : 0, std::vector<T>(sliceSize));
  std::vector<void *> published;
  if (ring)
    for (std::vector<T> &slice : sums)
      published.push_back(slice.data());
  else
    published.assign(partials.begin(), partials.end());
  // A piece [lo, hi) of a slice: nSplit, a run of columns per row; else a
  // run of slabs per outer block.
  SliceLayout layout;
  layout.count = nSplit ? totalRows : split.outer;
  layout.unit = nSplit ? 1 : split.inner;
  layout.stride = extL * layout.unit;
  layout.elementBytes = sizeof(T);
  const int chunks = args.schedule.pieces(extL);
  std::unique_ptr<PartialReduce> pieces;
  TP_RETURN_IF_ERROR(
      startReduce(group,
                  fusedSignature(args.site, args.schedule,
                                 {&a, args.b.data, args.addend, args.bias}),
                  published, layout, ring, chunks, args.site, pieces));
  /// Calls fn(offset, length) for the contiguous runs of piece [lo, hi) in
  /// the reduced slice's layout.
  auto forEachRun = [&](int64_t lo, int64_t hi, auto &&fn) {
    if (nSplit) {
      for (int64_t r = 0; r < totalRows; ++r)
        fn(r * extL + lo, hi - lo);
      return;
    }
    for (int64_t o = 0; o < split.outer; ++o)
      fn((o * extL + lo) * split.inner, (hi - lo) * split.inner);
  };

  const Operand addend = Operand::plain(args.addend);
  std::vector<T> aBlock, addBlock;
  DenseMatrix<T> *aAll = nullptr;
  std::unique_ptr<DenseMatrix<T>> aDense;
  if (nSplit) {
    aDense = std::make_unique<DenseMatrix<T>>(args.a);
    aAll = aDense.get();
  }
  /// this rank's partial for piece [lo, hi) of rank c's slice. With c = 0
  /// and dst the whole store, [lo, hi) may span slices where they are rows
  /// of one block (a row split with one outer block).
  auto computePiece = [&](int c, int64_t lo, int64_t hi, T *dst) {
    if (nSplit) {
      int64_t n0 = c * extL + lo, cols = hi - lo;
      const T *b = bm.data() + (trans ? n0 * k : n0);
      gemm<T>(trans, totalRows, cols, k, aAll->data(), k, b, trans ? k : n,
              dst + lo, extL, T(0));
      if (args.addend) {
        addBlock.resize(totalRows * cols);
        loadBlock(addend, 0, totalRows, n0, cols, addBlock.data());
        for (int64_t r = 0; r < totalRows; ++r)
          for (int64_t j = 0; j < cols; ++j)
            dst[r * extL + lo + j] += addBlock[r * cols + j];
      }
      return;
    }
    for (int64_t o = 0; o < split.outer; ++o) {
      int64_t row0 = (o * split.extent + c * extL + lo) * rowsPerSlab;
      int64_t rows = (hi - lo) * rowsPerSlab;
      aBlock.resize(rows * k);
      loadBlock(args.a, row0, rows, 0, k, aBlock.data());
      T *out = dst + (o * extL + lo) * rowsPerSlab * n;
      gemm<T>(trans, rows, n, k, aBlock.data(), k, bm.data() + o * bBatchStride,
              trans ? k : n, out, n, T(0));
      if (args.addend) {
        addBlock.resize(rows * n);
        loadBlock(addend, row0, rows, 0, n, addBlock.data());
        for (int64_t i = 0; i < rows * n; ++i)
          out[i] += addBlock[i];
      }
    }
  };
  /// Rounds the finished piece [lo, hi) of `sum` into this rank's result.
  std::vector<double> biasValues(args.bias ? n : 0);
  for (int64_t j = 0; j < static_cast<int64_t>(biasValues.size()); ++j)
    biasValues[j] = args.bias->get(j);
  void *out = reduced.mutableData();
  const bool f32 = args.outType == DType::F32;
  const double scale = args.reduction == Reduction::Avg ? 1.0 / g : 1.0;
  auto finishPiece = [&](const double *sum, int64_t lo, int64_t hi) {
    forEachRun(lo, hi, [&](int64_t offset, int64_t length) {
      for (int64_t i = offset; i < offset + length; ++i) {
        double v = sum[i] * scale;
        if (args.bias)
          v += biasValues[i % n];
        if (f32)
          static_cast<float *>(out)[i] = static_cast<float>(v);
        else
          storeElement(out, args.outType, i, v);
      }
    });
  };

  Status status, commStatus;
  bool reducing = false;
  std::vector<double> total(exchange ? 0 : sliceSize, 0.0);
  if (!ring) {
    // Sums, in group order, the pieces every rank makes for this one.
    status = commThread.run([&] {
      for (int j = 0; j < chunks && commStatus.isOk(); ++j) {
        auto [lo, hi] = pieceRange(extL, chunks, j);
        for (int p = 0; p < g && commStatus.isOk(); ++p) {
          int64_t ordinal =
              int64_t(order.stepOfPartialFrom(p) - 1) * chunks + j;
          const void *slice = nullptr;
          commStatus = pieces->fetch(p, me, ordinal, lo, hi, slice);
          if (!commStatus.isOk())
            break;
          TraceScope scope(world.trace(), rank, Stream::Comm,
                           "reduce from r" + std::to_string(group.member(p)),
                           "comm");
          const T *piece = static_cast<const T *>(slice);
          if (exchange) {
            // Member p's block, in place along the concat dim.
            forEachRun(lo, hi, [&](int64_t offset, int64_t length) {
              for (int64_t i = offset; i < offset + length; ++i)
                storeElement(out, args.outType, stacked.destination(p, i),
                             piece[i]);
            });
            continue;
          }
          forEachRun(lo, hi, [&](int64_t offset, int64_t length) {
            for (int64_t i = offset; i < offset + length; ++i)
              total[i] += piece[i];
          });
        }
        if (commStatus.isOk() && !exchange)
          finishPiece(total.data(), lo, hi);
      }
    });
    reducing = status.isOk();
    // Partials for the next ranks first, this rank's own slice last.
    const bool wholeRuns = !nSplit && split.outer == 1;
    for (const GemmStep &gemmStep : planScatter(g, me, args.schedule, extL)) {
      if (world.failed()) {
        status = Status::error(args.site + ": stopped, another rank failed");
        break;
      }
      {
        std::string label = "gemm for";
        for (const PieceRef &piece : gemmStep.pieces)
          label += " r" + std::to_string(group.member(piece.member));
        TraceScope scope(world.trace(), rank, Stream::Compute, label, "gemm");
        if (wholeRuns)
          for (const ExtentRun &run : gemmStep.runs(extL))
            computePiece(0, run.begin, run.end, partialStore.data());
        else
          for (const PieceRef &piece : gemmStep.pieces)
            computePiece(piece.member, piece.lo, piece.hi,
                         partials[piece.member]);
      }
      for (const PieceRef &piece : gemmStep.pieces) {
        status = pieces->made(piece.member, piece.ordinal, piece.lo, piece.hi);
        if (!status.isOk())
          break;
      }
      if (!status.isOk())
        break;
    }
  } else {
    int left = order.left();
    for (int step = 0; step < g && status.isOk(); ++step) {
      int c = order.ringSliceAt(step);
      for (int j = 0; j < chunks && status.isOk(); ++j) {
        auto [lo, hi] = pieceRange(extL, chunks, j);
        {
          TraceScope scope(world.trace(), rank, Stream::Compute,
                           "gemm for r" + std::to_string(group.member(c)),
                           "gemm");
          computePiece(c, lo, hi, partials[c]);
        }
        std::vector<T> &sum = sums[step];
        const T *own = partials[c];
        if (step > 0) {
          const void *slice = nullptr;
          status = pieces->fetch(left, step - 1, int64_t(step - 1) * chunks + j,
                                 lo, hi, slice);
          if (!status.isOk())
            break;
          TraceScope scope(world.trace(), rank, Stream::Comm,
                           "add from r" + std::to_string(group.member(left)),
                           "comm");
          const T *incoming = static_cast<const T *>(slice);
          forEachRun(lo, hi, [&](int64_t offset, int64_t length) {
            for (int64_t i = offset; i < offset + length; ++i)
              sum[i] = own[i] + incoming[i];
          });
        } else {
          forEachRun(lo, hi, [&](int64_t offset, int64_t length) {
            std::copy(own + offset, own + offset + length,
                      sum.begin() + offset);
          });
        }
        if (step == g - 1) {
          forEachRun(lo, hi, [&](int64_t offset, int64_t length) {
            for (int64_t i = offset; i < offset + length; ++i)
              total[i] = sum[i];
          });
          finishPiece(total.data(), lo, hi);
        }
        status = pieces->made(step, int64_t(step) * chunks + j, lo, hi);
      }
    }
  }
  if (!status.isOk())
    pieces->cancel(status);
  if (reducing)
    commThread.wait();
  if (status.isOk() && !commStatus.isOk())
    status = commStatus;
  TP_RETURN_IF_ERROR(pieces->finish(status));

  results.clear();
  if (args.returnUnreduced) {
    // This rank's whole product, assembled from its partials.
    Tensor unreduced(args.outType, productShape);
    void *out = unreduced.mutableData();
    for (int c = 0; c < g; ++c) {
      const T *part = partials[c];
      if (nSplit) {
        for (int64_t r = 0; r < totalRows; ++r)
          for (int64_t j = 0; j < extL; ++j)
            storeElement(out, args.outType, r * n + c * extL + j,
                         part[r * extL + j]);
        continue;
      }
      int64_t run = extL * split.inner;
      for (int64_t o = 0; o < split.outer; ++o)
        for (int64_t i = 0; i < run; ++i)
          storeElement(out, args.outType,
                       (o * split.extent + c * extL) * split.inner + i,
                       part[o * run + i]);
    }
    results.push_back(std::move(unreduced));
  }
  results.push_back(std::move(reduced));
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Empty contractions and outputs
//===----------------------------------------------------------------------===//

/// `product` (+ bias over its last dim), rounded once to `outType`.
static Tensor withBias(const Tensor &product, const Tensor *bias,
                       DType outType) {
  Tensor out(outType, product.shape());
  int64_t n = lastExtent(product);
  for (int64_t i = 0, e = out.numElements(); i < e; ++i)
    out.set(i, product.get(i) + (bias && n ? bias->get(i % n) : 0.0));
  return out;
}

Status CpuBackend::composeAllGatherMatmul(const Group &group,
                                          const AllGatherMatmulArgs &args,
                                          std::vector<Tensor> &results) {
  Tensor gathered, gatheredScale;
  if (args.exchangeSplit)
    TP_RETURN_IF_ERROR(allToAll(group, *args.a.data, *args.exchangeSplit,
                                args.dim, args.site, gathered));
  else
    TP_RETURN_IF_ERROR(
        allGather(group, *args.a.data, args.dim, args.site, gathered));
  bool gatherScale = args.a.isScaled() && *args.a.scaling != Scaling::PerTensor;
  if (gatherScale)
    TP_RETURN_IF_ERROR(
        allGather(group, *args.a.scale, args.dim, args.site, gatheredScale));
  results.clear();
  if (args.returnGathered) {
    results.push_back(gathered);
    if (args.a.isScaled())
      results.push_back(gatherScale ? gatheredScale : *args.a.scale);
  }
  Operand a = args.a;
  a.data = &gathered;
  if (gatherScale)
    a.scale = &gatheredScale;
  for (size_t i = 0; i < args.bs.size(); ++i) {
    Tensor product;
    if (a.isScaled())
      TP_RETURN_IF_ERROR(scaledMatmul(a, args.bs[i], args.biases[i],
                                      args.outTypes[i], args.site, product));
    else
      TP_RETURN_IF_ERROR(matmul(gathered, *args.bs[i].data, args.transposeB,
                                args.site, product));
    results.push_back(
        a.isScaled() ? product
                     : withBias(product, args.biases[i], args.outTypes[i]));
  }
  return Status::ok();
}

Status
CpuBackend::composeMatmulReduceScatter(const Group &group,
                                       const MatmulReduceScatterArgs &args,
                                       std::vector<Tensor> &results) {
  Tensor product;
  if (args.a.isScaled())
    TP_RETURN_IF_ERROR(scaledMatmul(args.a, args.b, nullptr, args.outType,
                                    args.site, product));
  else
    TP_RETURN_IF_ERROR(matmul(*args.a.data, *args.b.data, args.transposeB,
                              args.site, product));
  if (args.addend)
    for (int64_t i = 0, e = product.numElements(); i < e; ++i)
      product.set(i, product.get(i) + args.addend->get(i));
  Tensor reduced;
  if (args.exchangeConcat)
    TP_RETURN_IF_ERROR(allToAll(group, product, args.dim, *args.exchangeConcat,
                                args.site, reduced));
  else
    TP_RETURN_IF_ERROR(reduceScatter(group, product, args.dim, args.reduction,
                                     args.site, reduced));
  results.clear();
  if (args.returnUnreduced)
    results.push_back(withBias(product, nullptr, args.outType));
  results.push_back(withBias(reduced, args.bias, args.outType));
  return Status::ok();
}
