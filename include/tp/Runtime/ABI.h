/*===- ABI.h - the C interface compiled tp programs call ----------*- C -*-===*\
|*                                                                            *|
|* The contract between code that `tp-lower-to-llvm` produces and the runtime *|
|* library. Every `tp` op on buffers becomes one call sequence:               *|
|*                                                                            *|
|*   tp_rt_buffer_<type>(ctx, role, index, buffer)   per operand and result  *|
|*   tp_rt_<kind>(ctx, site, ..., attributes)        runs the op              *|
|*                                                                            *|
|* Buffers are MLIR unranked memrefs passed by the C-interface convention     *|
|* (`_mlir_ciface_` symbols taking pointers to descriptors), so any rank,     *|
|* layout and element type goes through one signature. Results are written    *|
|* into buffers the compiled code allocated (destination-passing style).      *|
|*                                                                            *|
|* Errors never unwind through compiled code: the first failure poisons the   *|
|* rank's context (every later call returns at once) and fails the world, so  *|
|* peers stop waiting; the driver reports it when the entry returns.          *|
|*                                                                            *|
|* Driving compiled code (runs, ranks' contexts) is tp/Runtime/Embedding.h.  *|
|* See docs/RuntimeABI.md.                                                    *|
\*===----------------------------------------------------------------------===*/

#ifndef TP_RUNTIME_ABI_H
#define TP_RUNTIME_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One rank's state: its backend, group cache, staged buffers and first
/// error. Made by the driver (tp/Runtime/RankContext.h); compiled functions
/// take it as their first argument.
typedef struct TPRtContext TPRtContext;

/// MLIR's unranked memref: the rank and a pointer to the ranked descriptor
/// {allocated, aligned, offset, sizes[rank], strides[rank]}.
typedef struct TPRtUnrankedMemRef {
  int64_t rank;
  void *descriptor;
} TPRtUnrankedMemRef;

/// The ranked descriptor behind TPRtUnrankedMemRef::descriptor.
typedef struct TPRtMemRefDescriptor {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizesAndStrides[]; /* sizes[rank], then strides[rank] */
} TPRtMemRefDescriptor;

/// What a staged buffer is to the next op. Repeated roles (a fused op's
/// weights, its results) are told apart by `index`.
enum TPRtRole {
  TP_RT_ROLE_INPUT = 0,        /* A (or the one input of a collective) */
  TP_RT_ROLE_INPUT_SCALE = 1,  /* A's scale */
  TP_RT_ROLE_INPUT_GLOBAL = 2, /* A's NVFP4 global scale */
  TP_RT_ROLE_WEIGHT = 3,       /* B number `index` */
  TP_RT_ROLE_WEIGHT_SCALE = 4,
  TP_RT_ROLE_WEIGHT_GLOBAL = 5,
  TP_RT_ROLE_BIAS = 6, /* bias of B number `index` */
  TP_RT_ROLE_ADDEND = 7,
  TP_RT_ROLE_RESULT = 8, /* result number `index`, in the op's order */
  TP_RT_ROLE_AMAX = 9    /* the amax tp.quantize takes its scale from */
};

/// Element types: the values of mlir::tp::rt::DType.
enum TPRtDType {
  TP_RT_F32 = 0,
  TP_RT_F64 = 1,
  TP_RT_F16 = 2,
  TP_RT_BF16 = 3,
  TP_RT_F8E4M3FN = 4,
  TP_RT_F8E5M2 = 5,
  TP_RT_F8E8M0FNU = 6,
  TP_RT_F4E2M1FN = 7,
  TP_RT_I1 = 8,
  TP_RT_I32 = 9,
  TP_RT_I64 = 10
};

/// tp.reduction kinds, tp scaling modes and fused-op algorithms.
enum TPRtReduction {
  TP_RT_SUM = 0,
  TP_RT_AVG = 1,
  TP_RT_MAX = 2,
  TP_RT_MIN = 3
};
enum TPRtScaling {
  TP_RT_PER_TENSOR = 0,
  TP_RT_ROW_WISE = 1,
  TP_RT_MXFP8 = 2,
  TP_RT_NVFP4 = 3
};
enum TPRtAlgorithm { TP_RT_PER_PEER = 0, TP_RT_RING = 1, TP_RT_COALESCED = 2 };

