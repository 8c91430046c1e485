//===- Passes.td - passes of the lowering pipelines -------*- tablegen -*-===//
//
// The passes tp-lower-to-llvm and tp-lower-glue-to-nvvm run besides
// upstream's: declared here so that they get registrations, options and
// documentation like every other pass.
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
    run becomes a private `no_inline` function, called where the run was,
    taking the values it reads from before the run and returning those read
    after it. Constants, static `tensor.empty` ops and views (reshapes,
    slices, casts) belong to no run: each run that reads one makes it again,
    so no view crosses a call (bufferization would copy a returned view). Program order, and with it the order of
    collectives, is unchanged. Functions with several blocks are left alone.
  }];
  let options = [
    Option<"maxOps", "max-ops", "int64_t", /*default=*/"256",
           "Most top-level ops of one function (0: split nothing)">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
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

#endif // TP_PIPELINES_PASSES_TD
