//===- Runtime.cpp - C API of the tp runtime ------------------------------===//

#include "tp-c/Runtime.h"
#include "tp/Execution/Execution.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"

using namespace mlir;

static ::mlir::tp::rt::Tensor *unwrapTensor(TPTensor t) {
  return static_cast<::mlir::tp::rt::Tensor *>(t.ptr);
}

TPTensor tpTensorCreate(const char *dtype, const int64_t *shape,
                        intptr_t rank) {
  std::optional<::mlir::tp::rt::DType> type = ::mlir::tp::rt::parseDType(dtype);
  if (!type || rank < 0)
    return TPTensor{nullptr};
  return TPTensor{new ::mlir::tp::rt::Tensor(
      *type, std::vector<int64_t>(shape, shape + rank))};
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
      ::mlir::tp::rt::Tensor *t = unwrapTensor(inputs[r * numArgs + i]);
      if (!t)
        return report("tpRunSPMD: input " + std::to_string(i) + " of rank " +
                      std::to_string(r) + " is null");
      perRank[r].args.push_back(*t);
    }
  mlir::tp::ExecutionOptions options;
  options.ranks = ranks;
  options.backend = backend ? backend : "cpu";
  ::mlir::tp::rt::Status status =
      mlir::tp::executeSPMD(entry, options, perRank);
  if (!status.isOk())
    return report(status.message());
  for (int r = 0; r < ranks; ++r)
    for (size_t j = 0; j < numResults; ++j)
      results[r * numResults + j] =
          TPTensor{new ::mlir::tp::rt::Tensor(perRank[r].results[j])};
  return mlirLogicalResultSuccess();
}
