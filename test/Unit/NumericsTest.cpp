//===- NumericsTest.cpp - low-precision float conversions -----------------===//
//
// Exhaustive over the narrow codes, cross-checked against llvm::APFloat (an
// independent implementation), and explicit about ties, subnormals,
// saturation and NaN. APFloat does not saturate and rounds f8E8M0FNU ties up,
// so those cases are checked against hand-written expectations instead.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Numerics.h"
#include "tp/Runtime/Tensor.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace mlir::tp::rt;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const llvm::fltSemantics &semantics(DType type) {
  switch (type) {
  case DType::BF16:
    return llvm::APFloat::BFloat();
  case DType::F16:
    return llvm::APFloat::IEEEhalf();
  case DType::F8E4M3FN:
    return llvm::APFloat::Float8E4M3FN();
  case DType::F8E5M2:
    return llvm::APFloat::Float8E5M2();
  case DType::F8E8M0FNU:
    return llvm::APFloat::Float8E8M0FNU();
  case DType::F4E2M1FN:
    return llvm::APFloat::Float4E2M1FN();
  default:
    ADD_FAILURE() << "no APFloat semantics for " << name(type);
    return llvm::APFloat::IEEEsingle();
  }
}

unsigned bitWidth(DType type) {
  return type == DType::F4E2M1FN ? 4 : unsigned(byteSize(type) * 8);
}

/// APFloat's value of `code`.
double apDecode(uint32_t code, DType type) {
  llvm::APFloat value(semantics(type), llvm::APInt(bitWidth(type), code));
  if (value.isNaN())
    return kNaN;
  bool lost;
  value.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
                &lost);
  return value.convertToDouble();
}

/// APFloat's encoding of `value`, rounded once to nearest even.
uint32_t apEncode(double value, DType type) {
  llvm::APFloat result(value);
  bool lost;
  result.convert(semantics(type), llvm::APFloat::rmNearestTiesToEven, &lost);
  return uint32_t(result.bitcastToAPInt().getZExtValue());
}

/// Our decoding of `code`, for any narrow type.
double decode(uint32_t code, DType type) {
  switch (type) {
  case DType::BF16:
    return bf16ToFloat(uint16_t(code));
  case DType::F16:
    return f16ToFloat(uint16_t(code));
  case DType::F4E2M1FN:
    return fp4ToFloat(uint8_t(code));
  default:
    return fp8ToFloat(uint8_t(code), type);
  }
}

/// Our encoding of `value`, for any narrow type.
uint32_t encode(float value, DType type) {
  switch (type) {
  case DType::BF16:
    return floatToBF16(value);
  case DType::F16:
    return floatToF16(value);
  case DType::F4E2M1FN:
    return floatToFP4(value);
  default:
    return floatToFP8(value, type);
  }
}

/// storeElement's encoding of a double: no detour through float.
uint32_t storeBits(double value, DType type) {
  uint8_t bytes[2] = {0, 0};
  storeElement(bytes, type, 0, value);
  return byteSize(type) == 2 ? uint32_t(bytes[0] | bytes[1] << 8) : bytes[0];
}

/// Codes that are neither NaN nor (for the saturating conversions) infinity.
bool isFiniteCode(uint32_t code, DType type) {
  return std::isfinite(decode(code, type));
}

/// A value whose conversion APFloat and we agree on: NaN, in range, or (for
/// the IEEE formats with infinity) anything.
bool comparableWithAPFloat(double value, DType type) {
  if (type == DType::BF16 || type == DType::F16)
    return true;
  return std::fabs(value) <= maxFinite(type);
}

/// A float with random sign and mantissa, its binade uniform in
/// [minExp, maxExp]: spreads samples over every binade of a narrow format.
float randomFloat(std::mt19937_64 &rng, int minExp, int maxExp) {
  std::uniform_int_distribution<int> exp(minExp, maxExp);
  std::uniform_int_distribution<uint32_t> mantissa(0, (1u << 23) - 1);
  float value =
      std::ldexp(1.0f + float(mantissa(rng)) / float(1u << 23), exp(rng));
  return rng() & 1 ? -value : value;
}

