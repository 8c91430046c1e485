//===- CostModel.cpp - predicted times of fused and unfused schedules -----===//

#include "tp/Dialect/TP/Transforms/CostModel.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::tp;

//===----------------------------------------------------------------------===//
// Presets, from published figures (docs/CostModel.md cites them) and, for
// "cpu", from scripts/bench/calibrate_cpu.py on the project's 2-core machine.
//===----------------------------------------------------------------------===//

static constexpr const char *kH100 = R"({
  "name": "h100-nvlink",
  "gemm": {
    "f32":  {"peak_flops": 5.0e13, "half_flops": 2.0e8},
    "f16":  {"peak_flops": 7.0e14, "half_flops": 1.0e9},
    "bf16": {"peak_flops": 7.0e14, "half_flops": 1.0e9},
    "f8":   {"peak_flops": 1.3e15, "half_flops": 2.0e9}
  },
  "links": {
    "per_peer": {"bandwidth": 3.7e11, "latency": 1.0e-5},
    "ring":     {"bandwidth": 3.7e11, "latency": 6.0e-6}
  },
  "overlap_slowdown": 0.03,
  "launch_overhead": 4.0e-6
})";

static constexpr const char *kPcie = R"({
  "name": "pcie-node",
  "gemm": {
    "f32":  {"peak_flops": 3.8e13, "half_flops": 2.0e8},
    "f16":  {"peak_flops": 5.3e14, "half_flops": 1.0e9},
    "bf16": {"peak_flops": 5.3e14, "half_flops": 1.0e9},
    "f8":   {"peak_flops": 1.0e15, "half_flops": 2.0e9}
  },
  "links": {
    "per_peer": {"bandwidth": 2.5e10, "latency": 1.5e-5},
    "ring":     {"bandwidth": 4.0e10, "latency": 1.2e-5}
  },
  "overlap_slowdown": 0.05,
  "launch_overhead": 5.0e-6
})";

// Written by scripts/bench/calibrate_cpu.py on the project's machine (2
// cores, ranks as threads; 2026-12-01), rounded.
static constexpr const char *kCpu = R"({
  "name": "cpu",
  "gemm": {
    "f32":  {"peak_flops": 9.6e10, "half_flops": 9.2e5, "b_operand_bandwidth": 1.6e10},
    "f16":  {"peak_flops": 3.1e10, "half_flops": 3.0e7, "b_operand_bandwidth": 1.7e8},
    "bf16": {"peak_flops": 3.7e10, "half_flops": 3.3e7, "b_operand_bandwidth": 1.6e8},
    "f8":   {"peak_flops": 4.0e10, "half_flops": 4.5e7, "b_operand_bandwidth": 5.4e7}
  },
  "links": {
    "per_peer":   {"bandwidth": 3.6e9, "latency": 1.4e-5},
    "ring":       {"bandwidth": 4.6e9, "latency": 1.7e-5},
    "collective": {"bandwidth": 1.5e9, "latency": 3.2e-5}
  },
  "overlap_slowdown": 0.0,
  "launch_overhead": 4.1e-6
})";

static const std::pair<llvm::StringRef, const char *> kPresets[] = {
    {"h100-nvlink", kH100}, {"h200-nvlink", kH100}, // same GH100 compute
    {"pcie-node", kPcie},   {"cpu", kCpu}};

