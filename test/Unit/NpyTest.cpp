//===- NpyTest.cpp - .npy reading and writing -----------------------------===//

#include "tp/Runtime/Npy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace mlir::tp::rt;
namespace fs = std::filesystem;

namespace {

class NpyTest : public ::testing::Test {
protected:
  void SetUp() override {
    const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir = fs::path(::testing::TempDir()) /
          ("tp-npy-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }

  std::string path(const std::string &name) const {
    return (dir / name).string();
  }

  /// Writes `tensor` and reads it back.
  Tensor roundTrip(const Tensor &tensor, const std::string &name = "t.npy") {
    std::string error;
    EXPECT_TRUE(writeNpy(path(name), tensor, error)) << error;
    Tensor result;
    EXPECT_TRUE(readNpy(path(name), result, error)) << error;
    return result;
  }

  /// Reads a file that must be refused: returns the message after checking
  /// that it is one line naming the file and leaves the tensor untouched.
  std::string readError(const std::string &file) {
    Tensor tensor(DType::I32, {1});
    tensor.mutableAs<int32_t>()[0] = 42;
    std::string error;
    EXPECT_FALSE(readNpy(file, tensor, error));
    EXPECT_NE(error.find("'" + file + "'"), std::string::npos) << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    EXPECT_EQ(tensor.dtype(), DType::I32);
    EXPECT_EQ(tensor.shape(), std::vector<int64_t>{1});
    EXPECT_EQ(tensor.as<int32_t>()[0], 42);
    return error;
  }

  fs::path dir;
};

std::string readFile(const std::string &file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

void writeFile(const std::string &file, const std::string &bytes) {
  std::ofstream out(file, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// A .npy file with `header` verbatim (no padding added) and `major`.0.
std::string npyFile(int major, const std::string &header,
                    const std::string &payload) {
  std::string bytes("\x93NUMPY", 6);
  bytes += static_cast<char>(major);
  bytes += '\0';
  int lengthBytes = major == 1 ? 2 : 4;
  for (int i = 0; i < lengthBytes; ++i)
    bytes += static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  return bytes + header + payload;
}

template <typename T> std::string bytesOf(const std::vector<T> &values) {
  return std::string(reinterpret_cast<const char *>(values.data()),
                     values.size() * sizeof(T));
}

/// The header dict of a written file (without padding and newline).
std::string headerOf(const std::string &file) {
  std::string bytes = readFile(file);
  size_t length = static_cast<uint8_t>(bytes[8]) |
                  static_cast<size_t>(static_cast<uint8_t>(bytes[9])) << 8;
  std::string header = bytes.substr(10, length);
  return header.substr(0, header.find_last_not_of(" \n") + 1);
}

template <typename T>
Tensor makeTensor(DType type, std::vector<int64_t> shape,
                  const std::vector<T> &values) {
  Tensor tensor(type, std::move(shape));
  EXPECT_EQ(tensor.numBytes(), values.size() * sizeof(T));
  std::memcpy(tensor.mutableData(), values.data(), tensor.numBytes());
  return tensor;
}

void expectSameBits(const Tensor &actual, const Tensor &expected) {
  EXPECT_EQ(actual.dtype(), expected.dtype());
  EXPECT_EQ(actual.shape(), expected.shape());
  ASSERT_EQ(actual.numBytes(), expected.numBytes());
  EXPECT_EQ(std::memcmp(actual.data(), expected.data(), actual.numBytes()), 0);
}

uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

/// Every element of `read` (f32) equals `written.get(i)`, NaN for NaN.
void expectExactUpcast(const Tensor &read, const Tensor &written) {
  ASSERT_EQ(read.dtype(), DType::F32);
  EXPECT_EQ(read.shape(), written.shape());
  for (int64_t i = 0; i < written.numElements(); ++i) {
    double expected = written.get(i);
    float actual = read.as<float>()[i];
    if (std::isnan(expected))
      EXPECT_TRUE(std::isnan(actual)) << "element " << i;
    else
      EXPECT_EQ(bitsOf(actual), bitsOf(static_cast<float>(expected)))
          << "element " << i << ": " << actual << " vs " << expected;
  }
}

//===----------------------------------------------------------------------===//
// Round trips
//===----------------------------------------------------------------------===//

TEST_F(NpyTest, RoundTripF32KeepsEveryBit) {
  float nan;
  uint32_t nanBits = 0x7FC12345;
  std::memcpy(&nan, &nanBits, sizeof nan);
  std::vector<float> values = {1.5f,
                               -0.0f,
                               std::numeric_limits<float>::infinity(),
                               -std::numeric_limits<float>::infinity(),
                               std::numeric_limits<float>::denorm_min(),
                               std::numeric_limits<float>::max(),
                               nan,
                               -3.25e-20f};
  Tensor tensor = makeTensor(DType::F32, {2, 4}, values);
  expectSameBits(roundTrip(tensor), tensor);
  EXPECT_NE(headerOf(path("t.npy")).find("'descr': '<f4'"), std::string::npos);
}

TEST_F(NpyTest, RoundTripF64) {
  std::vector<double> values = {
      0.1, -1e300, 5e-324, std::numeric_limits<double>::quiet_NaN(), 0.0, 42.0};
  Tensor tensor = makeTensor(DType::F64, {3, 2}, values);
  expectSameBits(roundTrip(tensor), tensor);
  EXPECT_NE(headerOf(path("t.npy")).find("'<f8'"), std::string::npos);
}

TEST_F(NpyTest, RoundTripI64) {
  std::vector<int64_t> values = {std::numeric_limits<int64_t>::min(), -1, 0, 1,
                                 std::numeric_limits<int64_t>::max()};
  Tensor tensor = makeTensor(DType::I64, {5}, values);
  expectSameBits(roundTrip(tensor), tensor);
  EXPECT_NE(headerOf(path("t.npy")).find("'<i8'"), std::string::npos);
}

TEST_F(NpyTest, RoundTripI32) {
  std::vector<int32_t> values = {std::numeric_limits<int32_t>::min(), -7, 0,
                                 std::numeric_limits<int32_t>::max()};
  Tensor tensor = makeTensor(DType::I32, {1, 2, 2}, values);
  expectSameBits(roundTrip(tensor), tensor);
  EXPECT_NE(headerOf(path("t.npy")).find("'<i4'"), std::string::npos);
}

TEST_F(NpyTest, RoundTripI1WritesZeroOrOne) {
  // A stray nonzero byte is true, and numpy's bool is exactly 0 or 1.
  Tensor tensor = makeTensor<uint8_t>(DType::I1, {6}, {0, 1, 1, 0, 2, 1});
  Tensor read = roundTrip(tensor);
  EXPECT_NE(headerOf(path("t.npy")).find("'|b1'"), std::string::npos);
  std::string bytes = readFile(path("t.npy"));
  EXPECT_EQ(bytes.substr(bytes.size() - 6), std::string("\0\1\1\0\1\1", 6));
  expectSameBits(read, makeTensor<uint8_t>(DType::I1, {6}, {0, 1, 1, 0, 1, 1}));
}

TEST_F(NpyTest, BF16IsWrittenAsF32Exactly) {
  // Every bit pattern: a bf16 is the top half of the f32 it widens to.
  std::vector<uint16_t> patterns(1 << 16);
  for (size_t i = 0; i < patterns.size(); ++i)
    patterns[i] = static_cast<uint16_t>(i);
  Tensor tensor = makeTensor(DType::BF16, {256, 256}, patterns);
  Tensor read = roundTrip(tensor);
  EXPECT_NE(headerOf(path("t.npy")).find("'<f4'"), std::string::npos);
  ASSERT_EQ(read.dtype(), DType::F32);
  EXPECT_EQ(read.shape(), tensor.shape());
  for (size_t i = 0; i < patterns.size(); ++i) {
    float value = read.as<float>()[i];
    uint32_t expected = static_cast<uint32_t>(patterns[i]) << 16;
    float expectedValue;
    std::memcpy(&expectedValue, &expected, sizeof expected);
    if (std::isnan(expectedValue))
      EXPECT_TRUE(std::isnan(value)) << "pattern " << i;
    else
      EXPECT_EQ(bitsOf(value), expected) << "pattern " << i;
  }
  expectExactUpcast(read, tensor);
}

TEST_F(NpyTest, F16IsWrittenAsF32Exactly) {
  std::vector<uint16_t> patterns(1 << 16);
  for (size_t i = 0; i < patterns.size(); ++i)
    patterns[i] = static_cast<uint16_t>(i);
  Tensor tensor = makeTensor(DType::F16, {1 << 16}, patterns);
  Tensor read = roundTrip(tensor);
  EXPECT_NE(headerOf(path("t.npy")).find("'<f4'"), std::string::npos);
  expectExactUpcast(read, tensor);
  EXPECT_EQ(read.as<float>()[0x3C00], 1.0f);
  EXPECT_EQ(read.as<float>()[0x7BFF], 65504.0f);
  EXPECT_EQ(read.as<float>()[0x0001], std::ldexp(1.0f, -24));
}

TEST_F(NpyTest, FP8AndFP4AreWrittenAsF32Exactly) {
  for (DType type :
       {DType::F8E4M3FN, DType::F8E5M2, DType::F8E8M0FNU, DType::F4E2M1FN}) {
    SCOPED_TRACE(std::string(name(type)));
    // FP4 is stored unpacked: only the low 4 bits of each byte are the value.
    int patterns = type == DType::F4E2M1FN ? 16 : 256;
    std::vector<uint8_t> bytes(patterns);
    for (int i = 0; i < patterns; ++i)
      bytes[i] = static_cast<uint8_t>(i);
    Tensor tensor = makeTensor(type, {patterns / 4, 4}, bytes);
    Tensor read = roundTrip(tensor, std::string(name(type)) + ".npy");
    EXPECT_NE(headerOf(path(std::string(name(type)) + ".npy")).find("'<f4'"),
              std::string::npos);
    expectExactUpcast(read, tensor);
  }
}

TEST_F(NpyTest, Scalars) {
  Tensor f32(DType::F32, {});
  f32.mutableAs<float>()[0] = 3.5f;
  Tensor read = roundTrip(f32, "f32.npy");
  EXPECT_NE(headerOf(path("f32.npy")).find("'shape': ()"), std::string::npos);
  EXPECT_EQ(read.rank(), 0);
  EXPECT_EQ(read.numElements(), 1);
  expectSameBits(read, f32);

  Tensor i64 = makeTensor<int64_t>(DType::I64, {}, {-123456789012345});
  expectSameBits(roundTrip(i64, "i64.npy"), i64);

  Tensor i1 = makeTensor<uint8_t>(DType::I1, {}, {1});
  expectSameBits(roundTrip(i1, "i1.npy"), i1);

  Tensor bf16 = makeTensor<uint16_t>(DType::BF16, {}, {0xC040}); // -3
  read = roundTrip(bf16, "bf16.npy");
  EXPECT_EQ(read.dtype(), DType::F32);
  EXPECT_EQ(read.rank(), 0);
  EXPECT_EQ(read.as<float>()[0], -3.0f);
}

TEST_F(NpyTest, ZeroElements) {
  Tensor tensor(DType::F32, {0, 3});
  Tensor read = roundTrip(tensor);
  EXPECT_EQ(read.dtype(), DType::F32);
  EXPECT_EQ(read.shape(), (std::vector<int64_t>{0, 3}));
  EXPECT_NE(headerOf(path("t.npy")).find("'shape': (0, 3)"), std::string::npos);

  Tensor bf16(DType::BF16, {4, 0});
  read = roundTrip(bf16, "bf16.npy");
  EXPECT_EQ(read.dtype(), DType::F32);
  EXPECT_EQ(read.shape(), (std::vector<int64_t>{4, 0}));
}

TEST_F(NpyTest, HeaderIsWhatNumpyWrites) {
  Tensor tensor(DType::F32, {2, 3});
  for (int i = 0; i < 6; ++i)
    tensor.mutableAs<float>()[i] = static_cast<float>(i);
  std::string error;
  ASSERT_TRUE(writeNpy(path("t.npy"), tensor, error)) << error;
  std::string bytes = readFile(path("t.npy"));
  // numpy.save of np.arange(6, dtype='<f4').reshape(2, 3): version 1.0, the
  // data at offset 128.
  ASSERT_EQ(bytes.size(), 128u + 24u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_EQ(static_cast<uint8_t>(bytes[8]), 118);
  EXPECT_EQ(static_cast<uint8_t>(bytes[9]), 0);
  std::string dict =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  EXPECT_EQ(bytes.substr(10, dict.size()), dict);
  EXPECT_EQ(bytes.substr(10 + dict.size(), 127 - 10 - dict.size()),
            std::string(127 - 10 - dict.size(), ' '));
  EXPECT_EQ(bytes[127], '\n');
  EXPECT_EQ(bytes.substr(128), bytesOf<float>({0, 1, 2, 3, 4, 5}));
}

TEST_F(NpyTest, HeaderIsPaddedTo64ForEveryRank) {
  std::vector<int64_t> shape;
  for (int rank = 0; rank <= 12; ++rank) {
    SCOPED_TRACE("rank " + std::to_string(rank));
    Tensor tensor(DType::I32, shape);
    std::string error;
    ASSERT_TRUE(writeNpy(path("t.npy"), tensor, error)) << error;
    std::string bytes = readFile(path("t.npy"));
    size_t length = static_cast<uint8_t>(bytes[8]) |
                    static_cast<size_t>(static_cast<uint8_t>(bytes[9])) << 8;
    EXPECT_EQ((10 + length) % 64, 0u);
    EXPECT_EQ(bytes[10 + length - 1], '\n');
    EXPECT_EQ(bytes.size(), 10 + length + tensor.numBytes());
    Tensor read;
    ASSERT_TRUE(readNpy(path("t.npy"), read, error)) << error;
    EXPECT_EQ(read.shape(), shape);
    shape.push_back(rank % 3 == 0 ? 1 : 2);
  }
  roundTrip(Tensor(DType::F64, {5}));
  EXPECT_NE(headerOf(path("t.npy")).find("'shape': (5,)"), std::string::npos);
}

//===----------------------------------------------------------------------===//
// Reading files others wrote
//===----------------------------------------------------------------------===//

TEST_F(NpyTest, ReadsVersions2And3) {
  std::string dict =
      "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }";
  // Versions 2.0 and 3.0 have a 12-byte preamble.
  std::string header =
      dict + std::string(128 - 12 - dict.size() - 1, ' ') + "\n";
  std::vector<int64_t> values = {-5, 0, 1LL << 40};
  for (int major : {2, 3}) {
    SCOPED_TRACE("version " + std::to_string(major));
    writeFile(path("v.npy"), npyFile(major, header, bytesOf(values)));
    Tensor tensor;
    std::string error;
    ASSERT_TRUE(readNpy(path("v.npy"), tensor, error)) << error;
    expectSameBits(tensor, makeTensor(DType::I64, {3}, values));
  }
}

TEST_F(NpyTest, ReadsHandWrittenHeaders) {
  struct Case {
    std::string header;
    std::vector<int64_t> shape;
  };
  std::vector<Case> cases = {
      // Odd spacing, double quotes, tabs, newlines, any key order, a trailing
      // comma in the tuple, no padding and no final newline.
      {"{ \"shape\" :( 2 ,3 , ) ,\t'fortran_order':False ,\n 'descr' :  "
       "\"<i4\"}",
       {2, 3}},
      {"{'descr':'<i4','fortran_order':False,'shape':(6,),}\n", {6}},
      // Python 2 longs, and a parenthesised int rather than a tuple.
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (3L, 2L), }", {3, 2}},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (6)}", {6}},
  };
  std::vector<int32_t> values = {1, 2, 3, 4, 5, 6};
  for (const Case &c : cases) {
    SCOPED_TRACE(c.header);
    writeFile(path("h.npy"), npyFile(1, c.header, bytesOf(values)));
    Tensor tensor;
    std::string error;
    ASSERT_TRUE(readNpy(path("h.npy"), tensor, error)) << error;
    expectSameBits(tensor, makeTensor(DType::I32, c.shape, values));
  }
}

TEST_F(NpyTest, ReadsF16AsF16) {
  std::vector<uint16_t> bits = {0x3C00, 0xC000, 0x7BFF, 0x0001, 0x8000, 0x7C00};
  writeFile(path("h.npy"),
            npyFile(1,
                    "{'descr': '<f2', 'fortran_order': False, 'shape': (2, "
                    "3), }\n",
                    bytesOf(bits)));
  Tensor tensor;
  std::string error;
  ASSERT_TRUE(readNpy(path("h.npy"), tensor, error)) << error;
  expectSameBits(tensor, makeTensor(DType::F16, {2, 3}, bits));
  EXPECT_EQ(tensor.get(0), 1.0);
  EXPECT_EQ(tensor.get(1), -2.0);
  EXPECT_EQ(tensor.get(2), 65504.0);
  EXPECT_EQ(tensor.get(5), std::numeric_limits<double>::infinity());
}

TEST_F(NpyTest, ReadsBytesAsI32AndBoolsAsI1) {
  std::string bytes("\x00\x01\x7F\x80\xFF", 5);
  auto read = [&](const std::string &descr) {
    writeFile(path("b.npy"), npyFile(1,
                                     "{'descr': '" + descr +
                                         "', 'fortran_order': False, "
                                         "'shape': (5,), }\n",
                                     bytes));
    Tensor tensor;
    std::string error;
    EXPECT_TRUE(readNpy(path("b.npy"), tensor, error)) << error;
    return tensor;
  };
  expectSameBits(read("|u1"),
                 makeTensor<int32_t>(DType::I32, {5}, {0, 1, 127, 128, 255}));
  expectSameBits(read("|i1"),
                 makeTensor<int32_t>(DType::I32, {5}, {0, 1, 127, -128, -1}));
  // Byte order means nothing for one byte; some writers say '<' anyway.
  expectSameBits(read("<u1"),
                 makeTensor<int32_t>(DType::I32, {5}, {0, 1, 127, 128, 255}));
  // Any nonzero byte is true.
  expectSameBits(read("|b1"),
                 makeTensor<uint8_t>(DType::I1, {5}, {0, 1, 1, 1, 1}));
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

/// A valid f32 file of shape (2, 3) with the data resized to `dataBytes`.
std::string f32File(size_t dataBytes) {
  std::string header =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  header += std::string(128 - 10 - header.size() - 1, ' ') + "\n";
  return npyFile(1, header, std::string(dataBytes, '\x01'));
}

std::string headerFile(const std::string &dict) {
  return npyFile(1, dict + "\n", std::string(24, '\0'));
}

TEST_F(NpyTest, MissingFile) {
  std::string error = readError(path("absent.npy"));
  EXPECT_NE(error.find("No such file or directory"), std::string::npos)
      << error;
}

TEST_F(NpyTest, DirectoryIsNotAFile) {
  std::string error = readError(dir.string());
  EXPECT_NE(error.find("not a regular file"), std::string::npos) << error;
}

// A FIFO without a writer would block a plain open() forever.
TEST_F(NpyTest, FifoIsRefusedWithoutBlocking) {
  ASSERT_EQ(::mkfifo(path("f.npy").c_str(), 0600), 0);
  std::string error = readError(path("f.npy"));
  EXPECT_NE(error.find("not a regular file"), std::string::npos) << error;
}

TEST_F(NpyTest, TruncatedData) {
  writeFile(path("t.npy"), f32File(20));
  std::string error = readError(path("t.npy"));
  EXPECT_NE(error.find("holds 20 bytes, expects 24"), std::string::npos)
      << error;
  EXPECT_NE(error.find("(2, 3)"), std::string::npos) << error;
}

TEST_F(NpyTest, TrailingData) {
  writeFile(path("t.npy"), f32File(28));
  std::string error = readError(path("t.npy"));
  EXPECT_NE(error.find("holds 28 bytes, expects 24"), std::string::npos)
      << error;
}

TEST_F(NpyTest, BadMagic) {
  for (std::string bytes :
       {std::string("NUMPY\x01\x00", 7), std::string(), std::string("\x93NU"),
        std::string("\x93NUMPZ\x01\x00\x10\x00", 10)}) {
    writeFile(path("m.npy"), bytes);
    std::string error = readError(path("m.npy"));
    EXPECT_NE(error.find("not a .npy file (bad magic)"), std::string::npos)
        << error;
  }
}

TEST_F(NpyTest, TruncatedPreambleAndHeader) {
  writeFile(path("p.npy"), std::string("\x93NUMPY\x01", 7));
  EXPECT_NE(readError(path("p.npy")).find("truncated"), std::string::npos);
  writeFile(path("p.npy"), std::string("\x93NUMPY\x01\x00\x10", 9));
  EXPECT_NE(readError(path("p.npy")).find("truncated header length"),
            std::string::npos);
  // The length claims more header than the file holds.
  writeFile(path("p.npy"), std::string("\x93NUMPY\x01\x00\xE8\x03{'d", 13));
  std::string error = readError(path("p.npy"));
  EXPECT_NE(error.find("truncated header (claims 1000 bytes, the file has 3"),
            std::string::npos)
      << error;
}

TEST_F(NpyTest, UnsupportedVersion) {
  std::string bytes = f32File(24);
  bytes[6] = 4;
  writeFile(path("v.npy"), bytes);
  EXPECT_NE(readError(path("v.npy")).find("unsupported .npy version 4.0"),
            std::string::npos);
  bytes[6] = 1;
  bytes[7] = 1;
  writeFile(path("v.npy"), bytes);
  EXPECT_NE(readError(path("v.npy")).find("unsupported .npy version 1.1"),
            std::string::npos);
}

TEST_F(NpyTest, UnsupportedDescr) {
  for (std::string descr : {"<u2", "<c8", "<f16", "|S4", "<M8[ns]", "f4", ""}) {
    writeFile(path("d.npy"),
              headerFile("{'descr': '" + descr +
                         "', 'fortran_order': False, 'shape': (6,), }"));
    std::string error = readError(path("d.npy"));
    EXPECT_NE(error.find("unsupported descr '" + descr + "'"),
              std::string::npos)
        << error;
    EXPECT_NE(error.find("'<f4', '<f8'"), std::string::npos) << error;
  }
  writeFile(path("d.npy"),
            headerFile("{'descr': [('a', '<f4')], 'fortran_order': False, "
                       "'shape': (6,), }"));
  EXPECT_NE(readError(path("d.npy")).find("structured dtypes"),
            std::string::npos);
}

TEST_F(NpyTest, BigEndianIsRejected) {
  for (std::string descr : {">f4", ">i8", ">f2"}) {
    writeFile(path("b.npy"),
              headerFile("{'descr': '" + descr +
                         "', 'fortran_order': False, 'shape': (6,), }"));
    std::string error = readError(path("b.npy"));
    EXPECT_NE(error.find("big-endian descr '" + descr + "' is not supported"),
              std::string::npos)
        << error;
  }
}

TEST_F(NpyTest, FortranOrderIsRejected) {
  writeFile(path("f.npy"), headerFile("{'descr': '<f4', 'fortran_order': True, "
                                      "'shape': (2, 3), }"));
  std::string error = readError(path("f.npy"));
  EXPECT_NE(error.find("fortran_order True is not supported"),
            std::string::npos)
      << error;
}

TEST_F(NpyTest, MalformedHeaders) {
  struct Case {
    std::string dict, message;
  };
  std::vector<Case> cases = {
      {"{'descr': '<f4', 'fortran_order': False}", "missing key 'shape'"},
      {"{'fortran_order': False, 'shape': (6,)}", "missing key 'descr'"},
      {"{'descr': '<f4', 'shape': (6,)}", "missing key 'fortran_order'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (6,), 'x': 1}",
       "unexpected key 'x'"},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, "
       "'shape': (6,)}",
       "duplicate key 'descr'"},
      {"{'descr': '<f4', 'fortran_order': false, 'shape': (6,)}",
       "expected True or False"},
      {"{'descr': '<f4', 'fortran_order': Falsey, 'shape': (6,)}",
       "expected True or False"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-6,)}",
       "negative dimension"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [6]}",
       "expected a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (6 1)}",
       "expected ',' or ')'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': "
       "(99999999999999999999,)}",
       "dimension too large"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (6,)} x",
       "unexpected text after the dict"},
      {"{'descr: '<f4', 'fortran_order': False, 'shape': (6,)}",
       "expected ':'"},
      {"{'descr': '<f4' 'fortran_order': False, 'shape': (6,)}",
       "expected ',' or '}'"},
      {"{descr: '<f4', 'fortran_order': False, 'shape': (6,)}",
       "expected a quoted key"},
      {"{'descr': <f4, 'fortran_order': False, 'shape': (6,)}",
       "expected a string for 'descr'"},
      {"['descr', '<f4']", "expected '{'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (6,)",
       "expected ',' or '}'"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.dict);
    writeFile(path("h.npy"), headerFile(c.dict));
    std::string error = readError(path("h.npy"));
    EXPECT_NE(error.find("malformed header: " + c.message), std::string::npos)
        << error;
  }
}

// numpy's reader refuses a NUL byte anywhere in the header; strchr-based
// white space once took one for a space.
TEST_F(NpyTest, NulByteInHeaderIsRefused) {
  const std::string dict =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (6,)}";
  for (const std::string &header :
       {dict + '\0' + "  ", "{'descr': '<f4'," + std::string(1, '\0') +
                                 dict.substr(16)}) {
    SCOPED_TRACE(header);
    writeFile(path("h.npy"), headerFile(header));
    std::string error = readError(path("h.npy"));
    EXPECT_NE(error.find("malformed header: a NUL byte at offset " +
                         std::to_string(header.find('\0'))),
              std::string::npos)
        << error;
  }
}