/// The same with a 52-bit mantissa, to exercise storeElement's rounding of
/// values no float holds.
double randomDouble(std::mt19937_64 &rng, int minExp, int maxExp) {
  std::uniform_int_distribution<int> exp(minExp, maxExp);
  std::uniform_int_distribution<uint64_t> mantissa(0, (uint64_t(1) << 52) - 1);
  double value = std::ldexp(
      1.0 + double(mantissa(rng)) / double(uint64_t(1) << 52), exp(rng));
  return rng() & 1 ? -value : value;
}

struct FormatCase {
  DType type;
  int minExp; // binade of the smallest subnormal
  int maxExp; // binade of the largest finite value
};

void PrintTo(const FormatCase &format, std::ostream *os) {
  *os << name(format.type);
}

std::string caseName(const testing::TestParamInfo<FormatCase> &info) {
  return std::string(name(info.param.type));
}

// The signed formats with zero and subnormals: bf16, f16, f8E4M3FN, f8E5M2,
// f4E2M1FN.
const FormatCase kSignedFormats[] = {
    {DType::BF16, -133, 127}, {DType::F16, -24, 15},
    {DType::F8E4M3FN, -9, 8}, {DType::F8E5M2, -16, 15},
    {DType::F4E2M1FN, -1, 2},
};

class SignedFormatTest : public testing::TestWithParam<FormatCase> {
protected:
  uint32_t numCodes() const { return 1u << bitWidth(GetParam().type); }
  uint32_t signBit() const { return numCodes() >> 1; }
};

TEST_P(SignedFormatTest, DecodeMatchesAPFloatForEveryCode) {
  DType type = GetParam().type;
  for (uint32_t code = 0; code < numCodes(); ++code) {
    double expected = apDecode(code, type);
    double actual = decode(code, type);
    if (std::isnan(expected)) {
      EXPECT_TRUE(std::isnan(actual)) << "code " << code;
      continue;
    }
    EXPECT_EQ(actual, expected) << "code " << code;
    EXPECT_EQ(std::signbit(actual), std::signbit(expected)) << "code " << code;
    EXPECT_EQ(loadElement(&code, type, 0), expected) << "code " << code;
  }
}

TEST_P(SignedFormatTest, EncodeInvertsDecodeForEveryFiniteCode) {
  DType type = GetParam().type;
  for (uint32_t code = 0; code < numCodes(); ++code) {
    if (!isFiniteCode(code, type))
      continue;
    double value = decode(code, type);
    EXPECT_EQ(encode(float(value), type), code) << "value " << value;
    EXPECT_EQ(storeBits(value, type), code) << "value " << value;
  }
}

TEST_P(SignedFormatTest, EveryTieRoundsToTheEvenCode) {
  DType type = GetParam().type;
  // Adjacent positive finite codes c, c + 1: their midpoint goes to the even
  // one, and a nudge either way decides it. Midpoints of these formats fit
  // in a float.
  for (uint32_t code = 0; code + 1 < signBit(); ++code) {
    if (!isFiniteCode(code + 1, type))
      break;
    double low = decode(code, type), high = decode(code + 1, type);
    float mid = float((low + high) / 2);
    ASSERT_EQ(double(mid), (low + high) / 2);
    uint32_t even = code % 2 == 0 ? code : code + 1;
    EXPECT_EQ(encode(mid, type), even) << "tie at " << mid;
    EXPECT_EQ(encode(-mid, type), even | signBit()) << "tie at " << -mid;
    EXPECT_EQ(encode(std::nextafter(mid, 0.0f), type), code) << mid;
    EXPECT_EQ(encode(std::nextafter(mid, INFINITY), type), code + 1) << mid;
    EXPECT_EQ(storeBits(std::nextafter(double(mid), 0.0), type), code);
    EXPECT_EQ(storeBits(std::nextafter(double(mid), kInf), type), code + 1);
  }
}

