//===- CublasLt.cpp - cuBLASLt, opened on first use -----------------------===//

#include "CublasLt.h"

#include <dlfcn.h>

using namespace tp::rt;
using namespace tp::rt::cuda;

namespace {
struct Loaded {
  CublasLtApi api;
  bool ok = false;
  std::string error;
};

/// The soname first (LD_LIBRARY_PATH, the runpath, the loader's cache), then
/// the library the build found.
Loaded open() {
  Loaded loaded;
  void *library = nullptr;
  std::string tried;
  for (const char *name : {TP_CUBLASLT_SONAME, TP_CUBLASLT_PATH}) {
    library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library)
      break;
    const char *why = dlerror();
    tried += std::string(tried.empty() ? "" : "; ") + (why ? why : name);
  }
  if (!library) {
    loaded.error = "cannot load cuBLASLt: " + tried;
    return loaded;
  }
  std::string missing;
#define TP_CUBLASLT_RESOLVE(name)                                              \
  loaded.api.name =                                                            \
      reinterpret_cast<decltype(loaded.api.name)>(dlsym(library, #name));      \
  if (!loaded.api.name)                                                        \
    missing += std::string(missing.empty() ? "" : ", ") + #name;
  TP_CUBLASLT_FUNCTIONS(TP_CUBLASLT_RESOLVE)
#undef TP_CUBLASLT_RESOLVE
  if (!missing.empty()) {
    loaded.error = std::string("cuBLASLt (") + TP_CUBLASLT_SONAME + ") lacks " +
                   missing + ": it is older than the headers";
    return loaded;
  }
  loaded.ok = true;
  return loaded;
}

const Loaded &loadedOnce() {
  static const Loaded loaded = open();
  return loaded;
}
} // namespace

Status cuda::loadCublasLt(const CublasLtApi *&api, const std::string &context) {
  const Loaded &loaded = loadedOnce();
  if (!loaded.ok)
    return Status::error(context + ": " + loaded.error);
  api = &loaded.api;
  return Status::ok();
}

std::string cuda::cublasStatusText(cublasStatus_t status) {
  const Loaded &loaded = loadedOnce();
  if (!loaded.ok)
    return "cuBLAS status " + std::to_string(static_cast<int>(status));
  return std::string(loaded.api.cublasLtGetStatusName(status)) + " (" +
         loaded.api.cublasLtGetStatusString(status) + ")";
}
