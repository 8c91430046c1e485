//===- Npy.cpp - NumPy .npy files for tp-run inputs and dumps -------------===//
//
// The format (numpy.lib.format): the magic "\x93NUMPY", a major and a minor
// version byte, the header's length (little-endian; 2 bytes in 1.0, 4 in 2.0
// and 3.0), the header, a Python dict literal padded with spaces and ended by
// a newline so the data starts on a 64-byte boundary, then the raw elements.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Npy.h"
#include "tp/Runtime/Files.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace mlir::tp::rt;

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicBytes = 6;
constexpr size_t kAlignment = 64;

/// Every message starts with the file it is about.
std::string inFile(const std::string &path, const std::string &what) {
  return "'" + path + "': " + what;
}

std::string systemError() { return std::strerror(errno); }

bool hostIsLittleEndian() {
  const uint16_t one = 1;
  uint8_t first;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

/// .npy data is little-endian: on a big-endian host, swap every element.
void swapToOrFromLittleEndian(uint8_t *bytes, size_t count, size_t itemBytes) {
  if (itemBytes == 1 || hostIsLittleEndian())
    return;
  for (size_t i = 0; i < count; ++i)
    std::reverse(bytes + i * itemBytes, bytes + (i + 1) * itemBytes);
}

struct FileCloser {
  void operator()(std::FILE *file) const { std::fclose(file); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

//===----------------------------------------------------------------------===//
// Element types on disk
//===----------------------------------------------------------------------===//

/// A readable element type: its descr as numpy writes it, and the tensor
/// type it reads into (there is no u8/i8 dtype, so bytes widen to i32).
struct DiskType {
  std::string_view descr;
  size_t itemBytes;
  DType dtype;
};

constexpr DiskType kDiskTypes[] = {
    {"<f4", 4, DType::F32}, {"<f8", 8, DType::F64}, {"<f2", 2, DType::F16},
    {"<i8", 8, DType::I64}, {"<i4", 4, DType::I32}, {"|b1", 1, DType::I1},
    {"|u1", 1, DType::I32}, {"|i1", 1, DType::I32},
};

constexpr char kSupportedDescrs[] =
    "'<f4', '<f8', '<f2', '<i8', '<i4', '|b1', '|u1' or '|i1'";

/// Byte order does not apply to one-byte types, so any order character is
/// accepted for them; multi-byte types must be little-endian ('<').
std::optional<DiskType> findDiskType(std::string_view descr) {
  if (descr.empty())
    return std::nullopt;
  for (const DiskType &type : kDiskTypes) {
    if (descr == type.descr)
      return type;
    if (type.itemBytes == 1 && descr.substr(1) == type.descr.substr(1) &&
        std::string_view("<>=|").find(descr[0]) != std::string_view::npos)
      return type;
  }
  return std::nullopt;
}

bool isBigEndianVariant(std::string_view descr) {
  return descr.size() > 1 && descr[0] == '>' &&
         findDiskType("<" + std::string(descr.substr(1))).has_value();
}

/// The descr a tensor is written as; types numpy lacks are upcast to f32.
std::string_view descrToWrite(DType type) {
  switch (type) {
  case DType::F64:
    return "<f8";
  case DType::I64:
    return "<i8";
  case DType::I32:
    return "<i4";
  case DType::I1:
    return "|b1";
  default:
    return "<f4";
  }
}

/// A Python tuple: "()", "(5,)", "(2, 3)".
std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      text += ", ";
    text += std::to_string(shape[i]);
  }
  if (shape.size() == 1)
    text += ",";
  return text + ")";
}

//===----------------------------------------------------------------------===//
// Header dict
//===----------------------------------------------------------------------===//

/// Header text quoted in a message: a corrupt file can hold any bytes there,
/// and messages are one printable line (tp-run prints them as they are).
std::string printable(std::string_view text) {
  constexpr size_t kMaxChars = 40;
  std::string out;
  for (size_t i = 0; i < text.size() && i < kMaxChars; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7F && c != '\\') {
      out += static_cast<char>(c);
      continue;
    }
    constexpr char kHex[] = "0123456789abcdef";
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 0xF];
  }
  if (text.size() > kMaxChars)
    out += "...";
  return out;
}

struct Header {
  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
};

/// Parses the header's dict literal. numpy writes
/// "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"; other
/// writers vary quotes, spacing, key order and trailing commas.
class HeaderParser {
public:
  explicit HeaderParser(std::string_view text) : text(text) {}