TEST_P(SignedFormatTest, RandomFloatsRoundLikeAPFloat) {
  const FormatCase &format = GetParam();
  std::mt19937_64 rng(42);
  int compared = 0;
  for (int i = 0; i < 200000; ++i) {
    // Two binades below the smallest subnormal and one above the largest
    // normal cover underflow to zero and overflow.
    float value = randomFloat(rng, format.minExp - 2, format.maxExp + 1);
    if (!comparableWithAPFloat(value, format.type))
      continue;
    ++compared;
    ASSERT_EQ(encode(value, format.type), apEncode(value, format.type))
        << "value " << value;
  }
  EXPECT_GT(compared, 100000);
}

TEST_P(SignedFormatTest, RandomDoublesRoundOnceLikeAPFloat) {
  const FormatCase &format = GetParam();
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200000; ++i) {
    double value = randomDouble(rng, format.minExp - 2, format.maxExp + 1);
    if (!comparableWithAPFloat(value, format.type))
      continue;
    ASSERT_EQ(storeBits(value, format.type), apEncode(value, format.type))
        << "value " << value;
  }
}

TEST_P(SignedFormatTest, SubnormalsAndUnderflow) {
  DType type = GetParam().type;
  double minSub = std::ldexp(1.0, GetParam().minExp);
  EXPECT_EQ(decode(1, type), minSub);
  EXPECT_EQ(encode(float(minSub), type), 1u);
  // Half the smallest subnormal ties to zero (even); a bit more rounds up.
  EXPECT_EQ(storeBits(minSub / 2, type), 0u);
  EXPECT_EQ(storeBits(-minSub / 2, type), signBit());
  EXPECT_EQ(storeBits(std::nextafter(minSub / 2, 1.0), type), 1u);
  EXPECT_EQ(storeBits(1.5 * minSub, type), 2u); // tie between codes 1 and 2
  EXPECT_EQ(storeBits(minSub / 1024, type), 0u);
  EXPECT_EQ(storeBits(std::numeric_limits<double>::denorm_min(), type), 0u);
}

TEST_P(SignedFormatTest, SignedZero) {
  DType type = GetParam().type;
  EXPECT_EQ(encode(0.0f, type), 0u);
  EXPECT_EQ(encode(-0.0f, type), signBit());
  EXPECT_TRUE(std::signbit(decode(signBit(), type)));
  EXPECT_EQ(decode(signBit(), type), 0.0);
}

INSTANTIATE_TEST_SUITE_P(Numerics, SignedFormatTest,
                         testing::ValuesIn(kSignedFormats), caseName);

TEST(NumericsTest, BF16IsTheTopHalfOfAFloat) {
  for (uint32_t code = 0; code < 0x10000; ++code) {
    uint32_t wide = code << 16;
    float expected;
    std::memcpy(&expected, &wide, sizeof expected);
    float actual = bf16ToFloat(uint16_t(code));
    EXPECT_EQ(std::memcmp(&actual, &expected, sizeof actual), 0) << code;
  }
}

TEST(NumericsTest, BF16AndF16KeepInfinityAndNaN) {
  EXPECT_EQ(floatToBF16(INFINITY), 0x7F80);
  EXPECT_EQ(floatToBF16(-INFINITY), 0xFF80);
  EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBF16(NAN))));
  EXPECT_EQ(floatToF16(INFINITY), 0x7C00);
  EXPECT_EQ(floatToF16(-INFINITY), 0xFC00);
  EXPECT_TRUE(std::isnan(f16ToFloat(floatToF16(NAN))));
  EXPECT_TRUE(std::isnan(f16ToFloat(floatToF16(-NAN))));
  // Overflow: past the midpoint between the largest finite value and the
  // next binade, values round to infinity.
  EXPECT_EQ(floatToF16(65504.0f), 0x7BFF);
  EXPECT_EQ(floatToF16(65519.0f), 0x7BFF);
  EXPECT_EQ(floatToF16(65520.0f), 0x7C00); // tie, goes to even (infinity)
  EXPECT_EQ(floatToF16(1e10f), 0x7C00);
  EXPECT_EQ(floatToBF16(std::numeric_limits<float>::max()), 0x7F80);
  EXPECT_EQ(floatToBF16(3.3895313892515355e38f), 0x7F7F);
}