llvm::SmallVector<llvm::StringRef> TargetDescription::presetNames() {
  llvm::SmallVector<llvm::StringRef> names;
  for (auto &[name, text] : kPresets)
    names.push_back(name);
  return names;
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

/// A positive finite number at `key` of `object`, or an error naming it.
static bool readNumber(const llvm::json::Object &object, llvm::StringRef key,
                       llvm::StringRef where, double &value, bool positive,
                       std::string &error) {
  std::optional<double> number = object.getNumber(key);
  if (!number || !std::isfinite(*number) || *number < 0 ||
      (positive && *number == 0)) {
    error = (where + "." + key + " must be a " +
             (positive ? "positive" : "non-negative") + " number")
                .str();
    return false;
  }
  value = *number;
  return true;
}

std::optional<TargetDescription>
TargetDescription::fromJSON(llvm::StringRef text, std::string &error) {
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed) {
    error = "not JSON: " + llvm::toString(parsed.takeError());
    return std::nullopt;
  }
  const llvm::json::Object *root = parsed->getAsObject();
  if (!root) {
    error = "the description must be a JSON object";
    return std::nullopt;
  }
  TargetDescription target;
  if (std::optional<llvm::StringRef> name = root->getString("name"))
    target.name = name->str();
  const llvm::json::Object *gemm = root->getObject("gemm");
  if (!gemm || gemm->empty()) {
    error = "'gemm' must map element types to {peak_flops, half_flops}";
    return std::nullopt;
  }
  for (const auto &[type, rate] : *gemm) {
    std::string where = "gemm." + type.str();
    const llvm::json::Object *fields = rate.getAsObject();
    GemmRate parsedRate;
    if (!fields) {
      error = where + " must be an object";
      return std::nullopt;
    }
    if (!readNumber(*fields, "peak_flops", where, parsedRate.peakFlops, true,
                    error) ||
        !readNumber(*fields, "half_flops", where, parsedRate.halfFlops, false,
                    error))
      return std::nullopt;
    // Optional (descriptions written before it existed leave it out); 0
    // leaves the term out too.
    if (fields->get("b_operand_bandwidth") &&
        !readNumber(*fields, "b_operand_bandwidth", where,
                    parsedRate.bOperandBandwidth, false, error))
      return std::nullopt;
    target.gemm[type.str()] = parsedRate;
  }
  const llvm::json::Object *links = root->getObject("links");
  for (auto [key, link] : {std::make_pair("per_peer", &target.perPeer),
                           std::make_pair("ring", &target.ring)}) {
    const llvm::json::Object *fields = links ? links->getObject(key) : nullptr;
    std::string where = std::string("links.") + key;
    if (!fields) {
      error = where + " must be an object {bandwidth, latency}";
      return std::nullopt;
    }
    if (!readNumber(*fields, "bandwidth", where, link->bandwidth, true,
                    error) ||
        !readNumber(*fields, "latency", where, link->latency, false, error))
      return std::nullopt;
  }
  // Optional: without it, the unfused collective moves data as per_peer.
  target.collective = target.perPeer;
  if (links->get("collective")) {
    const llvm::json::Object *fields = links->getObject("collective");
    if (!fields ||
        !readNumber(*fields, "bandwidth", "links.collective",
                    target.collective.bandwidth, true, error) ||
        !readNumber(*fields, "latency", "links.collective",
                    target.collective.latency, false, error)) {
      if (!fields)
        error = "links.collective must be an object {bandwidth, latency}";
      return std::nullopt;
    }
  }
  if (!readNumber(*root, "overlap_slowdown", "target", target.overlapSlowdown,
                  false, error) ||
      !readNumber(*root, "launch_overhead", "target", target.launchOverhead,
                  false, error))
    return std::nullopt;
  return target;
}

std::optional<TargetDescription>
TargetDescription::load(llvm::StringRef nameOrPath, std::string &error) {
  for (auto &[name, text] : kPresets)
    if (nameOrPath == name) {
      std::optional<TargetDescription> target = fromJSON(text, error);
      if (target)
        target->name = name.str();
      return target;
    }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(nameOrPath, /*IsText=*/true);
  if (!file) {
    error = ("'" + nameOrPath + "' is neither a preset (" +
             llvm::join(presetNames(), ", ") + ") nor a readable file: " +
             file.getError().message())
                .str();
    return std::nullopt;
  }
  std::optional<TargetDescription> target =
      fromJSON((*file)->getBuffer(), error);
  if (!target)
    error = (nameOrPath + ": " + error).str();
  else if (target->name.empty())
    target->name = nameOrPath.str();
  return target;
}

