//===- StepReport.h - what a rank measured over several steps ---*- C++ -*-===//
//
// tp-run --steps and the C API report, per rank, each step's time, the bytes
// copied between host and device, the peak of compiled-code buffers and the
// process's resources.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_STEPREPORT_H
#define TP_RUNTIME_STEPREPORT_H

#include <cstdint>
#include <vector>

namespace mlir::tp::rt {

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

} // namespace mlir::tp::rt

#endif // TP_RUNTIME_STEPREPORT_H
