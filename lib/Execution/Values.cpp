//===- Values.cpp - a run's inputs, dumps, printouts and comparisons ------===//

#include "tp/Execution/Values.h"
#include "tp/Dialect/TP/IR/TPDialect.h"
#include "tp/Runtime/Files.h"
#include "tp/Runtime/Npy.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

using namespace mlir::tp;

static uint64_t checksum(const rt::Tensor &t) {
  uint64_t hash = 0xcbf29ce484222325ull;
  auto *bytes = static_cast<const uint8_t *>(t.data());
  for (size_t i = 0; i < t.numBytes(); ++i)
    hash = (hash ^ bytes[i]) * 0x100000001b3ull;
  return hash;
}

static double defaultTolerance(rt::DType type) {
  switch (type) {
  case rt::DType::F64:
    return 1e-10;
  case rt::DType::F32:
    return 1e-4;
  case rt::DType::F16:
    return 4e-3;
  case rt::DType::BF16:
    return 3e-2;
  default:
    return 0;
  }
}

/// Refuses an element of `file` that an integer argument of `dtype` cannot
/// hold: NaN or infinite, or beyond its range (i1 holds 0 and 1). Converting
/// would saturate or zero it without a word.
static rt::Status checkIntegerValues(const rt::Tensor &file, rt::DType dtype,
                                     const std::string &path, size_t argument) {
  if (rt::isFloat(dtype))
    return rt::Status::ok();
  // Integers that fit by type (and i64's largest, which a double rounds up).
  rt::DType from = file.dtype();
  if (!rt::isFloat(from) && dtype != rt::DType::I1 &&
      (from == rt::DType::I1 || rt::byteSize(from) <= rt::byteSize(dtype)))
    return rt::Status::ok();
  double lowest = dtype == rt::DType::I1    ? 0
                  : dtype == rt::DType::I32 ? -2147483648.0
                                            : -9223372036854775808.0;
  // The first value past the range: 2^31 and 2^63 are exact doubles.
  double beyond = dtype == rt::DType::I1    ? 2
                  : dtype == rt::DType::I32 ? 2147483648.0
                                            : 9223372036854775808.0;
  for (int64_t k = 0, n = file.numElements(); k < n; ++k) {
    double value = file.get(k);
    if (std::isfinite(value) && value >= lowest && value < beyond)
      continue;
    std::ostringstream text;
    text << path << ": element " << k << " is " << value << ", which argument "
         << argument << " (" << rt::name(dtype) << ") cannot hold";
    return rt::Status::error(text.str());
  }
  return rt::Status::ok();
}

rt::Status mlir::tp::readInputs(mlir::func::FuncOp entry,
                                const std::vector<std::vector<int64_t>> &shapes,
                                const std::string &dir, int rank,
                                std::vector<rt::Tensor> &args) {
  args.clear();
  for (auto [i, type] : llvm::enumerate(entry.getArgumentTypes())) {
    std::string path = (llvm::Twine(dir) + "/rank" + llvm::Twine(rank) +
                        "/arg" + llvm::Twine(i) + ".npy")
                           .str();
    rt::Tensor file;
    std::string error;
    if (!rt::readNpy(path, file, error))
      return rt::Status::error("argument " + std::to_string(i) + " of rank " +
                               std::to_string(rank) + ": " + error);
    rt::DType dtype = *mlir::tp::toDType(type);
    if (file.shape() != shapes[i])
      return rt::Status::error(path + " holds " + file.typeString() +
                               " but argument " + std::to_string(i) + " is " +
                               rt::Tensor::typeStringOf(dtype, shapes[i]));
    TP_RETURN_IF_ERROR(checkIntegerValues(file, dtype, path, i));
    rt::Tensor arg;
    if (!rt::Tensor::tryAllocate(dtype, shapes[i], arg, error))
      return rt::Status::error("argument " + std::to_string(i) + " of rank " +
                               std::to_string(rank) + ": " + error);
    arg.assignConverted(file);
    args.push_back(std::move(arg));
  }
  return rt::Status::ok();
}

