//===- Runtime.cpp - C API of the tp runtime ------------------------------===//

#include "tp-c/Runtime.h"
#include "tp/Execution/Execution.h"
#include "tp/Execution/ProcessRun.h"
#include "tp/Execution/Values.h"
#include "tp/Runtime/Files.h"
#include "tp/Runtime/Launch.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
namespace rt = mlir::tp::rt;

static rt::Tensor *unwrapTensor(TPTensor t) {
  return static_cast<rt::Tensor *>(t.ptr);
}

TPTensor tpTensorCreate(const char *dtype, const int64_t *shape,
                        intptr_t rank) {
  std::optional<rt::DType> type = rt::parseDType(dtype);
  if (!type || rank < 0)
    return TPTensor{nullptr};
  return TPTensor{
      new rt::Tensor(*type, std::vector<int64_t>(shape, shape + rank))};
}

void tpTensorDestroy(TPTensor tensor) { delete unwrapTensor(tensor); }
intptr_t tpTensorRank(TPTensor tensor) { return unwrapTensor(tensor)->rank(); }
int64_t tpTensorDim(TPTensor tensor, intptr_t dim) {
  return unwrapTensor(tensor)->dim(dim);
}
int64_t tpTensorNumElements(TPTensor tensor) {
  return unwrapTensor(tensor)->numElements();
}
double tpTensorGet(TPTensor tensor, int64_t index) {
  return unwrapTensor(tensor)->get(index);
}
void tpTensorSet(TPTensor tensor, int64_t index, double value) {
  unwrapTensor(tensor)->set(index, value);
}

MlirLogicalResult tpRunSPMD(MlirOperation func, int ranks, const char *backend,
                            const TPTensor *inputs, TPTensor *results,
                            MlirStringCallback onError, void *userData) {
  auto report = [&](const std::string &message) {
    if (onError)
      onError(mlirStringRefCreate(message.data(), message.size()), userData);
    return mlirLogicalResultFailure();
  };
  auto entry = dyn_cast<func::FuncOp>(unwrap(func));
  if (!entry)
    return report("tpRunSPMD: the operation is not a func.func");
  if (ranks < 1)
    return report("tpRunSPMD: ranks must be at least 1");
  size_t numArgs = entry.getNumArguments();
  size_t numResults = entry.getNumResults();
  std::vector<mlir::tp::RankValues> perRank(ranks);
  for (int r = 0; r < ranks; ++r)
    for (size_t i = 0; i < numArgs; ++i) {
      rt::Tensor *t = unwrapTensor(inputs[r * numArgs + i]);
      if (!t)
        return report("tpRunSPMD: input " + std::to_string(i) + " of rank " +
                      std::to_string(r) + " is null");
      perRank[r].args.push_back(*t);
    }
  mlir::tp::ExecutionOptions options;
  options.ranks = ranks;
  options.backend = backend ? backend : "cpu";
  rt::Status status = mlir::tp::executeSPMD(entry, options, perRank);
  if (!status.isOk())
    return report(status.message());
  for (int r = 0; r < ranks; ++r)
    for (size_t j = 0; j < numResults; ++j)
      results[r * numResults + j] =
          TPTensor{new rt::Tensor(perRank[r].results[j])};
  return mlirLogicalResultSuccess();
}

/// Reports `message` through `onError` and fails.
static MlirLogicalResult failWith(const std::string &message,
                                  MlirStringCallback onError, void *userData) {
  if (onError)
    onError(mlirStringRefCreate(message.data(), message.size()), userData);
  return mlirLogicalResultFailure();
}

static rt::ProcessGroup *unwrapProcess(TPRankProcess process) {
  return static_cast<rt::ProcessGroup *>(process.ptr);
}

MlirLogicalResult tpRankProcessJoin(TPRankProcess *process,
                                    MlirStringCallback onError,
                                    void *userData) {
  if (!process)
    return failWith("tpRankProcessJoin: no place for the process", onError,
                    userData);
  process->ptr = nullptr;
  std::unique_ptr<rt::ProcessGroup> group;
  if (rt::Status joined = mlir::tp::joinProcessRun(group); !joined)
    return failWith("tpRankProcessJoin: " + joined.message(), onError,
                    userData);
  process->ptr = group.release();
  return mlirLogicalResultSuccess();
}