TEST(NumericsTest, KnownHalfPrecisionValues) {
  EXPECT_EQ(floatToF16(1.0f), 0x3C00);
  EXPECT_EQ(floatToF16(-2.0f), 0xC000);
  EXPECT_EQ(floatToF16(0.1f), 0x2E66);
  EXPECT_EQ(floatToF16(std::ldexp(1.0f, -14)), 0x0400); // smallest normal
  EXPECT_EQ(floatToBF16(1.0f), 0x3F80);
  EXPECT_EQ(floatToBF16(3.140625f), 0x4049);
  // 1 + 2^-8 is the midpoint of 1 and 1 + 2^-7: ties to the even 1.
  EXPECT_EQ(floatToBF16(1.00390625f), 0x3F80);
  EXPECT_EQ(floatToBF16(1.01171875f), 0x3F82); // 1 + 3 * 2^-8: up to even
}

TEST(NumericsTest, F8E4M3FNValuesAndSaturation) {
  const DType t = DType::F8E4M3FN;
  EXPECT_EQ(fp8ToFloat(0x38, t), 1.0f);
  EXPECT_EQ(fp8ToFloat(0x7E, t), 448.0f);
  EXPECT_EQ(fp8ToFloat(0xFE, t), -448.0f);
  EXPECT_EQ(fp8ToFloat(0x08, t), std::ldexp(1.0f, -6)); // smallest normal
  EXPECT_EQ(fp8ToFloat(0x07, t), 7 * std::ldexp(1.0f, -9));
  EXPECT_EQ(fp8ToFloat(0x01, t), std::ldexp(1.0f, -9));
  EXPECT_TRUE(std::isnan(fp8ToFloat(0x7F, t)));
  EXPECT_TRUE(std::isnan(fp8ToFloat(0xFF, t)));
  // 0x78..0x7E are finite: exponent 15 holds numbers except for S.1111.111.
  EXPECT_EQ(fp8ToFloat(0x78, t), 256.0f);
  // Ties: 1 + 1/16 between 1 and 1.125 goes to the even 1; 1 + 3/16 to 1.25.
  EXPECT_EQ(floatToFP8(1.0625f, t), 0x38);
  EXPECT_EQ(floatToFP8(1.1875f, t), 0x3A);
  // Saturation: beyond 448 (and infinities) give +-448; NaN gives 0x7F.
  EXPECT_EQ(floatToFP8(464.0f, t), 0x7E); // would round to 480 = NaN's slot
  EXPECT_EQ(floatToFP8(500.0f, t), 0x7E);
  EXPECT_EQ(floatToFP8(1e30f, t), 0x7E);
  EXPECT_EQ(floatToFP8(-1e30f, t), 0xFE);
  EXPECT_EQ(floatToFP8(INFINITY, t), 0x7E);
  EXPECT_EQ(floatToFP8(-INFINITY, t), 0xFE);
  EXPECT_EQ(floatToFP8(NAN, t), 0x7F);
  EXPECT_EQ(floatToFP8(-NAN, t), 0x7F);
  EXPECT_EQ(storeBits(1e300, t), 0x7Eu);
}

