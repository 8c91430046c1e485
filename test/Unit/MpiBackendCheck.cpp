//===- MpiBackendCheck.cpp - the MPI CPU backend against threads ----------===//
//
//   mpirun -n N tp-mpi-backend-check [CASES]
//
// Every process is one rank of the MPI CPU backend. For each seeded random
// case (every collective and fused op, with its options, dtypes, schedules,
// and groups that are a whole world or one axis of a 2-D grid), it runs its
// rank's op over MPI, then runs the same case on N threads of the thread
// backend here, and checks that its results have the same shapes, types and
// bits. Rank 0 prints the verdict; a mismatch names the case and the rank,
// and the job exits non-zero.
//
//===----------------------------------------------------------------------===//

#include "CpuHarness.h"
#include "tp/Runtime/MpiGroup.h"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

using namespace mlir::tp::rt;
using namespace mlir::tp::rt::cputest;

namespace {

enum class Op {
  AllGather,
  ReduceScatter,
  AllReduce,
  AllToAll,
  AllGatherMatmul,
  MatmulReduceScatter,
  AllGatherContract,
  Count
};
const char *opName(Op op) {
  static const char *names[] = {"all_gather",         "reduce_scatter",
                                "all_reduce",         "all_to_all",
                                "all_gather_matmul",  "matmul_reduce_scatter",
                                "all_gather_contract"};
  return names[static_cast<int>(op)];
}

/// One case: the op, its options, and every world rank's operands.
struct Case {
  Op op = Op::AllGather;
  DType type = DType::F32;
  std::vector<int64_t> grid;
  std::vector<int> axes;
  int64_t dim = 0, concat = 0;
  Reduction reduction = Reduction::Sum;
  bool transposeB = false, withBias = false, withAddend = false;
  bool returnExtra = false;
  int products = 1;
  Schedule schedule;
  /// Per world rank: the operands (the op's first input first).
  std::vector<std::vector<Tensor>> operands;
  std::string text;
};

std::vector<int64_t> randomShape(Rng &rng, int rank, int64_t lo, int64_t hi) {
  std::vector<int64_t> shape;
  for (int i = 0; i < rank; ++i)
    shape.push_back(rng.uniform(lo, hi));
  return shape;
}

Case makeCase(int index, int worldSize) {
  Rng rng(0x3B1D5EEDull * 7919 + index);
  Case c;
  c.op = static_cast<Op>(rng.uniform(0, int(Op::Count) - 1));
  c.type = rng.pick({DType::F32, DType::BF16, DType::F64, DType::F16});
  // A whole world, or one axis of a 2 x N/2 grid (groups that run
  // concurrently and share no member).
  c.grid = {worldSize};
  c.axes = {0};
  if (worldSize % 2 == 0 && worldSize > 2 && rng.coin()) {
    c.grid = {2, worldSize / 2};
    c.axes = {int(rng.uniform(0, 1))};
  }
  const int g = int(c.grid[c.axes[0]]);
  c.schedule.algorithm =
      rng.pick({Schedule::Algorithm::Ring, Schedule::Algorithm::PerPeer,
                Schedule::Algorithm::Coalesced});
  c.schedule.chunks = int(rng.uniform(1, 3));
  c.reduction = rng.pick({Reduction::Sum, Reduction::Avg, Reduction::Max,
                          Reduction::Min});
  c.transposeB = rng.coin();
  c.withBias = rng.coin();
  c.withAddend = rng.coin();
  c.returnExtra = rng.coin();
  c.products = int(rng.uniform(1, 2));

  // Shapes every rank shares, then each rank's values.
  std::vector<std::vector<int64_t>> shapes;
  switch (c.op) {
  case Op::AllGather:
  case Op::AllReduce:
  case Op::ReduceScatter:
  case Op::AllToAll: {
    std::vector<int64_t> shape = randomShape(rng, int(rng.uniform(1, 3)), 0, 4);
    c.dim = rng.uniform(0, int64_t(shape.size()) - 1);
    c.concat = rng.uniform(0, int64_t(shape.size()) - 1);
    if (c.op == Op::ReduceScatter || c.op == Op::AllToAll)
      shape[c.dim] *= g;
    shapes = {shape};
    break;
  }
  case Op::AllGatherMatmul: {
    // A [.., M, K] gathered along any dim, including K.
    std::vector<int64_t> a = randomShape(rng, int(rng.uniform(2, 3)), 1, 4);
    c.dim = rng.uniform(0, int64_t(a.size()) - 1);
    int64_t k = a.back() * (c.dim == int64_t(a.size()) - 1 ? g : 1);
    shapes = {a};
    for (int i = 0; i < c.products; ++i) {
      int64_t n = rng.uniform(1, 5);
      shapes.push_back(c.transposeB ? std::vector<int64_t>{n, k}
                                    : std::vector<int64_t>{k, n});
      shapes.push_back({n});
    }
    break;
  }
  case Op::MatmulReduceScatter: {
    // A [.., M, K] @ B, scattered along any dim of the product.
    std::vector<int64_t> a = randomShape(rng, int(rng.uniform(2, 3)), 1, 4);
    int64_t n = rng.uniform(1, 4);
    c.dim = rng.uniform(0, int64_t(a.size()) - 1);
    if (c.dim == int64_t(a.size()) - 1)
      n *= g;
    else
      a[c.dim] *= g;
    std::vector<int64_t> product = a;
    product.back() = n;
    int64_t k = a.back();
    c.reduction = rng.pick({Reduction::Sum, Reduction::Avg});
    shapes = {a,
              c.transposeB ? std::vector<int64_t>{n, k}
                           : std::vector<int64_t>{k, n},
              product,
              {n}};
    break;
  }
  case Op::AllGatherContract: {
    // The weight gradient: dY^T [m, K] . X [K, n], X's K gathered.
    int64_t kLocal = rng.uniform(1, 4), m = rng.uniform(1, 5),
            n = rng.uniform(1, 5);
    shapes = {{kLocal, n}};
    for (int i = 0; i < c.products; ++i)
      shapes.push_back({kLocal * g, m});
    break;
  }
  case Op::Count:
    break;
  }
  for (int r = 0; r < worldSize; ++r) {
    Rng values(0x5EEDull * 104729 + index * 131 + r);
    std::vector<Tensor> operands;
    for (const std::vector<int64_t> &shape : shapes)
      operands.push_back(randomTensor(c.type, shape, values));
    c.operands.push_back(std::move(operands));
  }
  std::ostringstream text;
  text << "case " << index << ": " << opName(c.op) << " " << name(c.type) << " "
       << c.operands[0][0].typeString() << " dim " << c.dim << " grid "
       << c.grid.size() << "-D axis " << c.axes[0] << " " << c.schedule.name()
       << "/" << c.schedule.chunks;
  c.text = text.str();
  return c;
}

/// Runs world rank `rank`'s part of `c` on `backend`.
Status runCase(const Case &c, int rank, Backend &backend,
               std::vector<Tensor> &results) {
  Group group = makeGroup(c.grid, c.axes, rank);
  const std::vector<Tensor> &in = c.operands[rank];
  results.clear();
  Tensor out;
  switch (c.op) {
  case Op::AllGather:
    TP_RETURN_IF_ERROR(backend.allGather(group, in[0], c.dim, c.text, out));
    break;
  case Op::ReduceScatter:
    TP_RETURN_IF_ERROR(
        backend.reduceScatter(group, in[0], c.dim, c.reduction, c.text, out));
    break;
  case Op::AllReduce:
    TP_RETURN_IF_ERROR(
        backend.allReduce(group, in[0], c.reduction, c.text, out));
    break;
  case Op::AllToAll:
    TP_RETURN_IF_ERROR(
        backend.allToAll(group, in[0], c.dim, c.concat, c.text, out));
    break;
  case Op::AllGatherMatmul: {
    AllGatherMatmulArgs args;
    args.a = Operand::plain(&in[0]);
    for (int i = 0; i < c.products; ++i) {
      args.bs.push_back(Operand::plain(&in[1 + 2 * i]));
      args.biases.push_back(c.withBias ? &in[2 + 2 * i] : nullptr);
      args.outTypes.push_back(c.type);
    }
    args.dim = c.dim;
    args.transposeB = c.transposeB;
    args.returnGathered = c.returnExtra;
    args.schedule = c.schedule;
    args.site = c.text;
    return backend.allGatherMatmul(group, args, results);
  }
  case Op::MatmulReduceScatter: {
    MatmulReduceScatterArgs args;
    args.a = Operand::plain(&in[0]);
    args.b = Operand::plain(&in[1]);
    args.addend = c.withAddend ? &in[2] : nullptr;
    args.bias = c.withBias ? &in[3] : nullptr;
    args.outType = c.type;
    args.dim = c.dim;
    args.reduction = c.reduction;
    args.transposeB = c.transposeB;
    args.returnUnreduced = c.returnExtra;
    args.schedule = c.schedule;
    args.site = c.text;
    return backend.matmulReduceScatter(group, args, results);
  }
  case Op::AllGatherContract: {
    AllGatherContractArgs args;
    args.x = &in[0];
    for (int i = 0; i < c.products; ++i)
      args.others.push_back(&in[1 + i]);
    args.dim = 0;
    args.transposeA = true;
    args.returnGathered = c.returnExtra;
    args.schedule = c.schedule;
    args.site = c.text;
    return backend.allGatherContract(group, args, results);
  }
  case Op::Count:
    break;
  }
  results.push_back(std::move(out));
  return Status::ok();
}

/// Empty when `got` and `want` have the same shapes, types and bits.
std::string difference(const std::vector<Tensor> &got,
                       const std::vector<Tensor> &want) {
  if (got.size() != want.size())
    return std::to_string(got.size()) + " results, threads give " +
           std::to_string(want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i].typeString() != want[i].typeString())
      return "result " + std::to_string(i) + " is " + got[i].typeString() +
             ", threads give " + want[i].typeString();
    if (got[i].numBytes() &&
        std::memcmp(got[i].data(), want[i].data(), got[i].numBytes()) != 0)
      return "result " + std::to_string(i) + " differs from the threads'";
  }
  return "";
}

