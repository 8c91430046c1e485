//===- TargetDescription.cpp - the cost model's machines: presets, JSON ---===//
//
// docs/CostModel.md describes the format and cites every preset constant.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/TP/Transforms/CostModel.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tp;

//===----------------------------------------------------------------------===//
// Presets. GPUs: datasheets, cuBLASLt's documented tile shapes and NCCL's
// own topology constants, never fitted to the published measurements they
// are checked against (scripts/bench/gpu_published.py). "cpu": written by
// scripts/bench/calibrate_cpu.py on the project's 2-core machine.
// GPU schedules may run their pieces on up to 2 compute streams (the CUDA
// backend gives each its own cuBLASLt workspace).
//===----------------------------------------------------------------------===//

// sm_90 tensor-core kernels: 128-row tiles (two consumer warpgroups) and
// 64-row ping-pong tiles; efficiencies from shared-memory bandwidth.
#define TP_SM90_TILES                                                          \
  "[[128, 256, 1.0], [256, 128, 0.889], [128, 128, 0.8], [64, 256, 0.8], "     \
  "[64, 128, 0.667]]"
// sm_80 / sm_89 mma.sync kernels.
#define TP_SM80_TILES                                                          \
  "[[256, 128, 1.0], [128, 256, 1.0], [128, 128, 1.0], [64, 128, 0.889]]"
#define TP_SM89_TILES                                                          \
  "[[256, 128, 1.0], [128, 256, 1.0], [128, 128, 1.0], [64, 128, 1.0]]"
// NVLink through NVSwitch as NCCL rates it (20.6 GB/s per sm_90 link);
// NCCL's ring latencies: 8.4 us base and 3.4 us per NVLink step for its
// Simple protocol, 6.6 and 0.6 us for LL, which moves 8 bytes of every 16
// (half the bandwidth) and which NCCL picks for small messages.
#define TP_NVLINK_LINKS(bandwidth, halfBandwidth)                              \
  "\"links\": {\"per_peer\": {\"bandwidth\": " bandwidth                        \
  ", \"latency\": 1.0e-5}, \"ring\": {\"bandwidth\": " bandwidth               \
  ", \"latency\": 6.0e-6}, \"collective\": {\"bandwidth\": " bandwidth         \
  ", \"latency\": 8.4e-6, \"step_latency\": 3.4e-6}, "                        \
  "\"collective_low_latency\": {\"bandwidth\": " halfBandwidth                  \
  ", \"latency\": 6.6e-6, \"step_latency\": 0.6e-6}}"
#define TP_HOPPER(name, hbm, links, channels)                                  \
  "{\"name\": \"" name "\", \"gpu\": {\"sms\": 132, \"sustained\": 0.8, "      \
  "\"hbm_bandwidth\": " hbm ", \"compute_streams\": 2, "                       \
  "\"comm_sms\": {\"copy_engine\": 0, "                                        \
  "\"nccl\": 16}, \"nccl_channels\": " channels ", \"tiles\": " TP_SM90_TILES  \
  ", \"types\": {\"bf16\": {\"dense_flops\": 9.894e14, \"element_bytes\": 2}," \
  " \"f16\": {\"dense_flops\": 9.894e14, \"element_bytes\": 2}, \"f8\": "      \
  "{\"dense_flops\": 1.9789e15, \"element_bytes\": 1}, \"f32\": "              \
  "{\"dense_flops\": 6.69e13, \"element_bytes\": 4, \"tiles\": [[128, 128, "   \
  "1.0]]}}}, " links ", \"overlap_slowdown\": 0.0, \"launch_overhead\": "      \
  "4.0e-6, \"min_gain\": 0.05}"

static constexpr const char *kH100 =
    TP_HOPPER("h100-nvlink", "3.35e12", TP_NVLINK_LINKS("3.708e11", "1.854e11"), "24");
static constexpr const char *kH200 =
    TP_HOPPER("h200-nvlink", "4.8e12", TP_NVLINK_LINKS("3.708e11", "1.854e11"), "24");
// H800: the H100's compute with 8 NVLinks (8 x 20.6 GB/s), 16 NCCL channels.
static constexpr const char *kH800 =
    TP_HOPPER("h800-nvlink", "3.35e12", TP_NVLINK_LINKS("1.648e11", "8.24e10"), "16");

