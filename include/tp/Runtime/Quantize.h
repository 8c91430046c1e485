//===- Quantize.h - reference FP8 / MXFP8 / NVFP4 quantization --*- C++ -*-===//
//
// The semantics of tp.quantize / tp.dequantize (docs/Semantics.md): scales
// are dequantization scales, blocks run along the last dim.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_QUANTIZE_H
#define TP_RUNTIME_QUANTIZE_H

#include "tp/Runtime/Tensor.h"

namespace mlir::tp::rt {

enum class Scaling { PerTensor, RowWise, MXFP8, NVFP4 };

/// The dialect's spelling: "per_tensor", "row_wise", "mxfp8", "nvfp4".
const char *name(Scaling mode);

struct Quantized {
  Tensor data;        // dataType, the input's shape
  Tensor scale;       // see the table in docs/Semantics.md
  Tensor globalScale; // tensor<f32> for NVFP4, empty otherwise
};

/// Quantizes `input` (any float type) to `dataType`.
/// - PerTensor: scale = amax(|x|) / maxFinite(dataType) (1 when amax is 0).
/// - RowWise: the same per row (over the last dim); scale shape [..., 1].
/// - MXFP8 (OCP MX v1.0): per block of 32 along the last dim, the shared
///   scale is 2^(floor(log2(amax_block)) - emax(dataType)) stored as
///   f8E8M0FNU (emax = 8 for f8E4M3FN, 15 for f8E5M2; 2^-127 when the block
///   is all zero); elements are x / scale rounded and saturated.
/// - NVFP4: global = amax(|x|) / (448 * 6) (1 when amax is 0); per block of
///   16, scale_b = f8E4M3FN(amax_block / 6 / global); elements are
///   x / (scale_b * global) rounded to f4E2M1FN (0 when scale_b is 0).
/// With `amax` (a 0-D f32; PerTensor and NVFP4 only), the per-tensor or
/// global scale comes from it instead of the input's own amax, and elements
/// beyond the range saturate.
/// Fails (returns false, sets `error`) when the last dim does not divide by
/// the block size, dataType does not fit the mode, or `amax` is not a
/// finite, non-negative f32 scalar of a mode that takes one.
bool quantize(const Tensor &input, Scaling mode, DType dataType,
              Quantized &result, std::string &error,
              const Tensor *amax = nullptr);

/// Whether `scale` (and `globalScale`) fit quantized `data` under `mode`:
/// the data type, the scale's type and shape, the global scale's presence.
bool checkScaled(const Tensor &data, const Tensor &scale,
                 const Tensor *globalScale, Scaling mode, std::string &error);

/// The float value of quantized data: data * scale (* globalScale), as
/// `outType` (rounded once).
bool dequantize(const Tensor &data, const Tensor &scale,
                const Tensor *globalScale, Scaling mode, DType outType,
                Tensor &result, std::string &error);

/// The dequantized value as f32, the operand of a scaled GEMM.
inline bool dequantizeToF32(const Tensor &data, const Tensor &scale,
                            const Tensor *globalScale, Scaling mode,
                            Tensor &result, std::string &error) {
  return dequantize(data, scale, globalScale, mode, DType::F32, result, error);
}

} // namespace mlir::tp::rt

#endif // TP_RUNTIME_QUANTIZE_H
