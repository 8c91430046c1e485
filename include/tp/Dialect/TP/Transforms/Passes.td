//===- Passes.td - tp dialect passes ----------------------*- tablegen -*-===//

#ifndef TP_DIALECT_TP_TRANSFORMS_PASSES_TD
#define TP_DIALECT_TP_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TPAsyncTP : Pass<"tp-async-tp"> {
  let summary = "Fuse collectives with the matmuls they feed or follow";
  let description = [{
    Rewrites all-gather -> matmul into `tp.all_gather_matmul` and matmul ->
    reduce-scatter into `tp.matmul_reduce_scatter` (and their scaled forms),
    looking through reshapes, batched matmuls with a broadcast weight and bias
    adds. With `emit-remarks`, every collective that could have been fused
    and was not gets a remark saying why.
  }];
  let dependentDialects = ["::mlir::tp::TPDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = [
    Option<"emitRemarks", "emit-remarks", "bool", /*default=*/"false",
           "Emit a remark at every collective that was not fused, saying why">,
    Option<"tensorParallelAxis", "tp-axis", "int", /*default=*/"-1",
           "Fuse only collectives along this grid axis (-1: any single axis)">,
    Option<"algorithm", "algorithm", "std::string", /*default=*/"\"\"",
           "Schedule written on every fused op: 'ring' or 'per_peer' (empty: "
           "leave it to the runtime)">,
    Option<"chunks", "chunks", "int", /*default=*/"0",
           "Pieces per rank written on every fused op (0: leave it to the "
           "runtime)">,
    Option<"reportCounts", "stats", "bool", /*default=*/"false",
           "Emit one remark at the op the pass runs on, counting fusions by "
           "kind and misses (Debian's LLVM is built without pass statistics)">,
  ];
}

def TPLowerLinear : Pass<"tp-lower-linear"> {
  let summary = "Lower tp.linear to per-rank collectives and matmuls";
  let description = [{
    Mirrors a framework's tensor-parallel linear dispatch. A column-parallel
    layer becomes all-gather (if its input is sharded) then matmul; a
    row-parallel one becomes matmul then reduce-scatter or all-reduce. For
    inputs of rank > 2, `mode=reshape` emits reshape -> matmul -> reshape (the
    graph `F.linear` gives) and `mode=bmm` a batched matmul with the weight
    broadcast over the batch. Biases become `tp.bias_add`.
  }];
  let dependentDialects = ["::mlir::tp::TPDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = [
    Option<"mode", "mode", "std::string", /*default=*/"\"reshape\"",
           "How to multiply inputs of rank > 2: 'reshape' (collapse to 2-D) "
           "or 'bmm' (batched matmul)">,
  ];
}

#endif // TP_DIALECT_TP_TRANSFORMS_PASSES_TD
