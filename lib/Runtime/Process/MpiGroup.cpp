//===- MpiGroup.cpp - ranks started by mpirun -----------------------------===//

#include "tp/Runtime/MpiGroup.h"

#include <mpi.h>

#include <climits>
#include <cstdio>

using namespace mlir::tp::rt;

namespace {

class MpiGroup final : public ProcessGroup {
public:
  MpiGroup() {
    MPI_Comm_rank(MPI_COMM_WORLD, &myRank);
    MPI_Comm_size(MPI_COMM_WORLD, &worldSize);
    // The ranks sharing this node's memory: their order picks the GPUs.
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, myRank,
                        MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nodeRank);
    MPI_Comm_size(node, &nodeSize);
    MPI_Comm_free(&node);
  }
  ~MpiGroup() override { MPI_Finalize(); }

  int rank() const override { return myRank; }
  int size() const override { return worldSize; }
  int localRank() const override { return nodeRank; }
  int localSize() const override { return nodeSize; }
  bool collects() const override { return myRank == 0; }

  Status bootstrap(const std::function<Status(std::string &)> &make,
                   std::string &blob) override {
    // Rank 0 makes it; whether that worked travels with it, so every rank
    // fails with rank 0's message rather than waiting for a blob.
    std::string text;
    int made = 1;
    if (myRank == 0) {
      Status status = make(blob);
      made = status.isOk();
      text = made ? blob : status.message();
    }
    TP_RETURN_IF_ERROR(broadcast(text));
    MPI_Bcast(&made, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!made)
      return Status::error("rank 0 could not bootstrap the run: " + text);
    blob = text;
    return Status::ok();
  }

  Status gather(const std::string &mine,
                std::vector<std::string> &all) override {
    all.clear();
    if (mine.size() > INT_MAX)
      return Status::error("rank " + std::to_string(myRank) + ": its report (" +
                           std::to_string(mine.size()) +
                           " bytes) is too large for MPI_Gatherv");
    int size = static_cast<int>(mine.size());
    std::vector<int> sizes(myRank == 0 ? worldSize : 0);
    MPI_Gather(&size, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<int> offsets(sizes.size());
    long long total = 0;
    for (size_t r = 0; r < sizes.size(); ++r) {
      offsets[r] = static_cast<int>(total);
      total += sizes[r];
    }
    if (total > INT_MAX)
      return Status::error("the ranks' reports (" + std::to_string(total) +
                           " bytes) are too large for MPI_Gatherv");
    std::string joined(static_cast<size_t>(total), '\0');
    MPI_Gatherv(mine.data(), size, MPI_CHAR, joined.data(), sizes.data(),
                offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
    for (size_t r = 0; r < sizes.size(); ++r)
      all.push_back(joined.substr(offsets[r], sizes[r]));
    return Status::ok();
  }

  [[noreturn]] void abort(const std::string &message) override {
    std::fprintf(stderr, "MPI rank %d failed: %s\n", myRank, message.c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    std::_Exit(1);
  }

private:
  Status broadcast(std::string &text) {
    unsigned long long size = text.size();
    MPI_Bcast(&size, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    if (size > INT_MAX)
      return Status::error("bootstrap blob too large");
    text.resize(size);
    MPI_Bcast(text.data(), static_cast<int>(size), MPI_CHAR, 0, MPI_COMM_WORLD);
    return Status::ok();
  }

  int myRank = 0, worldSize = 1, nodeRank = 0, nodeSize = 1;
};

} // namespace

Status mlir::tp::rt::joinMpiRun(std::unique_ptr<ProcessGroup> &group) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  // The MPI CPU backend calls MPI from a rank's compute and communication
  // threads (one at a time).
  int provided = MPI_THREAD_SINGLE;
  if (!initialized && MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE,
                                      &provided) != MPI_SUCCESS)
    return Status::error("MPI_Init_thread failed");
  group = std::make_unique<MpiGroup>();
  return Status::ok();
}