TEST(NumericsTest, F8E5M2ValuesAndSaturation) {
  const DType t = DType::F8E5M2;
  EXPECT_EQ(fp8ToFloat(0x3C, t), 1.0f);
  EXPECT_EQ(fp8ToFloat(0x7B, t), 57344.0f);
  EXPECT_EQ(fp8ToFloat(0x01, t), std::ldexp(1.0f, -16));
  EXPECT_EQ(fp8ToFloat(0x04, t), std::ldexp(1.0f, -14)); // smallest normal
  EXPECT_EQ(fp8ToFloat(0x7C, t), INFINITY);
  EXPECT_EQ(fp8ToFloat(0xFC, t), -INFINITY);
  for (uint8_t nan : {0x7D, 0x7E, 0x7F, 0xFD, 0xFE, 0xFF})
    EXPECT_TRUE(std::isnan(fp8ToFloat(nan, t))) << int(nan);
  // Our conversion saturates where APFloat would give infinity.
  EXPECT_EQ(floatToFP8(61440.0f, t), 0x7B); // tie with the infinity slot
  EXPECT_EQ(floatToFP8(60000.0f, t), 0x7B);
  EXPECT_EQ(floatToFP8(1e20f, t), 0x7B);
  EXPECT_EQ(floatToFP8(INFINITY, t), 0x7B);
  EXPECT_EQ(floatToFP8(-INFINITY, t), 0xFB);
  EXPECT_EQ(floatToFP8(NAN, t), 0x7E);
  EXPECT_EQ(floatToFP8(-NAN, t), 0x7E);
  EXPECT_EQ(floatToFP8(1.125f, t), 0x3C); // tie between 1 and 1.25
  EXPECT_EQ(floatToFP8(1.375f, t), 0x3E); // tie between 1.25 and 1.5
}

