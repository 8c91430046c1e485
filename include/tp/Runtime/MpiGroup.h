//===- MpiGroup.h - ranks started by mpirun ---------------------*- C++ -*-===//
//
// Available when the project is configured with MPI (TP_ENABLE_MPI; Debian's
// Open MPI): `mpirun -n N tp-run ...` then runs one rank per process, across
// nodes, with MPI carrying the bootstrap blob and the reports, and, for the
// CPU backend, every collective and fused op's pieces.
//
// Private to the runtime and its tools: not installed.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_MPIGROUP_H
#define TP_RUNTIME_MPIGROUP_H

#include "tp/Runtime/Backend.h"
#include "tp/Runtime/Launch.h"

#include <chrono>

namespace mlir::tp::rt {

/// Initializes MPI (asking for MPI_THREAD_MULTIPLE) and returns this
/// process's place in MPI_COMM_WORLD. MPI is finalized when the group is
/// destroyed.
Status joinMpiRun(std::unique_ptr<ProcessGroup> &group);

/// The CPU backend for this process as rank MPI_COMM_WORLD-rank of a run
/// spanning MPI_COMM_WORLD: the thread backend's GEMMs and schedules, with
/// every exchange an MPI message (lib/Runtime/Cpu/MpiBackend.cpp). MPI must
/// be initialized with at least MPI_THREAD_SERIALIZED; a wait longer than
/// `timeout` fails. Destroy it before MPI is finalized.
Status createMpiCpuBackend(std::chrono::milliseconds timeout,
                           TraceRecorder *trace,
                           std::unique_ptr<Backend> &backend);

} // namespace mlir::tp::rt

#endif // TP_RUNTIME_MPIGROUP_H
