//===- CpuFused.cpp - pipelined fused schedules of the CPU backend --------===//
//
// all_gather_matmul: a communication thread brings the group's shards into
// this rank's gathered buffer piece by piece (per_peer: straight from each
// owner; ring: from the left neighbour's gathered buffer once it holds the
// piece) while this thread multiplies the pieces already there, writing each
// product piece in its final place.
//
// matmul_reduce_scatter is CpuScatter.cpp's.
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
#include <functional>

using namespace mlir::tp::rt;
using namespace mlir::tp::rt::cpu;

namespace {

/// Extent of the last dim (the contraction or output dim); 0 for scalars.
int64_t lastExtent(const Tensor &t) { return t.rank() ? t.shape().back() : 0; }

} // namespace

std::string cpu::fusedSignature(const std::string &site,
                                const Schedule &schedule,
                                std::initializer_list<const Tensor *> fixed,
                                const std::vector<Operand> &bs) {
  std::string text = site + " (" + schedule.name() + ") on";
  for (const Tensor *t : fixed)
    text += " " + (t ? t->typeString() : std::string("-"));
  for (const Operand &b : bs)
    text += " " + b.data->typeString();
  return text;
}

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

namespace {

/// One rank's all_gather_matmul: the gathered A (and its scale when that
/// travels with it), the B operands as dense matrices, and how a run of
/// gathered rows (or, for a K split, columns) is multiplied into the
/// products.
template <typename T> class GatherWork {
public:
  using MakeResult =
      std::function<Tensor(int, DType, const std::vector<int64_t> &)>;

  GatherWork(const AllGatherMatmulArgs &args, const Group &group)
      : args(args), g(group.size()), me(group.index) {}

  /// Checks B against the gathered A and makes the results (`makeResult`
  /// hands out result buffers) and workspaces.
  Status plan(const MakeResult &makeResult) {
    // An all-to-all moves this rank's block j to member j: the blocks,
    // packed side by side, are the shards, one per destination.
    if (args.exchangeSplit) {
      std::vector<int64_t> blockShape;
      TP_RETURN_IF_ERROR(packAllToAllBlocks(*args.a.data, *args.exchangeSplit,
                                            g, args.site, packed, blockShape));
      destinationStride = packed.numBytes() / g;
      block = Tensor::borrow(packed.dtype(), blockShape,
                             static_cast<const uint8_t *>(packed.data()) +
                                 me * destinationStride);
    }
    const Tensor &a = shard();
    kSplit = args.dim == a.rank() - 1;
    local = splitAt(a.shape(), args.dim);
    std::vector<int64_t> gatheredShape = a.shape();
    gatheredShape[args.dim] *= g;
    k = gatheredShape.back();
    totalRows = k ? a.numElements() * g / k : 0;
    rowsPerSlab = kSplit ? 0 : local.inner / k;

    // Results: the gathered A (and its scale when gathered), then products.
    gathered = args.returnGathered ? makeResult(0, a.dtype(), gatheredShape)
                                   : Tensor(a.dtype(), gatheredShape);
    const int firstProduct =
        args.returnGathered ? (args.a.isScaled() ? 2 : 1) : 0;
    // Row-wise and block scales travel with A; a per-tensor scale is shared.
    gatherScale = args.a.isScaled() && *args.a.scaling != Scaling::PerTensor;
    if (gatherScale) {
      std::vector<int64_t> shape = args.a.scale->shape();
      shape[args.dim] *= g;
      gatheredScale = Tensor(args.a.scale->dtype(), shape);
    }
    gatheredA = args.a;
    gatheredA.data = &gathered;
    if (gatherScale)
      gatheredA.scale = &gatheredScale;
    directA = !args.a.isScaled() && std::is_same_v<T, float> &&
              a.dtype() == DType::F32;

    for (size_t i = 0; i < args.bs.size(); ++i) {
      bs.emplace_back(args.bs[i]);
      bool trans = transposed(i);
      const Tensor &b = *args.bs[i].data;
      // One B per leading block of A (an all-to-all's experts), or one for
      // all.
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
      products.push_back(makeResult(firstProduct + static_cast<int>(i),
                                    args.outTypes[i], shape));
    }
    // A K-split gather accumulates every piece into whole products.
    if (kSplit)
      for (int64_t n : ns)
        accumulators.emplace_back(totalRows * n, T(0));
    return Status::ok();
  }

  /// This rank's shard of A: its own, or its block of the exchanged one.
  const Tensor &shard() const {
    return args.exchangeSplit ? block : *args.a.data;
  }
  /// The extent of one member's share along the gather dim.
  int64_t shareExtent() const { return local.extent; }

  /// Where the shards (and scales) arrive.
  std::vector<GatherBuffer> buffers() {
    const Tensor &a = shard();
    std::vector<GatherBuffer> list{
        {static_cast<const uint8_t *>(args.exchangeSplit ? packed.data()
                                                         : a.data()),
         static_cast<uint8_t *>(gathered.mutableData()), local,
         byteSize(a.dtype()), destinationStride}};
    if (gatherScale)
      list.push_back({static_cast<const uint8_t *>(args.a.scale->data()),
                      static_cast<uint8_t *>(gatheredScale.mutableData()),
                      splitAt(args.a.scale->shape(), args.dim),
                      byteSize(args.a.scale->dtype())});
    return list;
  }

  /// Multiplies the gathered run [run.begin, run.end) of the gather dim.
  void multiply(const ExtentRun &run) {
    if (kSplit) {
      // Columns [col0, col0 + cols) of A against rows of B.
      int64_t col0 = run.begin, cols = run.end - run.begin;
      aBlock.resize(totalRows * cols);
      loadBlock(gatheredA, 0, totalRows, col0, cols, aBlock.data());
      for (size_t i = 0; i < bs.size(); ++i) {
        bool trans = transposed(i);
        const T *b = bs[i].data() + (trans ? col0 : col0 * ns[i]);
        gemm<T>(trans, totalRows, ns[i], cols, aBlock.data(), cols, b,
                trans ? k : ns[i], accumulators[i].data(), ns[i], T(1));
      }
      return;
    }
    const int64_t extG = local.extent * g;
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
        bool trans = transposed(i);
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

  /// The op's results, once every piece is multiplied.
  void finish(std::vector<Tensor> &results) {
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
  }

private:
  bool transposed(size_t i) const {
    return args.transposeB || args.bs[i].isScaled();
  }

  const AllGatherMatmulArgs &args;
  const int g, me;
  Tensor packed, block;
  size_t destinationStride = 0;
  bool kSplit = false, gatherScale = false, directA = false;
  DimSplit local;
  int64_t k = 0, totalRows = 0, rowsPerSlab = 0;
  Tensor gathered, gatheredScale;
  Operand gatheredA;
  std::vector<DenseMatrix<T>> bs;
  std::vector<int64_t> ns, bBatchStrides;
  std::vector<Tensor> products;
  std::vector<std::vector<T>> accumulators;
  std::vector<T> aBlock, cBlock;
};

} // namespace

template <typename T>
Status CpuBackend::runAllGatherMatmul(const Group &group,
                                      const AllGatherMatmulArgs &args,
                                      std::vector<Tensor> &results) {
  GatherWork<T> work(args, group);
  TP_RETURN_IF_ERROR(
      work.plan([this](int index, DType dtype, const std::vector<int64_t> &s) {
        return newResult(index, dtype, s);
      }));
  const int64_t extL = work.shareExtent();
  const int chunks = args.schedule.pieces(extL);
  std::unique_ptr<PieceGather> gather;
  TP_RETURN_IF_ERROR(startGather(
      group, fusedSignature(args.site, args.schedule, {&work.shard()}, args.bs),
      work.buffers(), extL, args.schedule.ring(), chunks, args.site, gather));
  Status status =
      runGatherSteps(group, args.schedule, extL, chunks, *gather, args.site,
                     [&](const ExtentRun &run) { work.multiply(run); });
  TP_RETURN_IF_ERROR(gather->finish(status));
  work.finish(results);
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
