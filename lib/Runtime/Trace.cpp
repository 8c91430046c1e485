//===- Trace.cpp - Chrome trace-event recording ---------------------------===//
//
// The output follows the Trace Event Format: metadata events ("ph": "M")
// name each rank's process and each stream's thread, then one complete event
// ("ph": "X") per slice, with "ts" and "dur" in microseconds.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Trace.h"
#include "tp/Runtime/Files.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>
#include <string_view>
#include <utility>

using namespace mlir::tp::rt;

namespace {

std::string streamName(Stream stream) {
  switch (stream) {
  case Stream::Compute:
    return "compute";
  case Stream::Comm:
    return "comm";
  case Stream::Host:
    return "host";
  }
  return "stream " + std::to_string(static_cast<int>(stream));
}

/// Microseconds with three decimals (nanoseconds). std::to_chars ignores the
/// locale, which could otherwise print a decimal comma; JSON has no inf/nan.
void appendMicros(std::string &out, double us) {
  if (!std::isfinite(us))
    us = 0;
  char buffer[400]; // enough for any finite double in fixed notation
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, us,
                                 std::chars_format::fixed, 3);
  if (ec != std::errc())
    out += "0";
  else
    out.append(buffer, end);
}

/// Length of the well-formed UTF-8 sequence starting at text[i] (Unicode
/// table 3-7: no overlongs, surrogates or code points past U+10FFFF), or 0.
size_t utf8SequenceLength(std::string_view text, size_t i) {
  auto lead = static_cast<unsigned char>(text[i]);
  size_t length;
  unsigned char low = 0x80, high = 0xBF; // range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    low = lead == 0xE0 ? 0xA0 : 0x80;
    high = lead == 0xED ? 0x9F : 0xBF;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    low = lead == 0xF0 ? 0x90 : 0x80;
    high = lead == 0xF4 ? 0x8F : 0xBF;
  } else {
    return 0;
  }
  if (i + length > text.size())
    return 0;
  for (size_t k = 1; k < length; ++k) {
    auto c = static_cast<unsigned char>(text[i + k]);
    if (c < (k == 1 ? low : 0x80) || c > (k == 1 ? high : 0xBF))
      return 0;
  }
  return length;
}

/// A JSON string literal. Names come from user IR and may hold anything, so
/// control characters are escaped and bytes that are not UTF-8 become U+FFFD
/// (strict parsers reject them).
void appendJsonString(std::string &out, std::string_view text) {
  out += '"';
  for (size_t i = 0; i < text.size();) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      size_t length = utf8SequenceLength(text, i);
      if (length == 0) {
        out += "\\ufffd";
        ++i;
      } else {
        out += text.substr(i, length);
        i += length;
      }
      continue;
    }
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\b':
      out += "\\b";
      break;
    case '\f':
      out += "\\f";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (c < 0x20) {
        char escape[8];
        std::snprintf(escape, sizeof escape, "\\u%04x", c);
        out += escape;
      } else {
        out += static_cast<char>(c);
      }
    }
    ++i;
  }
  out += '"';
}

/// {"name":NAME,"ph":"M","pid":PID,"tid":TID,"args":{KEY:VALUE}} where
/// `value` is already JSON.
void appendMetadata(std::string &out, std::string_view name, int pid, int tid,
                    std::string_view key, const std::string &value) {
  out += "{\"name\":";
  appendJsonString(out, name);
  out += ",\"ph\":\"M\",\"pid\":" + std::to_string(pid) +
         ",\"tid\":" + std::to_string(tid) + ",\"args\":{";
  appendJsonString(out, key);
  out += ":" + value + "}}";
}

std::string jsonString(std::string_view text) {
  std::string out;
  appendJsonString(out, text);
  return out;
}

} // namespace

TraceRecorder::TraceRecorder() : origin(std::chrono::steady_clock::now()) {}

double TraceRecorder::nowUs() const {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now() - origin)
      .count();
}

void TraceRecorder::record(int rank, Stream stream, std::string name,
                           std::string category, double startUs, double endUs) {
  std::lock_guard<std::mutex> lock(mutex);
  slices.push_back(
      {rank, stream, std::move(name), std::move(category), startUs, endUs});
}

size_t TraceRecorder::size() const {
  std::lock_guard<std::mutex> lock(mutex);
  return slices.size();
}

bool TraceRecorder::writeJson(const std::string &path,
                              std::string &error) const {
  // Format a snapshot, so recording threads wait only for the copy.
  std::vector<Slice> snapshot;
  {
    std::lock_guard<std::mutex> lock(mutex);
    snapshot = slices;
  }
  // Non-finite times would break the sort's ordering and the JSON; a slice
  // that ends before it starts gets zero duration.
  for (Slice &slice : snapshot) {
    if (!std::isfinite(slice.startUs))
      slice.startUs = 0;
    if (!std::isfinite(slice.endUs) || slice.endUs < slice.startUs)
      slice.endUs = slice.startUs;
  }
  std::stable_sort(
      snapshot.begin(), snapshot.end(),
      [](const Slice &a, const Slice &b) { return a.startUs < b.startUs; });

  std::set<int> ranks;
  std::set<std::pair<int, int>> threads;
  for (const Slice &slice : snapshot) {
    ranks.insert(slice.rank);
    threads.insert({slice.rank, static_cast<int>(slice.stream)});
  }

  // One event per line keeps large traces readable and diffable.
  std::string json = "{\"traceEvents\": [";
  bool first = true;
  auto beginEvent = [&] {
    json += first ? "\n" : ",\n";
    first = false;
  };
  for (int rank : ranks) {
    beginEvent();
    appendMetadata(json, "process_name", rank, 0, "name",
                   jsonString("rank " + std::to_string(rank)));
    beginEvent();
    appendMetadata(json, "process_sort_index", rank, 0, "sort_index",
                   std::to_string(rank));
  }
  for (auto [rank, stream] : threads) {
    beginEvent();
    appendMetadata(json, "thread_name", rank, stream, "name",
                   jsonString(streamName(static_cast<Stream>(stream))));
    beginEvent();
    appendMetadata(json, "thread_sort_index", rank, stream, "sort_index",
                   std::to_string(stream));
  }
  for (const Slice &slice : snapshot) {
    beginEvent();
    json += "{\"name\":";
    appendJsonString(json, slice.name);
    json += ",\"cat\":";
    appendJsonString(json, slice.category);
    json += ",\"ph\":\"X\",\"pid\":" + std::to_string(slice.rank) +
            ",\"tid\":" + std::to_string(static_cast<int>(slice.stream)) +
            ",\"ts\":";
    appendMicros(json, slice.startUs);
    json += ",\"dur\":";
    appendMicros(json, slice.endUs - slice.startUs);
    json += "}";
  }
  // "ts"/"dur" are microseconds whatever this says; it only picks the unit
  // viewers display. chrome://tracing accepts only "ms" and "ns" here and
  // refuses the whole file otherwise.
  json += "\n],\n\"displayTimeUnit\": \"ms\"}\n";

  return writeFileAtomically(path, {json}, error);
}
