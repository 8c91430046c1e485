//===- CublasLt.cpp - cuBLASLt, opened on first use -----------------------===//

#include "CublasLt.h"

#include <dlfcn.h>

using namespace mlir::tp::rt;
using namespace mlir::tp::rt::cuda;

Status cuda::openCublasLt(const std::vector<std::string> &candidates,
                          CublasLtApi &api) {
  void *library = nullptr;
  std::string tried, name;
  for (const std::string &candidate : candidates) {
    library = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library) {
      name = candidate;
      break;
    }
    const char *why = dlerror();
    tried += (tried.empty() ? "" : "; ") + (why ? std::string(why) : candidate);
  }
  if (!library)
    return Status::error(
        "cannot load cuBLASLt: " +
        (tried.empty() ? std::string("no library given") : tried));
  std::string missing;
#define TP_CUBLASLT_RESOLVE(function)                                          \
  api.function =                                                               \
      reinterpret_cast<decltype(api.function)>(dlsym(library, #function));     \
  if (!api.function)                                                           \
    missing += std::string(missing.empty() ? "" : ", ") + #function;
  TP_CUBLASLT_FUNCTIONS(TP_CUBLASLT_RESOLVE)
#undef TP_CUBLASLT_RESOLVE
  if (!missing.empty()) {
    dlclose(library);
    api = CublasLtApi();
    return Status::error("cuBLASLt (" + name + ") lacks " + missing +
                         ": it is older than the headers");
  }
  return Status::ok();
}

namespace {
struct Loaded {
  CublasLtApi api;
  Status status;
};

/// The soname first (LD_LIBRARY_PATH, the runpath, the loader's cache), then
/// the library the build found.
const Loaded &loadedOnce() {
  static const Loaded loaded = [] {
    Loaded made;
    made.status =
        openCublasLt({TP_CUBLASLT_SONAME, TP_CUBLASLT_PATH}, made.api);
    return made;
  }();
  return loaded;
}
} // namespace

Status cuda::loadCublasLt(const CublasLtApi *&api, const std::string &context) {
  const Loaded &loaded = loadedOnce();
  if (!loaded.status.isOk())
    return Status::error(context + ": " + loaded.status.message());
  api = &loaded.api;
  return Status::ok();
}

std::string cuda::cublasStatusText(cublasStatus_t status) {
  const Loaded &loaded = loadedOnce();
  if (!loaded.status.isOk())
    return "cuBLAS status " + std::to_string(static_cast<int>(status));
  return std::string(loaded.api.cublasLtGetStatusName(status)) + " (" +
         loaded.api.cublasLtGetStatusString(status) + ")";
}
