//===- MpiGroup.h - ranks started by mpirun ---------------------*- C++ -*-===//
//
// Available when the project is configured with MPI (TP_ENABLE_MPI; Debian's
// Open MPI): `mpirun -n N tp-run ...` then runs one rank per process, across
// nodes, with MPI carrying the bootstrap blob and the reports.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_MPIGROUP_H
#define TP_RUNTIME_MPIGROUP_H

#include "tp/Runtime/Launch.h"

namespace tp::rt {

/// Initializes MPI and returns this process's place in MPI_COMM_WORLD. MPI is
/// finalized when the group is destroyed.
Status joinMpiRun(std::unique_ptr<ProcessGroup> &group);

} // namespace tp::rt

#endif // TP_RUNTIME_MPIGROUP_H