  /// The header, or nullopt with `why` set.
  std::optional<Header> parse(std::string &why) {
    Header header;
    // numpy's reader refuses them too (its header is Python source).
    if (size_t nul = text.find('\0'); nul != std::string_view::npos) {
      pos = nul;
      fail("a NUL byte");
      why = error;
      return std::nullopt;
    }
    if (!parseDict(header)) {
      why = error;
      return std::nullopt;
    }
    return header;
  }

private:
  bool parseDict(Header &header) {
    bool seenDescr = false, seenOrder = false, seenShape = false;
    skipSpace();
    if (!consume('{'))
      return fail("expected '{'");
    for (;;) {
      skipSpace();
      if (consume('}'))
        break;
      std::string key;
      if (!parseString(key))
        return fail("expected a quoted key");
      skipSpace();
      if (!consume(':'))
        return fail("expected ':' after '" + printable(key) + "'");
      skipSpace();
      bool *seen = key == "descr"           ? &seenDescr
                   : key == "fortran_order" ? &seenOrder
                   : key == "shape"         ? &seenShape
                                            : nullptr;
      if (!seen)
        return fail("unexpected key '" + printable(key) + "'");
      if (*seen)
        return fail("duplicate key '" + printable(key) + "'");
      *seen = true;
      if (key == "descr") {
        if (peek() == '[' || peek() == '{') {
          error = "unsupported descr: structured dtypes are not supported";
          return false;
        }
        if (!parseString(header.descr))
          return fail("expected a string for 'descr'");
      } else if (key == "fortran_order") {
        if (!parseBool(header.fortranOrder))
          return fail("expected True or False for 'fortran_order'");
      } else if (!parseShape(header.shape)) {
        return false;
      }
      skipSpace();
      if (consume(','))
        continue;
      if (!consume('}'))
        return fail("expected ',' or '}'");
      break;
    }
    skipSpace();
    if (pos != text.size())
      return fail("unexpected text after the dict");
    if (!seenDescr || !seenOrder || !seenShape)
      return fail(std::string("missing key '") +
                  (!seenDescr   ? "descr"
                   : !seenOrder ? "fortran_order"
                                : "shape") +
                  "'");
    return true;
  }

  bool fail(const std::string &what) {
    error = "malformed header: " + what + " at offset " + std::to_string(pos);
    return false;
  }

  char peek() const { return pos < text.size() ? text[pos] : '\0'; }

  bool consume(char c) {
    if (peek() != c)
      return false;
    ++pos;
    return true;
  }

  void skipSpace() {
    // Not strchr: it finds the terminating NUL too.
    while (pos < text.size() && std::string_view(" \t\r\n").find(text[pos]) !=
                                    std::string_view::npos)
      ++pos;
  }

  bool atDigit() const {
    return std::isdigit(static_cast<unsigned char>(peek())) != 0;
  }

  /// A quoted string without escapes (descrs and keys need none).
  bool parseString(std::string &out) {
    char quote = peek();
    if (quote != '\'' && quote != '"')
      return false;
    size_t end = text.find(quote, pos + 1);
    if (end == std::string_view::npos)
      return false;
    out = std::string(text.substr(pos + 1, end - pos - 1));
    pos = end + 1;
    return true;
  }

  bool parseWord(std::string_view word) {
    if (text.substr(pos, word.size()) != word)
      return false;
    size_t after = pos + word.size();
    if (after < text.size() &&
        (std::isalnum(static_cast<unsigned char>(text[after])) ||
         text[after] == '_'))
      return false;
    pos = after;
    return true;
  }

  bool parseBool(bool &out) {
    if (parseWord("True"))
      out = true;
    else if (parseWord("False"))
      out = false;
    else
      return false;
    return true;
  }

  /// A tuple of non-negative ints; also "(3)" and Python 2's "3L".
  bool parseShape(std::vector<int64_t> &shape) {
    if (!consume('('))
      return fail("expected a tuple for 'shape'");
    for (;;) {
      skipSpace();
      if (consume(')'))
        return true;
      if (peek() == '-')
        return fail("negative dimension in 'shape'");
      if (!atDigit())
        return fail("expected an integer in 'shape'");
      int64_t dim = 0;
      while (atDigit()) {
        int digit = text[pos++] - '0';
        if (dim > (std::numeric_limits<int64_t>::max() - digit) / 10)
          return fail("dimension too large in 'shape'");
        dim = dim * 10 + digit;
      }
      if (peek() == 'L' || peek() == 'l')
        ++pos;
      shape.push_back(dim);
      skipSpace();
      if (consume(','))
        continue;
      if (!consume(')'))
        return fail("expected ',' or ')' in 'shape'");
      return true;
    }
  }

