//===- CpuBackend.cpp - collectives and GEMMs of the CPU backend ----------===//

#include "CpuBackend.h"
#include "Kernels.h"
#include "tp/Runtime/Numerics.h"

#include <algorithm>
#include <cblas.h>
#include <cstring>
#include <thread>

using namespace mlir::tp::rt;
using namespace mlir::tp::rt::cpu;

Backend::~Backend() = default;

Tensor Backend::newResult(int index, DType dtype, std::vector<int64_t> shape,
                          bool zeroed) {
  if (index >= 0 && index < static_cast<int>(offered.size())) {
    Tensor &view = offered[index];
    if (!view.empty() && view.dtype() == dtype && view.shape() == shape) {
      Tensor result = std::move(view);
      view = Tensor();
      if (zeroed)
        std::memset(result.mutableData(), 0, result.numBytes());
      return result;
    }
  }
  return Tensor(dtype, std::move(shape));
}

std::unique_ptr<Backend> mlir::tp::rt::createCpuBackend(World &world,
                                                        int rank) {
  return std::make_unique<CpuBackend>(world, rank);
}

extern "C" void openblas_set_num_threads(int);

void mlir::tp::rt::configureCpuThreads(int ranks) {
  int cores = std::max(1u, std::thread::hardware_concurrency());
  openblas_set_num_threads(std::max(1, cores / std::max(1, ranks)));
}

static std::string signatureOf(const std::string &site, const Tensor &input) {
  return site + " on " + input.typeString();
}

Status CpuBackend::allGather(const Group &group, const Tensor &input,
                             int64_t dim, const std::string &site,
                             Tensor &result) {
  TraceScope scope(world.trace(), rank, Stream::Comm, "all_gather", "comm");
  std::vector<int64_t> shape = input.shape();
  shape[dim] *= group.size();
  result = newResult(0, input.dtype(), shape, /*zeroed=*/false);
  uint8_t *out = static_cast<uint8_t *>(result.mutableData());
  std::shared_ptr<Exchange> ex;
  TP_RETURN_IF_ERROR(
      world.join(group, signatureOf(site, input), &input, nullptr, ex));
  DimSplit split = splitAt(input.shape(), dim);
  for (int i = 0; i < group.size(); ++i) {
    auto *peer = static_cast<const Tensor *>(ex->published[i]);
    copySlabs(static_cast<const uint8_t *>(peer->data()), split.extent, 0, out,
              split.extent * group.size(), i * split.extent, split.extent,
              split, byteSize(input.dtype()));
  }
  return world.leave(group, ex);
}

Status CpuBackend::reduce(const Group &group, const Tensor &input, int64_t dim,
                          bool scatter, Reduction reduction,
                          const std::string &site, Tensor &result) {
  int g = group.size();
  DimSplit split = splitAt(input.shape(), scatter ? dim : 0);
  std::vector<int64_t> shape = input.shape();
  int64_t extent = split.extent, start = 0;
  if (scatter) {
    TP_RETURN_IF_ERROR(scatterShare(split.extent, dim, g, site, extent));
    start = group.index * extent;
    shape[dim] = extent;
  }
  result = newResult(0, input.dtype(), shape, /*zeroed=*/false);
  std::shared_ptr<Exchange> ex;
  TP_RETURN_IF_ERROR(
      world.join(group, signatureOf(site, input), &input, nullptr, ex));
  std::vector<const void *> peers(g);
  for (int i = 0; i < g; ++i)
    peers[i] = static_cast<const Tensor *>(ex->published[i])->data();
  reduceRuns(peers, input.dtype(), reduction, split.outer,
             extent * split.inner, split.extent * split.inner,
             start * split.inner, result.mutableData());
  return world.leave(group, ex);
}

Status CpuBackend::reduceScatter(const Group &group, const Tensor &input,
                                 int64_t dim, Reduction reduction,
                                 const std::string &site, Tensor &result) {
  TraceScope scope(world.trace(), rank, Stream::Comm, "reduce_scatter", "comm");
  return reduce(group, input, dim, /*scatter=*/true, reduction, site, result);
}

Status CpuBackend::allReduce(const Group &group, const Tensor &input,
                             Reduction reduction, const std::string &site,
                             Tensor &result) {
  TraceScope scope(world.trace(), rank, Stream::Comm, "all_reduce", "comm");
  return reduce(group, input, 0, /*scatter=*/false, reduction, site, result);
}

Status mlir::tp::rt::packAllToAllBlocks(const Tensor &input, int64_t split,
                                        int groupSize, const std::string &site,
                                        Tensor &packed,
                                        std::vector<int64_t> &blockShape) {
  AllToAllShapes shapes;
  TP_RETURN_IF_ERROR(allToAllShapes(input.shape(), split, /*concat=*/split,
                                    groupSize, site, shapes));
  blockShape = shapes.block;
  packed = Tensor(input.dtype(), {input.numElements()});
  const DimSplit in = splitAt(input.shape(), split);
  const int64_t blockExtent = shapes.block[split];
  const size_t bytes = byteSize(input.dtype());
  const size_t blockBytes = input.numBytes() / groupSize;
  auto *out = static_cast<uint8_t *>(packed.mutableData());
  for (int j = 0; j < groupSize; ++j)
    copySlabs(static_cast<const uint8_t *>(input.data()), in.extent,
              j * blockExtent, out + j * blockBytes, blockExtent, 0,
              blockExtent, in, bytes);
  return Status::ok();
}

