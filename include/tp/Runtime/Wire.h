//===- Wire.h - a rank's outcome as bytes between processes -----*- C++ -*-===//
//
// When ranks are processes (one per GPU), each sends its outcome, an error or
// its result tensors, to the process that reports the run. The encoding is
// private to one build of the project (same endianness on both ends); the
// decoder still checks every length, so a truncated report is an error, not a
// crash.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_WIRE_H
#define TP_RUNTIME_WIRE_H

#include "tp/Runtime/Status.h"
#include "tp/Runtime/Tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tp::rt {

/// What a rank measured while running its program several times in a row
/// (tp-run --steps): each run's wall time, the bytes its last run copied
/// between host and device memory (zero on the CPU backend), and its
/// process's resources after some of the steps.
struct StepReport {
  /// The process's resident memory and open file descriptors after `step`
  /// (counted from 1).
  struct Resources {
    int32_t step = 0;
    int64_t residentBytes = 0;
    int32_t openFiles = 0;
  };
  std::vector<double> millis;
  int64_t hostToDevice = 0, deviceToHost = 0;
  /// The most bytes of compiled-code buffers live at once in any step
  /// (abi::bufferPeakBytes).
  int64_t peakBufferBytes = 0;
  std::vector<Resources> resources;
};

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

} // namespace tp::rt

#endif // TP_RUNTIME_WIRE_H