  std::string_view text;
  size_t pos = 0;
  std::string error;
};

/// The header text for `dict`, padded so that the data after a preamble of
/// `preambleBytes` starts on a 64-byte boundary.
std::string paddedHeader(const std::string &dict, size_t preambleBytes) {
  size_t unpadded = preambleBytes + dict.size() + 1;
  size_t padded = (unpadded + kAlignment - 1) / kAlignment * kAlignment;
  return dict + std::string(padded - unpadded, ' ') + "\n";
}

} // namespace

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

bool mlir::tp::rt::writeNpy(const std::string &path, const Tensor &tensor,
                            std::string &error) {
  if (tensor.empty()) {
    error = inFile(path, "cannot write a tensor without storage");
    return false;
  }
  DType type = tensor.dtype();
  std::string_view descr = descrToWrite(type);
  size_t count = static_cast<size_t>(tensor.numElements());

  // The payload: the stored bytes where they already are the disk layout,
  // else a converted copy.
  const auto *stored = static_cast<const uint8_t *>(tensor.data());
  bool writeStored = false;
  std::vector<uint8_t> converted;
  switch (type) {
  case DType::F32:
  case DType::F64:
  case DType::I32:
  case DType::I64:
    writeStored = hostIsLittleEndian();
    if (!writeStored) {
      converted.assign(stored, stored + tensor.numBytes());
      swapToOrFromLittleEndian(converted.data(), count, byteSize(type));
    }
    break;
  case DType::I1:
    // numpy's bool is 0 or 1; normalise any other nonzero byte.
    converted.resize(count);
    for (size_t i = 0; i < count; ++i)
      converted[i] = stored[i] != 0;
    break;
  default:
    // Every bf16/f16/FP8/FP4 value is a float, so this upcast is exact.
    converted.resize(count * sizeof(float));
    for (size_t i = 0; i < count; ++i) {
      float value = static_cast<float>(tensor.get(static_cast<int64_t>(i)));
      std::memcpy(&converted[i * sizeof(float)], &value, sizeof(float));
    }
    swapToOrFromLittleEndian(converted.data(), count, sizeof(float));
    break;
  }
  const void *payload = writeStored ? tensor.data() : converted.data();
  size_t payloadBytes = writeStored ? tensor.numBytes() : converted.size();

  std::string dict =
      "{'descr': '" + std::string(descr) +
      "', 'fortran_order': False, 'shape': " + shapeText(tensor.shape()) +
      ", }";
  // Version 1.0 unless the header outgrows its 16-bit length (thousands of
  // dims), as numpy does.
  uint8_t major = 1;
  std::string header = paddedHeader(dict, kMagicBytes + 2 + 2);
  if (header.size() > std::numeric_limits<uint16_t>::max()) {
    major = 2;
    header = paddedHeader(dict, kMagicBytes + 2 + 4);
  }
  std::string preamble(kMagic, kMagicBytes);
  preamble += static_cast<char>(major);
  preamble += '\0';
  size_t lengthBytes = major == 1 ? 2 : 4;
  for (size_t i = 0; i < lengthBytes; ++i)
    preamble += static_cast<char>((header.size() >> (8 * i)) & 0xFF);

  // Beside the target, then renamed: a failed write removes nothing.
  return writeFileAtomically(
      path,
      {preamble, header,
       std::string_view(static_cast<const char *>(payload), payloadBytes)},
      error);
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

namespace {

/// Where the header is, from the first bytes of a file.
struct Preamble {
  size_t headerOffset = 0;
  size_t headerBytes = 0;
  size_t dataOffset() const { return headerOffset + headerBytes; }
};

/// The longest preamble: magic, version, 4-byte header length.
constexpr size_t kMaxPreambleBytes = kMagicBytes + 2 + 4;

/// Parses the magic, the version and the header length from the first
/// `have` bytes (at most kMaxPreambleBytes) of a file of `fileBytes`.
bool parsePreamble(const uint8_t *bytes, size_t have, size_t fileBytes,
                   Preamble &preamble, std::string &why) {
  if (have < kMagicBytes || std::memcmp(bytes, kMagic, kMagicBytes) != 0) {
    why = "not a .npy file (bad magic)";
    return false;
  }
  if (have < kMagicBytes + 2) {
    why = "truncated .npy preamble";
    return false;
  }
  int major = bytes[kMagicBytes];
  int minor = bytes[kMagicBytes + 1];
  if (major < 1 || major > 3 || minor != 0) {
    why = "unsupported .npy version " + std::to_string(major) + "." +
          std::to_string(minor) + " (expected 1.0, 2.0 or 3.0)";
    return false;
  }
  size_t lengthBytes = major == 1 ? 2 : 4;
  preamble.headerOffset = kMagicBytes + 2 + lengthBytes;
  if (have < preamble.headerOffset) {
    why = "truncated header length";
    return false;
  }
  preamble.headerBytes = 0;
  for (size_t i = 0; i < lengthBytes; ++i)
    preamble.headerBytes |= static_cast<size_t>(bytes[kMagicBytes + 2 + i])
                            << (8 * i);
  // The file's size bounds the header: a corrupt length must not make us
  // allocate gigabytes.
  size_t afterPreamble = fileBytes - preamble.headerOffset;
  if (preamble.headerBytes > afterPreamble) {
    why = "truncated header (claims " + std::to_string(preamble.headerBytes) +
          " bytes, the file has " + std::to_string(afterPreamble) +
          " after the preamble)";
    return false;
  }
  return true;
}

/// What a header describes, checked against the data the file has.
struct Layout {
  DiskType type;
  std::vector<int64_t> shape;
  size_t count = 0;
  size_t dataBytes = 0;
};

bool parseLayout(std::string_view headerText, size_t dataAvailable,
                 Layout &layout, std::string &why) {
  std::optional<Header> header = HeaderParser(headerText).parse(why);
  if (!header)
    return false;
  if (header->fortranOrder) {
    why = "fortran_order True is not supported (save a C-order array, e.g. "
          "np.ascontiguousarray)";
    return false;
  }
  std::optional<DiskType> diskType = findDiskType(header->descr);
  if (!diskType) {
    if (isBigEndianVariant(header->descr))
      why = "big-endian descr '" + header->descr +
            "' is not supported (save with astype('<" +
            header->descr.substr(1) + "'))";
    else
      why = "unsupported descr '" + printable(header->descr) + "' (expected " +
            kSupportedDescrs + ")";
    return false;
  }
  std::string shape = shapeText(header->shape);

  // Tensor counts elements, bytes and strides in int64_t, multiplying the
  // dims in either order, so the product of the nonzero dims must fit even
  // when a zero dim makes the count 0.
  constexpr uint64_t kMaxInt64 = std::numeric_limits<int64_t>::max();
  uint64_t nonzeroProduct = 1;
  bool hasZero = false;
  for (int64_t dim : header->shape) {
    if (dim == 0) {
      hasZero = true;
      continue;
    }
    uint64_t d = static_cast<uint64_t>(dim);
    if (nonzeroProduct > kMaxInt64 / d) {
      why = "shape " + shape +
            " is too large (its element count overflows int64)";
      return false;
    }
    nonzeroProduct *= d;
  }
  // Bytes of the elements on disk and in memory (bytes widen to i32).
  uint64_t widest = std::max(diskType->itemBytes, byteSize(diskType->dtype));
  if (nonzeroProduct >
      std::min<uint64_t>(kMaxInt64, std::numeric_limits<size_t>::max()) /
          widest) {
    why = "shape " + shape + " of '" + header->descr +
          "' is too large (its byte size overflows int64)";
    return false;
  }
  layout.count = hasZero ? 0 : static_cast<size_t>(nonzeroProduct);
  layout.dataBytes = layout.count * diskType->itemBytes;
  if (layout.dataBytes != dataAvailable) {
    why = "data holds " + std::to_string(dataAvailable) + " bytes, expects " +
          std::to_string(layout.dataBytes) + " for shape " + shape + " of '" +
          header->descr + "'" +
          (dataAvailable < layout.dataBytes ? " (truncated)"
                                            : " (trailing bytes)");
    return false;
  }
  layout.type = *diskType;
  layout.shape = std::move(header->shape);
  return true;
}

/// Fills `result`, a tensor of `layout`'s shape and type, with the elements
/// `read(into, size)` produces: in place where the layouts agree.
template <typename ReadFn>
bool fillTensor(const Layout &layout, Tensor &result, ReadFn read) {
  if (layout.dataBytes == 0)
    return true;
  if (layout.type.itemBytes == byteSize(layout.type.dtype)) {
    auto *bytes = static_cast<uint8_t *>(result.mutableData());
    if (!read(bytes, layout.dataBytes))
      return false;
    swapToOrFromLittleEndian(bytes, layout.count, layout.type.itemBytes);
    if (layout.type.dtype == DType::I1)
      for (size_t i = 0; i < layout.count; ++i)
        bytes[i] = bytes[i] != 0;
    return true;
  }
  // One-byte integers widen to i32.
  std::vector<uint8_t> raw(layout.dataBytes);
  if (!read(raw.data(), raw.size()))
    return false;
  int32_t *values = result.mutableAs<int32_t>();
  bool isSigned = layout.type.descr == "|i1";
  for (size_t i = 0; i < layout.count; ++i)
    values[i] = isSigned ? static_cast<int8_t>(raw[i]) : raw[i];
  return true;
}

/// Closes a file descriptor on every path out.
struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};

} // namespace

