//===- Numerics.cpp - conversions of low-precision floats -----------------===//
//
// One table-driven encoder and decoder cover bf16, f16, f8E4M3FN, f8E5M2 and
// f4E2M1FN; f8E8M0FNU (exponent only, no zero) has its own pair. The encoder
// takes a double so storeElement rounds once, straight from the double: going
// through float first would round twice and could break ties differently.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Numerics.h"

#include <cassert>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir::tp::rt;

namespace {

/// A binary format with a sign bit, `expBits` exponent bits and `manBits`
/// mantissa bits; exponent field 0 holds zero and the subnormals.
struct Format {
  int expBits;
  int manBits;
  int bias;
  bool hasInf;      // all-ones exponent with mantissa 0 is infinity (IEEE)
  bool saturates;   // overflow gives the largest finite value, not infinity
  uint32_t maxCode; // largest finite magnitude
  uint32_t nanCode; // what NaN encodes to (before the sign, if any)
  bool nanSigned;   // NaN keeps the input's sign (bf16, f16)
};

constexpr Format kBF16 = {8, 7, 127, true, false, 0x7F7F, 0x7FC0, true};
constexpr Format kF16 = {5, 10, 15, true, false, 0x7BFF, 0x7E00, true};
// f8E4M3FN: no infinity, exponent 15 is normal except S.1111.111 (NaN).
constexpr Format kE4M3 = {4, 3, 7, false, true, 0x7E, 0x7F, false};
// f8E5M2 has IEEE infinities, but our conversion saturates instead.
constexpr Format kE5M2 = {5, 2, 15, true, true, 0x7B, 0x7E, false};
// f4E2M1FN has no NaN: it converts to +0.
constexpr Format kE2M1 = {2, 1, 1, false, true, 0x7, 0x0, false};

const Format &formatOf(DType type) {
  switch (type) {
  case DType::BF16:
    return kBF16;
  case DType::F16:
    return kF16;
  case DType::F8E4M3FN:
    return kE4M3;
  case DType::F8E5M2:
    return kE5M2;
  case DType::F4E2M1FN:
    return kE2M1;
  default:
    assert(false && "no table format for this type");
    return kE4M3;
  }
}

/// `a` rounded to an integer multiple of 2^shift, to nearest even, as that
/// integer. `shift` > 0.
uint64_t shiftRightRNE(uint64_t a, int shift) {
  if (shift >= 64)
    return 0; // a < 2^53, far below half of 2^shift
  uint64_t kept = a >> shift;
  uint64_t rest = a & ((uint64_t(1) << shift) - 1);
  uint64_t half = uint64_t(1) << (shift - 1);
  if (rest > half || (rest == half && (kept & 1)))
    ++kept;
  return kept;
}

uint32_t encode(double value, const Format &f) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  const int signShift = f.expBits + f.manBits;
  const uint32_t sign = uint32_t(bits >> 63) << signShift;
  const int rawExp = int((bits >> 52) & 0x7FF);
  uint64_t sig = bits & ((uint64_t(1) << 52) - 1);

  if (rawExp == 0x7FF) {
    if (sig != 0)
      return f.nanSigned ? (f.nanCode | sign) : f.nanCode;
    // Infinity.
    if (f.saturates)
      return f.maxCode | sign;
    return (((uint32_t(1) << f.expBits) - 1) << f.manBits) | sign;
  }
  if (rawExp == 0 && sig == 0)
    return sign; // signed zero

  // |value| = sig * 2^(exp - 52) with sig's leading one at bit 52.
  int exp;
  if (rawExp == 0) {
    exp = -1022;
    while (!(sig & (uint64_t(1) << 52))) {
      sig <<= 1;
      --exp;
    }
  } else {
    exp = rawExp - 1023;
    sig |= uint64_t(1) << 52;
  }

  const int maxExp = (1 << f.expBits) - 1 - f.bias; // highest normal binade
  const uint32_t overflow =
      f.saturates ? f.maxCode : (((uint32_t(1) << f.expBits) - 1) << f.manBits);
  if (exp > maxExp + 1)
    return overflow | sign;

