// The bundled upstream examples, partitioned by upstream MLIR itself, then
// imported and fused by the one-flag pipeline.
//
// RUN: mlir-opt %S/Inputs/seqpar_mlp.mlir --pass-pipeline='builtin.module(func.func(shard-partition,canonicalize,cse))' \
// RUN:   | tp-opt --tp-async-tp-pipeline=emit-remarks | FileCheck %s --check-prefix=SEQPAR
// RUN: mlir-opt %S/Inputs/colwise_qkv.mlir --pass-pipeline='builtin.module(func.func(shard-partition,canonicalize,cse))' \
// RUN:   | tp-opt --tp-async-tp-pipeline=emit-remarks | FileCheck %s --check-prefix=QKV
// RUN: mlir-opt %S/Inputs/rowwise_allreduce.mlir --pass-pipeline='builtin.module(func.func(shard-partition,canonicalize,cse))' \
// RUN:   | tp-opt --tp-async-tp-pipeline=emit-remarks 2>&1 | FileCheck %s --check-prefix=ROW
// RUN: mlir-opt %S/Inputs/rowwise_allreduce.mlir --pass-pipeline='builtin.module(func.func(shard-partition,canonicalize,cse))' \
// RUN:   | tp-opt '--tp-async-tp-pipeline=sequence-parallel emit-remarks' 2>&1 | FileCheck %s --check-prefix=ROWSP

// The sequence-parallel MLP. The all-gather and the reduce-scatter (upstream's
// all_reduce + all_slice) both fuse; the rank-0-only accumulator becomes the
// reduce-scatter's addend.
// SEQPAR-LABEL: func.func @seqpar_mlp
// SEQPAR-SAME:    (%[[X:.*]]: tensor<32x512xf32>, %[[W1:.*]]: tensor<512x256xf32>, %[[W2:.*]]: tensor<256x512xf32>, %[[O1:.*]]: tensor<256x256xf32>, %[[O2:.*]]: tensor<256x512xf32>)
// SEQPAR:         %[[H:.*]] = tp.all_gather_matmul %[[X]], [%[[W1]]] on @tp axes = [0] dim = 0
// SEQPAR-NEXT:    %[[H1:.*]] = arith.addf %[[H]], %[[O1]]
// SEQPAR:         %[[RANK:.*]] = tp.group_rank on @tp axes = [0]
// SEQPAR:         %[[IS0:.*]] = arith.cmpi eq, %[[RANK]]
// SEQPAR:         %[[ACC:.*]] = scf.if %[[IS0]]
// SEQPAR:         %[[Y:.*]] = tp.matmul_reduce_scatter %[[H1]], %[[W2]] addend %[[ACC]] on @tp axes = [0] dim = 0 reduce = sum
// SEQPAR-NOT:     tp.all_gather
// SEQPAR-NOT:     tp.reduce_scatter
// SEQPAR:         return %[[Y]]

// Q, K and V share one all-gather: one fused op with three B.
// QKV-LABEL: func.func @qkv
// QKV-SAME:    (%[[X:.*]]: tensor<32x256xf32>, %[[WQ:.*]]: tensor<256x128xf32>, %[[WK:.*]]: tensor<256x128xf32>, %[[WV:.*]]: tensor<256x128xf32>,
// QKV-NEXT:    %[[R:.*]]:3 = tp.all_gather_matmul %[[X]], [%[[WQ]], %[[WK]], %[[WV]]] on @tp axes = [0] dim = 0
// QKV-NOT:     tp.all_gather

// Without sequence parallelism the output is all-reduced: nothing overlaps
// it, and the remark says what would.
// ROW:         remark: all-reduce not fused: async TP overlaps reduce-scatters and all-gathers with matmuls; tp-sequence-parallel (the pipeline's 'sequence-parallel' option) splits this one into both
// ROW-LABEL: func.func @rowwise
// ROW:         %[[M:.*]] = tp.matmul
// ROW:         %[[A:.*]] = arith.addf %[[M]]
// ROW:         tp.all_reduce %[[A]] on @tp axes = [0] reduce = sum

// With it, the all-reduce becomes a fused reduce-scatter (the rank-0
// accumulator its addend) and an all-gather that rebuilds the replicated
// output for the return.
// ROWSP:         remark: sequence parallelism: all-reduce split into reduce-scatter + all-gather along dim 0
// ROWSP:         remark: sequence parallelism: the all-gather stays before 'func.return': 'func.return' needs the whole value
// ROWSP-LABEL:   func.func @rowwise
// ROWSP-SAME:      (%[[H:.*]]: tensor<32x256xf32>, %[[W:.*]]: tensor<256x256xf32>, %[[O:.*]]: tensor<32x256xf32>)
// ROWSP:           %[[ACC:.*]] = scf.if
// ROWSP:           %[[Y:.*]] = tp.matmul_reduce_scatter %[[H]], %[[W]] addend %[[ACC]] on @tp axes = [0] dim = 0 reduce = sum : (tensor<32x256xf32>, tensor<256x256xf32>, tensor<32x256xf32>) -> tensor<8x256xf32>
// ROWSP-NEXT:      %[[G:.*]] = tp.all_gather %[[Y]] on @tp axes = [0] dim = 0 : tensor<8x256xf32> -> tensor<32x256xf32>
// ROWSP-NEXT:      return %[[G]]
