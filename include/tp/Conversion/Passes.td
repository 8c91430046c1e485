//===- Passes.td - conversions into the tp dialect --------*- tablegen -*-===//

#ifndef TP_CONVERSION_PASSES_TD
#define TP_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def TPImport : Pass<"tp-import"> {
  let summary = "Raise upstream shard/linalg per-rank IR into the tp dialect";
  let description = [{
    Raises what upstream MLIR's `shard-partition` emits:
    `shard.all_gather`, `shard.reduce_scatter`, `shard.all_reduce` (followed by
    `shard.all_slice` on the same axes: a reduce-scatter written as two ops),
    a lone `shard.all_slice` (this rank's slice), `shard.process_multi_index`
    and `shard.process_linear_index`; `linalg.matmul` (also with a transposed
    B), `linalg.batch_matmul` and contraction `linalg.generic`s that are a
    (batched) matmul or an `F.linear` on an N-D activation. A non-zero
    accumulator becomes an `arith.addf` after the product, so upstream's
    `scf.if (rank == 0) { init } else { zeros }` stays correct. Anything else
    is left as it is; with `emit-remarks`, each op that looks raisable but is
    not gets a remark saying why.
  }];
  let dependentDialects = ["::mlir::tp::TPDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = [
    Option<"emitRemarks", "emit-remarks", "bool", /*default=*/"false",
           "Emit a remark at every shard collective or linalg contraction "
           "left unraised, saying why">,
  ];
}

def TPToRuntime : Pass<"tp-to-runtime", "::mlir::ModuleOp"> {
  let summary = "Prepare tp programs to bufferize into runtime calls";
  let description = [{
    Gives every function with a body a leading `!llvm.ptr` argument, the
    calling rank's context (marked `tp.rank_context`), and passes it along
    every call between such functions. Public ones also get
    `llvm.emit_c_interface`, so C drivers can call them with descriptors by
    pointer, and their tensor arguments are marked not writable: a caller's
    buffers are read, never overwritten. `tp.group_rank` becomes a call of the
    runtime's `tp_rt_group_rank` and `tp.bias_add` a `linalg.generic`. The
    remaining tp ops bufferize into runtime calls (see
    `registerRuntimeCallBufferization`); `tp-lower-to-llvm` runs the whole
    sequence.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TPApproximateMath : Pass<"tp-approximate-math"> {
  let summary = "Replace math functions by upstream's polynomial approximations";
  let description = [{
    Runs upstream's `populateMathPolynomialApproximationPatterns` (tanh, exp,
    log, erf, sin/cos, ... on f32 and vectors of f32): straight-line code the
    loop vectorizer handles, instead of libm calls. Debian's mlir-opt offers
    these patterns only as a test pass.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

def TPLowerFP8Casts : Pass<"tp-lower-fp8-casts", "::mlir::ModuleOp"> {
  let summary = "Scalar f8E4M3FN / f8E5M2 conversions as runtime calls";
  let description = [{
    LLVM has no f8E4M3FN or f8E5M2 types and upstream MLIR expands only
    f8E8M0FNU and f4E2M1FN conversions (`arith-expand`). After upstream's
    `arith-emulate-unsupported-floats` has turned f8 arithmetic into f32
    arithmetic between `arith.extf` and `arith.truncf`, this pass makes the
    remaining scalar conversions calls of the runtime's `tp_rt_extf_f8` and
    `tp_rt_truncf_f8` (the same rounding the runtime uses everywhere: to
    nearest even, saturating at the largest finite value).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect"];
}

def TPCheckIntegerDivision : Pass<"tp-check-integer-division"> {
  let summary = "Assert that scalar integer divisions are defined";
  let description = [{
    Before every scalar `arith` division and remainder (signed, unsigned,
    ceil and floor forms) on integers or index, inserts a `cf.assert` that
    the divisor is not zero and, for signed ones, that the division is not
    the minimum over -1. LLVM treats both as undefined behaviour, which
    yields arbitrary results or a trap without a location. The message
    follows upstream's runtime verification: the op and its location.
    `tp-lower-to-llvm` runs it after loops are formed when runtime checks are
    on. Vector divisions are not checked.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect"];
}

def TPCheckDynamicSizes : Pass<"tp-check-dynamic-sizes"> {
  let summary = "Assert that run-time sizes are not negative and loop steps positive";
  let description = [{
    Before every `tensor.empty`, `tensor.splat` and `tensor.generate` whose
    sizes are not constants, inserts a `cf.assert` that each dynamic size is
    not negative, and before every `scf.for` whose step is not a constant,
    one that the step is positive (not zero, for unsigned loops). A negative
    size would otherwise reach the allocator as a huge count, or two of them
    multiply to a plausible one; a loop with such a step is undefined. The
    message follows upstream's runtime verification: the op and its location.
    `tp-lower-to-llvm` runs it on tensors when runtime checks are on.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect"];
}

def TPFreeBuffersEarly : Pass<"tp-free-buffers-early"> {
  let summary = "Free each buffer after its last use instead of at its block's end";
  let description = [{
    Upstream's ownership-based deallocation frees a block's buffers just
    before the block's terminator, so in straight-line code every
    intermediate stays allocated until the function returns: a program's
    peak memory grows with its length. This pass moves each unconditional
    `memref.dealloc` of a `memref.alloc` made in the same block up to just
    after the last op of that block that uses the buffer or anything that
    may alias it: views and casts of it, and any memref an op returns or
    yields after taking it (a call, a loop). A buffer staged for a runtime
    call (`tp_rt_buffer_*`) is in use until the op's own entry runs. A
    buffer whose alias leaves the block (returned, yielded, branched with,
    stored, taken as a raw pointer, or turned into anything but a memref or
    a plain number) is left where it is. Runs after the deallocation
    pipeline.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def TPExpandMultiDynamicReshapes : Pass<"tp-expand-multi-dynamic-reshapes"> {
  let summary = "Work around MLIR 22's crash on expand_shape with several "
                "dynamic sizes per group";
  let description = [{
    Rewrites every `memref.expand_shape` whose result has more than one
    dynamic size in one reassociation group into a `memref.reinterpret_cast`
    of the source's base buffer: the `output_shape` as sizes, and strides
    row-major within each group from the source dim's stride. MLIR 22's
    `expand-strided-metadata` segfaults on such ops
    (llvm/llvm-project#186830, fixed for LLVM 23); `tp-lower-to-llvm` runs
    this pass just before it. Other expands are left to upstream.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def TPFinalizeRuntimeLowering : Pass<"tp-finalize-runtime-lowering",
                                     "::mlir::ModuleOp"> {
  let summary = "Drop what LLVM translation does not know after tp lowering";
  let description = [{
    Once tp ops are runtime calls, grids live on only as constants in the
    calls: `shard.grid` declarations no op names are erased, and so are the
    `tp.rank_context` argument markers on `llvm.func`s.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // TP_CONVERSION_PASSES_TD
