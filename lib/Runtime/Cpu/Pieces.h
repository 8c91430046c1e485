//===- Pieces.h - how the fused CPU schedules move their pieces -*- C++ -*-===//
//
// The fused schedules of the CPU backend (CpuFused.cpp, CpuScatter.cpp,
// CpuContract.cpp) do their arithmetic the same way whatever carries the
// pieces between ranks; only the carrying differs:
//  - threads of one process (CpuBackend): a rank reads its peers' published
//    buffers once their progress counters say a piece is there;
//  - processes (MpiBackend): the owner of a piece sends it with a
//    non-blocking MPI send as soon as it is ready, and the rank that needs it
//    receives it into its own buffer.
// Both implement the two interfaces below.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_RUNTIME_CPU_PIECES_H
#define TP_LIB_RUNTIME_CPU_PIECES_H

#include "Kernels.h"
#include "tp/Runtime/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::tp::rt::cpu {

/// One tensor of a pipelined all-gather (the gathered operand, or its
/// scales): this rank's shard and its gathered buffer, both cut around the
/// gather dim (`split` is the shard's).
struct GatherBuffer {
  const uint8_t *shard = nullptr;
  uint8_t *gathered = nullptr;
  DimSplit split;
  size_t elementBytes = 1;
  /// Bytes from the shard meant for one member to the next one's: 0 for an
  /// all-gather (every member takes the same shard), a block's size for an
  /// all-to-all (member j takes the shard at `shard + j * stride`).
  size_t destinationStride = 0;

  const uint8_t *shardFor(int member) const {
    return shard + member * destinationStride;
  }
};

/// A pipelined all-gather in flight: the group's shards arrive in this
/// rank's gathered buffers piece by piece, in schedule order (per_peer: the
/// pieces of rank me+1, me+2, ...; ring: of rank me-1, me-2, ...), after this
/// rank's own pieces, which are there from the start.
class PieceGather {
public:
  virtual ~PieceGather();
  /// Waits until the gathered buffers hold more than `piece` pieces.
  virtual Status waitFor(int64_t piece, const std::string &what) = 0;
  /// Ends the gather after this rank's compute ended with `computed`: waits
  /// for the communication and for peers still reading this rank's buffers.
  /// The first error of either side.
  virtual Status finish(const Status &computed) = 0;
};

/// A slice of a reduce-scatter laid out as the reduced result: piece [lo, hi)
/// of it is `count` runs of (hi - lo) * unit elements, `stride` elements
/// apart, the first at lo * unit.
struct SliceLayout {
  int64_t count = 1, stride = 0, unit = 1;
  size_t elementBytes = 4;
  int64_t elements() const { return count * stride; }
};

/// A pipelined reduce-scatter in flight. Every rank fills `buffers` (each a
/// whole slice), piece by piece, in a fixed order:
///  - per_peer: buffer c holds this rank's partial for member c, made for
///    c = me+1, me+2, ..., me; a member sums the pieces made for it;
///  - ring: buffer s holds this rank's running sum after step s; a member
///    adds its left neighbour's sum of step s-1 to its own partial.
/// `ordinal` counts the pieces a rank has made so far: piece j of the i-th
/// buffer it fills is ordinal i * chunks + j.
class PartialReduce {
public:
  virtual ~PartialReduce();
  /// This rank has made piece [lo, hi) of buffer `buffer` (its `ordinal`-th).
  virtual Status made(int buffer, int64_t ordinal, int64_t lo, int64_t hi) = 0;
  /// Where to read piece [lo, hi) of member `member`'s buffer `buffer` (its
  /// `ordinal`-th), once it is made: that member's buffer, or a copy laid out
  /// the same way. Valid until the next fetch from the same thread.
  virtual Status fetch(int member, int buffer, int64_t ordinal, int64_t lo,
                       int64_t hi, const void *&slice) = 0;
  /// This rank's compute failed with `why`: fetches, on any thread, give up.
  virtual void cancel(const Status &why) = 0;
  /// As PieceGather::finish.
  virtual Status finish(const Status &computed) = 0;
};

} // namespace mlir::tp::rt::cpu

#endif // TP_LIB_RUNTIME_CPU_PIECES_H