int tpRankProcessRank(TPRankProcess process) {
  rt::ProcessGroup *group = unwrapProcess(process);
  return group ? group->rank() : -1;
}
int tpRankProcessSize(TPRankProcess process) {
  rt::ProcessGroup *group = unwrapProcess(process);
  return group ? group->size() : 0;
}
void tpRankProcessDestroy(TPRankProcess process) {
  delete unwrapProcess(process);
}

/// Ends every rank of `group`'s job after this one failed with `message`,
/// which goes to the caller first: its peers would otherwise wait for it.
[[noreturn]] static void abortRank(rt::ProcessGroup &group,
                                   const std::string &message,
                                   MlirStringCallback onError, void *userData) {
  std::string text =
      "tpRunAsRank: rank " + std::to_string(group.rank()) + ": " + message;
  failWith(text, onError, userData);
  group.abort(text);
  llvm_unreachable("ProcessGroup::abort ends the process");
}

MlirLogicalResult tpRunAsRank(MlirOperation func, TPRankProcess process,
                              const char *transport, const TPTensor *inputs,
                              TPTensor *results, int *reports,
                              MlirStringCallback onError, void *userData) {
  rt::ProcessGroup *group = unwrapProcess(process);
  if (!group)
    return failWith("tpRunAsRank: the process is not a rank of a run", onError,
                    userData);
  auto entry = dyn_cast_or_null<func::FuncOp>(unwrap(func));
  std::string kind = transport ? transport : "";
  if (!entry)
    abortRank(*group, "the operation is not a func.func", onError, userData);
  if (kind != "mpi" && kind != "nccl")
    abortRank(*group, "unknown transport '" + kind + "'; expected mpi or nccl",
              onError, userData);
  if (!reports || !results)
    abortRank(*group, "needs places for the results and the reports flag",
              onError, userData);
  const int ranks = group->size(), me = group->rank();
  std::vector<mlir::tp::RankValues> perRank(ranks);
  for (size_t i = 0; i < entry.getNumArguments(); ++i) {
    rt::Tensor *t = inputs ? unwrapTensor(inputs[i]) : nullptr;
    if (!t)
      abortRank(*group, "input " + std::to_string(i) + " is null", onError,
                userData);
    perRank[me].args.push_back(*t);
  }
  mlir::tp::ExecutionOptions options;
  options.ranks = ranks;
  options.backend = kind == "mpi" ? "cpu" : "cuda";
  options.ranksPerNode = group->localSize();
  bool reporting = false;
  if (rt::Status status = mlir::tp::runProcesses(entry, options, kind, group,
                                                 {}, perRank, reporting);
      !status)
    abortRank(*group, status.message(), onError, userData);
  *reports = reporting ? 1 : 0;
  if (reporting)
    for (int r = 0; r < ranks; ++r)
      for (size_t j = 0; j < perRank[r].results.size(); ++j)
        results[r * entry.getNumResults() + j] =
            TPTensor{new rt::Tensor(std::move(perRank[r].results[j]))};
  return mlirLogicalResultSuccess();
}

/// `count` tensors per rank from `tensors` (rank-major) into `values`, or the
/// name of the first null one.
static std::optional<std::string>
collect(const TPTensor *tensors, int ranks, intptr_t count, const char *what,
        std::vector<rt::Tensor> mlir::tp::RankValues::*values,
        std::vector<mlir::tp::RankValues> &perRank) {
  perRank.resize(ranks);
  for (int r = 0; r < ranks; ++r)
    for (intptr_t i = 0; i < count; ++i) {
      rt::Tensor *t = tensors ? unwrapTensor(tensors[r * count + i]) : nullptr;
      if (!t)
        return std::string(what) + " " + std::to_string(i) + " of rank " +
               std::to_string(r) + " is null";
      (perRank[r].*values).push_back(*t);
    }
  return std::nullopt;
}

