//===- Numerics.h - conversions of low-precision floats ---------*- C++ -*-===//
//
// Bit-exact conversions between float and bf16, f16, f8E4M3FN, f8E5M2,
// f8E8M0FNU and f4E2M1FN. Every float-to-narrow conversion rounds to nearest,
// ties to even. The FP8/FP4 conversions saturate: magnitudes beyond the
// largest finite value (and infinities) give that value with the input's
// sign; NaN gives the format's NaN (f8E4M3FN: 0x7F, f8E5M2: 0x7E,
// f8E8M0FNU: 0xFF), and +0 for f4E2M1FN, which has no NaN.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_NUMERICS_H
#define TP_RUNTIME_NUMERICS_H

#include "tp/Runtime/DType.h"

#include <cstdint>

namespace mlir::tp::rt {

float bf16ToFloat(uint16_t bits);
uint16_t floatToBF16(float value);
float f16ToFloat(uint16_t bits);
uint16_t floatToF16(float value);

/// `type` is F8E4M3FN, F8E5M2 or F8E8M0FNU.
float fp8ToFloat(uint8_t bits, DType type);
uint8_t floatToFP8(float value, DType type);

/// f4E2M1FN in the low 4 bits: {0, 0.5, 1, 1.5, 2, 3, 4, 6} with a sign.
float fp4ToFloat(uint8_t bits);
uint8_t floatToFP4(float value);

/// Largest finite magnitude of a float type (448 for f8E4M3FN, 57344 for
/// f8E5M2, 6 for f4E2M1FN, ...).
double maxFinite(DType type);

/// The value of element `index` of `data` holding `type` elements.
double loadElement(const void *data, DType type, int64_t index);
/// Stores `value` rounded to `type` (integers: rounded toward zero; i1:
/// nonzero is true).
void storeElement(void *data, DType type, int64_t index, double value);

} // namespace mlir::tp::rt

#endif // TP_RUNTIME_NUMERICS_H
