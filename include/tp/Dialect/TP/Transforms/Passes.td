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
           "Schedule written on every fused op: 'ring', 'per_peer' or "
           "'coalesced' (empty: leave it to the runtime)">,
    Option<"chunks", "chunks", "int", /*default=*/"0",
           "Pieces per rank written on every fused op (coalesced: GEMMs for "
           "the remote shards; 0: leave it to the runtime)">,
    Option<"streams", "streams", "int", /*default=*/"0",
           "GPU compute streams every fused op's pieces may run on at once "
           "(0: leave it to the runtime, which uses one)">,
    Option<"reportCounts", "stats", "bool", /*default=*/"false",
           "Emit one remark at the op the pass runs on, counting fusions by "
           "kind and misses (Debian's LLVM is built without pass statistics)">,
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Target description (a preset: h100-nvlink, h200-nvlink, "
           "pcie-node, cpu; or a JSON file): fuse only where the cost model "
           "predicts a gain, with the schedule it predicts fastest">,
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

def TPSimplifyCollectives : Pass<"tp-simplify-collectives"> {
  let summary = "Remove collectives whose result is never read and zero addends";
  let description = [{
    Removes `tp.all_gather`, `tp.reduce_scatter` and `tp.all_reduce` whose
    result is never read: unused, or only the destination (DPS init) of a
    linalg op that overwrites it (`linalg.fill`, a structured op whose payload
    ignores that init) or only measured (`tensor.dim`). Those uses get a
    `tensor.empty` of the same type. Upstream `shard-partition` emits such a
    collective for a row-parallel layer whose accumulator `tensor.empty` is
    annotated with the layer's output sharding.

    Also drops addends known to be zero (`arith.addf`, `linalg.add`,
    `tp.bias_add`, the addend and bias of `tp.matmul_reduce_scatter`): a zero
    constant, splat or `linalg.fill`, or an `scf.if` all of whose branches
    yield one. `-0.0` is always dropped (`x + -0.0 == x`); `+0.0` only when the
    other operand can never be `-0.0` (a matmul product, which accumulates
    from `+0.0`, and sums involving one) or the add has the `nsz` flag.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
  let options = [
    Option<"emitRemarks", "emit-remarks", "bool", /*default=*/"false",
           "Emit a remark at every collective removed and addend dropped">,
    Option<"reportCounts", "stats", "bool", /*default=*/"false",
           "Emit one remark at the op the pass runs on, counting removed "
           "collectives and dropped zero addends">,
  ];
}

def TPSequenceParallel : Pass<"tp-sequence-parallel"> {
  let summary = "Split all-reduces into reduce-scatter + all-gather and run "
                "the glue between them on this rank's rows";
  let description = [{
    Megatron's sequence parallelism, found automatically. An all-reduce of a
    matmul's partial sums becomes a reduce-scatter along a row dim (the first
    dim that is not the last and divides by the group size) followed by an
    all-gather. The all-gather then moves down through the element-wise and
    row-wise ops that follow (residual adds, norms with per-row statistics,
    activations), which run on 1/N of the rows, until it reaches an op it
    cannot pass (a matmul, where tp-async-tp fuses it, or a return).

    Moving an op onto the slice is legal when its loop over the gathered dim
    is parallel, it does not read loop indices, and every operand that does
    not come from a gather of the same group is the same on every rank
    (constants, collective results, arguments marked `tp.replicated`); full
    operands are sliced at this rank's offset. An all-gather moves only when
    all of its users can, so no gather is duplicated. With `emit-remarks`,
    each all-reduce left alone and each all-gather stopped before a
    non-matmul says why.
  }];
  let dependentDialects = ["::mlir::tp::TPDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = [
    Option<"emitRemarks", "emit-remarks", "bool", /*default=*/"false",
           "Remark on every all-reduce split or left alone, and on every "
           "all-gather that stops before a non-matmul user">,
    Option<"reportCounts", "stats", "bool", /*default=*/"false",
           "Emit one remark counting split all-reduces and moved ops">,
  ];
}

#endif // TP_DIALECT_TP_TRANSFORMS_PASSES_TD