rt::Status mlir::tp::checkReplicatedInputs(
    mlir::func::FuncOp entry,
    const std::vector<mlir::tp::RankValues> &perRank) {
  for (unsigned i = 0, e = entry.getNumArguments(); i < e; ++i) {
    if (!entry.getArgAttr(i, mlir::tp::kReplicatedArgAttrName))
      continue;
    const rt::Tensor &first = perRank[0].args[i];
    for (size_t r = 1; r < perRank.size(); ++r) {
      const rt::Tensor &other = perRank[r].args[i];
      std::string where = "argument " + std::to_string(i) +
                          " is marked tp.replicated, but rank " +
                          std::to_string(r) + "'s ";
      if (other.shape() != first.shape())
        return rt::Status::error(where + "shape " + other.typeString() +
                                 " differs from rank 0's " +
                                 first.typeString());
      if (first.numBytes() == 0 ||
          std::memcmp(other.data(), first.data(), first.numBytes()) == 0)
        continue;
      size_t element = 0, size = rt::byteSize(first.dtype());
      while (
          std::memcmp(static_cast<const char *>(other.data()) + element * size,
                      static_cast<const char *>(first.data()) + element * size,
                      size) == 0)
        ++element;
      std::ostringstream text;
      text << where << "value differs from rank 0's (element " << element
           << ": " << other.get(element) << " vs " << first.get(element) << ")";
      return rt::Status::error(text.str());
    }
  }
  return rt::Status::ok();
}

static std::string incompleteMarker(const std::string &dir) {
  return dir + "/INCOMPLETE";
}

rt::Status mlir::tp::markDumpIncomplete(const std::string &dir) {
  std::string error;
  if (!rt::writeFileAtomically(
          incompleteMarker(dir),
          {"This dump is not finished: the run failed or was stopped "
           "before every file was written.\n"},
          error))
    return rt::Status::error(error);
  return rt::Status::ok();
}

rt::Status
mlir::tp::dumpValues(const std::string &dumpDir,
                     const std::vector<mlir::tp::RankValues> &perRank) {
  for (auto [rank, values] : llvm::enumerate(perRank)) {
    std::string dir =
        (llvm::Twine(dumpDir) + "/rank" + llvm::Twine(rank)).str();
    std::string error;
    if (!rt::makeDirectoryNoFollow(dir, error))
      return rt::Status::error(error);
    auto write = [&](const char *kind, size_t i, const rt::Tensor &t) {
      std::string path =
          (llvm::Twine(dir) + "/" + kind + llvm::Twine(i) + ".npy").str();
      return rt::writeNpy(path, t, error);
    };
    for (auto [i, t] : llvm::enumerate(values.args))
      if (!write("arg", i, t))
        return rt::Status::error(error);
    for (auto [i, t] : llvm::enumerate(values.results))
      if (!write("result", i, t))
        return rt::Status::error(error);
  }
  if (std::error_code ec = llvm::sys::fs::remove(incompleteMarker(dumpDir)))
    return rt::Status::error("cannot remove " + incompleteMarker(dumpDir) +
                             ": " + ec.message());
  return rt::Status::ok();
}

/// `path` made absolute with links resolved; a tail that does not exist yet
/// is appended to its nearest existing ancestor.
static std::string resolvedPath(llvm::StringRef path) {
  llvm::SmallString<256> absolute(path);
  llvm::sys::fs::make_absolute(absolute);
  llvm::sys::path::remove_dots(absolute, /*remove_dot_dot=*/true);
  llvm::SmallString<256> existing(absolute), resolved;
  std::vector<std::string> missing;
  while (llvm::sys::fs::real_path(existing, resolved)) {
    llvm::StringRef parent = llvm::sys::path::parent_path(existing);
    if (parent.empty() || parent == existing)
      return absolute.str().str();
    missing.push_back(llvm::sys::path::filename(existing).str());
    existing = parent;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it)
    llvm::sys::path::append(resolved, *it);
  return resolved.str().str();
}

/// Whether folder `inner` is `outer` or lies below it.
static bool isWithin(const std::string &inner, const std::string &outer) {
  return inner == outer ||
         (llvm::StringRef(inner).starts_with(outer) &&
          (outer.back() == '/' || inner[outer.size()] == '/'));
}

