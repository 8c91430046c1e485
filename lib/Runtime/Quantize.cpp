//===- Quantize.cpp - reference FP8 / MXFP8 / NVFP4 quantization ----------===//
//
// The arithmetic is done in double and rounded once into the stored type:
// the products and quotients of these narrow values are exact or nearly so
// in double, so a result is the correctly rounded value of the formula in
// Quantize.h, not an artefact of f32 intermediates.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Quantize.h"
#include "tp/Runtime/Numerics.h"
#include "tp/Runtime/ScaleLayout.h"

#include <cmath>
#include <limits>
#include <optional>
#include <sstream>

using namespace mlir::tp::rt;

namespace {

constexpr int kE8M0Bias = 127;


int64_t blockSize(Scaling mode) {
  switch (mode) {
  case Scaling::MXFP8:
    return kMXFP8BlockSize;
  case Scaling::NVFP4:
    return kNVFP4BlockSize;
  default:
    return 0;
  }
}

/// Elements sharing one scale: everything, a row, or a block.
int64_t groupSize(const std::vector<int64_t> &shape, Scaling mode) {
  if (mode == Scaling::PerTensor) {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
  if (mode == Scaling::RowWise)
    return shape.back();
  return blockSize(mode);
}

DType scaleType(Scaling mode) {
  switch (mode) {
  case Scaling::MXFP8:
    return DType::F8E8M0FNU;
  case Scaling::NVFP4:
    return DType::F8E4M3FN;
  default:
    return DType::F32;
  }
}

/// The scale tensor's shape for data of `shape` (which checkShape accepted).
std::vector<int64_t> scaleShape(const std::vector<int64_t> &shape,
                                Scaling mode) {
  if (mode == Scaling::PerTensor)
    return {};
  std::vector<int64_t> result = shape;
  result.back() = mode == Scaling::RowWise ? 1 : shape.back() / blockSize(mode);
  return result;
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

/// The data type and shape a mode accepts.
bool checkData(DType dataType, const std::vector<int64_t> &shape, Scaling mode,
               std::string &error) {
  const std::string modeText = name(mode);
  if (mode == Scaling::NVFP4) {
    if (dataType != DType::F4E2M1FN) {
      error = modeText + " data must be f4E2M1FN, got " +
              std::string(name(dataType));
      return false;
    }
  } else if (dataType != DType::F8E4M3FN && dataType != DType::F8E5M2) {
    error = modeText + " data must be f8E4M3FN or f8E5M2, got " +
            std::string(name(dataType));
    return false;
  }
  if (mode == Scaling::PerTensor)
    return true;
  if (shape.empty()) {
    error =
        modeText + " needs data of rank >= 1 (it scales along the last dim)";
    return false;
  }
  const int64_t block = blockSize(mode);
  if (block && shape.back() % block != 0) {
    error = modeText + " needs the last dim (" + std::to_string(shape.back()) +
            ") to be a multiple of " + std::to_string(block);
    return false;
  }
  return true;
}

/// max |x| over elements [begin, end); NaN is skipped.
double absMax(const Tensor &t, int64_t begin, int64_t end) {
  double amax = 0;
  for (int64_t i = begin; i < end; ++i) {
    double a = std::fabs(t.get(i));
    if (a > amax)
      amax = a;
  }
  return amax;
}

/// floor(log2(a)) for a > 0 (exact, unlike std::log2); huge for infinity.
int floorLog2(double a) {
  if (std::isinf(a))
    return std::numeric_limits<int>::max() / 2;
  int exp;
  std::frexp(a, &exp); // a = m * 2^exp, m in [0.5, 1)
  return exp - 1;
}

/// The MX shared scale of a block: its f8E8M0FNU code.
uint8_t mxScaleCode(double amax, DType dataType) {
  if (amax == 0)
    return 0; // 2^-127
  const int emax = dataType == DType::F8E4M3FN ? 8 : 15;
  int exp = floorLog2(amax) - emax;
  // Clamp into f8E8M0FNU's range [2^-127, 2^127]; only f64 inputs get there.
  if (exp < -kE8M0Bias)
    exp = -kE8M0Bias;
  if (exp > kE8M0Bias)
    exp = kE8M0Bias;
  return uint8_t(exp + kE8M0Bias);
}

} // namespace

const char *mlir::tp::rt::name(Scaling mode) {
  switch (mode) {
  case Scaling::PerTensor:
    return "per_tensor";
  case Scaling::RowWise:
    return "row_wise";
  case Scaling::MXFP8:
    return "mxfp8";
  case Scaling::NVFP4:
    return "nvfp4";
  }
  return "?";
}

bool mlir::tp::rt::quantize(const Tensor &input, Scaling mode, DType dataType,
                            Quantized &result, std::string &error,
                            const Tensor *amaxOverride) {
  if (input.empty()) {
    error = "quantize needs an input tensor";
    return false;
  }
  if (!isFloat(input.dtype())) {
    error = "quantize needs a float input, got " + input.typeString();
    return false;
  }
  const std::vector<int64_t> &shape = input.shape();
  if (!checkData(dataType, shape, mode, error))
    return false;
  std::optional<double> givenAmax;
  if (amaxOverride && !amaxOverride->empty()) {
    if (mode != Scaling::PerTensor && mode != Scaling::NVFP4) {
      error = std::string("an amax sets one scale for the whole tensor; ") +
              name(mode) + " scales come from their own rows or blocks";
      return false;
    }
    if (amaxOverride->dtype() != DType::F32 || amaxOverride->rank() != 0) {
      error = "the amax must be tensor<f32>, got " + amaxOverride->typeString();
      return false;
    }
    givenAmax = amaxOverride->get(0);
    if (!std::isfinite(*givenAmax) || *givenAmax < 0) {
      std::ostringstream text;
      text << "the amax must be finite and non-negative, got " << *givenAmax;
      error = text.str();
      return false;
    }
  }

  Tensor data(dataType, shape);
  Tensor scale(scaleType(mode), scaleShape(shape, mode));
  Tensor global;
  const int64_t count = input.numElements();
  const int64_t group = groupSize(shape, mode);
  const int64_t groups = scale.numElements();

  if (mode == Scaling::PerTensor || mode == Scaling::RowWise) {
    const double maxData = maxFinite(dataType);
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t begin = g * group;
      const double amax =
          givenAmax ? *givenAmax : absMax(input, begin, begin + group);
      // Store the scale first and divide by the stored f32 value, so that
      // dequantize inverts exactly what was used.
      scale.set(g, amax == 0 ? 1.0 : amax / maxData);
      const double s = scale.get(g);
      if (s == 0)
        continue; // amax / maxData underflowed f32: the data stays zero
      for (int64_t i = begin; i < begin + group; ++i)
        data.set(i, input.get(i) / s);
    }
  } else if (mode == Scaling::MXFP8) {
    uint8_t *codes = scale.mutableAs<uint8_t>();
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t begin = g * group;
      codes[g] = mxScaleCode(absMax(input, begin, begin + group), dataType);
      const int exp = int(codes[g]) - kE8M0Bias;
      for (int64_t i = begin; i < begin + group; ++i)
        data.set(i, std::ldexp(input.get(i), -exp)); // x / 2^exp
    }
  } else { // NVFP4
    constexpr double kE4M3Max = 448, kE2M1Max = 6;
    global = Tensor(DType::F32, {});
    const double amax = givenAmax ? *givenAmax : absMax(input, 0, count);
    global.set(0, amax == 0 ? 1.0 : amax / (kE4M3Max * kE2M1Max));
    const double g32 = global.get(0);
    // When amax / 2688 underflows f32 (subnormal inputs), data and block
    // scales stay zero rather than becoming 0 / 0.
    for (int64_t g = 0; g < (g32 == 0 ? 0 : groups); ++g) {
      const int64_t begin = g * group;
      scale.set(g, absMax(input, begin, begin + group) / kE2M1Max / g32);
      const double blockScale = scale.get(g);
      if (blockScale == 0)
        continue;                        // the data stays zero
      const double s = blockScale * g32; // exact: 4 bits times 24 bits
      for (int64_t i = begin; i < begin + group; ++i)
        data.set(i, input.get(i) / s);
    }
  }