  // Round to the quantum of the target binade; below the normal range the
  // quantum stays that of the subnormals.
  const int minExp = 1 - f.bias;
  const int binade = exp < minExp ? minExp : exp;
  const uint64_t n = shiftRightRNE(sig, 52 + binade - f.manBits - exp);
  // n counts quanta of 2^(binade - manBits). In the subnormal binade the code
  // is n itself; above it the leading one of n lands in the exponent field,
  // and a carry out of the mantissa (n == 2^(manBits+1)) bumps the exponent.
  const uint64_t code = (uint64_t(binade + f.bias - 1) << f.manBits) + n;
  if (code > f.maxCode)
    return overflow | sign;
  return uint32_t(code) | sign;
}

double decode(uint32_t code, const Format &f) {
  const int signShift = f.expBits + f.manBits;
  const bool negative = (code >> signShift) & 1;
  const uint32_t expField = (code >> f.manBits) & ((1u << f.expBits) - 1);
  const uint32_t man = code & ((1u << f.manBits) - 1);
  const uint32_t magnitude = code & ((1u << signShift) - 1);
  double result;
  if (magnitude > f.maxCode) {
    // Past the largest finite code: infinity (IEEE formats) or NaN.
    if (f.hasInf && man == 0)
      result = std::numeric_limits<double>::infinity();
    else
      return std::numeric_limits<double>::quiet_NaN();
  } else if (expField == 0) {
    result = std::ldexp(double(man), 1 - f.bias - f.manBits);
  } else {
    result = std::ldexp(double(man | (1u << f.manBits)),
                        int(expField) - f.bias - f.manBits);
  }
  return negative ? -result : result;
}

// f8E8M0FNU: the code is the biased exponent of a power of two.
constexpr int kE8M0Bias = 127;
constexpr uint8_t kE8M0NaN = 0xFF;
constexpr uint8_t kE8M0Max = 0xFE;

uint8_t encodeE8M0(double value) {
  if (std::isnan(value))
    return kE8M0NaN;
  // No zero and no sign: zero and negatives take the smallest value.
  if (value <= 0)
    return 0;
  if (std::isinf(value))
    return kE8M0Max;
  int exp;
  const double fraction = std::frexp(value, &exp); // value = fraction * 2^exp
  // value = 2^e * (1 + f) with e = exp - 1 and 1 + f = 2 * fraction.
  int e = exp - 1;
  const double mantissa = 2 * fraction;
  // Round to the nearer power of two; a tie (mantissa 1.5) goes to the even
  // exponent.
  if (mantissa > 1.5 || (mantissa == 1.5 && (e & 1)))
    ++e;
  if (e < -kE8M0Bias)
    return 0;
  if (e > kE8M0Max - kE8M0Bias)
    return kE8M0Max;
  return uint8_t(e + kE8M0Bias);
}

double decodeE8M0(uint8_t bits) {
  if (bits == kE8M0NaN)
    return std::numeric_limits<double>::quiet_NaN();
  return std::ldexp(1.0, int(bits) - kE8M0Bias);
}

/// Rounds toward zero and saturates to [lo, hi]; NaN gives 0 (a C++ cast
/// would be undefined for NaN and out-of-range values).
template <typename Int> Int truncateToInt(double value) {
  if (std::isnan(value))
    return 0;
  // 2^(digits) is exact as a double and one past the largest value.
  constexpr double limit =
      double(uint64_t(1) << std::numeric_limits<Int>::digits);
  if (value >= limit)
    return std::numeric_limits<Int>::max();
  if (value < -limit)
    return std::numeric_limits<Int>::min();
  return static_cast<Int>(value);
}

} // namespace

float mlir::tp::rt::bf16ToFloat(uint16_t bits) {
  // bf16 is the top half of a float.
  uint32_t wide = uint32_t(bits) << 16;
  float result;
  std::memcpy(&result, &wide, sizeof result);
  return result;
}

uint16_t mlir::tp::rt::floatToBF16(float value) {
  return uint16_t(encode(value, kBF16));
}

float mlir::tp::rt::f16ToFloat(uint16_t bits) {
  return float(decode(bits, kF16));
}

uint16_t mlir::tp::rt::floatToF16(float value) {
  return uint16_t(encode(value, kF16));
}

