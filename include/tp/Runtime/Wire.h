//===- Wire.h - a rank's outcome as bytes between processes -----*- C++ -*-===//
//
// When ranks are processes (one per GPU), each sends its outcome, an error or
// its result tensors, to the process that reports the run. The encoding is
// private to one build of the project (same endianness on both ends); the
// decoder still checks every length, so a truncated report is an error, not a
// crash. Private to the runtime and its tools: not installed.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_WIRE_H
#define TP_RUNTIME_WIRE_H

#include "tp/Runtime/Status.h"
#include "tp/Runtime/StepReport.h"
#include "tp/Runtime/Tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::tp::rt {

/// `status` and, when it is ok, `results` and `steps`.
std::string encodeOutcome(const Status &status,
                          const std::vector<Tensor> &results,
                          const StepReport &steps = {});

/// The inverse of encodeOutcome: `outcome` is the rank's status, `results` its
/// tensors and `steps` (when given) its step report. Returns an error when
/// `bytes` is not a whole outcome.
Status decodeOutcome(const std::string &bytes, Status &outcome,
                     std::vector<Tensor> &results,
                     StepReport *steps = nullptr);

} // namespace mlir::tp::rt

#endif // TP_RUNTIME_WIRE_H