// A800: A100 compute (108 SMs, 312 TFLOP/s dense) with 8 NVLink 3 links
// (8 x 20.0 GB/s); FP8 runs as bf16 (the GEMM dequantizes).
static constexpr const char *kA800 = R"({
  "name": "a800-nvlink",
  "gpu": {"sms": 108, "sustained": 0.8, "hbm_bandwidth": 2.039e12,
          "compute_streams": 2,
          "comm_sms": {"copy_engine": 0, "nccl": 16}, "nccl_channels": 16,
          "tiles": )" TP_SM80_TILES R"(,
          "types": {"bf16": {"dense_flops": 3.12e14, "element_bytes": 2},
                    "f16":  {"dense_flops": 3.12e14, "element_bytes": 2},
                    "f8":   {"dense_flops": 3.12e14, "element_bytes": 2},
                    "f32":  {"dense_flops": 1.95e13, "element_bytes": 4,
                             "tiles": [[128, 128, 1.0]]}}},
  )" TP_NVLINK_LINKS("1.6e11", "8.0e10") R"(,
  "overlap_slowdown": 0.0, "launch_overhead": 4.0e-6, "min_gain": 0.05
})";

// L20: 92 Ada SMs, GDDR6, PCIe 4.0 x16; a ring crosses the host's sockets
// (NCCL rates that hop 10 GB/s less 1/6 overhead).
static constexpr const char *kL20 = R"({
  "name": "l20-pcie",
  "gpu": {"sms": 92, "sustained": 0.92, "hbm_bandwidth": 8.64e11,
          "compute_streams": 2,
          "comm_sms": {"copy_engine": 0, "nccl": 16}, "nccl_channels": 2,
          "tiles": )" TP_SM89_TILES R"(,
          "types": {"bf16": {"dense_flops": 1.195e14, "element_bytes": 2},
                    "f16":  {"dense_flops": 1.195e14, "element_bytes": 2},
                    "f8":   {"dense_flops": 2.39e14, "element_bytes": 1},
                    "f32":  {"dense_flops": 5.935e13, "element_bytes": 4,
                             "tiles": [[128, 128, 1.0]]}}},
  "links": {"per_peer":   {"bandwidth": 2.4e10, "latency": 1.5e-5},
            "ring":       {"bandwidth": 8.33e9, "latency": 1.2e-5},
            "collective": {"bandwidth": 8.33e9, "latency": 8.4e-6,
                           "step_latency": 5.7e-6},
            "collective_low_latency": {"bandwidth": 4.17e9, "latency": 6.6e-6,
                                       "step_latency": 1.0e-6}},
  "overlap_slowdown": 0.0, "launch_overhead": 5.0e-6, "min_gain": 0.05
})";

// H100 PCIe with the FLOP-only GEMM curve (no tile model yet).
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
    {"h100-nvlink", kH100}, {"h200-nvlink", kH200}, {"h800-nvlink", kH800},
    {"a800-nvlink", kA800}, {"l20-pcie", kL20},     {"pcie-node", kPcie},
    {"cpu", kCpu}};

