//===- Wire.cpp - a rank's outcome as bytes between processes -------------===//

#include "tp/Runtime/Wire.h"

#include <cstring>

using namespace mlir::tp::rt;

namespace {
constexpr uint32_t kMagic = 0x54505231; // "TPR1"

class Writer {
public:
  template <typename T> void put(T value) {
    bytes.append(reinterpret_cast<const char *>(&value), sizeof(T));
  }
  void putBytes(const void *data, size_t size) {
    put<uint64_t>(size);
    if (size)
      bytes.append(static_cast<const char *>(data), size);
  }
  std::string bytes;
};

class Reader {
public:
  explicit Reader(const std::string &bytes) : bytes(bytes) {}
  template <typename T> bool get(T &value) {
    if (bytes.size() - at < sizeof(T))
      return false;
    std::memcpy(&value, bytes.data() + at, sizeof(T));
    at += sizeof(T);
    return true;
  }
  /// A length-prefixed run of bytes, without copying.
  bool getBytes(const char *&data, uint64_t &size) {
    if (!get(size) || bytes.size() - at < size)
      return false;
    data = bytes.data() + at;
    at += size;
    return true;
  }
  bool atEnd() const { return at == bytes.size(); }

private:
  const std::string &bytes;
  size_t at = 0;
};
} // namespace

std::string mlir::tp::rt::encodeOutcome(const Status &status,
                                        const std::vector<Tensor> &results,
                                        const StepReport &steps) {
  Writer w;
  w.put(kMagic);
  w.put<uint8_t>(status.isOk());
  if (!status.isOk()) {
    w.putBytes(status.message().data(), status.message().size());
    return w.bytes;
  }
  w.put<uint32_t>(results.size());
  for (const Tensor &t : results) {
    w.put<uint8_t>(static_cast<uint8_t>(t.dtype()));
    w.put<uint32_t>(t.rank());
    for (int64_t d : t.shape())
      w.put<int64_t>(d);
    w.putBytes(t.data(), t.numBytes());
  }
  w.put<uint32_t>(steps.millis.size());
  for (double ms : steps.millis)
    w.put<double>(ms);
  w.put<int64_t>(steps.hostToDevice);
  w.put<int64_t>(steps.deviceToHost);
  w.put<int64_t>(steps.peakBufferBytes);
  w.put<uint32_t>(steps.resources.size());
  for (const StepReport::Resources &sample : steps.resources) {
    w.put<int32_t>(sample.step);
    w.put<int64_t>(sample.residentBytes);
    w.put<int32_t>(sample.openFiles);
  }
  return w.bytes;
}

Status mlir::tp::rt::decodeOutcome(const std::string &bytes, Status &outcome,
                                   std::vector<Tensor> &results,
                                   StepReport *steps) {
  Reader r(bytes);
  auto malformed = [&](const char *what) {
    return Status::error("malformed rank report (" +
                         std::to_string(bytes.size()) + " bytes): " + what);
  };
  uint32_t magic;
  uint8_t ok;
  if (!r.get(magic) || magic != kMagic)
    return malformed("no header");
  if (!r.get(ok))
    return malformed("no status");
  results.clear();
  if (!ok) {
    const char *text;
    uint64_t size;
    if (!r.getBytes(text, size) || !r.atEnd())
      return malformed("bad error message");
    outcome = Status::error(std::string(text, size));
    return Status::ok();
  }
  uint32_t count;
  if (!r.get(count))
    return malformed("no result count");
  for (uint32_t i = 0; i < count; ++i) {
    uint8_t type;
    uint32_t rank;
    if (!r.get(type) || type > static_cast<uint8_t>(DType::I64) || !r.get(rank))
      return malformed("bad result type");
    // Every dim takes 8 bytes of the report and every element at least one:
    // a shape larger than the report is malformed, and is refused before
    // anything is allocated for it. An empty tensor's other dims may be
    // large (20x8x0): their product need only fit int64.
    if (rank > bytes.size() / sizeof(int64_t))
      return malformed("bad result rank");
    std::vector<int64_t> shape(rank);
    bool empty = false;
    for (int64_t &d : shape) {
      if (!r.get(d) || d < 0)
        return malformed("bad result shape");
      empty |= d == 0;
    }
    const uint64_t bound = empty ? uint64_t(1) << 62 : bytes.size();
    uint64_t product = 1;
    for (int64_t d : shape) {
      if (d == 0)
        continue;
      if (static_cast<uint64_t>(d) > bound / product)
        return malformed("bad result shape");
      product *= static_cast<uint64_t>(d);
    }
    Tensor t(static_cast<DType>(type), shape);
    const char *data;
    uint64_t size;
    if (!r.getBytes(data, size) || size != t.numBytes())
      return malformed("result bytes do not match its shape");
    if (size)
      std::memcpy(t.mutableData(), data, size);
    results.push_back(std::move(t));
  }
  uint32_t stepCount;
  if (!r.get(stepCount) || stepCount > bytes.size() / sizeof(double))
    return malformed("bad step count");
  StepReport report;
  report.millis.resize(stepCount);
  for (double &ms : report.millis)
    if (!r.get(ms))
      return malformed("step times cut short");
  if (!r.get(report.hostToDevice) || !r.get(report.deviceToHost))
    return malformed("no host transfers");
  if (!r.get(report.peakBufferBytes))
    return malformed("no buffer peak");
  uint32_t sampleCount;
  constexpr size_t kSampleBytes = 2 * sizeof(int32_t) + sizeof(int64_t);
  if (!r.get(sampleCount) || sampleCount > bytes.size() / kSampleBytes)
    return malformed("bad resource sample count");
  report.resources.resize(sampleCount);
  for (StepReport::Resources &sample : report.resources)
    if (!r.get(sample.step) || !r.get(sample.residentBytes) ||
        !r.get(sample.openFiles))
      return malformed("resource samples cut short");
  if (!r.atEnd())
    return malformed("trailing bytes");
  if (steps)
    *steps = std::move(report);
  outcome = Status::ok();
  return Status::ok();
}
