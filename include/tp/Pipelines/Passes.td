//===- Passes.td - passes of the lowering pipelines -------*- tablegen -*-===//
//
// The passes tp-lower-to-llvm and tp-lower-glue-to-nvvm run besides
// upstream's, and the checks a run makes before compiling: declared here so
// that they get registrations, options and documentation like every other
// pass. TPToRuntime holds only the tp -> runtime conversion.
//
//===----------------------------------------------------------------------===//

#ifndef TP_PIPELINES_PASSES_TD
#define TP_PIPELINES_PASSES_TD

include "mlir/Pass/PassBase.td"

def TPLowerTosa : Pass<"tp-lower-tosa", "::mlir::ModuleOp"> {
  let summary = "TOSA ops to linalg, arith, tensor and scf";
  let description = [{
    Runs upstream's conversions (tosa-to-linalg-named, tosa-to-linalg,
    tosa-to-arith, tosa-to-tensor, tosa-to-scf) on a module that has TOSA
    ops, then reports, at its location, any TOSA op still there. A module
    without TOSA ops is left exactly as it is: no canonicalizer, no folding.
  }];
}

def TPGpuSharedBuffers : Pass<"tp-gpu-shared-buffers", "::mlir::func::FuncOp"> {
  let summary = "Make a function's buffers host-shared, copying inputs in and "
                "results out";
  let description = [{
    So that glue kernels and the runtime reach the same buffers: every
    allocation becomes a host-shared one, a public function's memref
    arguments are copied in on entry and its results copied out, and the
    program's own copies between buffers become kernels. Only identity
    layouts are copied; an argument with another layout is an error.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect"];
}

def TPCheckGraphCapture : Pass<"tp-check-graph-capture", "::mlir::ModuleOp"> {
  let summary = "Refuse host code that touches buffer data, which a CUDA "
                "graph of the step would not replay";
  let description = [{
    Run once the glue is GPU launches: any host op left that reads or writes
    a buffer's data would run once, at capture, not on every replay. Each is
    an error at its location (one per location).
  }];
}

def TPCheckNVVMTarget : Pass<"tp-check-nvvm-target", "::mlir::ModuleOp"> {
  let summary = "Check tp-lower-glue-to-nvvm's target options before LLVM "
                "sees them";
  let description = [{
    The chip must be one LLVM's NVPTX backend knows, any `+ptxNN` feature
    new enough for it, the optimization level 0 to 3, and `cuda-path` (when
    given) a toolkit with nvvm/libdevice, where the kernels' math functions
    come from.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "Target SM (e.g. sm_90 for H100)">,
    Option<"features", "features", "std::string", /*default=*/"\"+ptx80\"",
           "PTX features (the PTX ISA version: +ptx80 and up for sm_90)">,
    Option<"cudaPath", "cuda-path", "std::string", /*default=*/"\"\"",
           "CUDA toolkit whose nvvm/libdevice the kernels' math functions "
           "come from (empty: not checked)">,
    Option<"optLevel", "opt-level", "int", /*default=*/"3",
           "LLVM optimization level, 0 to 3">,
  ];
}

def TPSplitLongFunctions : Pass<"tp-split-long-functions", "::mlir::ModuleOp"> {
  let summary = "Outline runs of a long function's ops into functions of "
                "bounded length, so that compile time grows linearly";
  let description = [{
    LLVM's optimizer and code generator take more time per instruction in a
    longer function, so a model written out layer by layer compiled in time
    that grew faster than its depth. This pass cuts the top-level ops of
    each function with one block into runs of at most `max-ops` ops; each
    run becomes a private `no_inline` function (internal and `noinline` in
    LLVM too, so that LLVM's inliner does not undo the cut), called where
    the run was,
    taking the values it reads from before the run and returning those read
    after it. Constants, static `tensor.empty` ops and views (reshapes,
    slices, casts) belong to no run: each run that reads one makes it again,
    so no view crosses a call (bufferization would copy a returned view). Program order, and with it the order of
    collectives, is unchanged. Functions with several blocks are left alone.

    A run that would take and return more than `max-values` values stays in
    place: a training step keeps every layer's activations for its backward,
    and a call handing over hundreds of buffers compiles slower than the
    ops it would replace.
  }];
  let options = [
    Option<"maxOps", "max-ops", "int64_t", /*default=*/"256",
           "Most top-level ops of one function (0: split nothing)">,
    Option<"maxValues", "max-values", "int64_t", /*default=*/"32",
           "Most values a run may take and return together; a run that "
           "would hand over more stays in place (LLVM spends more on such a "
           "call than on the ops it replaces)">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect", "::mlir::LLVM::LLVMDialect"];
}

def TPOutlineLoopNests : Pass<"tp-outline-loop-nests", "::mlir::ModuleOp"> {
  let summary = "Outline each loop nest of a function with many into its "
                "own function, so that LLVM's loop passes take linear time";
  let description = [{
    LLVM's IndVarSimplify asks scalar evolution, for each loop, whether
    conditions guard the loop's entry, and scalar evolution answers by
    walking back through every loop before it in the function. A training
    step written out layer by layer is one function with hundreds of glue
    loop nests in a row (norms, softmax, element-wise ops), so that walk made
    its compile time quadratic: 80% of LLVM's optimizer time at 8 layers.

    In each function whose block holds more than `max-loops` top-level loops
    (`scf.for`, `scf.parallel`), each such loop becomes a private
    `no_inline` function, called where it was, taking the values the loop
    reads from outside it (constants are made again inside, so that bounds
    and sizes stay constants for LLVM) and returning the loop's results.
    Run on buffers (after bufferization and linalg-to-loops), where a loop
    nest reads and writes its operands in place; program order is
    unchanged.

    Nests whose functions would be the same (type, operations, attributes
    and constants alike; locations aside) call one function: the first one
    outlined. A model written out layer by layer repeats each layer's glue
    with other buffers, so LLVM compiles each distinct nest once, however
    deep the model (the unrolled 32-layer Llama step: 1,354 nests, 49
    functions).
  }];
  let options = [
    Option<"maxLoops", "max-loops", "int64_t", /*default=*/"16",
           "Most top-level loops a function keeps in place (0: outline "
           "none)">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect", "::mlir::LLVM::LLVMDialect"];
}

def TPUnoptimizedStraightCode
    : Pass<"tp-unoptimized-straight-code", "::mlir::ModuleOp"> {
  let summary = "Compile long loop-free LLVM functions without LLVM's "
                "optimizations, which cost superlinear time there";
  let description = [{
    A training step written out layer by layer is, once its loop nests are
    outlined (`tp-outline-loop-nests`), one function of tens of thousands of
    instructions in a handful of blocks: runtime calls, allocations and
    memref descriptor bookkeeping. LLVM's instruction selection and its
    schedulers (the post-register-allocation one above all) take time
    superlinear in a block's length, so such a function cost more per layer
    the deeper the model. Optimizing it buys nothing at run time: it has no
    loop, and each of its instructions runs once per call.

    Each `llvm.func` with a body of at least `min-ops` operations and no
    cycle in its control flow is marked `optimize_none` and `no_inline`
    (LLVM's `optnone`, `noinline`): LLVM skips its optimization passes and
    selects its instructions fast. The C interface wrapper of a marked
    function (`_mlir_ciface_<name>`, one block as long as its argument
    list) is marked too. Functions with loops keep the full pipeline.
    `tp-run`'s JIT (and the C API's) runs LLVM's optimizer with the
    instrumentation that skips `optnone` functions, and generates
    these functions' machine code apart, at LLVM's -O0: the greedy register
    allocator, which runs at -O2 even on `optnone` functions, also takes
    superlinear time over one long block.
  }];
  let options = [
    Option<"minOps", "min-ops", "int64_t", /*default=*/"4096",
           "Fewest operations that leave a loop-free function unoptimized "
           "(0: none is)">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def TPReassociateReductions
    : Pass<"tp-reassociate-reductions", "::mlir::ModuleOp"> {
  let summary = "Let LLVM vectorize floating-point reductions";
  let description = [{
    A `linalg` op with reduction loops combines each element into its
    accumulator with one floating-point op (`arith.addf`, `arith.mulf`,
    `arith.maximumf`, `arith.minimumf`, `arith.maxnumf`, `arith.minnumf`).
    In strict order LLVM cannot vectorize that loop, so every row sum of a
    norm or a softmax ran one element at a time. This pass marks the
    combining op `reassoc`, which lets the loop vectorizer keep partial
    accumulators in vector lanes: a reduction is then summed in another
    order, as numpy's pairwise sums and every BLAS are, and may differ from
    the sequential sum in the last bits. Other ops of the body are left as
    they are.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TPSpecializeDynamicGrids
    : Pass<"tp-specialize-dynamic-grids", "::mlir::ModuleOp"> {
  let summary = "Give a grid's dynamic axis the size a run's rank count "
                "implies";
  let description = [{
    A program may name a grid with one dynamic axis (`shard.grid @g(shape =
    2x?)`), so that it runs on any multiple of the static axes' ranks. For a
    run of `ranks` ranks, this pass sets that axis to `ranks` divided by the
    product of the others, in every grid the entry function reaches
    (directly or through calls). A grid with two dynamic axes, or whose
    static axes do not divide `ranks`, is an error at its location. The
    verifier, which runs after the pass, then checks the shape rules that
    involve the group size.
  }];
  let options = [
    Option<"ranks", "ranks", "int64_t", /*default=*/"0",
           "The run's rank count (at least 1)">,
    Option<"entry", "entry", "std::string", /*default=*/"\"\"",
           "The function a run starts from (empty: every public function "
           "with a body)">,
  ];
}

def TPCheckRunnable : Pass<"tp-check-runnable", "::mlir::ModuleOp"> {
  let summary = "Refuse, at their locations, what a compiled run cannot do";
  let description = [{
    A run that cannot work should end with a message naming why, not with an
    abort inside the JIT, the allocator or the runtime. From the entry
    function (or every public function with a body), this pass reports:
    - an entry that is only declared, or whose arguments or results are not
      ranked tensors or scalars of the runtime's element types;
    - a reached declaration that no function of this process defines (the
      JIT links nothing else; off with `resolve-declarations=false` when the
      program is linked ahead of time);
    - shard ops that tp-import did not raise, with the reason;
    - a function called indirectly (`func.constant`);
    - an `unrealized_conversion_cast` that does not cancel out;
    - a tp op whose grid is dynamic, or does not have `ranks` ranks;
    - a value whose byte count int64 does not hold.
    Nothing is changed.
  }];
  let options = [
    Option<"ranks", "ranks", "int64_t", /*default=*/"0",
           "The run's rank count (0: grids need only be static)">,
    Option<"entry", "entry", "std::string", /*default=*/"\"\"",
           "The function a run starts from (empty: every public function "
           "with a body)">,
    Option<"resolveDeclarations", "resolve-declarations", "bool",
           /*default=*/"true",
           "Require every reached declaration to name a function of this "
           "process">,
  ];
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

def TPUnshareEmptyTensors : Pass<"tp-unshare-empty-tensors"> {
  let summary = "Give each use of a tensor.empty its own, so that "
                "bufferization's analysis takes linear time";
  let description = [{
    CSE merges the `tensor.empty` ops of one shape (and dynamic sizes) into
    one value that every op writing a fresh result of that shape takes as
    its destination. One-Shot Bufferize's analysis then weighs each such
    write against every other use of the value: a training step written
    out layer by layer has hundreds of them, and the analysis took time
    quadratic in its depth. An empty tensor has no contents, so nothing is
    shared: each use gets a copy of the `tensor.empty`, made just before
    its user. Bufferization allocates the same buffers either
    way. Run just before `one-shot-bufferize`.
  }];
}

def TPSplitDistinctDeallocs : Pass<"tp-split-distinct-deallocs"> {
  let summary = "Split deallocations of distinct allocations in linear time";
  let description = [{
    Ownership-based deallocation ends a straight-line function with one
    `bufferization.dealloc` of every buffer the function allocated,
    retaining every buffer it returns. Upstream's
    `buffer-deallocation-simplification` asks, for each pair of operands,
    whether they may alias, and splits each buffer off with the whole
    retained list: a training step written out layer by layer made it the
    slowest pass of the lowering, 5x the time for twice the layers.

    When each freed operand is, through views, a distinct allocation
    (`memref.alloc`), and each retained operand an allocation or an
    argument of the enclosing function, aliasing is exact: a freed buffer
    aliases the retained values of its allocation and nothing else. Such a
    dealloc becomes one dealloc per freed buffer that no retained value
    aliases, retaining nothing; a buffer that is retained is not freed, and
    the results of the retained values it aliases become its condition
    (or-ed with any other such buffer's; `false` for none). Any other
    dealloc is left to upstream. Runs between ownership-based deallocation
    and its simplification.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TPLowerAllocaScopes : Pass<"tp-lower-alloca-scopes"> {
  let summary = "Lower memref.alloca_scope ops in place, in linear time";
  let description = [{
    A runtime call stages its buffers' descriptors on the stack inside a
    `memref.alloca_scope`, so that a call in a loop does not grow the stack.
    Upstream's lowering of a scope (in `finalize-memref-to-llvm`) splits the
    enclosing block at it, moving every op after it into a new block: a
    training step written out layer by layer is one block with a thousand
    such calls, and that pass took time quadratic in its depth.

    A scope's body is one block (the op allows no more), so each scope
    becomes its body's ops, moved in place between `llvm.intr.stacksave`
    and `llvm.intr.stackrestore` (what upstream emits, without the split);
    uses of its results read the values its `memref.alloca_scope.return`
    returned. Run just before `finalize-memref-to-llvm`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
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

#endif // TP_PIPELINES_PASSES_TD