TEST_F(NpyTest, ShapeTooLarge) {
  writeFile(path("s.npy"),
            headerFile("{'descr': '<f8', 'fortran_order': False, "
                       "'shape': (4294967296, 4294967296, 2), }"));
  EXPECT_NE(readError(path("s.npy")).find("is too large"), std::string::npos);
}

TEST_F(NpyTest, ShapeOverflowsEvenWithAZeroDim) {
  // 0 elements, but Tensor's int64 products of the other dims overflow.
  writeFile(path("s.npy"),
            headerFile("{'descr': '<f4', 'fortran_order': False, "
                       "'shape': (4611686018427387904, 4, 0), }"));
  std::string error = readError(path("s.npy"));
  EXPECT_NE(error.find("is too large (its element count overflows int64)"),
            std::string::npos)
      << error;
}

TEST_F(NpyTest, ShapeBytesOverflow) {
  writeFile(path("s.npy"),
            headerFile("{'descr': '<f8', 'fortran_order': False, "
                       "'shape': (2305843009213693952,), }"));
  std::string error = readError(path("s.npy"));
  EXPECT_NE(error.find("is too large (its byte size overflows int64)"),
            std::string::npos)
      << error;
}

TEST_F(NpyTest, ShapeExceedsTheData) {
  writeFile(path("s.npy"),
            headerFile("{'descr': '<f4', 'fortran_order': False, "
                       "'shape': (1000000,), }"));
  std::string error = readError(path("s.npy"));
  EXPECT_NE(error.find("holds 24 bytes, expects 4000000"), std::string::npos)
      << error;
  EXPECT_NE(error.find("(truncated)"), std::string::npos) << error;
}

