//===- OperandChecks.h - run-time shapes against the ops' rules -*- C++ -*-===//
//
// The verifier checks static shapes; dynamic ones are only known when a call
// arrives. Every ABI entry checks its operands here, before any backend
// reads them, so a wrong-sized addend or scale is an error naming the op,
// not garbage that changes from run to run. Each returns "" when the
// operands fit, else why not.
//
//===----------------------------------------------------------------------===//

#ifndef TP_LIB_RUNTIME_ABI_OPERANDCHECKS_H
#define TP_LIB_RUNTIME_ABI_OPERANDCHECKS_H

#include "tp/Runtime/Backend.h"

#include <string>

namespace mlir::tp::rt::abi {

/// a @ b: B 2-D ([K, N], or [N, K] when `transposeB`) or batched with A's
/// leading dims; equal K.
std::string checkMatmul(const Tensor &a, const Tensor &b, bool transposeB);

/// A bias over a product of `n` columns: 1-D with `n` elements (or none).
std::string checkMatmulBias(const Tensor *bias, int64_t n);

/// A scaled GEMM: both operands' scales fit their data, B is [N, K] with A's
/// K.
std::string checkScaledMatmul(const Operand &a, const Operand &b);

/// An all_to_all over a group of `groupSize`: `split` and `concat` are dims
/// of `input`, the split extent divides by the group size and the
/// concatenated extent fits int64.
std::string checkAllToAll(const Tensor &input, int64_t split, int64_t concat,
                          int groupSize);

/// An all-gather (alone or fused) of `input` along `dim` over a group of
/// `groupSize`: the gathered extent fits int64.
std::string checkAllGather(const Tensor &input, int64_t dim, int groupSize);

/// The operands of an all-gather-matmul over a group of `groupSize`.
/// An all_to_all_matmul's operands (args.exchangeSplit set): dims in range,
/// a plain A, a schedule that is not ring, and B contracting with the
/// exchanged A's last dim.
std::string checkAllToAllMatmul(const AllGatherMatmulArgs &args, int groupSize);
std::string checkAllGatherMatmul(const AllGatherMatmulArgs &args,
                                 int groupSize);

/// The operands of a matmul-reduce-scatter over a group of `groupSize`.
/// A matmul_all_to_all's operands (args.exchangeConcat set): plain A and B
/// (B 2-D, or per batch with the rows cut), dims in range, the split dim
/// divisible, never the ring schedule.
std::string checkMatmulAllToAll(const MatmulReduceScatterArgs &args,
                                int groupSize);
std::string checkMatmulReduceScatter(const MatmulReduceScatterArgs &args,
                                     int groupSize);

} // namespace mlir::tp::rt::abi

#endif // TP_LIB_RUNTIME_ABI_OPERANDCHECKS_H
