// A stencil's halo, as upstream partitions it: tp has no halo exchange, so
// the pipeline leaves shard.update_halo with a remark naming it, and tp-run
// and tp-lower-to-llvm refuse it at its location instead of failing later.
// RUN: mlir-opt %s --pass-pipeline='builtin.module(func.func(shard-partition,canonicalize,cse))' -o %t.mlir
// RUN: tp-opt %t.mlir --tp-async-tp-pipeline=emit-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: not tp-run %t.mlir --ranks 4 2>&1 | FileCheck %s --check-prefix=EXEC
// RUN: not tp-opt %t.mlir --tp-async-tp-pipeline --tp-lower-to-llvm 2>&1 | FileCheck %s --check-prefix=LOWER

// REMARK: remark: 'shard.update_halo' not raised: tp has no halo exchange
// EXEC: tp-run: {{.*}}: 'shard.update_halo' op tp-import does not raise this op (tp has no halo exchange
// LOWER: error: 'shard.update_halo' cannot be compiled: tp-import did not raise it

shard.grid @tp(shape = 4)
func.func @stencil(%x: tensor<32x8xf32>) -> tensor<32x8xf32> {
  %s = shard.sharding @tp split_axes = [[0]] : !shard.sharding
  %h = shard.sharding @tp split_axes = [[0]] halo_sizes = [1, 1] : !shard.sharding
  %x0 = shard.shard %x to %s : tensor<32x8xf32>
  %x1 = shard.shard %x0 to %h annotate_for_users : tensor<32x8xf32>
  return %x1 : tensor<32x8xf32>
}
