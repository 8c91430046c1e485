//===- CpuScatter.cpp - matmul_reduce_scatter on the CPU backend ----------===//
//
// This rank computes the partial product destined to each member, piece by
// piece, into a workspace:
//  - per_peer: the rank's communication thread sums the pieces destined to
//    this rank as their owners make them, in group order;
//  - ring: each rank adds its left neighbour's running sum to its own
//    partial and passes it on, so after group-size steps every rank holds
//    its slice.
// Exchanging (matmul_all_to_all) instead of reducing, the communication
// thread places each member's block (StackedBlocks) instead of summing.
// How a piece travels (threads reading peers' buffers, or MPI messages) is
// the PartialReduce of startReduce (Pieces.h); the order is planScatter's.
//
//===----------------------------------------------------------------------===//

#include "CpuBackend.h"
#include "Kernels.h"
#include "tp/Runtime/Numerics.h"

#include <algorithm>
#include <optional>

using namespace mlir::tp::rt;
using namespace mlir::tp::rt::cpu;

namespace {

constexpr auto pieceRange = Schedule::pieceRange;

/// One rank's matmul_reduce_scatter: its shapes; its partial for every
/// member's slice, in the reduced slice's layout with the slices side by
/// side (so a run of whole slices of a row split is one GEMM); and how a
/// piece of them is made and finished.
template <typename T> class ScatterWork {
public:
  ScatterWork(const MatmulReduceScatterArgs &args, const Group &group)
      : args(args), g(group.size()), me(group.index),
        order(g, me, args.schedule.algorithm), ring(args.schedule.ring()),
        trans(args.transposeB || args.b.isScaled()),
        exchange(args.exchangeConcat.has_value()), bm(args.b),
        addend(Operand::plain(args.addend)) {}

  /// Checks the operands against each other and sizes the slices.
  Status plan() {
    const Tensor &a = *args.a.data, &b = *args.b.data;
    if (exchange && ring)
      return Status::error(args.site +
                           ": an all-to-all cannot run the ring "
                           "schedule (each peer takes its own block)");
    k = a.shape().back();
    // One B per batch (experts), or one for every row.
    const bool perBatchB = b.rank() > 2;
    const int64_t bRows = perBatchB ? b.dim(b.rank() - 2) : bm.rows();
    n = trans ? bRows : bm.cols();
    if ((trans ? bm.cols() : bRows) != k)
      return Status::error(args.site + ": contraction dims differ: " +
                           a.typeString() + " and " + b.typeString());
    productShape = a.shape();
    productShape.back() = n;
    const int64_t d = args.dim;
    nSplit = d == a.rank() - 1;
    split = splitAt(productShape, d);
    TP_RETURN_IF_ERROR(scatterShare(split.extent, d, g, args.site, extL));
    if (perBatchB &&
        (nSplit || d != a.rank() - 2 || b.numElements() != split.outer * k * n))
      return Status::error(args.site + ": a per-batch B " + b.typeString() +
                           " needs A's batch dims and the rows cut (dim " +
                           std::to_string(a.rank() - 2) + ")");
    bBatchStride = perBatchB ? k * n : 0;
    // The slice this rank reduces (or, exchanging, the block it sends each
    // member), and the result: the slice, or the g blocks it receives
    // stacked along the concat dim.
    reducedShape = productShape;
    reducedShape[d] = extL;
    sliceSize = split.outer * extL * split.inner;
    resultShape = reducedShape;
    if (exchange)
      resultShape[*args.exchangeConcat] *= g;
    stacked.emplace(reducedShape, args.exchangeConcat.value_or(0), g);
    totalRows = n ? a.numElements() / k : 0;
    rowsPerSlab = nSplit ? 0 : split.inner / n;
    return Status::ok();
  }

  /// Makes the workspaces; `result` is the (reduced or exchanged) result.
  void allocate(Tensor result) {
    reduced = std::move(result);
    out = reduced.mutableData();
    partialStore.assign(g * sliceSize, T(0));
    partials.resize(g);
    for (int c = 0; c < g; ++c)
      partials[c] = partialStore.data() + c * sliceSize;
    // sums[s]: a ring rank's running sum after step s.
    sums.assign(ring ? g : 0, std::vector<T>(sliceSize));
    total.assign(exchange ? 0 : sliceSize, 0.0);
    biasValues.resize(args.bias ? n : 0);
    for (int64_t j = 0; j < static_cast<int64_t>(biasValues.size()); ++j)
      biasValues[j] = args.bias->get(j);
    if (nSplit)
      aDense = std::make_unique<DenseMatrix<T>>(args.a);
  }

  /// The buffers peers read: the running sums (ring) or the partials.
  std::vector<void *> published() {
    std::vector<void *> buffers;
    if (ring)
      for (std::vector<T> &slice : sums)
        buffers.push_back(slice.data());
    else
      buffers.assign(partials.begin(), partials.end());
    return buffers;
  }

  /// A piece [lo, hi) of a slice: with nSplit, a run of columns per row;
  /// else a run of slabs per outer block.
  SliceLayout layout() const {
    SliceLayout layout;
    layout.count = nSplit ? totalRows : split.outer;
    layout.unit = nSplit ? 1 : split.inner;
    layout.stride = extL * layout.unit;
    layout.elementBytes = sizeof(T);
    return layout;
  }

  /// Calls fn(offset, length) for the contiguous runs of piece [lo, hi) in
  /// the reduced slice's layout.
  template <typename Fn> void forEachRun(int64_t lo, int64_t hi, Fn &&fn) {
    if (nSplit) {
      for (int64_t r = 0; r < totalRows; ++r)
        fn(r * extL + lo, hi - lo);
      return;
    }
    for (int64_t o = 0; o < split.outer; ++o)
      fn((o * extL + lo) * split.inner, (hi - lo) * split.inner);
  }

  /// This rank's partial for piece [lo, hi) of member c's slice into `dst`.
  /// With c = 0 and dst the whole store, [lo, hi) may span slices where
  /// they are rows of one block (a row split with one outer block).
  void computePiece(int c, int64_t lo, int64_t hi, T *dst) {
    if (nSplit) {
      int64_t n0 = c * extL + lo, cols = hi - lo;
      const T *b = bm.data() + (trans ? n0 * k : n0);
      gemm<T>(trans, totalRows, cols, k, aDense->data(), k, b, trans ? k : n,
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
      T *product = dst + (o * extL + lo) * rowsPerSlab * n;
      gemm<T>(trans, rows, n, k, aBlock.data(), k, bm.data() + o * bBatchStride,
              trans ? k : n, product, n, T(0));
      if (args.addend) {
        addBlock.resize(rows * n);
        loadBlock(addend, row0, rows, 0, n, addBlock.data());
        for (int64_t i = 0; i < rows * n; ++i)
          product[i] += addBlock[i];
      }
    }
  }

  /// Whether a step's pieces can be made as runs of the whole store: a row
  /// split with one outer block, where slices are consecutive rows.
  bool wholeRuns() const { return !nSplit && split.outer == 1; }

  /// Adds member p's piece [lo, hi) to the running total or, exchanging,
  /// places it as member p's block.
  void takePiece(int p, const T *piece, int64_t lo, int64_t hi) {
    forEachRun(lo, hi, [&](int64_t offset, int64_t length) {
      for (int64_t i = offset; i < offset + length; ++i) {
        if (exchange)
          storeElement(out, args.outType, stacked->destination(p, i), piece[i]);
        else
          total[i] += piece[i];
      }
    });
  }

  /// Rounds the finished piece [lo, hi) of the total into the result.
  void finishPiece(int64_t lo, int64_t hi) {
    const bool f32 = args.outType == DType::F32;
    const double scale = args.reduction == Reduction::Avg ? 1.0 / g : 1.0;
    forEachRun(lo, hi, [&](int64_t offset, int64_t length) {
      for (int64_t i = offset; i < offset + length; ++i) {
        double v = total[i] * scale;
        if (args.bias)
          v += biasValues[i % n];
        if (f32)
          static_cast<float *>(out)[i] = static_cast<float>(v);
        else
          storeElement(out, args.outType, i, v);
      }
    });
  }

  /// Ring step `step`, piece [lo, hi): this rank's running sum is its
  /// partial for slice c plus `incoming` (its left neighbour's sum, null at
  /// step 0); the last step's sum is the total.
  void extendSum(int step, int c, const T *incoming, int64_t lo, int64_t hi) {
    std::vector<T> &sum = sums[step];
    const T *own = partials[c];
    forEachRun(lo, hi, [&](int64_t offset, int64_t length) {
      for (int64_t i = offset; i < offset + length; ++i)
        sum[i] = incoming ? own[i] + incoming[i] : own[i];
      if (step == g - 1)
        for (int64_t i = offset; i < offset + length; ++i)
          total[i] = sum[i];
    });
  }

  /// This rank's whole product, assembled from its partials.
  Tensor unreduced() const {
    Tensor whole(args.outType, productShape);
    void *dst = whole.mutableData();
    for (int c = 0; c < g; ++c) {
      const T *part = partials[c];
      if (nSplit) {
        for (int64_t r = 0; r < totalRows; ++r)
          for (int64_t j = 0; j < extL; ++j)
            storeElement(dst, args.outType, r * n + c * extL + j,
                         part[r * extL + j]);
        continue;
      }
      int64_t run = extL * split.inner;
      for (int64_t o = 0; o < split.outer; ++o)
        for (int64_t i = 0; i < run; ++i)
          storeElement(dst, args.outType,
                       (o * split.extent + c * extL) * split.inner + i,
                       part[o * run + i]);
    }
    return whole;
  }

  const MatmulReduceScatterArgs &args;
  const int g, me;
  const PieceOrder order;
  const bool ring, trans, exchange;
  std::vector<int64_t> resultShape;
  int64_t extL = 0;
  std::vector<T *> partials;
  std::vector<T> partialStore;
  Tensor reduced;

private:
  DenseMatrix<T> bm;
  const Operand addend;
  std::unique_ptr<DenseMatrix<T>> aDense;
  std::vector<T> aBlock, addBlock;
  int64_t k = 0, n = 0, totalRows = 0, rowsPerSlab = 0, bBatchStride = 0,
          sliceSize = 0;
  bool nSplit = false;
  DimSplit split;
  std::vector<int64_t> productShape, reducedShape;
  std::optional<StackedBlocks> stacked;
  std::vector<std::vector<T>> sums;
  std::vector<double> total, biasValues;
  void *out = nullptr;
};

/// What the schedules need of the rank that runs them.
struct ScatterRank {
  World &world;
  int rank;
  CommThread &comm;
  const Group &group;

  TraceScope trace(Stream stream, const std::string &label,
                   const char *category) const {
    return TraceScope(world.trace(), rank, stream, label, category);
  }
};

/// per_peer: the communication thread sums (or places), in group order, the
/// pieces every member makes for this one, while this thread makes the
/// partials for the next members first and this rank's own slice last.
template <typename T>
Status scatterPerPeer(const ScatterRank &self, ScatterWork<T> &work,
                      PartialReduce &pieces, int chunks) {
  const MatmulReduceScatterArgs &args = work.args;
  const int64_t extL = work.extL;
  Status commStatus;
  Status status = self.comm.run([&] {
    for (int j = 0; j < chunks && commStatus.isOk(); ++j) {
      auto [lo, hi] = pieceRange(extL, chunks, j);
      for (int p = 0; p < work.g && commStatus.isOk(); ++p) {
        int64_t ordinal =
            int64_t(work.order.stepOfPartialFrom(p) - 1) * chunks + j;
        const void *slice = nullptr;
        commStatus = pieces.fetch(p, work.me, ordinal, lo, hi, slice);
        if (!commStatus.isOk())
          break;
        auto scope = self.trace(
            Stream::Comm,
            "reduce from r" + std::to_string(self.group.member(p)), "comm");
        work.takePiece(p, static_cast<const T *>(slice), lo, hi);
      }
      if (commStatus.isOk() && !work.exchange)
        work.finishPiece(lo, hi);
    }
  });
  const bool reducing = status.isOk();
  for (const GemmStep &gemmStep :
       planScatter(work.g, work.me, args.schedule, extL)) {
    if (!status.isOk())
      break;
    if (self.world.failed()) {
      status = Status::error(args.site + ": stopped, another rank failed");
      break;
    }
    {
      std::string label = "gemm for";
      for (const PieceRef &piece : gemmStep.pieces)
        label += " r" + std::to_string(self.group.member(piece.member));
      auto scope = self.trace(Stream::Compute, label, "gemm");
      if (work.wholeRuns())
        for (const ExtentRun &run : gemmStep.runs(extL))
          work.computePiece(0, run.begin, run.end, work.partialStore.data());
      else
        for (const PieceRef &piece : gemmStep.pieces)
          work.computePiece(piece.member, piece.lo, piece.hi,
                            work.partials[piece.member]);
    }
    for (const PieceRef &piece : gemmStep.pieces) {
      status = pieces.made(piece.member, piece.ordinal, piece.lo, piece.hi);
      if (!status.isOk())
        break;
    }
  }
  if (!status.isOk())
    pieces.cancel(status);
  if (reducing)
    self.comm.wait();
  return status.isOk() ? commStatus : status;
}

/// ring: at step s this rank makes its partial for the slice its running
/// sum extends, adds its left neighbour's sum of step s - 1 and passes the
/// result on; the last step completes its own slice.
template <typename T>
Status scatterRing(const ScatterRank &self, ScatterWork<T> &work,
                   PartialReduce &pieces, int chunks) {
  const int left = work.order.left();
  Status status;
  for (int step = 0; step < work.g && status.isOk(); ++step) {
    int c = work.order.ringSliceAt(step);
    for (int j = 0; j < chunks && status.isOk(); ++j) {
      auto [lo, hi] = pieceRange(work.extL, chunks, j);
      {
        auto scope = self.trace(
            Stream::Compute,
            "gemm for r" + std::to_string(self.group.member(c)), "gemm");
        work.computePiece(c, lo, hi, work.partials[c]);
      }
      if (step > 0) {
        const void *incoming = nullptr;
        status = pieces.fetch(left, step - 1, int64_t(step - 1) * chunks + j,
                              lo, hi, incoming);
        if (!status.isOk())
          break;
        auto scope = self.trace(
            Stream::Comm,
            "add from r" + std::to_string(self.group.member(left)), "comm");
        work.extendSum(step, c, static_cast<const T *>(incoming), lo, hi);
      } else {
        work.extendSum(step, c, nullptr, lo, hi);
      }
      if (step == work.g - 1)
        work.finishPiece(lo, hi);
      status = pieces.made(step, int64_t(step) * chunks + j, lo, hi);
    }
  }
  if (!status.isOk())
    pieces.cancel(status);
  return status;
}

} // namespace

Status CpuBackend::matmulReduceScatter(const Group &group,
                                       const MatmulReduceScatterArgs &args,
                                       std::vector<Tensor> &results) {
  if (args.reduction != Reduction::Sum && args.reduction != Reduction::Avg)
    return Status::error(args.site +
                         ": a fused reduce-scatter reduces with sum or avg");
  const Tensor &b = *args.b.data;
  bool trans = args.transposeB || args.b.isScaled();
  if (args.a.data->rank() == 0 || args.a.data->shape().back() == 0 ||
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
  ScatterWork<T> work(args, group);
  TP_RETURN_IF_ERROR(work.plan());
  work.allocate(
      newResult(args.returnUnreduced ? 1 : 0, args.outType, work.resultShape));
  const int chunks = args.schedule.pieces(work.extL);
  std::unique_ptr<PartialReduce> pieces;
  TP_RETURN_IF_ERROR(startReduce(
      group,
      fusedSignature(args.site, args.schedule,
                     {args.a.data, args.b.data, args.addend, args.bias}),
      work.published(), work.layout(), work.ring, chunks, args.site, pieces));
  const ScatterRank self{world, rank, commThread, group};
  Status status = work.ring ? scatterRing(self, work, *pieces, chunks)
                            : scatterPerPeer(self, work, *pieces, chunks);
  TP_RETURN_IF_ERROR(pieces->finish(status));
  results.clear();
  if (args.returnUnreduced)
    results.push_back(work.unreduced());
  results.push_back(std::move(work.reduced));
  return Status::ok();
}