std::string TargetDescription::toJSON() const {
  llvm::json::Object gemmObject;
  for (const auto &entry : gemm) {
    llvm::json::Object rate{{"peak_flops", entry.getValue().peakFlops},
                            {"half_flops", entry.getValue().halfFlops}};
    if (entry.getValue().bOperandBandwidth > 0)
      rate["b_operand_bandwidth"] = entry.getValue().bOperandBandwidth;
    gemmObject[entry.getKey()] = std::move(rate);
  }
  auto link = [](const LinkCost &cost) {
    return llvm::json::Object{{"bandwidth", cost.bandwidth},
                              {"latency", cost.latency}};
  };
  llvm::json::Value root = llvm::json::Object{
      {"name", name},
      {"gemm", std::move(gemmObject)},
      {"links",
       llvm::json::Object{{"per_peer", link(perPeer)},
                          {"ring", link(ring)},
                          {"collective", link(collective)}}},
      {"overlap_slowdown", overlapSlowdown},
      {"launch_overhead", launchOverhead}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", root);
  return text;
}

//===----------------------------------------------------------------------===//
// The model (docs/CostModel.md)
//===----------------------------------------------------------------------===//

/// Seconds for one GEMM of `rows` x n x k.
static double gemmSeconds(const TargetDescription &target,
                          const CollectiveMatmulShape &shape, double rows) {
  // A type the description lacks runs at f32's rate, or any it has.
  auto it = target.gemm.find(shape.gemmType);
  if (it == target.gemm.end())
    it = target.gemm.find("f32");
  if (it == target.gemm.end())
    it = target.gemm.begin();
  const GemmRate &rate = it->getValue();
  double flops = 2.0 * rows * shape.n * shape.k;
  if (flops <= 0)
    return target.launchOverhead;
  double efficiency = flops / (flops + rate.halfFlops);
  double bOperand = rate.bOperandBandwidth > 0
                        ? static_cast<double>(shape.k) * shape.n *
                              shape.elementBytes / rate.bOperandBandwidth
                        : 0;
  return target.launchOverhead + flops / (rate.peakFlops * efficiency) +
         bOperand;
}

/// Bytes one rank sends each peer: its rows of A (gather) or of the product
/// (scatter).
static double bytesPerPeer(const CollectiveMatmulShape &shape) {
  return static_cast<double>(shape.rowsPerRank) *
         (shape.gather ? shape.k : shape.n) * shape.elementBytes;
}

SchedulePrediction tp::predictSchedule(const TargetDescription &target,
                                       const CollectiveMatmulShape &shape,
                                       Algorithm algorithm, int64_t chunks) {
  SchedulePrediction p;
  p.algorithm = algorithm;
  p.chunks = chunks;
  const double g = static_cast<double>(shape.groupSize);
  const double peers = g - 1, c = static_cast<double>(chunks);
  const double bytes = bytesPerPeer(shape);

  // Unfused: the collective op, then one GEMM over every rank's rows.
  const LinkCost &collective = target.collective;
  double unfusedComm =
      peers > 0 ? target.launchOverhead + collective.latency +
                      peers * bytes / collective.bandwidth
                : 0;
  double wholeGemm = gemmSeconds(target, shape, g * shape.rowsPerRank);
  p.unfused = unfusedComm + wholeGemm;

  // Fused: g * c GEMM pieces, slowed while data moves, and (g - 1) * c
  // messages of a piece each after one handshake (the link's latency).
  // per_peer launches a piece to every peer at once (one launch per round of
  // c); ring forwards it peer by peer (one launch per message).
  const LinkCost &link =
      algorithm == Algorithm::Ring ? target.ring : target.perPeer;
  double piece = gemmSeconds(target, shape, shape.rowsPerRank / c) *
                 (peers > 0 ? 1 + target.overlapSlowdown : 1);
  double launches = algorithm == Algorithm::Ring ? peers * c : c;
  double comm = peers > 0 ? link.latency + launches * target.launchOverhead +
                                peers * bytes / link.bandwidth
                          : 0;
  double compute = g * c * piece;
  // The last piece's GEMM waits for its data (gather), or the first piece's
  // data waits for its GEMM (scatter): either way one piece is not hidden.
  p.fused = std::max(compute, comm + piece);
  double exposed = std::max(0.0, p.fused - compute);
  p.hidden = unfusedComm > 0
                 ? std::clamp(1.0 - exposed / unfusedComm, 0.0, 1.0)
                 : 1.0;
  return p;
}

SchedulePrediction tp::chooseSchedule(const TargetDescription &target,
                                      const CollectiveMatmulShape &shape) {
  std::optional<SchedulePrediction> best;
  for (Algorithm algorithm : {Algorithm::PerPeer, Algorithm::Ring})
    for (int64_t chunks : {1, 2, 4, 8}) {
      // A piece has at least one row.
      if (chunks > 1 && shape.rowsPerRank < chunks)
        continue;
      SchedulePrediction p =
          predictSchedule(target, shape, algorithm, chunks);
      if (!best || p.fused < best->fused)
        best = p;
    }
  return *best;
}
