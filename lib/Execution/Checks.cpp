//===- Checks.cpp - refuse what cannot run, before anything is allocated --===//
//
// A run that cannot work should end with a message naming why, not with an
// abort inside the JIT, the allocator or thread creation. These checks read
// only the IR, the rank count and the argument shapes.
//
//===----------------------------------------------------------------------===//

#include "Program.h"
#include "tp/Conversion/ShardToTP/ShardToTP.h"
#include "tp/Conversion/TPToRuntime/TPToRuntime.h"
#include "tp/Dialect/TP/IR/TPOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/MathExtras.h"

#include <cstdio>
#include <dlfcn.h>
#include <fstream>
#include <sys/resource.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::tp;

SmallVector<func::FuncOp> exec::reachableFrom(func::FuncOp entry) {
  auto module = entry->getParentOfType<ModuleOp>();
  SmallVector<func::FuncOp> found = {entry};
  // Calls, and references that call later (func.constant).
  for (size_t i = 0; i < found.size(); ++i)
    found[i].walk([&](Operation *op) {
      for (NamedAttribute attr : op->getAttrs()) {
        auto ref = dyn_cast<FlatSymbolRefAttr>(attr.getValue());
        auto callee =
            ref ? module.lookupSymbol<func::FuncOp>(ref.getAttr()) : nullptr;
        if (callee && !llvm::is_contained(found, callee))
          found.push_back(callee);
      }
    });
  return found;
}

//===----------------------------------------------------------------------===//
// The program
//===----------------------------------------------------------------------===//

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

rt::Status mlir::tp::specializeDynamicGrids(func::FuncOp entry, int ranks) {
  auto module = entry->getParentOfType<ModuleOp>();
  llvm::SmallDenseSet<shard::GridOp> used;
  for (func::FuncOp func : exec::reachableFrom(entry))
    func.walk([&](Operation *op) {
      for (NamedAttribute attr : op->getAttrs())
        if (auto ref = dyn_cast<FlatSymbolRefAttr>(attr.getValue()))
          if (auto grid =
                  SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(op, ref))
            used.insert(grid);
    });
  rt::Status status = rt::Status::ok();
  bool changed = false;
  module.walk([&](shard::GridOp grid) {
    if (!used.contains(grid))
      return WalkResult::advance();
    SmallVector<int64_t> shape(grid.getShape());
    std::string name = "grid @" + grid.getSymName().str();
    int64_t dynamicAxes = llvm::count_if(shape, ShapedType::isDynamic);
    if (dynamicAxes == 0)
      return WalkResult::advance();
    if (dynamicAxes > 1) {
      status = rt::Status::error(
          siteOf(grid) + ": " + name + " has " + std::to_string(dynamicAxes) +
          " dynamic axes; a run fixes only one from its rank count");
      return WalkResult::interrupt();
    }
    int64_t others = 1;
    for (int64_t extent : shape)
      if (!ShapedType::isDynamic(extent))
        others = checkedMul(others, std::max<int64_t>(extent, 1)).value_or(0);
    if (others == 0 || ranks % others != 0) {
      status = rt::Status::error(
          siteOf(grid) + ": " + name + " has static axes spanning " +
          (others ? std::to_string(others) : std::string("more")) +
          " ranks, which does not divide the run's " + std::to_string(ranks) +
          " (set --ranks)");
      return WalkResult::interrupt();
    }
    for (int64_t &extent : shape)
      if (ShapedType::isDynamic(extent))
        extent = ranks / others;
    grid.setShapeAttr(DenseI64ArrayAttr::get(grid.getContext(), shape));
    changed = true;
    return WalkResult::advance();
  });
  if (!status.isOk() || !changed)
    return status;
  // Shape rules that involve the group size were skipped while it was
  // dynamic; the diagnostics they give now carry their location.
  std::string diagnostics;
  {
    ScopedDiagnosticHandler capture(module.getContext(), [&](Diagnostic &d) {
      llvm::raw_string_ostream os(diagnostics);
      os << d.getLocation() << ": " << d << "\n";
      return success();
    });
    if (succeeded(verify(module)))
      return status;
  }
  return rt::Status::error("with the grid size taken from the run's " +
                           std::to_string(ranks) + " ranks, the program " +
                           "does not verify:\n" + diagnostics);
}

/// Every grid a tp op names must be static and span the run's ranks.
static rt::Status checkGrid(Operation *op, int ranks) {
  auto gridRef = op->getAttrOfType<FlatSymbolRefAttr>("grid");
  if (!gridRef || !isa<TPDialect>(op->getDialect()))
    return rt::Status::ok();
  std::string site = siteOf(op);
  std::string name = "grid @" + gridRef.getValue().str();
  auto grid = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(op, gridRef);
  if (!grid)
    return rt::Status::error(site + ": unknown " + name);
  // Extents below 1 or a product that overflows cannot span the run.
  int64_t total = 1;
  bool fits = true;
  for (int64_t d : grid.getShape()) {
    if (ShapedType::isDynamic(d))
      return rt::Status::error(site + ": " + name +
                               " has a dynamic size; tp-run needs static grids");
    std::optional<int64_t> product = d >= 1 ? checkedMul(total, d) : std::nullopt;
    fits = fits && product;
    total = product.value_or(0);
  }
  if (fits && total == ranks)
    return rt::Status::ok();
  return rt::Status::error(
      site + ": " + name +
      (fits ? " has " + std::to_string(total) + " ranks"
            : " does not span a run") +
      " but the run has " + std::to_string(ranks) + " (set --ranks)");
}

