//===- TraceTest.cpp - Chrome trace-event recording -----------------------===//

#include "tp/Runtime/Trace.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>
#include <unistd.h>

using namespace mlir::tp::rt;
namespace fs = std::filesystem;

namespace {

//===----------------------------------------------------------------------===//
// A strict RFC 8259 JSON reader, enough to check what the recorder writes
//===----------------------------------------------------------------------===//

struct Json {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Json> array;
  std::vector<std::pair<std::string, Json>> object;

  const Json *find(std::string_view key) const {
    for (const auto &[name, value] : object)
      if (name == key)
        return &value;
    return nullptr;
  }
  /// The member `key`; a null (which fails any kind check) when absent.
  const Json &operator[](std::string_view key) const {
    static const Json missing;
    const Json *value = find(key);
    return value ? *value : missing;
  }
};

class JsonReader {
public:
  explicit JsonReader(std::string_view text) : text(text) {}

  std::optional<Json> read(std::string &error) {
    Json value;
    skipSpace();
    if (!parseValue(value))
      return fail(error);
    skipSpace();
    if (pos != text.size()) {
      problem = "text after the value";
      return fail(error);
    }
    return value;
  }

private:
  std::nullopt_t fail(std::string &error) const {
    error = problem + " at offset " + std::to_string(pos);
    return std::nullopt;
  }

  bool bad(const std::string &what) {
    problem = what;
    return false;
  }

  char peek() const { return pos < text.size() ? text[pos] : '\0'; }

  void skipSpace() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' ||
                                 text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
  }

  bool literal(std::string_view word) {
    if (text.substr(pos, word.size()) != word)
      return bad("bad literal");
    pos += word.size();
    return true;
  }

  bool parseValue(Json &value) {
    switch (peek()) {
    case '{':
      return parseObject(value);
    case '[':
      return parseArray(value);
    case '"':
      value.kind = Json::Kind::String;
      return parseString(value.string);
    case 't':
      value.kind = Json::Kind::Bool;
      value.boolean = true;
      return literal("true");
    case 'f':
      value.kind = Json::Kind::Bool;
      return literal("false");
    case 'n':
      return literal("null");
    default:
      return parseNumber(value);
    }
  }

  bool parseObject(Json &value) {
    value.kind = Json::Kind::Object;
    ++pos;
    skipSpace();
    if (peek() == '}')
      return ++pos, true;
    for (;;) {
      skipSpace();
      std::string key;
      if (peek() != '"' || !parseString(key))
        return bad("expected a key");
      if (value.find(key))
        return bad("duplicate key " + key);
      skipSpace();
      if (peek() != ':')
        return bad("expected ':'");
      ++pos;
      skipSpace();
      Json member;
      if (!parseValue(member))
        return false;
      value.object.emplace_back(std::move(key), std::move(member));
      skipSpace();
      if (peek() == ',') {
        ++pos;
        continue;
      }
      if (peek() != '}')
        return bad("expected ',' or '}'");
      return ++pos, true;
    }
  }

  bool parseArray(Json &value) {
    value.kind = Json::Kind::Array;
    ++pos;
    skipSpace();
    if (peek() == ']')
      return ++pos, true;
    for (;;) {
      skipSpace();
      Json element;
      if (!parseValue(element))
        return false;
      value.array.push_back(std::move(element));
      skipSpace();
      if (peek() == ',') {
        ++pos;
        continue;
      }
      if (peek() != ']')
        return bad("expected ',' or ']'");
      return ++pos, true;
    }
  }

