//===- Checks.cpp - refuse what cannot run, before anything is allocated --===//
//
// A run that cannot work should end with a message naming why, not with an
// abort inside the JIT, the allocator or thread creation. The program's
// checks are passes (tp-specialize-dynamic-grids, tp-check-runnable), whose
// diagnostics become the error; the machine's read the rank count and the
// argument shapes.
//
//===----------------------------------------------------------------------===//

#include "Program.h"
#include "tp/Conversion/TPToRuntime/TPToRuntime.h"
#include "tp/Dialect/TP/IR/TPOps.h"
#include "tp/Pipelines/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"

#include <cstdio>
#include <fstream>
#include <sys/resource.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::tp;

/// The bytes a value of `type` occupies (the runtime stores sub-byte
/// elements one per byte), with dynamic dims taken from `dims` in order, or
/// std::nullopt when that overflows int64. Non-shaped types count as one
/// element.
static std::optional<int64_t> bytesOf(Type type, ArrayRef<int64_t> shape) {
  Type element = getElementTypeOrSelf(type);
  int64_t bits = element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 64;
  std::optional<int64_t> total = std::max<int64_t>(1, (bits + 7) / 8);
  // Any zero dim makes it empty, wherever it is.
  if (llvm::is_contained(shape, 0))
    return 0;
  for (int64_t d : shape)
    if (total)
      total = checkedMul(*total, d);
  return total;
}

/// The static dims of `type` (dynamic ones count as 1), if it is shaped.
static SmallVector<int64_t> staticDims(Type type) {
  SmallVector<int64_t> dims;
  if (auto shaped = dyn_cast<ShapedType>(type); shaped && shaped.hasRank())
    for (int64_t d : shaped.getShape())
      dims.push_back(ShapedType::isDynamic(d) ? 1 : d);
  return dims;
}

//===----------------------------------------------------------------------===//
// The program: tp-specialize-dynamic-grids and tp-check-runnable
//===----------------------------------------------------------------------===//

/// "file:line:col" of the first file location in `loc`, else how MLIR
/// prints it.
static std::string locationText(Location loc) {
  FileLineColLoc fileLoc;
  loc->walk([&](Location inner) {
    fileLoc = dyn_cast<FileLineColLoc>(inner);
    return fileLoc ? WalkResult::interrupt() : WalkResult::advance();
  });
  std::string text;
  llvm::raw_string_ostream os(text);
  if (fileLoc)
    os << fileLoc.getFilename().getValue() << ":" << fileLoc.getLine() << ":"
       << fileLoc.getColumn();
  else
    os << loc;
  return text;
}

/// Runs `pass` on `module` and, when `verifyHeading` is not empty,
/// verifies the module after it. The error holds the error diagnostics (the
/// first kMaxDiagnostics of them), a line each; the verifier's follow
/// `verifyHeading`.
static rt::Status runCheckPass(ModuleOp module, std::unique_ptr<Pass> pass,
                               const std::string &verifyHeading) {
  constexpr int kMaxDiagnostics = 10;
  std::string text;
  int errors = 0;
  bool verifying = false;
  LogicalResult result = success();
  {
    ScopedDiagnosticHandler capture(module.getContext(), [&](Diagnostic &d) {
      if (d.getSeverity() != DiagnosticSeverity::Error)
        return success();
      if (++errors <= kMaxDiagnostics)
        text += (text.empty() ? "" : "\n") + locationText(d.getLocation()) +
                ": " + d.str();
      return success();
    });
    PassManager pm(module.getContext());
    pm.enableVerifier(false);
    pm.addPass(std::move(pass));
    result = pm.run(module);
    if (succeeded(result) && !verifyHeading.empty()) {
      verifying = true;
      result = verify(module);
    }
  }
  if (succeeded(result))
    return rt::Status::ok();
  if (errors > kMaxDiagnostics)
    text +=
        "\n(and " + std::to_string(errors - kMaxDiagnostics) + " more errors)";
  return rt::Status::error((verifying ? verifyHeading : "") + text);
}

rt::Status mlir::tp::specializeDynamicGrids(func::FuncOp entry, int ranks) {
  TPSpecializeDynamicGridsOptions options;
  options.ranks = ranks;
  options.entry = entry.getName().str();
  // Shape rules that involve the group size were skipped while it was
  // dynamic; the verifier's diagnostics now carry their location.
  return runCheckPass(entry->getParentOfType<ModuleOp>(),
                      createTPSpecializeDynamicGrids(options),
                      "with the grid size taken from the run's " +
                          std::to_string(ranks) +
                          " ranks, the program does not verify:\n");
}

rt::Status mlir::tp::checkProgram(func::FuncOp entry, int ranks) {
  TPCheckRunnableOptions options;
  options.ranks = ranks;
  options.entry = entry.getName().str();
  return runCheckPass(entry->getParentOfType<ModuleOp>(),
                      createTPCheckRunnable(options), "");
}