TEST(NumericsTest, F4E2M1FNValues) {
  const float values[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  for (uint8_t code = 0; code < 8; ++code) {
    EXPECT_EQ(fp4ToFloat(code), values[code]);
    EXPECT_EQ(fp4ToFloat(code | 0x8), -values[code]);
    // Only the low 4 bits hold the value.
    EXPECT_EQ(fp4ToFloat(code | 0xF0), values[code]);
  }
  // Ties go to the even code: 0.25 -> 0, 0.75 -> 1, 1.25 -> 1, 1.75 -> 2,
  // 2.5 -> 2, 3.5 -> 4, 5 -> 4.
  EXPECT_EQ(floatToFP4(0.25f), 0x0);
  EXPECT_EQ(floatToFP4(0.75f), 0x2);
  EXPECT_EQ(floatToFP4(1.25f), 0x2);
  EXPECT_EQ(floatToFP4(1.75f), 0x4);
  EXPECT_EQ(floatToFP4(2.5f), 0x4);
  EXPECT_EQ(floatToFP4(3.5f), 0x6);
  EXPECT_EQ(floatToFP4(5.0f), 0x6);
  EXPECT_EQ(floatToFP4(-5.0f), 0xE);
  EXPECT_EQ(floatToFP4(0.3f), 0x1);
  // Saturation to +-6; no NaN, so NaN gives +0.
  EXPECT_EQ(floatToFP4(7.0f), 0x7);
  EXPECT_EQ(floatToFP4(1e9f), 0x7);
  EXPECT_EQ(floatToFP4(-INFINITY), 0xF);
  EXPECT_EQ(floatToFP4(NAN), 0x0);
  EXPECT_EQ(floatToFP4(-NAN), 0x0);
}

// f8E8M0FNU: unsigned powers of two 2^-127 .. 2^127 and NaN.

TEST(NumericsTest, F8E8M0FNUDecodesEveryCodeLikeAPFloat) {
  for (uint32_t code = 0; code < 256; ++code) {
    double expected = apDecode(code, DType::F8E8M0FNU);
    float actual = fp8ToFloat(uint8_t(code), DType::F8E8M0FNU);
    if (code == 0xFF) {
      EXPECT_TRUE(std::isnan(expected));
      EXPECT_TRUE(std::isnan(actual));
      continue;
    }
    EXPECT_EQ(actual, std::ldexp(1.0, int(code) - 127));
    EXPECT_EQ(double(actual), expected);
    EXPECT_EQ(floatToFP8(actual, DType::F8E8M0FNU), code);
    EXPECT_EQ(loadElement(&code, DType::F8E8M0FNU, 0), expected);
  }
}

TEST(NumericsTest, F8E8M0FNURoundsToTheNearestPowerOfTwo) {
  const DType t = DType::F8E8M0FNU;
  EXPECT_EQ(floatToFP8(1.0f, t), 127);
  EXPECT_EQ(floatToFP8(1.4f, t), 127);
  EXPECT_EQ(floatToFP8(1.6f, t), 128);
  EXPECT_EQ(floatToFP8(0.7f, t), 126); // 0.5 * 1.4
  EXPECT_EQ(floatToFP8(0.8f, t), 127); // 0.5 * 1.6
  // Away from ties, the nearest power of two is what APFloat gives too.
  auto isTie = [](double value) {
    int exp;
    return std::frexp(value, &exp) == 0.75; // 1.5 * 2^(exp - 1)
  };
  std::mt19937_64 rng(3);
  for (int i = 0; i < 100000; ++i) {
    float value = std::fabs(randomFloat(rng, -127, 126));
    if (!isTie(value)) {
      ASSERT_EQ(floatToFP8(value, t), apEncode(value, t)) << value;
    }
    double wide = std::fabs(randomDouble(rng, -127, 126));
    if (!isTie(wide)) {
      ASSERT_EQ(storeBits(wide, t), apEncode(wide, t)) << wide;
    }
  }
}

TEST(NumericsTest, F8E8M0FNUTiesGoToTheEvenExponent) {
  // 1.5 * 2^e is equidistant from 2^e and 2^(e+1): the result is whichever
  // has an even e (APFloat rounds these up).
  for (int e = -127; e <= 126; ++e) {
    float tie = std::ldexp(1.5f, e);
    int expected = (e % 2 == 0 ? e : e + 1) + 127;
    EXPECT_EQ(floatToFP8(tie, DType::F8E8M0FNU), expected) << "2^" << e;
    EXPECT_EQ(floatToFP8(std::nextafter(tie, 0.0f), DType::F8E8M0FNU), e + 127);
    EXPECT_EQ(floatToFP8(std::nextafter(tie, INFINITY), DType::F8E8M0FNU),
              e + 128);
  }
  EXPECT_EQ(floatToFP8(1.5f, DType::F8E8M0FNU), 127); // 1
  EXPECT_EQ(floatToFP8(3.0f, DType::F8E8M0FNU), 129); // 4
  EXPECT_EQ(floatToFP8(6.0f, DType::F8E8M0FNU), 129); // 4
}

TEST(NumericsTest, F8E8M0FNUClampsAndHasNoZero) {
  const DType t = DType::F8E8M0FNU;
  EXPECT_EQ(floatToFP8(0.0f, t), 0x00);
  EXPECT_EQ(floatToFP8(-0.0f, t), 0x00);
  EXPECT_EQ(floatToFP8(-4.0f, t), 0x00);
  EXPECT_EQ(floatToFP8(-INFINITY, t), 0x00);
  EXPECT_EQ(floatToFP8(std::ldexp(1.0f, -140), t), 0x00);
  EXPECT_EQ(floatToFP8(std::numeric_limits<float>::denorm_min(), t), 0x00);
  EXPECT_EQ(floatToFP8(std::ldexp(1.0f, 127), t), 0xFE);
  EXPECT_EQ(floatToFP8(std::numeric_limits<float>::max(), t), 0xFE);
  EXPECT_EQ(floatToFP8(INFINITY, t), 0xFE);
  EXPECT_EQ(storeBits(1e300, t), 0xFEu);
  EXPECT_EQ(storeBits(1e-300, t), 0x00u);
  EXPECT_EQ(floatToFP8(NAN, t), 0xFF);
}

TEST(NumericsTest, MaxFinite) {
  EXPECT_EQ(maxFinite(DType::F32), std::numeric_limits<float>::max());
  EXPECT_EQ(maxFinite(DType::F64), std::numeric_limits<double>::max());
  EXPECT_EQ(maxFinite(DType::F16), 65504.0);
  EXPECT_EQ(maxFinite(DType::BF16), 0x1.FEp127);
  EXPECT_EQ(maxFinite(DType::F8E4M3FN), 448.0);
  EXPECT_EQ(maxFinite(DType::F8E5M2), 57344.0);
  EXPECT_EQ(maxFinite(DType::F8E8M0FNU), std::ldexp(1.0, 127));
  EXPECT_EQ(maxFinite(DType::F4E2M1FN), 6.0);
  // Each is the value of the format's largest finite code per APFloat.
  for (DType type : {DType::BF16, DType::F16, DType::F8E4M3FN, DType::F8E5M2,
                     DType::F8E8M0FNU, DType::F4E2M1FN}) {
    llvm::APFloat largest = llvm::APFloat::getLargest(semantics(type));
    bool lost;
    largest.convert(llvm::APFloat::IEEEdouble(),
                    llvm::APFloat::rmNearestTiesToEven, &lost);
    EXPECT_EQ(maxFinite(type), largest.convertToDouble()) << name(type);
  }
}

TEST(NumericsTest, StoreElementRoundsOnceFromDouble) {
  // 1 + 2^-8 + 2^-40 is just above the bf16 midpoint 1 + 2^-8. Rounding it
  // to float first would land on the midpoint and then tie to 1.0.
  double value = 1 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);
  EXPECT_EQ(floatToBF16(float(value)), 0x3F80);
  EXPECT_EQ(storeBits(value, DType::BF16), 0x3F81u);
  // Likewise for f8E4M3FN just above the midpoint 1 + 2^-4.
  value = 1 + std::ldexp(1.0, -4) + std::ldexp(1.0, -40);
  EXPECT_EQ(floatToFP8(float(value), DType::F8E4M3FN), 0x38);
  EXPECT_EQ(storeBits(value, DType::F8E4M3FN), 0x39u);
  // And for f4E2M1FN just above the midpoint 2.5.
  value = 2.5 + std::ldexp(1.0, -40);
  EXPECT_EQ(floatToFP4(float(value)), 0x4);
  EXPECT_EQ(storeBits(value, DType::F4E2M1FN), 0x5u);
}