rt::Status mlir::tp::checkFoldersDisjoint(const std::string &inputDir,
                                          const std::string &dumpDir) {
  if (inputDir.empty() || dumpDir.empty())
    return rt::Status::ok();
  std::string in = resolvedPath(inputDir), out = resolvedPath(dumpDir);
  if (!isWithin(in, out) && !isWithin(out, in))
    return rt::Status::ok();
  return rt::Status::error("--dump-dir " + dumpDir + " and --input-dir " +
                           inputDir + " overlap (" + out + " and " + in +
                           "); dumps would overwrite the inputs");
}

bool mlir::tp::compareResults(const std::vector<mlir::tp::RankValues> &actual,
                              const std::vector<mlir::tp::RankValues> &expected,
                              double tolerance, double &worst,
                              std::string &mismatches) {
  llvm::raw_string_ostream os(mismatches);
  bool ok = true;
  worst = 0;
  for (size_t r = 0; r < actual.size(); ++r) {
    for (size_t j = 0; j < actual[r].results.size(); ++j) {
      const rt::Tensor &a = actual[r].results[j];
      const rt::Tensor &b = expected[r].results[j];
      if (a.shape() != b.shape() || a.dtype() != b.dtype()) {
        os << "mismatch: rank " << r << " result " << j << ": "
           << a.typeString() << " vs " << b.typeString() << "\n";
        ok = false;
        continue;
      }
      if (!rt::isFloat(a.dtype())) {
        // Integers must match exactly; doubles would blur them above 2^53.
        for (int64_t k = 0, n = a.numElements(); k < n; ++k)
          if (a.getInt(k) != b.getInt(k)) {
            os << "mismatch: rank " << r << " result " << j << ": element " << k
               << " is " << a.getInt(k) << ", expected " << b.getInt(k) << "\n";
            ok = false;
            break;
          }
        continue;
      }
      // Non-finite elements must match exactly (NaN for NaN, inf of the same
      // sign); the others are measured against the largest finite one, so
      // an inf in the reference does not scale every error away.
      double maxAbs = 0, maxRef = 0, maxRel = 0;
      int64_t firstNonFiniteMismatch = -1;
      for (int64_t k = 0, n = a.numElements(); k < n; ++k) {
        double x = a.get(k), y = b.get(k);
        if (!std::isfinite(x) || !std::isfinite(y)) {
          bool same = (std::isnan(x) && std::isnan(y)) || x == y;
          if (!same && firstNonFiniteMismatch < 0)
            firstNonFiniteMismatch = k;
          continue;
        }
        double diff = std::fabs(x - y);
        maxAbs = std::max(maxAbs, diff);
        maxRef = std::max(maxRef, std::fabs(y));
        if (y != 0)
          maxRel = std::max(maxRel, diff / std::fabs(y));
      }
      if (firstNonFiniteMismatch >= 0) {
        int64_t k = firstNonFiniteMismatch;
        os << "mismatch: rank " << r << " result " << j << ": element " << k
           << " is " << llvm::format("%g", a.get(k)) << ", expected "
           << llvm::format("%g", b.get(k)) << "\n";
        worst = INFINITY;
        ok = false;
        continue;
      }
      double normalized = maxRef > 0 ? maxAbs / maxRef : maxAbs;
      double tol = tolerance >= 0 ? tolerance : defaultTolerance(a.dtype());
      worst = std::max(worst, normalized);
      if (normalized > tol) {
        os << "mismatch: rank " << r << " result " << j << ": max abs error "
           << llvm::format("%.3e", maxAbs) << ", max relative error "
           << llvm::format("%.3e", maxRel) << ", normalized "
           << llvm::format("%.3e", normalized) << " > tolerance "
           << llvm::format("%.1e", tol) << "\n";
        ok = false;
      }
    }
  }
  return ok;
}