  result.data = std::move(data);
  result.scale = std::move(scale);
  result.globalScale = std::move(global);
  return true;
}

bool mlir::tp::rt::checkScaled(const Tensor &data, const Tensor &scale,
                               const Tensor *globalScale, Scaling mode,
                               std::string &error) {
  const std::string modeText = name(mode);
  const std::vector<int64_t> &shape = data.shape();
  if (!checkData(data.dtype(), shape, mode, error))
    return false;

  const DType expectedType = scaleType(mode);
  if (scale.dtype() != expectedType) {
    error = modeText + " scale must be " + std::string(name(expectedType)) +
            ", got " + std::string(name(scale.dtype()));
    return false;
  }
  const std::vector<int64_t> expectedShape = scaleShape(shape, mode);
  if (scale.shape() != expectedShape) {
    error = modeText + " scale shape mismatch: expected " +
            shapeString(expectedShape) + " for data of shape " +
            shapeString(shape) + ", got " + shapeString(scale.shape());
    return false;
  }

  const bool hasGlobal = globalScale && !globalScale->empty();
  if (mode == Scaling::NVFP4) {
    if (!hasGlobal) {
      error = "nvfp4 needs a global scale";
      return false;
    }
    if (globalScale->dtype() != DType::F32 || globalScale->rank() != 0) {
      error = "nvfp4 global scale must be tensor<f32>, got " +
              globalScale->typeString();
      return false;
    }
  } else if (hasGlobal) {
    error = modeText + " takes no global scale";
    return false;
  }
  return true;
}

bool mlir::tp::rt::dequantize(const Tensor &data, const Tensor &scale,
                              const Tensor *globalScale, Scaling mode,
                              DType outType, Tensor &result,
                              std::string &error) {
  const std::string modeText = name(mode);
  if (data.empty() || scale.empty()) {
    error = "dequantize needs data and scale tensors";
    return false;
  }
  if (!isFloat(outType)) {
    error = "dequantize result must be a float type, got " +
            std::string(name(outType));
    return false;
  }
  const std::vector<int64_t> &shape = data.shape();
  if (!checkScaled(data, scale, globalScale, mode, error))
    return false;
  const double global =
      mode == Scaling::NVFP4 ? globalScale->get(0) : 1.0;

  Tensor out(outType, shape);
  const int64_t count = data.numElements();
  const int64_t group = groupSize(shape, mode);
  for (int64_t i = 0; i < count; ++i) {
    // Exact in double (at most 4 + 4 + 24 significant bits), so rounding to
    // outType happens once.
    const double s = scale.get(group ? i / group : 0) * global;
    out.set(i, data.get(i) * s);
  }
  result = std::move(out);
  return true;
}