  bool parseHex4(unsigned &code) {
    if (pos + 4 > text.size())
      return bad("short \\u escape");
    code = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text[pos++];
      code <<= 4;
      if (c >= '0' && c <= '9')
        code |= c - '0';
      else if (c >= 'a' && c <= 'f')
        code |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        code |= c - 'A' + 10;
      else
        return bad("bad \\u escape");
    }
    return true;
  }

  static void appendUtf8(std::string &out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | code >> 6);
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | code >> 12);
      out += static_cast<char>(0x80 | (code >> 6 & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | code >> 18);
      out += static_cast<char>(0x80 | (code >> 12 & 0x3F));
      out += static_cast<char>(0x80 | (code >> 6 & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  bool parseString(std::string &out) {
    ++pos; // the opening quote
    for (;;) {
      if (pos >= text.size())
        return bad("unterminated string");
      auto c = static_cast<unsigned char>(text[pos++]);
      if (c == '"')
        return true;
      if (c < 0x20)
        return bad("raw control character in a string");
      if (c != '\\') {
        out += static_cast<char>(c);
        continue;
      }
      char escape = peek();
      ++pos;
      switch (escape) {
      case '"':
      case '\\':
      case '/':
        out += escape;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        unsigned code;
        if (!parseHex4(code))
          return false;
        if (code >= 0xDC00 && code <= 0xDFFF)
          return bad("lone low surrogate");
        if (code >= 0xD800 && code <= 0xDBFF) {
          unsigned low;
          if (text.substr(pos, 2) != "\\u")
            return bad("lone high surrogate");
          pos += 2;
          if (!parseHex4(low) || low < 0xDC00 || low > 0xDFFF)
            return bad("bad surrogate pair");
          code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        }
        appendUtf8(out, code);
        break;
      }
      default:
        return bad("bad escape");
      }
    }
  }

  bool parseNumber(Json &value) {
    size_t start = pos;
    auto digits = [&] {
      size_t first = pos;
      while (std::isdigit(static_cast<unsigned char>(peek())))
        ++pos;
      return pos > first;
    };
    if (peek() == '-')
      ++pos;
    if (peek() == '0')
      ++pos;
    else if (!digits())
      return bad("expected a value");
    if (peek() == '.') {
      ++pos;
      if (!digits())
        return bad("expected fraction digits");
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos;
      if (peek() == '+' || peek() == '-')
        ++pos;
      if (!digits())
        return bad("expected exponent digits");
    }
    value.kind = Json::Kind::Number;
    value.number = std::strtod(
        std::string(text.substr(start, pos - start)).c_str(), nullptr);
    return true;
  }

  std::string_view text;
  size_t pos = 0;
  std::string problem;
};

//===----------------------------------------------------------------------===//
// Fixture
//===----------------------------------------------------------------------===//

class TraceTest : public ::testing::Test {
protected:
  void SetUp() override {
    const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir = fs::path(::testing::TempDir()) /
          ("tp-trace-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }

  std::string path(const std::string &name) const {
    return (dir / name).string();
  }

  /// Writes `recorder` and parses the file back.
  Json writeAndRead(const TraceRecorder &recorder,
                    const std::string &name = "trace.json") {
    std::string error;
    EXPECT_TRUE(recorder.writeJson(path(name), error)) << error;
    std::ifstream in(path(name), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    std::optional<Json> json = JsonReader(text.str()).read(error);
    EXPECT_TRUE(json.has_value()) << "invalid JSON: " << error;
    return json.value_or(Json());
  }

  fs::path dir;
};

/// The checked shape of a written trace.
struct Trace {
  std::vector<const Json *> metadata, slices;
};

/// Points into `json`, which must outlive the result.
Trace splitEvents(const Json &json) {
  Trace trace;
  EXPECT_EQ(json.kind, Json::Kind::Object);
  const Json &events = json["traceEvents"];
  EXPECT_EQ(events.kind, Json::Kind::Array);
  EXPECT_EQ(json["displayTimeUnit"].kind, Json::Kind::String);
  for (const Json &event : events.array) {
    EXPECT_EQ(event.kind, Json::Kind::Object);
    EXPECT_EQ(event["name"].kind, Json::Kind::String);
    EXPECT_EQ(event["pid"].kind, Json::Kind::Number);
    EXPECT_EQ(event["tid"].kind, Json::Kind::Number);
    const std::string &phase = event["ph"].string;
    if (phase == "M") {
      // Viewers apply names only before the slices, so metadata comes first.
      EXPECT_TRUE(trace.slices.empty()) << "metadata after a slice";
      EXPECT_EQ(event["args"].kind, Json::Kind::Object);
      trace.metadata.push_back(&event);
    } else {
      EXPECT_EQ(phase, "X");
      EXPECT_EQ(event["cat"].kind, Json::Kind::String);
      EXPECT_EQ(event["ts"].kind, Json::Kind::Number);
      EXPECT_EQ(event["dur"].kind, Json::Kind::Number);
      EXPECT_GE(event["dur"].number, 0);
      trace.slices.push_back(&event);
    }
  }
  return trace;
}

int intOf(const Json &value) { return static_cast<int>(value.number); }

//===----------------------------------------------------------------------===//
// Tests
//===----------------------------------------------------------------------===//

TEST_F(TraceTest, ConcurrentRecording) {
  constexpr int kThreads = 8, kSlicesPerThread = 200, kRanks = 4;
  TraceRecorder recorder;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&recorder, t] {
      int rank = t % kRanks;
      auto stream = static_cast<Stream>(t % 3);
      for (int i = 0; i < kSlicesPerThread; ++i) {
        std::string name = "t" + std::to_string(t) + "-" + std::to_string(i);
        if (i % 2) {
          TraceScope scope(&recorder, rank, stream, name, "scope");
        } else {
          double start = recorder.nowUs();
          recorder.record(rank, stream, name, "record", start,
                          recorder.nowUs());
        }
      }
    });
  // Reading and writing while others record must be safe too.
  std::thread reader([&] {
    std::string error;
    for (int i = 0; i < 5; ++i) {
      EXPECT_LE(recorder.size(), size_t(kThreads * kSlicesPerThread));
      EXPECT_TRUE(recorder.writeJson(path("partial.json"), error)) << error;
    }
  });
  for (std::thread &thread : threads)
    thread.join();
  reader.join();
  ASSERT_EQ(recorder.size(), size_t(kThreads * kSlicesPerThread));

  Json json = writeAndRead(recorder);
  Trace trace = splitEvents(json);
  ASSERT_EQ(trace.slices.size(), size_t(kThreads * kSlicesPerThread));

  std::map<std::pair<int, int>, int> perThread;
  std::set<std::string> names;
  double lastStart = -1;
  for (const Json *slice : trace.slices) {
    int pid = intOf((*slice)["pid"]), tid = intOf((*slice)["tid"]);
    ++perThread[{pid, tid}];
    names.insert((*slice)["name"].string);
    // Sorted by start time.
    EXPECT_GE((*slice)["ts"].number, lastStart);
    lastStart = (*slice)["ts"].number;
    const std::string &name = (*slice)["name"].string;
    int t = std::stoi(name.substr(1));
    EXPECT_EQ(pid, t % kRanks) << name;
    EXPECT_EQ(tid, t % 3) << name;
  }
  EXPECT_EQ(names.size(), size_t(kThreads * kSlicesPerThread));
  // Threads t and t+4 share a rank but not a stream: 8 (rank, stream) pairs.
  EXPECT_EQ(perThread.size(), size_t(kThreads));
  for (const auto &[thread, count] : perThread)
    EXPECT_EQ(count, kSlicesPerThread);

  std::map<std::string, int> metadataCounts;
  std::map<int, std::string> processNames;
  std::map<std::pair<int, int>, std::string> threadNames;
  for (const Json *event : trace.metadata) {
    const std::string &kind = (*event)["name"].string;
    int pid = intOf((*event)["pid"]), tid = intOf((*event)["tid"]);
    ++metadataCounts[kind];
    if (kind == "process_name") {
      processNames[pid] = (*event)["args"]["name"].string;
    } else if (kind == "thread_name") {
      threadNames[{pid, tid}] = (*event)["args"]["name"].string;
    } else if (kind == "process_sort_index") {
      EXPECT_EQ(intOf((*event)["args"]["sort_index"]), pid);
    }
  }
  EXPECT_EQ(metadataCounts["process_name"], kRanks);
  EXPECT_EQ(metadataCounts["process_sort_index"], kRanks);
  EXPECT_EQ(metadataCounts["thread_name"], kThreads);
  for (int rank = 0; rank < kRanks; ++rank)
    EXPECT_EQ(processNames[rank], "rank " + std::to_string(rank));
  const char *streamNames[] = {"compute", "comm", "host"};
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ((threadNames[{t % kRanks, t % 3}]), streamNames[t % 3]);
}

TEST_F(TraceTest, MetadataNamesEachRankAndStreamOnce) {
  TraceRecorder recorder;
  recorder.record(2, Stream::Comm, "all_gather", "comm", 1, 2);
  recorder.record(2, Stream::Comm, "reduce_scatter", "comm", 3, 4);
  recorder.record(0, Stream::Host, "launch", "host", 0, 1);
  recorder.record(0, Stream::Compute, "gemm", "compute", 5, 9);
  Json json = writeAndRead(recorder);
  Trace trace = splitEvents(json);

  std::vector<std::string> metadata;
  for (const Json *event : trace.metadata) {
    std::string arg =
        (*event)["args"]["name"].kind == Json::Kind::String
            ? (*event)["args"]["name"].string
            : std::to_string(intOf((*event)["args"]["sort_index"]));
    metadata.push_back((*event)["name"].string + " " +
                       std::to_string(intOf((*event)["pid"])) + "/" +
                       std::to_string(intOf((*event)["tid"])) + " " + arg);
  }
  std::vector<std::string> expected = {
      "process_name 0/0 rank 0", "process_sort_index 0/0 0",
      "process_name 2/0 rank 2", "process_sort_index 2/0 2",
      "thread_name 0/0 compute", "thread_sort_index 0/0 0",
      "thread_name 0/2 host",    "thread_sort_index 0/2 2",
      "thread_name 2/1 comm",    "thread_sort_index 2/1 1",
  };
  EXPECT_EQ(metadata, expected);

  ASSERT_EQ(trace.slices.size(), 4u);
  std::vector<std::string> order;
  for (const Json *slice : trace.slices)
    order.push_back((*slice)["name"].string + "@" +
                    std::to_string(intOf((*slice)["pid"])) + "/" +
                    std::to_string(intOf((*slice)["tid"])) + ":" +
                    (*slice)["cat"].string);
  EXPECT_EQ(order, (std::vector<std::string>{
                       "launch@0/2:host", "all_gather@2/1:comm",
                       "reduce_scatter@2/1:comm", "gemm@0/0:compute"}));
}

TEST_F(TraceTest, TimesAreMicrosecondsWithThreeDecimals) {
  TraceRecorder recorder;
  recorder.record(0, Stream::Compute, "a", "c", 1.5, 4.25);
  recorder.record(0, Stream::Compute, "b", "c", 1234.5678, 1234.5678 + 0.0004);
  // A slice that ends before it starts, or has no finite times, still gives
  // valid JSON: zero duration, non-finite times as 0.
  recorder.record(1, Stream::Comm, "backwards", "c", 10, 5);
  recorder.record(1, Stream::Comm, "nan", "c", std::nan(""), INFINITY);
  recorder.record(1, Stream::Comm, "inf", "c", 2, INFINITY);
  Json json = writeAndRead(recorder);
  std::map<std::string, std::pair<double, double>> times;
  for (const Json *slice : splitEvents(json).slices)
    times[(*slice)["name"].string] = {(*slice)["ts"].number,
                                      (*slice)["dur"].number};
  EXPECT_EQ(times["a"], std::make_pair(1.5, 2.75));
  EXPECT_EQ(times["b"], std::make_pair(1234.568, 0.0));
  EXPECT_EQ(times["backwards"], std::make_pair(10.0, 0.0));
  EXPECT_EQ(times["nan"], std::make_pair(0.0, 0.0));
  EXPECT_EQ(times["inf"], std::make_pair(2.0, 0.0));

  std::ifstream in(path("trace.json"));
  std::ostringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("\"ts\":1234.568,\"dur\":0.000"),
            std::string::npos);
  EXPECT_NE(text.str().find("\"ts\":1.500,\"dur\":2.750"), std::string::npos);
}

TEST_F(TraceTest, EscapesStrings) {
  struct Case {
    std::string raw, decoded;
  };
  std::vector<Case> cases = {
      {"quote\" backslash\\ slash/", "quote\" backslash\\ slash/"},
      {"line\nfeed\ttab\rcr\b\f", "line\nfeed\ttab\rcr\b\f"},
      {std::string("nul\0 and \x01\x1f\x7f", 12),
       std::string("nul\0 and \x01\x1f\x7f", 12)},
      {"\xc2\xb5s \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x9a\x80",
       "\xc2\xb5s \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x9a\x80"},
      // Not UTF-8: a stray byte, an overlong '/', a surrogate, a truncated
      // sequence, a code point past U+10FFFF. Each bad byte is U+FFFD.
      {"a\xff!", "a\xef\xbf\xbd!"},
      {"\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd"},
      {"\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
      {"x\xe6\x97", "x\xef\xbf\xbd\xef\xbf\xbd"},
      {"\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
  };
  TraceRecorder recorder;
  for (size_t i = 0; i < cases.size(); ++i)
    recorder.record(0, Stream::Host, cases[i].raw, "cat " + cases[i].raw,
                    static_cast<double>(i), static_cast<double>(i) + 1);
  Json json = writeAndRead(recorder);
  Trace trace = splitEvents(json);
  ASSERT_EQ(trace.slices.size(), cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ((*trace.slices[i])["name"].string, cases[i].decoded)
        << "case " << i;
    EXPECT_EQ((*trace.slices[i])["cat"].string, "cat " + cases[i].decoded)
        << "case " << i;
  }
}

TEST_F(TraceTest, EmptyRecorder) {
  TraceRecorder recorder;
  EXPECT_EQ(recorder.size(), 0u);
  Json json = writeAndRead(recorder);
  ASSERT_EQ(json["traceEvents"].kind, Json::Kind::Array);
  EXPECT_TRUE(json["traceEvents"].array.empty());
  // chrome://tracing refuses any unit but "ms" and "ns" here.
  EXPECT_EQ(json["displayTimeUnit"].string, "ms");
}

TEST_F(TraceTest, ScopesAndClock) {
  TraceRecorder recorder;
  double before = recorder.nowUs();
  EXPECT_GE(before, 0);
  {
    TraceScope none(nullptr, 0, Stream::Compute, "ignored", "x");
    TraceScope scope(&recorder, 3, Stream::Comm, "send", "p2p");
    EXPECT_EQ(recorder.size(), 0u);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  double after = recorder.nowUs();
  ASSERT_EQ(recorder.size(), 1u);
  Json json = writeAndRead(recorder);
  Trace trace = splitEvents(json);
  ASSERT_EQ(trace.slices.size(), 1u);
  const Json &slice = *trace.slices[0];
  EXPECT_EQ(slice["name"].string, "send");
  EXPECT_EQ(slice["cat"].string, "p2p");
  EXPECT_EQ(intOf(slice["pid"]), 3);
  EXPECT_EQ(intOf(slice["tid"]), static_cast<int>(Stream::Comm));
  EXPECT_GE(slice["ts"].number, before - 0.001);
  EXPECT_GE(slice["dur"].number, 1000.0); // slept 2 ms
  EXPECT_LE(slice["ts"].number + slice["dur"].number, after + 0.002);
}

TEST_F(TraceTest, UnknownStreamGetsANumberedName) {
  TraceRecorder recorder;
  recorder.record(0, static_cast<Stream>(7), "x", "y", 0, 1);
  Json json = writeAndRead(recorder);
  Trace trace = splitEvents(json);
  bool found = false;
  for (const Json *event : trace.metadata)
    if ((*event)["name"].string == "thread_name") {
      EXPECT_EQ(intOf((*event)["tid"]), 7);
      EXPECT_EQ((*event)["args"]["name"].string, "stream 7");
      found = true;
    }
  EXPECT_TRUE(found);
}

TEST_F(TraceTest, WriteErrorNamesThePath) {
  TraceRecorder recorder;
  recorder.record(0, Stream::Compute, "x", "y", 0, 1);
  std::string file = path("missing-dir/trace.json");
  std::string error;
  EXPECT_FALSE(recorder.writeJson(file, error));
  EXPECT_NE(error.find("'" + file + "'"), std::string::npos) << error;
  EXPECT_NE(error.find("No such file or directory"), std::string::npos)
      << error;
}

TEST_F(TraceTest, PythonJsonAcceptsTheTrace) {
  if (std::system("python3 -c pass > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "python3 is not available";
  TraceRecorder recorder;
  recorder.record(0, Stream::Compute, "gemm \"0\"\n\xff", "c\\", 0.5, 2);
  recorder.record(1, Stream::Comm, "\xe6\x97\xa5", "comm", 1, 3);
  recorder.record(1, Stream::Host, std::string("\0\x1f", 2), "", 1, 3);
  std::string error;
  ASSERT_TRUE(recorder.writeJson(path("trace.json"), error)) << error;
  // Strict: the bytes must be UTF-8 and NaN/Infinity are refused.
  std::string script =
      "import json, sys\n"
      "def refuse(name): raise ValueError(name)\n"
      "with open(sys.argv[1], encoding='utf-8', errors='strict') as f:\n"
      "    trace = json.load(f, parse_constant=refuse)\n"
      "events = trace['traceEvents']\n"
      "slices = [e for e in events if e['ph'] == 'X']\n"
      "meta = [e for e in events if e['ph'] == 'M']\n"
      "with open(sys.argv[2], 'w') as out:\n"
      "    out.write('%d %d %s %s' % (len(slices), len(meta),\n"
      "        ascii(slices[0]['name']), trace['displayTimeUnit']))\n";
  std::ofstream(path("check.py")) << script;
  std::string command = "python3 '" + path("check.py") + "' '" +
                        path("trace.json") + "' '" + path("out.txt") + "'";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream in(path("out.txt"));
  std::string out((std::istreambuf_iterator<char>(in)),
                  std::istreambuf_iterator<char>());
  // 2 ranks (name + sort index) and 3 threads (name + sort index).
  EXPECT_EQ(out, "3 10 'gemm \"0\"\\n\\ufffd' ms");
}

} // namespace