/* Every op takes `site`, the op and its location as i8 text ("'tp.matmul' at
 * f.mlir:3:5"), for errors and traces. Group ops take the grid's shape and
 * the grid axes of the group as i64 buffers. `chunks` and `streams` 0 mean
 * the default. */

/// Stages a buffer for the next op, one entry per element type (as
/// upstream's printMemref* runner utilities): tp_rt_buffer_f32,
/// tp_rt_buffer_bf16, ..., tp_rt_buffer_index.
#define TP_RT_BUFFER_TYPES(X)                                                  \
  X(f32, TP_RT_F32)                                                            \
  X(f64, TP_RT_F64)                                                            \
  X(f16, TP_RT_F16)                                                            \
  X(bf16, TP_RT_BF16)                                                          \
  X(f8E4M3FN, TP_RT_F8E4M3FN)                                                  \
  X(f8E5M2, TP_RT_F8E5M2)                                                      \
  X(f8E8M0FNU, TP_RT_F8E8M0FNU)                                                \
  X(f4E2M1FN, TP_RT_F4E2M1FN)                                                  \
  X(i1, TP_RT_I1)                                                              \
  X(i32, TP_RT_I32)                                                            \
  X(i64, TP_RT_I64)                                                            \
  X(index, TP_RT_I64)
#define TP_RT_DECLARE_BUFFER(NAME, DTYPE)                                      \
  void _mlir_ciface_tp_rt_buffer_##NAME(TPRtContext *ctx, int32_t role,        \
                                        int32_t index,                         \
                                        TPRtUnrankedMemRef *buffer);
TP_RT_BUFFER_TYPES(TP_RT_DECLARE_BUFFER)
#undef TP_RT_DECLARE_BUFFER

void _mlir_ciface_tp_rt_all_gather(TPRtContext *ctx, TPRtUnrankedMemRef *site,
                                   TPRtUnrankedMemRef *grid,
                                   TPRtUnrankedMemRef *axes, int64_t dim);
void _mlir_ciface_tp_rt_reduce_scatter(TPRtContext *ctx,
                                       TPRtUnrankedMemRef *site,
                                       TPRtUnrankedMemRef *grid,
                                       TPRtUnrankedMemRef *axes, int64_t dim,
                                       int32_t reduction);
void _mlir_ciface_tp_rt_all_reduce(TPRtContext *ctx, TPRtUnrankedMemRef *site,
                                   TPRtUnrankedMemRef *grid,
                                   TPRtUnrankedMemRef *axes, int32_t reduction);
/// Block j of the input along `split` goes to group rank j; the blocks
/// received are concatenated in group-rank order along `concat`.
void _mlir_ciface_tp_rt_all_to_all(TPRtContext *ctx, TPRtUnrankedMemRef *site,
                                   TPRtUnrankedMemRef *grid,
                                   TPRtUnrankedMemRef *axes, int64_t split,
                                   int64_t concat);
/// This rank's index in the group (0 after an error).
int64_t _mlir_ciface_tp_rt_group_rank(TPRtContext *ctx,
                                      TPRtUnrankedMemRef *site,
                                      TPRtUnrankedMemRef *grid,
                                      TPRtUnrankedMemRef *axes);

/// tp.matmul and tp.batch_matmul.
void _mlir_ciface_tp_rt_matmul(TPRtContext *ctx, TPRtUnrankedMemRef *site,
                               int32_t transposeB);
void _mlir_ciface_tp_rt_scaled_matmul(TPRtContext *ctx,
                                      TPRtUnrankedMemRef *site,
                                      int32_t scaling);
void _mlir_ciface_tp_rt_quantize(TPRtContext *ctx, TPRtUnrankedMemRef *site,
                                 int32_t scaling);
