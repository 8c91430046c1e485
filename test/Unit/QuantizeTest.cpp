//===- QuantizeTest.cpp - per-tensor, row-wise, MXFP8, NVFP4 --------------===//
//
// Scales are checked against the formulas of Quantize.h computed here
// independently, and round trips against the error the data format allows:
// half an ulp of the scaled value (or the clipped excess where MXFP8 and
// NVFP4 saturate), times the scale.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Quantize.h"
#include "tp/Runtime/Numerics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

using namespace mlir::tp::rt;

namespace {

Tensor makeTensor(DType type, std::vector<int64_t> shape,
                  const std::vector<double> &values) {
  Tensor t(type, std::move(shape));
  EXPECT_EQ(size_t(t.numElements()), values.size());
  for (size_t i = 0; i < values.size(); ++i)
    t.set(int64_t(i), values[i]);
  return t;
}

/// Normally distributed values, each row scaled by a random power of ten so
/// rows and blocks see different magnitudes.
Tensor randomTensor(std::vector<int64_t> shape, uint64_t seed) {
  Tensor t(DType::F32, std::move(shape));
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  std::uniform_int_distribution<int> decade(-4, 4);
  int64_t row = t.rank() ? t.dim(t.rank() - 1) : 1;
  double magnitude = 1;
  for (int64_t i = 0; i < t.numElements(); ++i) {
    if (i % row == 0)
      magnitude = std::pow(10.0, decade(rng));
    t.set(i, normal(rng) * magnitude);
  }
  return t;
}

/// Half an ulp of `type` at |y|: the largest rounding error of y.
double halfUlp(DType type, double y) {
  int manBits, minExp;
  switch (type) {
  case DType::F8E4M3FN:
    manBits = 3, minExp = -6;
    break;
  case DType::F8E5M2:
    manBits = 2, minExp = -14;
    break;
  default: // f4E2M1FN
    manBits = 1, minExp = 0;
    break;
  }
  int exp = y == 0 ? minExp
                   : std::max(int(std::floor(std::log2(std::fabs(y)))), minExp);
  return std::ldexp(1.0, exp - manBits - 1);
}

/// The largest error of dequantize(quantize(x)) for x scaled by `scale`:
/// half an ulp, or what saturation clipped off.
double errorBound(DType type, double x, double scale) {
  double y = std::fabs(x) / scale;
  return std::max(halfUlp(type, y), y - maxFinite(type)) * scale;
}

Tensor dequantizeF64(const Quantized &q, Scaling mode) {
  Tensor out;
  std::string error;
  const Tensor *global = q.globalScale.empty() ? nullptr : &q.globalScale;
  EXPECT_TRUE(dequantize(q.data, q.scale, global, mode, DType::F64, out, error))
      << error;
  return out;
}

Quantized quantizeOk(const Tensor &input, Scaling mode, DType type) {
  Quantized q;
  std::string error;
  EXPECT_TRUE(quantize(input, mode, type, q, error)) << error;
  return q;
}

std::string quantizeError(const Tensor &input, Scaling mode, DType type) {
  Quantized q;
  std::string error;
  EXPECT_FALSE(quantize(input, mode, type, q, error));
  EXPECT_TRUE(q.data.empty() && q.scale.empty() && q.globalScale.empty())
      << "a failed quantize leaves the result alone";
  return error;
}

std::string dequantizeError(const Tensor &data, const Tensor &scale,
                            const Tensor *global, Scaling mode,
                            DType outType = DType::F32) {
  Tensor out;
  std::string error;
  EXPECT_FALSE(dequantize(data, scale, global, mode, outType, out, error));
  EXPECT_TRUE(out.empty());
  return error;
}

double amaxOf(const Tensor &t, int64_t begin, int64_t end) {
  double amax = 0;
  for (int64_t i = begin; i < end; ++i)
    amax = std::max(amax, std::fabs(t.get(i)));
  return amax;
}

const DType kFP8Types[] = {DType::F8E4M3FN, DType::F8E5M2};

// Per tensor.

TEST(QuantizeTest, PerTensorScaleIsAmaxOverMaxFinite) {
  Tensor input = makeTensor(DType::F32, {2, 3}, {1, -8.96, 0.5, 2, 0, -3});
  for (DType type : kFP8Types) {
    Quantized q = quantizeOk(input, Scaling::PerTensor, type);
    EXPECT_EQ(q.data.dtype(), type);
    EXPECT_EQ(q.data.shape(), input.shape());
    EXPECT_EQ(q.scale.dtype(), DType::F32);
    EXPECT_EQ(q.scale.rank(), 0);
    EXPECT_TRUE(q.globalScale.empty());
    EXPECT_EQ(q.scale.get(0), double(float(8.96f / maxFinite(type))));
    // The absolute maximum lands on the largest finite value.
    EXPECT_EQ(q.data.get(1), -maxFinite(type));
    EXPECT_EQ(q.data.get(4), 0.0);
  }
}

TEST(QuantizeTest, PerTensorRoundTripWithinHalfAnUlp) {
  Tensor input = randomTensor({8, 64}, 1);
  for (DType type : kFP8Types) {
    Quantized q = quantizeOk(input, Scaling::PerTensor, type);
    Tensor back = dequantizeF64(q, Scaling::PerTensor);
    double scale = q.scale.get(0);
    for (int64_t i = 0; i < input.numElements(); ++i) {
      double x = input.get(i);
      // Each element is x / scale rounded (once) to the data type.
      uint8_t expected;
      storeElement(&expected, type, 0, x / scale);
      ASSERT_EQ(q.data.as<uint8_t>()[i], expected) << "element " << i;
      ASSERT_LE(std::fabs(back.get(i) - x), errorBound(type, x, scale))
          << name(type) << " element " << i << " = " << x;
    }
  }
}

TEST(QuantizeTest, PerTensorDividesByTheStoredF32Scale) {
  // 1/448 is no f32, so the stored scale s differs from amax / 448. Elements
  // at e4m3 ties times s (exact in f64) must tie: 1.0625 to the even 1 and
  // 1.1875 to the even 1.25. Dividing by the unrounded amax / 448 would push
  // one of them off its tie.
  const double s = double(float(1.0 / 448));
  ASSERT_NE(s, 1.0 / 448);
  Tensor input = makeTensor(DType::F64, {3}, {1.0, 1.0625 * s, 1.1875 * s});
  Quantized q = quantizeOk(input, Scaling::PerTensor, DType::F8E4M3FN);
  ASSERT_EQ(q.scale.get(0), s);
  EXPECT_EQ(q.data.get(1), 1.0);
  EXPECT_EQ(q.data.get(2), 1.25);
}

TEST(QuantizeTest, PerTensorAllZeroHasUnitScale) {
  Tensor zeros(DType::BF16, {4, 4});
  Quantized q = quantizeOk(zeros, Scaling::PerTensor, DType::F8E4M3FN);
  EXPECT_EQ(q.scale.get(0), 1.0);
  for (int64_t i = 0; i < 16; ++i)
    EXPECT_EQ(q.data.get(i), 0.0);
}

TEST(QuantizeTest, RankZeroInputIsOneScalar) {
  Tensor scalar = makeTensor(DType::F64, {}, {-3.5});
  Quantized q = quantizeOk(scalar, Scaling::PerTensor, DType::F8E5M2);
  EXPECT_EQ(q.data.rank(), 0);
  EXPECT_EQ(q.scale.get(0), 3.5 / 57344);
  EXPECT_EQ(q.data.get(0), -57344.0);
  EXPECT_EQ(dequantizeF64(q, Scaling::PerTensor).get(0), -3.5);
}

TEST(QuantizeTest, RequantizingDequantizedDataIsStable) {
  // Dequantized (exactly, in f64) values are what the same scales represent,
  // so quantizing them again reproduces data and scales bit for bit.
  Tensor input = randomTensor({4, 96}, 2);
  for (Scaling mode : {Scaling::PerTensor, Scaling::RowWise, Scaling::MXFP8}) {
    for (DType type : kFP8Types) {
      Quantized q = quantizeOk(input, mode, type);
      Quantized again = quantizeOk(dequantizeF64(q, mode), mode, type);
      ASSERT_EQ(q.data.numBytes(), again.data.numBytes());
      EXPECT_EQ(
          std::memcmp(q.data.data(), again.data.data(), q.data.numBytes()), 0);
      EXPECT_EQ(
          std::memcmp(q.scale.data(), again.scale.data(), q.scale.numBytes()),
          0);
    }
  }
}

TEST(QuantizeTest, LowPrecisionInputsQuantizeLikeTheirValues) {
  Tensor f32 = randomTensor({2, 32}, 3);
  Tensor bf16(DType::BF16, f32.shape());
  for (int64_t i = 0; i < f32.numElements(); ++i) {
    bf16.set(i, f32.get(i));
    f32.set(i, bf16.get(i)); // same values in both
  }
  Quantized a = quantizeOk(f32, Scaling::MXFP8, DType::F8E4M3FN);
  Quantized b = quantizeOk(bf16, Scaling::MXFP8, DType::F8E4M3FN);
  EXPECT_EQ(std::memcmp(a.data.data(), b.data.data(), a.data.numBytes()), 0);
  EXPECT_EQ(std::memcmp(a.scale.data(), b.scale.data(), a.scale.numBytes()), 0);
}

// Row-wise.

TEST(QuantizeTest, RowWiseScalesEachRow) {
  Tensor input = randomTensor({2, 3, 40}, 4);
  for (DType type : kFP8Types) {
    Quantized q = quantizeOk(input, Scaling::RowWise, type);
    ASSERT_EQ(q.scale.shape(), (std::vector<int64_t>{2, 3, 1}));
    EXPECT_EQ(q.scale.dtype(), DType::F32);
    Tensor back = dequantizeF64(q, Scaling::RowWise);
    for (int64_t row = 0; row < 6; ++row) {
      double amax = amaxOf(input, row * 40, row * 40 + 40);
      double scale = q.scale.get(row);
      EXPECT_EQ(scale, double(float(amax / maxFinite(type))));
      for (int64_t i = row * 40; i < row * 40 + 40; ++i) {
        double x = input.get(i);
        ASSERT_LE(std::fabs(back.get(i) - x), errorBound(type, x, scale))
            << name(type) << " element " << i;
      }
    }
  }
}

TEST(QuantizeTest, RowWiseRowsAreIndependent) {
  // A huge row does not cost a small row its precision.
  Tensor input = makeTensor(DType::F32, {2, 2}, {1e6, -5e5, 1e-3, 2e-3});
  Quantized q = quantizeOk(input, Scaling::RowWise, DType::F8E4M3FN);
  EXPECT_EQ(q.data.get(3), 448.0);
  EXPECT_EQ(q.data.get(2), 224.0);
  Tensor back = dequantizeF64(q, Scaling::RowWise);
  EXPECT_NEAR(back.get(2), 1e-3, 1e-9);
  EXPECT_NEAR(back.get(3), 2e-3, 1e-9);
}

TEST(QuantizeTest, RowWiseEmptyRowsHaveUnitScale) {
  Tensor input(DType::F32, {3, 0});
  Quantized q = quantizeOk(input, Scaling::RowWise, DType::F8E4M3FN);
  ASSERT_EQ(q.scale.shape(), (std::vector<int64_t>{3, 1}));
  for (int64_t row = 0; row < 3; ++row)
    EXPECT_EQ(q.scale.get(row), 1.0);
}

// MXFP8.

TEST(QuantizeTest, MXFP8ScaleOfAUnitBlock) {
  // amax 1: floor(log2 1) - emax gives 2^-8 for e4m3 and 2^-15 for e5m2.
  std::vector<double> values(32, 0.25);
  values[5] = -1.0;
  Tensor input = makeTensor(DType::F32, {1, 32}, values);

  Quantized e4m3 = quantizeOk(input, Scaling::MXFP8, DType::F8E4M3FN);
  ASSERT_EQ(e4m3.scale.dtype(), DType::F8E8M0FNU);
  ASSERT_EQ(e4m3.scale.shape(), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(e4m3.scale.as<uint8_t>()[0], 127 - 8);
  EXPECT_EQ(e4m3.scale.get(0), std::ldexp(1.0, -8));
  EXPECT_EQ(e4m3.data.get(5), -256.0);
  EXPECT_EQ(e4m3.data.get(0), 64.0);

  Quantized e5m2 = quantizeOk(input, Scaling::MXFP8, DType::F8E5M2);
  EXPECT_EQ(e5m2.scale.as<uint8_t>()[0], 127 - 15);
  EXPECT_EQ(e5m2.scale.get(0), std::ldexp(1.0, -15));
  EXPECT_EQ(e5m2.data.get(5), -32768.0);
}

TEST(QuantizeTest, MXFP8SaturatesTheTopOfTheBinade) {
  // amax 1.9 shares the scale of 1 (2^-8), so it scales to 486.4 and
  // saturates to 448 (OCP MX v1.0 clamps rather than raising the scale).
  std::vector<double> values(32, 0);
  values[0] = 1.9;
  values[1] = 1.7;
  values[2] = -0.3;
  Tensor input = makeTensor(DType::F32, {32}, values);
  Quantized q = quantizeOk(input, Scaling::MXFP8, DType::F8E4M3FN);
  EXPECT_EQ(q.scale.get(0), std::ldexp(1.0, -8));
  EXPECT_EQ(q.data.get(0), 448.0);
  EXPECT_EQ(q.data.get(1), 448.0); // 435.2 rounds to 448 anyway
  EXPECT_EQ(q.data.get(2), -80.0); // -76.8 -> -80 (ulp 8 in [64, 128))
  Tensor back = dequantizeF64(q, Scaling::MXFP8);
  EXPECT_EQ(back.get(0), 1.75);
  EXPECT_EQ(back.get(2), -0.3125);
}

TEST(QuantizeTest, MXFP8BlocksFollowTheOCPFormula) {
  Tensor input = randomTensor({2, 3, 64}, 5);
  for (DType type : kFP8Types) {
    const int emax = type == DType::F8E4M3FN ? 8 : 15;
    Quantized q = quantizeOk(input, Scaling::MXFP8, type);
    ASSERT_EQ(q.scale.shape(), (std::vector<int64_t>{2, 3, 2}));
    Tensor back = dequantizeF64(q, Scaling::MXFP8);
    for (int64_t block = 0; block < 12; ++block) {
      double amax = amaxOf(input, block * 32, block * 32 + 32);
      double scale = std::ldexp(1.0, int(std::floor(std::log2(amax))) - emax);
      ASSERT_EQ(q.scale.get(block), scale) << "block " << block;
      for (int64_t i = block * 32; i < block * 32 + 32; ++i) {
        double x = input.get(i);
        double y = x / scale;
        if (std::fabs(y) > maxFinite(type)) {
          EXPECT_EQ(back.get(i), std::copysign(maxFinite(type) * scale, x));
        } else {
          ASSERT_LE(std::fabs(back.get(i) - x), halfUlp(type, y) * scale)
              << name(type) << " element " << i;
        }
      }
    }
  }
}

TEST(QuantizeTest, MXFP8AllZeroBlockHasTheSmallestScale) {
  std::vector<double> values(64, 0);
  values[40] = 3.0; // second block only
  Tensor input = makeTensor(DType::F32, {64}, values);
  Quantized q = quantizeOk(input, Scaling::MXFP8, DType::F8E4M3FN);
  EXPECT_EQ(q.scale.as<uint8_t>()[0], 0); // 2^-127
  EXPECT_EQ(q.scale.get(0), std::ldexp(1.0, -127));
  EXPECT_EQ(q.scale.get(1), std::ldexp(1.0, 1 - 8));
  Tensor back = dequantizeF64(q, Scaling::MXFP8);
  for (int64_t i = 0; i < 64; ++i)
    EXPECT_EQ(back.get(i), values[i]) << i;
}

TEST(QuantizeTest, MXFP8TinyBlocksUseSubnormalData) {
  // f32 subnormals: the scale clamps at 2^-127 and the data goes subnormal.
  std::vector<double> values(32, 0);
  values[0] = std::ldexp(1.0, -130);
  values[1] = std::ldexp(1.0, -140);
  Tensor input = makeTensor(DType::F32, {32}, values);
  Quantized q = quantizeOk(input, Scaling::MXFP8, DType::F8E4M3FN);
  EXPECT_EQ(q.scale.as<uint8_t>()[0], 0);
  EXPECT_EQ(q.data.get(0), 0.125); // 2^-3, a normal e4m3 value
  EXPECT_EQ(q.data.get(1), 0.0);   // 2^-13 is below half of 2^-9
}

// NVFP4.

TEST(QuantizeTest, NVFP4KnownValues) {
  const double grid[16] = {0,  0.5,  1,  1.5,  2,  3,  4,  6,
                           -0, -0.5, -1, -1.5, -2, -3, -4, -6};
  std::vector<double> values(64, 0);
  for (int i = 0; i < 16; ++i) {
    values[i] = grid[i];            // block 0: amax 6, scale 1
    values[16 + i] = grid[i] / 2;   // block 1: amax 3, scale 0.5
    values[48 + i] = grid[i] * 448; // block 3: amax 2688, scale 448
  }
  // Block 2 stays zero. amax 2688 makes the global scale exactly 1.
  Tensor input = makeTensor(DType::F32, {64}, values);
  Quantized q = quantizeOk(input, Scaling::NVFP4, DType::F4E2M1FN);
  ASSERT_EQ(q.data.dtype(), DType::F4E2M1FN);
  ASSERT_EQ(q.scale.dtype(), DType::F8E4M3FN);
  ASSERT_EQ(q.scale.shape(), (std::vector<int64_t>{4}));
  ASSERT_EQ(q.globalScale.dtype(), DType::F32);
  ASSERT_EQ(q.globalScale.rank(), 0);
  EXPECT_EQ(q.globalScale.get(0), 1.0);
  EXPECT_EQ(q.scale.get(0), 1.0);
  EXPECT_EQ(q.scale.get(1), 0.5);
  EXPECT_EQ(q.scale.get(2), 0.0);
  EXPECT_EQ(q.scale.get(3), 448.0);
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(q.data.get(i), grid[i]);
    EXPECT_EQ(q.data.get(16 + i), grid[i]);
    EXPECT_EQ(q.data.get(32 + i), 0.0);
    EXPECT_EQ(q.data.get(48 + i), grid[i]);
  }
  Tensor back = dequantizeF64(q, Scaling::NVFP4);
  for (int64_t i = 0; i < 64; ++i)
    EXPECT_EQ(back.get(i), values[i]) << i;
}

TEST(QuantizeTest, NVFP4ScalesFollowTheTwoLevelFormula) {
  Tensor input = randomTensor({4, 48}, 6);
  Quantized q = quantizeOk(input, Scaling::NVFP4, DType::F4E2M1FN);
  ASSERT_EQ(q.scale.shape(), (std::vector<int64_t>{4, 3}));
  double global = double(float(amaxOf(input, 0, 192) / (448 * 6)));
  EXPECT_EQ(q.globalScale.get(0), global);
  Tensor back = dequantizeF64(q, Scaling::NVFP4);
  for (int64_t block = 0; block < 12; ++block) {
    double amax = amaxOf(input, block * 16, block * 16 + 16);
    uint8_t expected;
    storeElement(&expected, DType::F8E4M3FN, 0, amax / 6 / global);
    EXPECT_EQ(q.scale.as<uint8_t>()[block], expected) << "block " << block;
    double scale = q.scale.get(block) * global;
    for (int64_t i = block * 16; i < block * 16 + 16; ++i) {
      double x = input.get(i);
      if (scale == 0) {
        EXPECT_EQ(back.get(i), 0.0);
        continue;
      }
      ASSERT_LE(std::fabs(back.get(i) - x),
                errorBound(DType::F4E2M1FN, x, scale))
          << "element " << i;
    }
  }
}

TEST(QuantizeTest, NVFP4DividesByTheStoredScales) {
  // Block 0 sets the global scale g = f32(1 / 2688), which is no exact
  // quotient. Block 1 has amax 6g, so its e4m3 scale is exactly 1, and holds
  // f4 ties times g: 2.5 goes to the even 2 and 3.5 to the even 4 only when
  // dividing by the stored g.
  const double g = double(float(1.0 / 2688));
  ASSERT_NE(g, 1.0 / 2688);
  std::vector<double> values(32, 0);
  values[0] = 1.0;
  values[16] = 6 * g;
  values[17] = 2.5 * g;
  values[18] = -3.5 * g;
  Tensor input = makeTensor(DType::F64, {32}, values);
  Quantized q = quantizeOk(input, Scaling::NVFP4, DType::F4E2M1FN);
  ASSERT_EQ(q.globalScale.get(0), g);
  ASSERT_EQ(q.scale.get(1), 1.0);
  EXPECT_EQ(q.data.get(16), 6.0);
  EXPECT_EQ(q.data.get(17), 2.0);
  EXPECT_EQ(q.data.get(18), -4.0);
}

TEST(QuantizeTest, NVFP4BlockScaleUnderflowGivesZeroData) {
  // Block 1 is so small next to block 0 that amax / 6 / global rounds to an
  // e4m3 zero: its data is zero rather than x / 0.
  std::vector<double> values(32, 0);
  values[0] = 1e6;
  values[16] = 1e-4;
  values[17] = -2e-4;
  Tensor input = makeTensor(DType::F32, {2, 16}, values);
  Quantized q = quantizeOk(input, Scaling::NVFP4, DType::F4E2M1FN);
  EXPECT_EQ(q.scale.get(1), 0.0);
  EXPECT_EQ(q.data.get(16), 0.0);
  EXPECT_EQ(q.data.get(17), 0.0);
  Tensor back = dequantizeF64(q, Scaling::NVFP4);
  EXPECT_EQ(back.get(17), 0.0);
}

TEST(QuantizeTest, NVFP4AllZeroHasUnitGlobalScale) {
  Tensor zeros(DType::F32, {16});
  Quantized q = quantizeOk(zeros, Scaling::NVFP4, DType::F4E2M1FN);
  EXPECT_EQ(q.globalScale.get(0), 1.0);
  EXPECT_EQ(q.scale.get(0), 0.0);
  EXPECT_EQ(q.data.as<uint8_t>()[3], 0);
}

TEST(QuantizeTest, ScalesUnderflowingF32GiveZerosNotNaN) {
  // amax / 448 and amax / 2688 underflow f32 for these subnormal inputs.
  std::vector<double> values(16, 0);
  values[3] = -1e-44;
  Tensor input = makeTensor(DType::F32, {16}, values);
  ASSERT_NE(input.get(3), 0.0);
  Quantized perTensor = quantizeOk(input, Scaling::PerTensor, DType::F8E4M3FN);
  EXPECT_EQ(perTensor.scale.get(0), 0.0);
  Quantized nvfp4 = quantizeOk(input, Scaling::NVFP4, DType::F4E2M1FN);
  EXPECT_EQ(nvfp4.globalScale.get(0), 0.0);
  EXPECT_EQ(nvfp4.scale.get(0), 0.0);
  for (Scaling mode : {Scaling::PerTensor, Scaling::NVFP4}) {
    Tensor back =
        dequantizeF64(mode == Scaling::NVFP4 ? nvfp4 : perTensor, mode);
    for (int64_t i = 0; i < 16; ++i)
      EXPECT_EQ(back.get(i), 0.0) << i;
  }
}

// Dequantize.

TEST(QuantizeTest, DequantizeRoundsOnceToTheResultType) {
  // 3 * 0x1.56aaacp-2 = 1 + 2^-8 + 2^-24 (exactly): just above the bf16
  // midpoint of 1 and 1 + 2^-7. Via f32 it would round to the midpoint
  // first and then tie to 1.
  Tensor data = makeTensor(DType::F8E4M3FN, {1}, {3});
  Tensor scale = makeTensor(DType::F32, {}, {0x1.56aaacp-2});
  std::string error;
  Tensor bf16, f32;
  ASSERT_TRUE(dequantize(data, scale, nullptr, Scaling::PerTensor, DType::BF16,
                         bf16, error))
      << error;
  EXPECT_EQ(bf16.dtype(), DType::BF16);
  EXPECT_EQ(bf16.get(0), 1 + std::ldexp(1.0, -7));
  ASSERT_TRUE(
      dequantizeToF32(data, scale, nullptr, Scaling::PerTensor, f32, error));
  EXPECT_EQ(f32.get(0), 1 + std::ldexp(1.0, -8));
}

TEST(QuantizeTest, DequantizeKeepsNaN) {
  Tensor data = makeTensor(DType::F8E4M3FN, {32}, std::vector<double>(32, 1));
  data.mutableAs<uint8_t>()[7] = 0x7F; // NaN
  Tensor scale(DType::F8E8M0FNU, {1});
  scale.mutableAs<uint8_t>()[0] = 127;
  Tensor out;
  std::string error;
  ASSERT_TRUE(
      dequantizeToF32(data, scale, nullptr, Scaling::MXFP8, out, error));
  EXPECT_TRUE(std::isnan(out.get(7)));
  EXPECT_EQ(out.get(6), 1.0);
}

// Errors.

TEST(QuantizeTest, QuantizeRejectsBadInputs) {
  Tensor k100(DType::F32, {2, 100});
  EXPECT_EQ(quantizeError(k100, Scaling::MXFP8, DType::F8E4M3FN),
            "mxfp8 needs the last dim (100) to be a multiple of 32");
  Tensor k24(DType::F32, {24});
  EXPECT_EQ(quantizeError(k24, Scaling::NVFP4, DType::F4E2M1FN),
            "nvfp4 needs the last dim (24) to be a multiple of 16");
  Tensor k32(DType::F32, {32});
  EXPECT_EQ(quantizeError(k32, Scaling::NVFP4, DType::F8E4M3FN),
            "nvfp4 data must be f4E2M1FN, got f8E4M3FN");
  for (Scaling mode : {Scaling::PerTensor, Scaling::RowWise, Scaling::MXFP8})
    EXPECT_NE(quantizeError(k32, mode, DType::F4E2M1FN)
                  .find("data must be f8E4M3FN or f8E5M2"),
              std::string::npos);
  EXPECT_NE(quantizeError(k32, Scaling::PerTensor, DType::BF16)
                .find("per_tensor data must be"),
            std::string::npos);
  EXPECT_NE(quantizeError(Tensor(DType::I32, {4}), Scaling::PerTensor,
                          DType::F8E4M3FN)
                .find("float input"),
            std::string::npos);
  EXPECT_NE(
      quantizeError(Tensor(DType::F32, {}), Scaling::RowWise, DType::F8E4M3FN)
          .find("rank >= 1"),
      std::string::npos);
  EXPECT_FALSE(
      quantizeError(Tensor(), Scaling::PerTensor, DType::F8E4M3FN).empty());
}

class DequantizeErrorTest : public testing::Test {
protected:
  Tensor data = Tensor(DType::F8E4M3FN, {4, 64});
  Tensor mxScale = Tensor(DType::F8E8M0FNU, {4, 2});
  Tensor fp4 = Tensor(DType::F4E2M1FN, {4, 64});
  Tensor nvScale = Tensor(DType::F8E4M3FN, {4, 4});
  Tensor global = Tensor(DType::F32, {});
};

TEST_F(DequantizeErrorTest, ScaleShapeMismatchNamesBothShapes) {
  Tensor wrong(DType::F8E8M0FNU, {4, 3});
  EXPECT_EQ(dequantizeError(data, wrong, nullptr, Scaling::MXFP8),
            "mxfp8 scale shape mismatch: expected [4, 2] for data of shape "
            "[4, 64], got [4, 3]");
  Tensor rowScale(DType::F32, {4});
  EXPECT_EQ(dequantizeError(data, rowScale, nullptr, Scaling::RowWise),
            "row_wise scale shape mismatch: expected [4, 1] for data of shape "
            "[4, 64], got [4]");
  Tensor tensorScale(DType::F32, {1});
  EXPECT_NE(dequantizeError(data, tensorScale, nullptr, Scaling::PerTensor)
                .find("expected [] for data of shape [4, 64], got [1]"),
            std::string::npos);
}

TEST_F(DequantizeErrorTest, ScaleTypeMustFitTheMode) {
  Tensor f32Scale(DType::F32, {4, 2});
  EXPECT_EQ(dequantizeError(data, f32Scale, nullptr, Scaling::MXFP8),
            "mxfp8 scale must be f8E8M0FNU, got f32");
  EXPECT_EQ(dequantizeError(fp4, mxScale, &global, Scaling::NVFP4),
            "nvfp4 scale must be f8E4M3FN, got f8E8M0FNU");
}

TEST_F(DequantizeErrorTest, DataTypeMustFitTheMode) {
  EXPECT_EQ(dequantizeError(data, nvScale, &global, Scaling::NVFP4),
            "nvfp4 data must be f4E2M1FN, got f8E4M3FN");
  Tensor fp4Scale(DType::F8E8M0FNU, {4, 2});
  EXPECT_NE(dequantizeError(fp4, fp4Scale, nullptr, Scaling::MXFP8)
                .find("mxfp8 data must be f8E4M3FN or f8E5M2"),
            std::string::npos);
}

TEST_F(DequantizeErrorTest, BlockDivisibility) {
  Tensor odd(DType::F8E4M3FN, {4, 40});
  EXPECT_EQ(dequantizeError(odd, mxScale, nullptr, Scaling::MXFP8),
            "mxfp8 needs the last dim (40) to be a multiple of 32");
}

TEST_F(DequantizeErrorTest, GlobalScaleOnlyAndAlwaysForNVFP4) {
  EXPECT_EQ(dequantizeError(fp4, nvScale, nullptr, Scaling::NVFP4),
            "nvfp4 needs a global scale");
  Tensor empty;
  EXPECT_EQ(dequantizeError(fp4, nvScale, &empty, Scaling::NVFP4),
            "nvfp4 needs a global scale");
  Tensor vector(DType::F32, {1});
  EXPECT_EQ(dequantizeError(fp4, nvScale, &vector, Scaling::NVFP4),
            "nvfp4 global scale must be tensor<f32>, got tensor<1xf32>");
  EXPECT_EQ(dequantizeError(data, mxScale, &global, Scaling::MXFP8),
            "mxfp8 takes no global scale");
  // An empty global scale is as good as none outside NVFP4.
  Tensor out;
  std::string error;
  EXPECT_TRUE(
      dequantize(data, mxScale, &empty, Scaling::MXFP8, DType::F32, out, error))
      << error;
}

TEST_F(DequantizeErrorTest, ResultMustBeFloat) {
  EXPECT_EQ(dequantizeError(data, mxScale, nullptr, Scaling::MXFP8, DType::I32),
            "dequantize result must be a float type, got i32");
  EXPECT_FALSE(
      dequantizeError(Tensor(), mxScale, nullptr, Scaling::MXFP8).empty());
}

} // namespace