/// Whether `cast` is half of a round trip (A -> B -> A), which lowering
/// removes; any other unrealized cast would reach code generation.
static bool cancelsOut(UnrealizedConversionCastOp cast) {
  if (cast->getNumOperands() != 1 || cast->getNumResults() != 1)
    return false;
  Type from = cast.getOperand(0).getType(), to = cast.getResult(0).getType();
  auto isInverse = [&](Operation *other) {
    auto inverse = dyn_cast_or_null<UnrealizedConversionCastOp>(other);
    return inverse && inverse->getNumOperands() == 1 &&
           inverse->getNumResults() == 1 &&
           inverse.getOperand(0).getType() == to &&
           inverse.getResult(0).getType() == from;
  };
  if (from == to || isInverse(cast.getOperand(0).getDefiningOp()))
    return true;
  return !cast->use_empty() && llvm::all_of(cast->getUsers(), isInverse);
}

/// Ranked tensors and scalars of the runtime's element types: nothing else
/// has a descriptor the driver could build or read.
static bool exchangeable(Type type) {
  return (isa<RankedTensorType>(type) || type.isIntOrIndexOrFloat()) &&
         toDType(type).has_value();
}

rt::Status mlir::tp::checkProgram(func::FuncOp entry, int ranks) {
  std::string name = "@" + entry.getName().str();
  if (entry.isDeclaration())
    return rt::Status::error(name + " is only declared; it has no body to run");
  for (auto [i, type] : llvm::enumerate(entry.getFunctionType().getInputs()))
    if (!exchangeable(type))
      return rt::Status::error(name + " takes a value of type " +
                               exec::typeText(type) + " (argument " +
                               std::to_string(i) +
                               "), which tp-run cannot feed");
  for (auto [i, type] : llvm::enumerate(entry.getFunctionType().getResults()))
    if (!exchangeable(type))
      return rt::Status::error(name + " returns a value of type " +
                               exec::typeText(type) + " (result " +
                               std::to_string(i) +
                               "), which tp-run cannot read");
  rt::Status status = rt::Status::ok();
  auto checkType = [&](Operation *op, Type type) {
    if (!bytesOf(type, staticDims(type)))
      status = rt::Status::error(siteOf(op) + ": " + exec::typeText(type) +
                                 " holds more bytes than int64 counts");
  };
  SmallVector<func::FuncOp> reachable = exec::reachableFrom(entry);
  for (func::FuncOp func : reachable) {
    if (!func.isDeclaration())
      continue;
    // A declaration must name a function of this process (libc, libm, the
    // runtime): the JIT links nothing else.
    std::string symbol = func.getName().str();
    if (func->hasAttr("llvm.emit_c_interface"))
      symbol = "_mlir_ciface_" + symbol;
    if (dlsym(RTLD_DEFAULT, symbol.c_str()))
      continue;
    Operation *user = nullptr;
    for (func::FuncOp caller : reachable)
      if (std::optional<SymbolTable::UseRange> uses =
              SymbolTable::getSymbolUses(func, caller);
          !user && uses && !uses->empty())
        user = uses->begin()->getUser();
    return rt::Status::error(
        siteOf(user ? user : func.getOperation()) + ": @" +
        func.getName().str() +
        " is only declared, and no function '" + symbol +
        "' is linked into tp-run (compiled programs can call functions "
        "defined in the program, the C and math libraries, and the runtime)");
  }
  for (func::FuncOp func : reachable) {
    if (func.isDeclaration())
      continue;
    func.walk([&](Operation *op) {
      if (isa<shard::ShardDialect>(op->getDialect()) &&
          !isa<shard::GridOp>(op)) {
        std::optional<std::string> why = whyNotRaised(op);
        status = rt::Status::error(
            siteOf(op) + ": tp-import does not raise this op" +
            (why ? " (" + *why + ")" : std::string()) +
            ", and compiled programs cannot run shard ops");
        return WalkResult::interrupt();
      }
      if (auto constant = dyn_cast<func::ConstantOp>(op)) {
        auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
            op, constant.getValueAttr());
        if (callee && !callee.isDeclaration()) {
          status = rt::Status::error(
              siteOf(op) + ": @" + callee.getName().str() +
              " is called indirectly, which compiled programs do not "
              "support (the rank's context is passed to every function of "
              "the program); call it with func.call");
          return WalkResult::interrupt();
        }
      }
      if (auto cast = dyn_cast<UnrealizedConversionCastOp>(op);
          cast && !cancelsOut(cast)) {
        auto types = [](TypeRange range) {
          std::string text;
          llvm::interleave(
              range, [&](Type t) { text += exec::typeText(t); },
              [&] { text += ", "; });
          return text.empty() ? std::string("nothing") : text;
        };
        status = rt::Status::error(
            siteOf(op) + ": a cast from " +
            types(op->getOperandTypes()) + " to " +
            types(op->getResultTypes()) +
            " has no run-time meaning; only a pair of casts that cancel out "
            "is removed");
        return WalkResult::interrupt();
      }
      status = checkGrid(op, ranks);
      for (Type type : op->getResultTypes())
        checkType(op, type);
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (Type type : block.getArgumentTypes())
            checkType(op, type);
      return status.isOk() ? WalkResult::advance() : WalkResult::interrupt();
    });
    if (!status.isOk())
      return status;
  }
  return status;
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
  for (func::FuncOp func : exec::reachableFrom(entry))
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
