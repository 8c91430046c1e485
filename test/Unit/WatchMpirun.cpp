//===- WatchMpirun.cpp - mpirun watched as tp-run watches it --------------===//
//
//   tp-watch-mpirun MPIRUN ARGS...
//
// Runs mpirun through runMpirun, as `tp-run --transport mpi` does, and exits
// with the job's status. The lit suites start every MPI job this way: Open
// MPI 4.1's mpirun can hang in its own finalize after a rank's MPI_Abort,
// with every rank ended, and runMpirun stops it (MpirunJob.h).
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/MpirunJob.h"

#include <cstdio>

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: tp-watch-mpirun MPIRUN ARGS...\n");
    return 2;
  }
  int exitStatus = 1;
  mlir::tp::rt::Status job = mlir::tp::rt::runMpirun(
      std::vector<std::string>(argv + 1, argv + argc), exitStatus);
  if (!job.isOk()) {
    std::fprintf(stderr, "tp-watch-mpirun: %s\n", job.message().c_str());
    return exitStatus == 0 ? 1 : exitStatus;
  }
  return exitStatus;
}