/// Resident memory and open files of the largest rank process after warm-up
/// (the 100th step, or the last of a shorter run) and after the last step.
static void
printResourceGrowth(const std::vector<mlir::tp::RankValues> &perRank) {
  using Resources = rt::StepReport::Resources;
  // Samples are taken after the same steps on every rank.
  std::vector<Resources> largest;
  for (const mlir::tp::RankValues &values : perRank) {
    const std::vector<Resources> &samples = values.steps.resources;
    if (largest.empty())
      largest = samples;
    for (size_t i = 0; i < std::min(largest.size(), samples.size()); ++i) {
      largest[i].residentBytes =
          std::max(largest[i].residentBytes, samples[i].residentBytes);
      largest[i].openFiles =
          std::max(largest[i].openFiles, samples[i].openFiles);
    }
  }
  if (largest.empty())
    return;
  const Resources &last = largest.back();
  const Resources *warm = &largest.front();
  for (const Resources &sample : largest)
    if (sample.step <= 100)
      warm = &sample;
  auto mib = [](int64_t bytes) { return bytes / 1048576.0; };
  llvm::outs() << llvm::format(
      "resident memory (largest rank process): %.1f MiB after step %d, "
      "%.1f MiB after step %d (%+.1f MiB); open files: %d, then %d\n",
      mib(warm->residentBytes), warm->step, mib(last.residentBytes), last.step,
      mib(last.residentBytes - warm->residentBytes), warm->openFiles,
      last.openFiles);
}

void mlir::tp::printSteps(const std::vector<mlir::tp::RankValues> &perRank) {
  // A step lasts as long as its slowest rank.
  std::vector<double> slowest;
  int64_t toDevice = 0, toHost = 0;
  for (const mlir::tp::RankValues &values : perRank) {
    const std::vector<double> &millis = values.steps.millis;
    if (slowest.size() < millis.size())
      slowest.resize(millis.size(), 0.0);
    for (size_t s = 0; s < millis.size(); ++s)
      slowest[s] = std::max(slowest[s], millis[s]);
    toDevice += values.steps.hostToDevice;
    toHost += values.steps.deviceToHost;
  }
  if (slowest.empty())
    return;
  std::vector<double> sorted = slowest;
  std::sort(sorted.begin(), sorted.end());
  for (const mlir::tp::RankValues &values : perRank)
    if (values.graphNodes)
      llvm::outs() << "CUDA graph: steps 2 to " << slowest.size()
                   << " replayed one graph of " << values.graphNodes
                   << " nodes (every rank's step; "
                   << llvm::format("%.1f", values.graphBytes / 1048576.0)
                   << " MiB of buffers kept for it)\n";
  llvm::outs() << "steps: " << slowest.size() << "; step time (slowest rank): "
               << llvm::format("first %.3f ms, best %.3f ms, median %.3f ms",
                               slowest.front(), sorted.front(),
                               sorted[sorted.size() / 2])
               << "\n"
               << "host-device copies in the last step (all ranks): "
               << toDevice << " B to the device, " << toHost << " B back\n";
  size_t largest = 0;
  for (size_t r = 0; r < perRank.size(); ++r)
    if (perRank[r].steps.peakBufferBytes >
        perRank[largest].steps.peakBufferBytes)
      largest = r;
  llvm::outs() << llvm::format(
      "compiled code's buffers at their peak (activations and temporaries, "
      "without inputs): %.2f MiB (%lld bytes) on rank %zu, the largest\n",
      perRank[largest].steps.peakBufferBytes / 1048576.0,
      static_cast<long long>(perRank[largest].steps.peakBufferBytes), largest);
  printResourceGrowth(perRank);
}

void mlir::tp::printResults(const std::vector<mlir::tp::RankValues> &perRank) {
  for (auto [r, values] : llvm::enumerate(perRank))
    for (auto [j, t] : llvm::enumerate(values.results)) {
      double sum = 0;
      for (int64_t k = 0, n = t.numElements(); k < n; ++k)
        sum += t.get(k);
      llvm::outs() << "rank " << r << " result " << j << ": " << t.typeString()
                   << " sum=" << llvm::format("%.6e", sum) << " checksum="
                   << llvm::format_hex_no_prefix(checksum(t), 16) << "\n";
    }
}