bool mlir::tp::rt::parseNpy(const void *data, size_t size, Tensor &tensor,
                            std::string &error) {
  const auto *bytes = static_cast<const uint8_t *>(data);
  Preamble preamble;
  if (!parsePreamble(bytes, std::min(size, kMaxPreambleBytes), size, preamble,
                     error))
    return false;
  std::string_view headerText(reinterpret_cast<const char *>(bytes) +
                                  preamble.headerOffset,
                              preamble.headerBytes);
  Layout layout;
  if (!parseLayout(headerText, size - preamble.dataOffset(), layout, error))
    return false;
  Tensor result(layout.type.dtype, layout.shape);
  fillTensor(layout, result, [&](void *into, size_t count) {
    std::memcpy(into, bytes + preamble.dataOffset(), count);
    return true;
  });
  tensor = std::move(result);
  return true;
}

bool mlir::tp::rt::readNpy(const std::string &path, Tensor &tensor,
                           std::string &error) {
  auto fail = [&](const std::string &what) {
    error = inFile(path, what);
    return false;
  };
  // O_NONBLOCK: opening a FIFO without a writer must not hang; it is refused
  // below, as is anything else that is not a regular file.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return fail("cannot open: " + systemError());
  FdCloser closer{fd};
  struct stat status;
  if (::fstat(fd, &status) != 0)
    return fail("cannot stat: " + systemError());
  if (!S_ISREG(status.st_mode))
    return fail("not a regular file");
  size_t fileBytes = static_cast<size_t>(status.st_size);

  // Reads exactly `size` bytes at `offset`; a file that shrank since fstat
  // is truncated.
  auto readAt = [&](void *into, size_t size, size_t offset,
                    const std::string &what) {
    auto *out = static_cast<uint8_t *>(into);
    while (size > 0) {
      // Linux reads at most about 2 GiB per call.
      size_t chunk = std::min<size_t>(size, size_t(1) << 30);
      ssize_t got = ::pread(fd, out, chunk, static_cast<off_t>(offset));
      if (got < 0) {
        if (errno == EINTR)
          continue;
        return fail("cannot read: " + systemError());
      }
      if (got == 0)
        return fail("truncated " + what);
      out += got;
      size -= static_cast<size_t>(got);
      offset += static_cast<size_t>(got);
    }
    return true;
  };

  uint8_t first[kMaxPreambleBytes];
  size_t have = std::min(fileBytes, sizeof first);
  if (!readAt(first, have, 0, ".npy preamble"))
    return false;
  Preamble preamble;
  std::string why;
  if (!parsePreamble(first, have, fileBytes, preamble, why))
    return fail(why);
  std::string headerText(preamble.headerBytes, '\0');
  if (!readAt(headerText.data(), headerText.size(), preamble.headerOffset,
              "header"))
    return false;
  Layout layout;
  if (!parseLayout(headerText, fileBytes - preamble.dataOffset(), layout, why))
    return fail(why);
  Tensor result(layout.type.dtype, layout.shape);
  if (!fillTensor(layout, result, [&](void *into, size_t size) {
        return readAt(into, size, preamble.dataOffset(), "data");
      }))
    return false;
  tensor = std::move(result);
  return true;
}
