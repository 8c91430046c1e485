//===- Trace.h - Chrome trace-event recording -------------------*- C++ -*-===//
//
// Slices recorded by any thread; written as Chrome trace-event JSON, viewable
// in Perfetto or chrome://tracing, one process per rank and one thread per
// stream, so overlap of communication and GEMM chunks is visible.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_TRACE_H
#define TP_RUNTIME_TRACE_H

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace mlir::tp::rt {

enum class Stream : int { Compute = 0, Comm = 1, Host = 2 };

class TraceRecorder {
public:
  TraceRecorder();

  /// Microseconds since the recorder was made.
  double nowUs() const;

  /// A complete slice ("ph": "X").
  void record(int rank, Stream stream, std::string name, std::string category,
              double startUs, double endUs);

  size_t size() const;

  /// Writes {"traceEvents": [...], "displayTimeUnit": "ms"} (ts and dur are
  /// microseconds; chrome://tracing accepts only ms or ns here) with process
  /// and thread names ("rank R", "compute"/"comm"/"host").
  bool writeJson(const std::string &path, std::string &error) const;

private:
  struct Slice {
    int rank;
    Stream stream;
    std::string name, category;
    double startUs, endUs;
  };
  std::chrono::steady_clock::time_point origin;
  mutable std::mutex mutex;
  std::vector<Slice> slices;
};

/// Records one slice from construction to destruction; no-op without a
/// recorder.
class TraceScope {
public:
  TraceScope(TraceRecorder *recorder, int rank, Stream stream, std::string name,
             std::string category)
      : recorder(recorder), rank(rank), stream(stream), name(std::move(name)),
        category(std::move(category)), start(recorder ? recorder->nowUs() : 0) {
  }
  ~TraceScope() {
    if (recorder)
      recorder->record(rank, stream, std::move(name), std::move(category),
                       start, recorder->nowUs());
  }
  TraceScope(const TraceScope &) = delete;
  TraceScope &operator=(const TraceScope &) = delete;

private:
  TraceRecorder *recorder;
  int rank;
  Stream stream;
  std::string name, category;
  double start;
};

} // namespace mlir::tp::rt

#endif // TP_RUNTIME_TRACE_H