//===----------------------------------------------------------------------===//
// Memory and threads
//===----------------------------------------------------------------------===//

/// "12.3 GiB"
static std::string formatBytes(double bytes) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 6) {
    bytes /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof(text), unit ? "%.1f %s" : "%.0f %s", bytes,
                units[unit]);
  return text;
}

/// The first number in `path` (a /proc or cgroup file), if it has one.
static std::optional<uint64_t> readNumber(const char *path) {
  std::ifstream file(path);
  uint64_t value;
  if (file >> value)
    return value;
  return std::nullopt;
}

/// Memory this process may still use: the smallest of the kernel's
/// MemAvailable, the cgroup's headroom and the address-space limit, with
/// where the bound comes from.
static std::pair<uint64_t, std::string> availableMemory() {
  uint64_t best = UINT64_MAX;
  std::string source = "no limit found";
  auto consider = [&](std::optional<uint64_t> bytes, const char *what) {
    if (bytes && *bytes < best) {
      best = *bytes;
      source = what;
    }
  };
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  uint64_t kib;
  while (meminfo >> key >> kib) {
    if (key == "MemAvailable:") {
      consider(kib * 1024, "MemAvailable in /proc/meminfo");
      break;
    }
    meminfo.ignore(256, '\n');
  }
  std::optional<uint64_t> limit = readNumber("/sys/fs/cgroup/memory.max");
  std::optional<uint64_t> used = readNumber("/sys/fs/cgroup/memory.current");
  if (limit && used)
    consider(*limit > *used ? *limit - *used : 0, "the cgroup's memory.max");
  struct rlimit rl;
  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    consider(rl.rlim_cur, "ulimit -v");
  return {best, source};
}

/// Threads this process may still start, and where the bound comes from.
static std::pair<uint64_t, std::string> availableThreads() {
  uint64_t best = UINT64_MAX;
  std::string source;
  auto consider = [&](std::optional<uint64_t> count, const char *what) {
    if (count && *count < best) {
      best = *count;
      source = what;
    }
  };
  consider(readNumber("/proc/sys/kernel/threads-max"), "kernel.threads-max");
  // Every thread maps its stack and a guard page.
  if (std::optional<uint64_t> maps = readNumber("/proc/sys/vm/max_map_count"))
    consider(*maps / 2, "vm.max_map_count / 2");
  consider(readNumber("/sys/fs/cgroup/pids.max"), "the cgroup's pids.max");
  struct rlimit rl;
  if (getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    consider(rl.rlim_cur, "ulimit -u");
  return {best, source};
}

rt::Status mlir::tp::checkResources(
    func::FuncOp entry, int ranks,
    const std::vector<std::vector<int64_t>> &argShapes) {
  // One thread per rank, plus this one and BLAS's.
  auto [threads, threadSource] = availableThreads();
  if (static_cast<uint64_t>(ranks) + 16 > threads)
    return rt::Status::error(
        "the run needs " + std::to_string(ranks) +
        " threads (one per rank) but this system allows " +
        std::to_string(threads) + " (" + threadSource + ")");

  // Every rank holds its inputs at once, and each holds the largest static
  // tensor of the program at some point: a lower bound of the peak.
  std::string largestAt;
  int64_t largest = 0, inputs = 0;
  for (auto [i, type] : llvm::enumerate(entry.getArgumentTypes())) {
    std::optional<int64_t> bytes = bytesOf(type, argShapes[i]);
    if (!bytes || llvm::AddOverflow(inputs, *bytes, inputs)) {
      std::string shape;
      for (int64_t d : argShapes[i])
        shape += std::to_string(d) + "x";
      return rt::Status::error("argument " + std::to_string(i) + " (" +
                               shape + exec::typeText(getElementTypeOrSelf(type)) +
                               ") holds more bytes than int64 counts");
    }
  }
  for (func::FuncOp func : functionsReachableFrom(entry))
    func.walk([&](Operation *op) {
      for (Type type : op->getResultTypes())
        if (std::optional<int64_t> bytes = bytesOf(type, staticDims(type));
            bytes && *bytes > largest) {
          largest = *bytes;
          largestAt = exec::typeText(type) + " at " + siteOf(op);
        }
    });
  double perRank = std::max(inputs, largest);
  double needed = perRank * ranks;
  auto [available, memorySource] = availableMemory();
  if (needed <= static_cast<double>(available))
    return rt::Status::ok();
  std::string why = inputs >= largest
                        ? "its inputs"
                        : "the largest tensor, " + largestAt;
  return rt::Status::error(
      "the run needs at least " + formatBytes(needed) + " (" +
      std::to_string(ranks) + " rank" + (ranks == 1 ? "" : "s") + " x " +
      formatBytes(perRank) + " for " + why + ") but " +
      formatBytes(static_cast<double>(available)) + " is available (" +
      memorySource + ")");
}
