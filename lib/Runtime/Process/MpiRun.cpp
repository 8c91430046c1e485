//===- MpiRun.cpp - ahead-of-time programs as MPI ranks -------------------===//
//
// The C entry points of tp/Runtime/ABI.h for a program started by mpirun:
// every process holds one rank, on the CPU backend over MPI.
//
//===----------------------------------------------------------------------===//

#include "../ABI/RunState.h"
#include "tp/Runtime/MpiGroup.h"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>

using namespace mlir::tp::rt;

extern "C" {

TPRtRun *tpRtMpiRunCreate(int64_t timeoutMs) {
  if (timeoutMs < 1)
    return nullptr;
  int initialized = 0;
  MPI_Initialized(&initialized);
  int provided = MPI_THREAD_SINGLE;
  if (!initialized &&
      MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided) !=
          MPI_SUCCESS) {
    std::fprintf(stderr, "tpRtMpiRunCreate: MPI_Init_thread failed\n");
    return nullptr;
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::chrono::milliseconds timeout(timeoutMs);
  auto run = std::make_unique<TPRtRun>(size, timeout);
  std::unique_ptr<Backend> backend;
  if (Status status = createMpiCpuBackend(timeout, nullptr, backend);
      !status) {
    std::fprintf(stderr, "tpRtMpiRunCreate: %s\n", status.message().c_str());
    if (!initialized)
      MPI_Finalize();
    return nullptr;
  }
  // The ranks on this node share its cores.
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank,
                      MPI_INFO_NULL, &node);
  int nodeSize = 1;
  MPI_Comm_size(node, &nodeSize);
  MPI_Comm_free(&node);
  configureCpuThreads(nodeSize);

  run->firstRank = rank;
  run->backends.push_back(std::move(backend));
  run->contexts.push_back(
      std::make_unique<TPRtContext>(*run->backends.back(), run->world, rank));
  if (!initialized)
    run->afterDestroy = [] { MPI_Finalize(); };
  return run.release();
}

int32_t tpRtMpiRunRank(TPRtRun *run) { return run ? run->firstRank : -1; }

void tpRtMpiAbort(const char *message) {
  std::fprintf(stderr, "MPI rank failed: %s\n", message ? message : "");
  std::fflush(stderr);
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized)
    MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);
}

} // extern "C"