MlirLogicalResult tpReadInputs(MlirOperation func, int ranks, const char *dir,
                               int64_t dynamicSize, TPTensor *inputs,
                               MlirStringCallback onError, void *userData) {
  auto entry = dyn_cast<func::FuncOp>(unwrap(func));
  if (!entry)
    return failWith("tpReadInputs: the operation is not a func.func", onError,
                    userData);
  if (ranks < 1 || dynamicSize < 1 || !dir)
    return failWith("tpReadInputs: needs ranks >= 1, dynamicSize >= 1 and a "
                    "folder",
                    onError, userData);
  std::vector<std::vector<int64_t>> shapes;
  rt::Status status =
      mlir::tp::resolveArgumentShapes(entry, {}, dynamicSize, shapes);
  size_t numArgs = entry.getNumArguments();
  std::vector<std::vector<rt::Tensor>> perRank(ranks);
  for (int r = 0; r < ranks && status.isOk(); ++r)
    status = mlir::tp::readInputs(entry, shapes, dir, r, perRank[r]);
  if (!status.isOk())
    return failWith("tpReadInputs: " + status.message(), onError, userData);
  for (int r = 0; r < ranks; ++r)
    for (size_t i = 0; i < numArgs; ++i)
      inputs[r * numArgs + i] =
          TPTensor{new rt::Tensor(std::move(perRank[r][i]))};
  return mlirLogicalResultSuccess();
}

MlirLogicalResult tpDumpValues(const char *dir, int ranks, intptr_t numArgs,
                               const TPTensor *inputs, intptr_t numResults,
                               const TPTensor *results,
                               MlirStringCallback onError, void *userData) {
  if (!dir || ranks < 1 || numArgs < 0 || numResults < 0)
    return failWith("tpDumpValues: needs a folder, ranks >= 1 and counts >= 0",
                    onError, userData);
  std::vector<mlir::tp::RankValues> perRank;
  if (std::optional<std::string> null =
          collect(inputs, ranks, numArgs, "argument",
                  &mlir::tp::RankValues::args, perRank))
    return failWith("tpDumpValues: " + *null, onError, userData);
  if (std::optional<std::string> null =
          collect(results, ranks, numResults, "result",
                  &mlir::tp::RankValues::results, perRank))
    return failWith("tpDumpValues: " + *null, onError, userData);
  std::string error;
  rt::Status status = rt::makeDirectoryNoFollow(dir, error)
                          ? mlir::tp::markDumpIncomplete(dir)
                          : rt::Status::error(error);
  if (status.isOk())
    status = mlir::tp::dumpValues(dir, perRank);
  if (!status.isOk())
    return failWith("tpDumpValues: " + status.message(), onError, userData);
  return mlirLogicalResultSuccess();
}

MlirLogicalResult tpCompareResults(int ranks, intptr_t numResults,
                                   const TPTensor *actual,
                                   const TPTensor *expected, double tolerance,
                                   double *worst, MlirStringCallback onError,
                                   void *userData) {
  if (ranks < 1 || numResults < 0)
    return failWith("tpCompareResults: needs ranks >= 1 and numResults >= 0",
                    onError, userData);
  std::vector<mlir::tp::RankValues> ran, reference;
  if (std::optional<std::string> null =
          collect(actual, ranks, numResults, "actual result",
                  &mlir::tp::RankValues::results, ran))
    return failWith("tpCompareResults: " + *null, onError, userData);
  if (std::optional<std::string> null =
          collect(expected, ranks, numResults, "expected result",
                  &mlir::tp::RankValues::results, reference))
    return failWith("tpCompareResults: " + *null, onError, userData);
  double largest = 0;
  std::string mismatches;
  bool same =
      mlir::tp::compareResults(ran, reference, tolerance, largest, mismatches);
  if (worst)
    *worst = largest;
  if (!same)
    return failWith(mismatches, onError, userData);
  return mlirLogicalResultSuccess();
}