float mlir::tp::rt::fp8ToFloat(uint8_t bits, DType type) {
  if (type == DType::F8E8M0FNU)
    return float(decodeE8M0(bits));
  return float(decode(bits, formatOf(type)));
}

uint8_t mlir::tp::rt::floatToFP8(float value, DType type) {
  if (type == DType::F8E8M0FNU)
    return encodeE8M0(value);
  return uint8_t(encode(value, formatOf(type)));
}

float mlir::tp::rt::fp4ToFloat(uint8_t bits) {
  return float(decode(bits & 0xF, kE2M1));
}

uint8_t mlir::tp::rt::floatToFP4(float value) {
  return uint8_t(encode(value, kE2M1));
}

double mlir::tp::rt::maxFinite(DType type) {
  switch (type) {
  case DType::F32:
    return FLT_MAX;
  case DType::F64:
    return DBL_MAX;
  case DType::F8E8M0FNU:
    return decodeE8M0(kE8M0Max);
  case DType::BF16:
  case DType::F16:
  case DType::F8E4M3FN:
  case DType::F8E5M2:
  case DType::F4E2M1FN:
    return decode(formatOf(type).maxCode, formatOf(type));
  // Integers: the largest value, for callers that clamp generically.
  case DType::I1:
    return 1;
  case DType::I32:
    return std::numeric_limits<int32_t>::max();
  case DType::I64:
    return double(std::numeric_limits<int64_t>::max());
  }
  return 0;
}

// Element access goes through memcpy: `data` need not be aligned for T.
namespace {
template <typename T> T loadAs(const void *data, int64_t index) {
  T value;
  std::memcpy(&value, static_cast<const char *>(data) + index * sizeof(T),
              sizeof(T));
  return value;
}
template <typename T> void storeAs(void *data, int64_t index, T value) {
  std::memcpy(static_cast<char *>(data) + index * sizeof(T), &value, sizeof(T));
}
} // namespace

double mlir::tp::rt::loadElement(const void *data, DType type, int64_t index) {
  switch (type) {
  case DType::F32:
    return loadAs<float>(data, index);
  case DType::F64:
    return loadAs<double>(data, index);
  case DType::F16:
  case DType::BF16:
    return decode(loadAs<uint16_t>(data, index), formatOf(type));
  case DType::F8E4M3FN:
  case DType::F8E5M2:
    return decode(loadAs<uint8_t>(data, index), formatOf(type));
  case DType::F4E2M1FN:
    return decode(loadAs<uint8_t>(data, index) & 0xF, kE2M1);
  case DType::F8E8M0FNU:
    return decodeE8M0(loadAs<uint8_t>(data, index));
  case DType::I1:
    return loadAs<uint8_t>(data, index) != 0 ? 1 : 0;
  case DType::I32:
    return loadAs<int32_t>(data, index);
  case DType::I64:
    return double(loadAs<int64_t>(data, index));
  }
  return 0;
}

void mlir::tp::rt::storeElement(void *data, DType type, int64_t index,
                                double value) {
  switch (type) {
  case DType::F32:
    // The cast rounds to nearest even (the default FP environment).
    storeAs<float>(data, index, static_cast<float>(value));
    return;
  case DType::F64:
    storeAs<double>(data, index, value);
    return;
  case DType::F16:
  case DType::BF16:
    storeAs<uint16_t>(data, index, uint16_t(encode(value, formatOf(type))));
    return;
  case DType::F8E4M3FN:
  case DType::F8E5M2:
  case DType::F4E2M1FN:
    storeAs<uint8_t>(data, index, uint8_t(encode(value, formatOf(type))));
    return;
  case DType::F8E8M0FNU:
    storeAs<uint8_t>(data, index, encodeE8M0(value));
    return;
  case DType::I1:
    storeAs<uint8_t>(data, index, value != 0 ? 1 : 0);
    return;
  case DType::I32:
    storeAs<int32_t>(data, index, truncateToInt<int32_t>(value));
    return;
  case DType::I64:
    storeAs<int64_t>(data, index, truncateToInt<int64_t>(value));
    return;
  }
}