llvm::SmallVector<llvm::StringRef> TargetDescription::presetNames() {
  llvm::SmallVector<llvm::StringRef> names;
  for (auto &[name, text] : kPresets)
    names.push_back(name);
  return names;
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

namespace {
/// Reads the fields of one JSON object, naming the first bad one in `error`.
struct FieldReader {
  const llvm::json::Object &object;
  std::string where;
  std::string &error;

  /// A finite number >= 0 (> 0 when `positive`) at `key`.
  bool number(llvm::StringRef key, double &value, bool positive) {
    std::optional<double> read = object.getNumber(key);
    if (!read || !std::isfinite(*read) || *read < 0 ||
        (positive && *read == 0)) {
      error = (where + "." + key + " must be a " +
               (positive ? "positive" : "non-negative") + " number")
                  .str();
      return false;
    }
    value = *read;
    return true;
  }
  /// As number(), but absent leaves `value` as it is.
  bool optionalNumber(llvm::StringRef key, double &value, bool positive) {
    return !object.get(key) || number(key, value, positive);
  }
  /// A whole number >= `least` at `key`; absent leaves `value` when
  /// `optional`.
  bool integer(llvm::StringRef key, int64_t &value, int64_t least,
               bool optional = false) {
    if (optional && !object.get(key))
      return true;
    std::optional<int64_t> read = object.getInteger(key);
    if (!read || *read < least) {
      error = (where + "." + key + " must be a whole number of at least " +
               llvm::Twine(least))
                  .str();
      return false;
    }
    value = *read;
    return true;
  }
  bool link(llvm::StringRef key, LinkCost &cost) {
    const llvm::json::Object *fields = object.getObject(key);
    FieldReader reader{fields ? *fields : object, where + "." + key.str(),
                       error};
    if (!fields) {
      error = reader.where + " must be an object {bandwidth, latency}";
      return false;
    }
    return reader.number("bandwidth", cost.bandwidth, true) &&
           reader.number("latency", cost.latency, false) &&
           reader.optionalNumber("step_latency", cost.stepLatency, false);
  }
};
} // namespace

/// `[[rows, cols, efficiency], ...]` at `key` of `object`.
static bool readTiles(const llvm::json::Object &object, llvm::StringRef where,
                      llvm::SmallVectorImpl<GpuTile> &tiles,
                      std::string &error) {
  const llvm::json::Array *rows = object.getArray("tiles");
  std::string name = (where + ".tiles").str();
  if (!rows || rows->empty()) {
    error = name + " must list [rows, cols, efficiency] tiles";
    return false;
  }
  for (const llvm::json::Value &row : *rows) {
    const llvm::json::Array *fields = row.getAsArray();
    std::optional<int64_t> m, n;
    std::optional<double> efficiency;
    if (fields && fields->size() == 3) {
      m = (*fields)[0].getAsInteger();
      n = (*fields)[1].getAsInteger();
      efficiency = (*fields)[2].getAsNumber();
    }
    if (!m || !n || !efficiency || *m < 1 || *n < 1 || !(*efficiency > 0) ||
        *efficiency > 1) {
      error = name + ": each tile must be [rows >= 1, cols >= 1, efficiency "
                     "in (0, 1]]";
      return false;
    }
    tiles.push_back({*m, *n, *efficiency});
  }
  return true;
}

static bool readGpu(const llvm::json::Object &object, GpuModel &gpu,
                    std::string &error) {
  FieldReader reader{object, "gpu", error};
  if (!reader.integer("sms", gpu.sms, 1) ||
      !reader.number("sustained", gpu.sustained, true) ||
      !reader.number("hbm_bandwidth", gpu.hbmBandwidth, true) ||
      !reader.integer("compute_streams", gpu.computeStreams, 1, true) ||
      !reader.integer("nccl_channels", gpu.ncclChannels, 0, true))
    return false;
  if (gpu.sustained > 1) {
    error = "gpu.sustained must be a fraction of the peak (at most 1)";
    return false;
  }
  if (std::optional<llvm::StringRef> transport = object.getString("transport"))
    gpu.transport = transport->str();
  if (gpu.transport != "copy_engine" && gpu.transport != "nccl") {
    error = "gpu.transport must be \"copy_engine\" or \"nccl\"";
    return false;
  }
  gpu.commSms = {{"copy_engine", 0}, {"nccl", 0}};
  if (const llvm::json::Object *commSms = object.getObject("comm_sms")) {
    FieldReader commReader{*commSms, "gpu.comm_sms", error};
    for (llvm::StringRef transport : {"copy_engine", "nccl"})
      if (!commReader.integer(transport, gpu.commSms[transport], 0, true))
        return false;
    for (const auto &entry : gpu.commSms)
      if (entry.getValue() >= gpu.sms) {
        error = "gpu.comm_sms." + entry.getKey().str() +
                " leaves the GEMMs no SM (gpu.sms is " +
                std::to_string(gpu.sms) + ")";
        return false;
      }
  }
  llvm::SmallVector<GpuTile> defaultTiles;
  if (object.get("tiles") && !readTiles(object, "gpu", defaultTiles, error))
    return false;
  const llvm::json::Object *types = object.getObject("types");
  if (!types || types->empty()) {
    error = "gpu.types must map element types to {dense_flops, "
            "element_bytes[, tiles]}";
    return false;
  }
  for (const auto &[type, value] : *types) {
    std::string where = "gpu.types." + type.str();
    const llvm::json::Object *fields = value.getAsObject();
    if (!fields) {
      error = where + " must be an object";
      return false;
    }
    GpuGemmType &rates = gpu.types[type.str()];
    FieldReader typeReader{*fields, where, error};
    if (!typeReader.number("dense_flops", rates.denseFlops, true) ||
        !typeReader.integer("element_bytes", rates.elementBytes, 1))
      return false;
    if (fields->get("tiles")) {
      if (!readTiles(*fields, where, rates.tiles, error))
        return false;
    } else if (defaultTiles.empty()) {
      error = where + ".tiles is missing, and gpu.tiles gives no default";
      return false;
    } else {
      rates.tiles = defaultTiles;
    }
  }
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
  if (const llvm::json::Object *gpu = root->getObject("gpu")) {
    target.gpu.emplace();
    if (!readGpu(*gpu, *target.gpu, error))
      return std::nullopt;
  } else if (root->get("gpu")) {
    error = "'gpu' must be an object";
    return std::nullopt;
  }
  const llvm::json::Object *gemm = root->getObject("gemm");
  if ((!gemm || gemm->empty()) && !target.gpu) {
    error = "'gemm' must map element types to {peak_flops, half_flops} "
            "(or give a 'gpu' model)";
    return std::nullopt;
  }
  for (const auto &[type, rate] : gemm ? *gemm : llvm::json::Object()) {
    std::string where = "gemm." + type.str();
    const llvm::json::Object *fields = rate.getAsObject();
    if (!fields) {
      error = where + " must be an object";
      return std::nullopt;
    }
    GemmRate parsed;
    FieldReader reader{*fields, where, error};
    // b_operand_bandwidth is optional (descriptions written before it
    // existed leave it out); 0 leaves the term out too.
    if (!reader.number("peak_flops", parsed.peakFlops, true) ||
        !reader.number("half_flops", parsed.halfFlops, false) ||
        !reader.optionalNumber("b_operand_bandwidth",
                               parsed.bOperandBandwidth, false))
      return std::nullopt;
    target.gemm[type.str()] = parsed;
  }
  const llvm::json::Object *links = root->getObject("links");
  if (!links) {
    error = "links.per_peer must be an object {bandwidth, latency}";
    return std::nullopt;
  }
  FieldReader linkReader{*links, "links", error};
  if (!linkReader.link("per_peer", target.perPeer) ||
      !linkReader.link("ring", target.ring))
    return std::nullopt;
  // Optional: without it, the unfused collective moves data as per_peer.
  target.collective = target.perPeer;
  if (links->get("collective") &&
      !linkReader.link("collective", target.collective))
    return std::nullopt;
  if (links->get("collective_low_latency") &&
      !linkReader.link("collective_low_latency", target.collectiveLowLatency))
    return std::nullopt;
  FieldReader reader{*root, "target", error};
  if (!reader.number("overlap_slowdown", target.overlapSlowdown, false) ||
      !reader.number("launch_overhead", target.launchOverhead, false) ||
      !reader.optionalNumber("min_gain", target.minGain, false))
    return std::nullopt;
  if (target.minGain >= 1) {
    error = "target.min_gain must be a fraction below 1";
    return std::nullopt;
  }
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

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

static llvm::json::Array tilesToJSON(llvm::ArrayRef<GpuTile> tiles) {
  llvm::json::Array rows;
  for (const GpuTile &tile : tiles)
    rows.push_back(llvm::json::Array{tile.rows, tile.cols, tile.efficiency});
  return rows;
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
    llvm::json::Object fields{{"bandwidth", cost.bandwidth},
                              {"latency", cost.latency}};
    if (cost.stepLatency > 0)
      fields["step_latency"] = cost.stepLatency;
    return fields;
  };
  llvm::json::Object root{
      {"name", name},
      {"links",
       llvm::json::Object{{"per_peer", link(perPeer)},
                          {"ring", link(ring)},
                          {"collective", link(collective)}}},
      {"overlap_slowdown", overlapSlowdown},
      {"launch_overhead", launchOverhead},
      {"min_gain", minGain}};
  if (collectiveLowLatency.bandwidth > 0)
    root.getObject("links")->try_emplace("collective_low_latency",
                                         link(collectiveLowLatency));
  if (!gemm.empty())
    root["gemm"] = std::move(gemmObject);
  if (gpu) {
    llvm::json::Object types, commSms;
    for (const auto &entry : gpu->types)
      types[entry.getKey()] = llvm::json::Object{
          {"dense_flops", entry.getValue().denseFlops},
          {"element_bytes", entry.getValue().elementBytes},
          {"tiles", tilesToJSON(entry.getValue().tiles)}};
    for (const auto &entry : gpu->commSms)
      commSms[entry.getKey()] = entry.getValue();
    root["gpu"] = llvm::json::Object{{"sms", gpu->sms},
                                     {"sustained", gpu->sustained},
                                     {"hbm_bandwidth", gpu->hbmBandwidth},
                                     {"compute_streams", gpu->computeStreams},
                                     {"transport", gpu->transport},
                                     {"comm_sms", std::move(commSms)},
                                     {"nccl_channels", gpu->ncclChannels},
                                     {"types", std::move(types)}};
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root)));
  return text;
}
