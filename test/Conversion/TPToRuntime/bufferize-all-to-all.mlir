// RUN: tp-opt %s --tp-to-runtime --one-shot-bufferize=bufferize-function-boundaries | FileCheck %s

// tp.all_to_all bufferizes into tp_rt_all_to_all(ctx, site, grid, axes,
// split, concat): its input staged as role 0, its result (role 8) allocated
// with the split dim divided and the concat dim multiplied by the group size
// (4), both taken from the input when dynamic. With split == concat the shape
// is the input's.
shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @exchange_dynamic(
// CHECK-SAME:    %[[CTX:.*]]: !llvm.ptr {tp.rank_context}, %[[X:.*]]: memref<?x?x8xf32, {{.*}}>) -> memref<?x?x8xf32>
// CHECK:         %[[ROWS:.*]] = memref.dim %[[X]], %{{.*}}
// CHECK:         %[[G1:.*]] = arith.constant 4 : index
// CHECK:         %[[CONCAT:.*]] = arith.muli %[[ROWS]], %[[G1]] : index
// CHECK:         %[[HEADS:.*]] = memref.dim %[[X]], %{{.*}}
// CHECK:         %[[G2:.*]] = arith.constant 4 : index
// CHECK:         %[[SPLIT:.*]] = arith.divui %[[HEADS]], %[[G2]] : index
// CHECK:         %[[OUT:.*]] = memref.alloc(%[[CONCAT]], %[[SPLIT]]) {{.*}} : memref<?x?x8xf32>
// CHECK:         memref.alloca_scope {
// CHECK:           %[[IN:.*]] = arith.constant 0 : i32
// CHECK:           func.call @tp_rt_buffer_f32(%[[CTX]], %[[IN]], %{{.*}}, %{{.*}})
// CHECK:           %[[RESULT:.*]] = arith.constant 8 : i32
// CHECK:           func.call @tp_rt_buffer_f32(%[[CTX]], %[[RESULT]], %{{.*}}, %{{.*}})
// CHECK:           %[[S:.*]] = arith.constant 1 : i64
// CHECK:           %[[C:.*]] = arith.constant 0 : i64
// CHECK:           func.call @tp_rt_all_to_all(%[[CTX]], %{{.*}}, %{{.*}}, %{{.*}}, %[[S]], %[[C]])
// CHECK-NEXT:    }
// CHECK:         return %[[OUT]] : memref<?x?x8xf32>
func.func @exchange_dynamic(%x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  %y = tp.all_to_all %x on @tp axes = [0] split = 1 concat = 0 : tensor<?x?x8xf32> -> tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}

// CHECK-LABEL: func.func @same_dim_dynamic(
// CHECK-SAME:    %[[CTX:.*]]: !llvm.ptr {tp.rank_context}, %[[X:.*]]: memref<?x3xi32, {{.*}}>) -> memref<?x3xi32>
// CHECK:         %[[ROWS:.*]] = memref.dim %[[X]], %{{.*}}
// CHECK-NEXT:    %[[OUT:.*]] = memref.alloc(%[[ROWS]]) {{.*}} : memref<?x3xi32>
// CHECK:         func.call @tp_rt_buffer_i32
// CHECK:         func.call @tp_rt_buffer_i32
// CHECK:         func.call @tp_rt_all_to_all(
// CHECK:         return %[[OUT]] : memref<?x3xi32>
func.func @same_dim_dynamic(%x: tensor<?x3xi32>) -> tensor<?x3xi32> {
  %y = tp.all_to_all %x on @tp axes = [0] split = 0 concat = 0 : tensor<?x3xi32> -> tensor<?x3xi32>
  return %y : tensor<?x3xi32>
}
