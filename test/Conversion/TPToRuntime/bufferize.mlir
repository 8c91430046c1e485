// RUN: tp-opt %s --tp-to-runtime --one-shot-bufferize=bufferize-function-boundaries --split-input-file | FileCheck %s

// A tp op bufferizes into its runtime call: each operand is staged by role
// (0 input, 3 weight, 6 bias, 7 addend, 8 result) and index, each result is
// a fresh buffer sized from the operands, then the op's entry runs.
shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @gather_dynamic(
// CHECK-SAME:    %[[CTX:.*]]: !llvm.ptr {tp.rank_context}, %[[X:.*]]: memref<?x8xf32, {{.*}}>) -> memref<?x8xf32>
// CHECK:         %[[ROWS:.*]] = memref.dim %[[X]], %{{.*}}
// CHECK:         %[[FOUR:.*]] = arith.constant 4 : index
// CHECK:         %[[GATHERED:.*]] = arith.muli %[[ROWS]], %[[FOUR]] : index
// CHECK:         %[[OUT:.*]] = memref.alloc(%[[GATHERED]]) {{.*}} : memref<?x8xf32>
// The descriptors live in a stack scope of their own.
// CHECK:         memref.alloca_scope {
// CHECK:           %[[XU:.*]] = memref.cast %[[X]] : {{.*}} to memref<*xf32>
// CHECK:           %[[IN:.*]] = arith.constant 0 : i32
// CHECK:           func.call @tp_rt_buffer_f32(%[[CTX]], %[[IN]], %{{.*}}, %[[XU]])
// CHECK:           %[[OUTU:.*]] = memref.cast %[[OUT]] : memref<?x8xf32> to memref<*xf32>
// CHECK:           %[[RESULT:.*]] = arith.constant 8 : i32
// CHECK:           func.call @tp_rt_buffer_f32(%[[CTX]], %[[RESULT]], %{{.*}}, %[[OUTU]])
// CHECK:           %[[DIM:.*]] = arith.constant 0 : i64
// CHECK:           func.call @tp_rt_all_gather(%[[CTX]], %{{.*}}, %{{.*}}, %{{.*}}, %[[DIM]])
// CHECK-NEXT:    }
// CHECK:         return %[[OUT]] : memref<?x8xf32>
func.func @gather_dynamic(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<?x8xf32> -> tensor<?x8xf32>
  return %g : tensor<?x8xf32>
}

// Weights and their biases are staged by index; the schedule travels as
// plain arguments (dim, scaling -1: unscaled, transpose_b, return_gathered,
// algorithm 1: ring, chunks).
// CHECK-LABEL: func.func @fused(
// CHECK-SAME:    %[[CTX:.*]]: !llvm.ptr {tp.rank_context}, %[[X:.*]]: memref<2x16xbf16, {{.*}}>, %[[WQ:.*]]: memref<8x16xbf16, {{.*}}>, %[[WK:.*]]: memref<4x16xbf16, {{.*}}>, %[[BK:.*]]: memref<4xbf16, {{.*}}>)
// CHECK:         %[[G:.*]] = memref.alloc() {{.*}} : memref<8x16xbf16>
// CHECK:         %[[Q:.*]] = memref.alloc() {{.*}} : memref<8x8xbf16>
// CHECK:         %[[K:.*]] = memref.alloc() {{.*}} : memref<8x4xbf16>
// CHECK:         memref.alloca_scope {
// CHECK:           func.call @tp_rt_buffer_bf16(%[[CTX]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK:           %[[WEIGHT:.*]] = arith.constant 3 : i32
// CHECK:           %[[FIRST:.*]] = arith.constant 0 : i32
// CHECK:           func.call @tp_rt_buffer_bf16(%[[CTX]], %[[WEIGHT]], %[[FIRST]], %{{.*}})
// CHECK:           %[[WEIGHT2:.*]] = arith.constant 3 : i32
// CHECK:           %[[SECOND:.*]] = arith.constant 1 : i32
// CHECK:           func.call @tp_rt_buffer_bf16(%[[CTX]], %[[WEIGHT2]], %[[SECOND]], %{{.*}})
// CHECK:           %[[BIAS:.*]] = arith.constant 6 : i32
// CHECK:           %[[OF_SECOND:.*]] = arith.constant 1 : i32
// CHECK:           func.call @tp_rt_buffer_bf16(%[[CTX]], %[[BIAS]], %[[OF_SECOND]], %{{.*}})
// CHECK:           memref.cast %[[G]]
// CHECK:           memref.cast %[[Q]]
// CHECK:           memref.cast %[[K]]
// CHECK:           %[[D:.*]] = arith.constant 0 : i64
// CHECK:           %[[UNSCALED:.*]] = arith.constant -1 : i32
// CHECK:           %[[TB:.*]] = arith.constant 1 : i32
// CHECK:           %[[RG:.*]] = arith.constant 1 : i32
// CHECK:           %[[RING:.*]] = arith.constant 1 : i32
// CHECK:           %[[CHUNKS:.*]] = arith.constant 2 : i64
// CHECK:           %[[STREAMS:.*]] = arith.constant 3 : i32
// CHECK:           func.call @tp_rt_all_gather_matmul(%[[CTX]], %{{.*}}, %{{.*}}, %{{.*}}, %[[D]], %[[UNSCALED]], %[[TB]], %[[RG]], %[[RING]], %[[CHUNKS]], %[[STREAMS]])
// CHECK:         return %[[G]], %[[Q]], %[[K]]
func.func @fused(%x: tensor<2x16xbf16>, %wq: tensor<8x16xbf16>, %wk: tensor<4x16xbf16>, %bk: tensor<4xbf16>) -> (tensor<8x16xbf16>, tensor<8x8xbf16>, tensor<8x4xbf16>) {
  %g, %q, %k = tp.all_gather_matmul %x, [%wq, %wk bias %bk] on @tp axes = [0] dim = 0 transpose_b return_gathered {algorithm = #tp.algorithm<ring>, chunks = 2 : i64, streams = 3 : i64}
      : (tensor<2x16xbf16>, tensor<8x16xbf16>, tensor<4x16xbf16>, tensor<4xbf16>) -> (tensor<8x16xbf16>, tensor<8x8xbf16>, tensor<8x4xbf16>)
  return %g, %q, %k : tensor<8x16xbf16>, tensor<8x8xbf16>, tensor<8x4xbf16>
}

// The reduced dim of a dynamic product is divided by the group size.
// CHECK-LABEL: func.func @reduce_scatter_dynamic(
// CHECK-SAME:    %[[CTX:.*]]: !llvm.ptr {tp.rank_context}, %[[A:.*]]: memref<?x16xf32, {{.*}}>, %[[B:.*]]: memref<16x8xf32, {{.*}}>, %[[C:.*]]: memref<?x8xf32, {{.*}}>)
// CHECK:         %[[M:.*]] = memref.dim %[[A]], %{{.*}}
// CHECK:         %[[FOUR:.*]] = arith.constant 4 : index
// CHECK:         %[[ROWS:.*]] = arith.divui %[[M]], %[[FOUR]] : index
// CHECK:         memref.alloc(%[[ROWS]]) {{.*}} : memref<?x8xf32>
// CHECK:         %[[ADDEND:.*]] = arith.constant 7 : i32
// CHECK:         func.call @tp_rt_buffer_f32(%[[CTX]], %[[ADDEND]], %{{.*}}, %{{.*}})
// CHECK:         func.call @tp_rt_matmul_reduce_scatter(
func.func @reduce_scatter_dynamic(%a: tensor<?x16xf32>, %b: tensor<16x8xf32>, %c: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %y = tp.matmul_reduce_scatter %a, %b addend %c on @tp axes = [0] dim = 0 reduce = sum
      : (tensor<?x16xf32>, tensor<16x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// MXFP8 scales: one per 32 elements of the last dim.
// CHECK-LABEL: func.func @quantize_dynamic(
// CHECK-SAME:    %[[CTX:.*]]: !llvm.ptr {tp.rank_context}, %[[X:.*]]: memref<4x?xf32, {{.*}}>)
// CHECK:         %[[K:.*]] = memref.dim %[[X]], %{{.*}}
// CHECK:         %[[K2:.*]] = memref.dim %[[X]], %{{.*}}
// CHECK:         %[[BLOCK:.*]] = arith.constant 32 : index
// CHECK:         %[[BLOCKS:.*]] = arith.divui %[[K2]], %[[BLOCK]] : index
// CHECK:         memref.alloc(%[[K]]) {{.*}} : memref<4x?xf8E4M3FN>
// CHECK:         memref.alloc(%[[BLOCKS]]) {{.*}} : memref<4x?xf8E8M0FNU>
// CHECK:         func.call @tp_rt_buffer_f8E4M3FN(
// CHECK:         func.call @tp_rt_buffer_f8E8M0FNU(
// CHECK:         %[[MXFP8:.*]] = arith.constant 2 : i32
// CHECK:         func.call @tp_rt_quantize(%[[CTX]], %{{.*}}, %[[MXFP8]])
func.func @quantize_dynamic(%x: tensor<4x?xf32>) -> (tensor<4x?xf8E4M3FN>, tensor<4x?xf8E8M0FNU>) {
  %q, %s = tp.quantize %x mxfp8 : tensor<4x?xf32> -> tensor<4x?xf8E4M3FN>, tensor<4x?xf8E8M0FNU>
  return %q, %s : tensor<4x?xf8E4M3FN>, tensor<4x?xf8E8M0FNU>
}

// Row-wise scales have one column, whatever the input's dynamic K.
// CHECK-LABEL: func.func @quantize_row_wise(
// CHECK-SAME:    %[[CTX:.*]]: !llvm.ptr {tp.rank_context}, %[[X:.*]]: memref<4x?xf32, {{.*}}>)
// CHECK:         memref.alloc(%{{.*}}) {{.*}} : memref<4x?xf8E4M3FN>
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK:         memref.alloc(%[[ONE]]) {{.*}} : memref<4x?xf32>
func.func @quantize_row_wise(%x: tensor<4x?xf32>) -> (tensor<4x?xf8E4M3FN>, tensor<4x?xf32>) {
  %q, %s = tp.quantize %x row_wise : tensor<4x?xf32> -> tensor<4x?xf8E4M3FN>, tensor<4x?xf32>
  return %q, %s : tensor<4x?xf8E4M3FN>, tensor<4x?xf32>
}

// -----

// tp.all_gather_contract: x is the input, each other operand a weight; the
// product is [free of the lhs, free of the rhs], here x's rows by B's
// columns, both dynamic. Attributes: dim, gathered_lhs, transpose_a,
// transpose_b, return_gathered, algorithm (1: ring), chunks.
shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @contract_dynamic(
// CHECK-SAME:    %[[CTX:.*]]: !llvm.ptr {tp.rank_context}, %[[A:.*]]: memref<?x4xf32, {{.*}}>, %[[B:.*]]: memref<16x?xf32, {{.*}}>)
// CHECK:         %[[GM:.*]] = memref.dim %[[A]], %{{.*}}
// CHECK:         %[[PM:.*]] = memref.dim %[[A]], %{{.*}}
// CHECK:         %[[PN:.*]] = memref.dim %[[B]], %{{.*}}
// CHECK:         %[[G:.*]] = memref.alloc(%[[GM]]) {{.*}} : memref<?x16xf32>
// CHECK:         %[[P:.*]] = memref.alloc(%[[PM]], %[[PN]]) {{.*}} : memref<?x?xf32>
// CHECK:           %[[DIM:.*]] = arith.constant 1 : i64
// CHECK-NEXT:      %[[LHS:.*]] = arith.constant 1 : i32
// CHECK-NEXT:      %[[TA:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[TB:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[RG:.*]] = arith.constant 1 : i32
// CHECK-NEXT:      %[[RING:.*]] = arith.constant 1 : i32
// CHECK-NEXT:      %[[CHUNKS:.*]] = arith.constant 3 : i64
// CHECK-NEXT:      %[[STREAMS:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      func.call @tp_rt_all_gather_contract(%[[CTX]], %{{.*}}, %{{.*}}, %{{.*}}, %[[DIM]], %[[LHS]], %[[TA]], %[[TB]], %[[RG]], %[[RING]], %[[CHUNKS]], %[[STREAMS]])
// CHECK:         return %[[G]], %[[P]]
func.func @contract_dynamic(%a: tensor<?x4xf32>, %b: tensor<16x?xf32>) -> (tensor<?x16xf32>, tensor<?x?xf32>) {
  %g, %p = tp.all_gather_contract %a, [%b] on @tp axes = [0] dim = 1 gathered_lhs return_gathered {algorithm = #tp.algorithm<ring>, chunks = 3 : i64}
      : (tensor<?x4xf32>, tensor<16x?xf32>) -> (tensor<?x16xf32>, tensor<?x?xf32>)
  return %g, %p : tensor<?x16xf32>, tensor<?x?xf32>
}