// Header bytes quoted in a message are escaped: one printable line.
TEST_F(NpyTest, MessagesQuoteHeaderBytesPrintably) {
  writeFile(path("k.npy"), headerFile(std::string("{'a\nb\x01': 1}")));
  std::string error = readError(path("k.npy"));
  EXPECT_NE(error.find("unexpected key 'a\\x0ab\\x01'"), std::string::npos)
      << error;
}

TEST_F(NpyTest, ParsesFromMemory) {
  Tensor tensor = makeTensor<float>(DType::F32, {2, 2}, {1, 2, 3, 4});
  std::string error;
  ASSERT_TRUE(writeNpy(path("m.npy"), tensor, error)) << error;
  std::string bytes = readFile(path("m.npy"));
  Tensor parsed;
  ASSERT_TRUE(parseNpy(bytes.data(), bytes.size(), parsed, error)) << error;
  expectSameBits(parsed, tensor);

  // Errors do not name a file.
  EXPECT_FALSE(parseNpy(bytes.data(), bytes.size() - 1, parsed, error));
  EXPECT_EQ(error.rfind("data holds 15 bytes, expects 16", 0), 0u) << error;
  EXPECT_FALSE(parseNpy(nullptr, 0, parsed, error));
  EXPECT_EQ(error, "not a .npy file (bad magic)");
  expectSameBits(parsed, tensor);
}

TEST_F(NpyTest, WriteErrors) {
  std::string file = path("missing-dir/t.npy");
  std::string error;
  EXPECT_FALSE(writeNpy(file, Tensor(DType::F32, {2}), error));
  EXPECT_NE(error.find("'" + file + "'"), std::string::npos) << error;
  EXPECT_NE(error.find("No such file or directory"), std::string::npos)
      << error;

  error.clear();
  EXPECT_FALSE(writeNpy(path("t.npy"), Tensor(), error));
  EXPECT_NE(error.find("without storage"), std::string::npos) << error;
  EXPECT_FALSE(fs::exists(path("t.npy")));
}

} // namespace