TEST(NumericsTest, LoadAndStoreFloats) {
  float f32[2];
  storeElement(f32, DType::F32, 1, 1 + std::ldexp(1.0, -30));
  EXPECT_EQ(f32[1], 1.0f);
  storeElement(f32, DType::F32, 0, 0.1);
  EXPECT_EQ(f32[0], 0.1f);
  EXPECT_EQ(loadElement(f32, DType::F32, 0), double(0.1f));

  double f64[2];
  storeElement(f64, DType::F64, 1, 0.1);
  EXPECT_EQ(f64[1], 0.1);
  EXPECT_EQ(loadElement(f64, DType::F64, 1), 0.1);

  uint16_t half[3];
  storeElement(half, DType::F16, 2, -1.5);
  EXPECT_EQ(half[2], 0xBE00);
  storeElement(half, DType::BF16, 1, 2.0);
  EXPECT_EQ(half[1], 0x4000);
  EXPECT_EQ(loadElement(half, DType::BF16, 1), 2.0);

  uint8_t bytes[4];
  storeElement(bytes, DType::F8E4M3FN, 3, 448);
  EXPECT_EQ(bytes[3], 0x7E);
  storeElement(bytes, DType::F8E5M2, 2, -1);
  EXPECT_EQ(bytes[2], 0xBC);
  storeElement(bytes, DType::F8E8M0FNU, 1, 0.25);
  EXPECT_EQ(bytes[1], 125);
  storeElement(bytes, DType::F4E2M1FN, 0, -3);
  EXPECT_EQ(bytes[0], 0xD);
  EXPECT_EQ(loadElement(bytes, DType::F4E2M1FN, 0), -3.0);
  EXPECT_EQ(loadElement(bytes, DType::F8E8M0FNU, 1), 0.25);
  EXPECT_TRUE(std::isnan(
      loadElement(std::vector<uint8_t>{0x7F}.data(), DType::F8E4M3FN, 0)));
}