void _mlir_ciface_tp_rt_dequantize(TPRtContext *ctx, TPRtUnrankedMemRef *site,
                                   int32_t scaling);

/// The fused ops. Weights (with their scales and biases) are staged by index;
/// `scaling` is -1 for the unscaled forms.
void _mlir_ciface_tp_rt_all_gather_matmul(
    TPRtContext *ctx, TPRtUnrankedMemRef *site, TPRtUnrankedMemRef *grid,
    TPRtUnrankedMemRef *axes, int64_t dim, int32_t scaling, int32_t transposeB,
    int32_t returnGathered, int32_t algorithm, int64_t chunks, int32_t streams);
/// tp.all_to_all_matmul: the blocks of A exchanged as tp.all_to_all
/// (`split`, `concat`) does, each multiplied as it arrives.
void _mlir_ciface_tp_rt_all_to_all_matmul(
    TPRtContext *ctx, TPRtUnrankedMemRef *site, TPRtUnrankedMemRef *grid,
    TPRtUnrankedMemRef *axes, int64_t split, int64_t concat, int32_t transposeB,
    int32_t returnExchanged, int32_t algorithm, int64_t chunks,
    int32_t streams);
void _mlir_ciface_tp_rt_matmul_reduce_scatter(
    TPRtContext *ctx, TPRtUnrankedMemRef *site, TPRtUnrankedMemRef *grid,
    TPRtUnrankedMemRef *axes, int64_t dim, int32_t reduction, int32_t scaling,
    int32_t transposeB, int32_t returnUnreduced, int32_t algorithm,
    int64_t chunks, int32_t streams);
/// tp.matmul_all_to_all: A @ B (one B, or one per batch), each member's
/// block (along `split`) sent as soon as it is made, the blocks received
/// stacked along `concat`.
void _mlir_ciface_tp_rt_matmul_all_to_all(
    TPRtContext *ctx, TPRtUnrankedMemRef *site, TPRtUnrankedMemRef *grid,
    TPRtUnrankedMemRef *axes, int64_t split, int64_t concat, int32_t transposeB,
    int32_t returnProduct, int32_t algorithm, int64_t chunks, int32_t streams);
/// all_gather(x, dim) contracted over the gathered dim with each staged
/// weight (tp.all_gather_contract): x is the INPUT, the other operands are
/// WEIGHTs by index; products accumulate piece by piece and round once.
void _mlir_ciface_tp_rt_all_gather_contract(
    TPRtContext *ctx, TPRtUnrankedMemRef *site, TPRtUnrankedMemRef *grid,
    TPRtUnrankedMemRef *axes, int64_t dim, int32_t gatheredLhs,
    int32_t transposeA, int32_t transposeB, int32_t returnGathered,
    int32_t algorithm, int64_t chunks, int32_t streams);

/// Scalar conversions of f8E4M3FN and f8E5M2 (`dtype`), which LLVM lacks:
/// the bits of an element to f32, and an f32 to the bits (to nearest even,
/// saturating at the largest finite value).
float _mlir_ciface_tp_rt_extf_f8(int8_t bits, int32_t dtype);
int8_t _mlir_ciface_tp_rt_truncf_f8(float value, int32_t dtype);

/// The strided copy upstream's memref lowering calls for memref.copy
/// (the same contract as libmlir_c_runner_utils' `memrefCopy`).
void tp_rt_memref_copy(int64_t elementSize, TPRtUnrankedMemRef *source,
                       TPRtUnrankedMemRef *target);

/// The allocation functions upstream's memref lowering calls with
/// `use-generic-functions`, which tp-lower-to-llvm sets: malloc and
/// posix_memalign (memory is released with free) that report a failed
/// allocation with its size and abort, instead of returning null to compiled
/// code. Defined weakly.
void *_mlir_memref_to_llvm_alloc(size_t size);
void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size);
void _mlir_memref_to_llvm_free(void *ptr);

#ifdef __cplusplus
}
#endif

#endif /* TP_RUNTIME_ABI_H */
