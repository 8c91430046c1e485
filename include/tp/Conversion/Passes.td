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
