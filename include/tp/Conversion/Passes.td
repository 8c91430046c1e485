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

#endif // TP_CONVERSION_PASSES_TD