Status CpuBackend::allToAll(const Group &group, const Tensor &input,
                            int64_t split, int64_t concat,
                            const std::string &site, Tensor &result) {
  TraceScope scope(world.trace(), rank, Stream::Comm, "all_to_all", "comm");
  int g = group.size();
  AllToAllShapes shapes;
  TP_RETURN_IF_ERROR(
      allToAllShapes(input.shape(), split, concat, g, site, shapes));
  DimSplit in = splitAt(input.shape(), split);
  result = newResult(0, input.dtype(), shapes.result, /*zeroed=*/false);
  int64_t blockExtent = shapes.block[split];
  DimSplit block = splitAt(shapes.block, concat);
  size_t bytes = byteSize(input.dtype());
  std::vector<uint8_t> staging(input.numBytes() / g);
  uint8_t *out = static_cast<uint8_t *>(result.mutableData());
  std::shared_ptr<Exchange> ex;
  TP_RETURN_IF_ERROR(
      world.join(group, signatureOf(site, input), &input, nullptr, ex));
  for (int i = 0; i < g; ++i) {
    // Block `group.index` of member i, packed, then placed i-th along concat.
    auto *peer = static_cast<const Tensor *>(ex->published[i]);
    copySlabs(static_cast<const uint8_t *>(peer->data()), in.extent,
              group.index * blockExtent, staging.data(), blockExtent, 0,
              blockExtent, in, bytes);
    copySlabs(staging.data(), block.extent, 0, out, block.extent * g,
              i * block.extent, block.extent, block, bytes);
  }
  return world.leave(group, ex);
}

/// `makeResult(shape)` makes the result, which the GEMM overwrites whole.
template <typename T, typename MakeResult>
static Status runMatmul(const Tensor &a, const Tensor &b, bool transposeB,
                        const std::string &site, MakeResult makeResult,
                        Tensor &result) {
  if (a.rank() < 2 || (b.rank() != 2 && b.rank() != a.rank()))
    return Status::error(site + ": cannot multiply " + a.typeString() + " by " +
                         b.typeString());
  int64_t k = a.shape().back();
  int64_t bk = b.dim(b.rank() - (transposeB ? 1 : 2));
  int64_t n = b.dim(b.rank() - (transposeB ? 2 : 1));
  if (k != bk)
    return Status::error(site + ": contraction dims differ: " + a.typeString() +
                         " and " + b.typeString());
  std::vector<int64_t> shape = a.shape();
  shape.back() = n;
  result = makeResult(shape);
  DenseMatrix<T> am(Operand::plain(&a)), bm(Operand::plain(&b));
  // The GEMM writes straight into the result when it holds T already.
  bool direct = (sizeof(T) == 4 && result.dtype() == DType::F32) ||
                (sizeof(T) == 8 && result.dtype() == DType::F64);
  std::vector<T> staging(direct ? 0 : am.rows() * n);
  T *c = direct ? static_cast<T *>(result.mutableData()) : staging.data();
  if (b.rank() == 2) {
    gemm<T>(transposeB, am.rows(), n, k, am.data(), k, bm.data(),
            transposeB ? k : n, c, n, T(0));
  } else {
    int64_t batch = 1;
    for (int64_t d = 0; d + 2 < b.rank(); ++d)
      batch *= b.dim(d);
    int64_t m = batch ? am.rows() / batch : 0;
    for (int64_t i = 0; i < batch; ++i)
      gemm<T>(transposeB, m, n, k, am.data() + i * m * k, k,
              bm.data() + i * k * n, transposeB ? k : n, c + i * m * n, n,
              T(0));
  }
  if (!direct)
    storeBlock(c, 0, am.rows(), 0, n, result);
  return Status::ok();
}

Status CpuBackend::matmul(const Tensor &a, const Tensor &b, bool transposeB,
                          const std::string &site, Tensor &result) {
  TraceScope scope(world.trace(), rank, Stream::Compute, "matmul", "gemm");
  auto makeResult = [&](std::vector<int64_t> shape) {
    return newResult(0, a.dtype(), std::move(shape), /*zeroed=*/false);
  };
  if (a.dtype() == DType::F64)
    return runMatmul<double>(a, b, transposeB, site, makeResult, result);
  return runMatmul<float>(a, b, transposeB, site, makeResult, result);
}

Status CpuBackend::scaledMatmul(const Operand &a, const Operand &b,
                                const Tensor *bias, DType outType,
                                const std::string &site, Tensor &result) {
  TraceScope scope(world.trace(), rank, Stream::Compute, "scaled_matmul",
                   "gemm");
  DenseMatrix<float> am(a), bm(b);
  if (am.cols() != bm.cols())
    return Status::error(site + ": contraction dims differ: " +
                         a.data->typeString() + " and " + b.data->typeString());
  std::vector<int64_t> shape = a.data->shape();
  shape.back() = bm.rows();
  result = newResult(0, outType, shape, /*zeroed=*/false);
  std::vector<float> c(am.rows() * bm.rows());
  gemm<float>(true, am.rows(), bm.rows(), am.cols(), am.data(), am.cols(),
              bm.data(), bm.cols(), c.data(), bm.rows(), 0.0f);
  if (bias)
    addBias(*bias, 0, am.rows(), bm.rows(), c.data());
  storeBlock(c.data(), 0, am.rows(), 0, bm.rows(), result);
  return Status::ok();
}