/// A rank that starts 2.5 s late (a slow compile) must not make its peers'
/// first collective, with a 1 s timeout, time out: every rank waits in
/// waitForPeersToStart first. Empty when it holds.
std::string lateStartProblem(int rank, int size) {
  std::unique_ptr<Backend> mpi;
  Status created =
      createMpiCpuBackend(std::chrono::milliseconds(1000), nullptr, mpi);
  if (!created)
    return created.message();
  if (rank == size - 1)
    std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  Status ready = mpi->waitForPeersToStart(std::chrono::seconds(30));
  if (!ready)
    return ready.message();
  Group group = makeGroup({size}, {0}, rank);
  Tensor input(DType::F32, {2});
  Tensor gathered;
  Status gatheredStatus =
      mpi->allGather(group, input, 0, "late start check", gathered);
  return gatheredStatus.isOk() ? "" : gatheredStatus.message();
}

} // namespace

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int cases = argc > 1 ? std::atoi(argv[1]) : 200;
  int failures = 0, errors = 0;
  {
    std::unique_ptr<Backend> mpi;
    Status created = createMpiCpuBackend(kTimeout, nullptr, mpi);
    if (!created) {
      std::fprintf(stderr, "rank %d: %s\n", rank, created.message().c_str());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int index = 0; index < cases; ++index) {
      Case c = makeCase(index, size);
      std::vector<Tensor> got;
      Status status = runCase(c, rank, *mpi, got);
      std::vector<std::vector<Tensor>> want(size);
      std::vector<Status> threads = runRanks(size, [&](int r, Backend &backend) {
        return runCase(c, r, backend, want[r]);
      });
      std::string why;
      if (status.isOk() != threads[rank].isOk())
        why = "MPI says '" + (status.isOk() ? "ok" : status.message()) +
              "', threads say '" +
              (threads[rank].isOk() ? "ok" : threads[rank].message()) + "'";
      else if (status.isOk())
        why = difference(got, want[rank]);
      else
        ++errors;
      if (!why.empty()) {
        std::printf("FAILED %s, rank %d: %s\n", c.text.c_str(), rank,
                    why.c_str());
        ++failures;
      }
    }
  }
  if (std::string problem = lateStartProblem(rank, size); !problem.empty()) {
    std::printf("FAILED late start, rank %d: %s\n", rank, problem.c_str());
    ++failures;
  } else if (rank == 0) {
    std::printf("late start: every rank waited for the last one\n");
  }
  int total = 0, erred = 0;
  MPI_Reduce(&failures, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&errors, &erred, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  // Cases that fail the same way on both (a shape the op refuses) count as
  // agreeing, but a check where most cases fail would check little.
  if (rank == 0)
    std::printf("mpi-backend-check: %d cases on %d ranks, %d mismatched, %d "
                "rank-cases failed alike\n",
                cases, size, total, erred);
  std::fflush(stdout);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