TEST(NumericsTest, LoadAndStoreIntegers) {
  uint8_t i1[5] = {0, 0, 0, 0, 7};
  storeElement(i1, DType::I1, 0, 0.0);
  storeElement(i1, DType::I1, 1, -0.0);
  storeElement(i1, DType::I1, 2, 0.25);
  storeElement(i1, DType::I1, 3, -3);
  EXPECT_EQ(i1[0], 0);
  EXPECT_EQ(i1[1], 0);
  EXPECT_EQ(i1[2], 1);
  EXPECT_EQ(i1[3], 1); // stored as exactly one, not the value
  EXPECT_EQ(loadElement(i1, DType::I1, 3), 1.0);
  EXPECT_EQ(loadElement(i1, DType::I1, 4), 1.0); // any nonzero byte is true
  storeElement(i1, DType::I1, 4, kNaN);          // NaN is nonzero
  EXPECT_EQ(i1[4], 1);

  int32_t i32[4];
  storeElement(i32, DType::I32, 0, 2.9);
  storeElement(i32, DType::I32, 1, -2.9);
  storeElement(i32, DType::I32, 2, 1e12);
  storeElement(i32, DType::I32, 3, -1e12);
  EXPECT_EQ(i32[0], 2);
  EXPECT_EQ(i32[1], -2);
  // Out of range saturates (a plain cast would be undefined).
  EXPECT_EQ(i32[2], std::numeric_limits<int32_t>::max());
  EXPECT_EQ(i32[3], std::numeric_limits<int32_t>::min());
  storeElement(i32, DType::I32, 0, kNaN);
  EXPECT_EQ(i32[0], 0);
  storeElement(i32, DType::I32, 1, 2147483647.9);
  EXPECT_EQ(i32[1], 2147483647);
  EXPECT_EQ(loadElement(i32, DType::I32, 1), 2147483647.0);

  int64_t i64[4];
  storeElement(i64, DType::I64, 0, -7.99);
  storeElement(i64, DType::I64, 1, std::ldexp(1.0, 62));
  storeElement(i64, DType::I64, 2, std::ldexp(1.0, 63));
  storeElement(i64, DType::I64, 3, -std::ldexp(1.0, 63));
  EXPECT_EQ(i64[0], -7);
  EXPECT_EQ(i64[1], int64_t(1) << 62);
  EXPECT_EQ(i64[2], std::numeric_limits<int64_t>::max());
  EXPECT_EQ(i64[3], std::numeric_limits<int64_t>::min());
  EXPECT_EQ(loadElement(i64, DType::I64, 0), -7.0);
  storeElement(i64, DType::I64, 0, -kInf);
  EXPECT_EQ(i64[0], std::numeric_limits<int64_t>::min());
}

TEST(NumericsTest, ElementsNeedNoAlignment) {
  // Element access may see any byte offset (memcpy, not a typed load).
  uint8_t buffer[1 + sizeof(double)] = {};
  void *odd = buffer + 1;
  storeElement(odd, DType::F64, 0, 3.25);
  EXPECT_EQ(loadElement(odd, DType::F64, 0), 3.25);
  storeElement(odd, DType::I32, 1, -5);
  EXPECT_EQ(loadElement(odd, DType::I32, 1), -5.0);
}

TEST(NumericsTest, TensorGetAndSetUseTheElementType) {
  Tensor fp4(DType::F4E2M1FN, {2, 3});
  fp4.set(4, 2.7); // rounds to 3
  EXPECT_EQ(fp4.get(4), 3.0);
  EXPECT_EQ(fp4.as<uint8_t>()[4], 0x5);
  fp4.set(5, -100); // saturates
  EXPECT_EQ(fp4.get(5), -6.0);

  Tensor e4m3(DType::F8E4M3FN, {4});
  e4m3.set(0, 0.1);
  EXPECT_EQ(e4m3.get(0), 0.1015625); // 13 * 2^-7, the nearest
  Tensor copy = e4m3;
  copy.set(0, 2);
  EXPECT_EQ(e4m3.get(0), 0.1015625); // the copy detached first
  EXPECT_EQ(copy.get(0), 2.0);

  Tensor index(DType::I64, {1});
  index.set(0, -3.7);
  EXPECT_EQ(index.get(0), -3.0);
}

} // namespace
