// RUN: tp-opt %s --tp-expand-multi-dynamic-reshapes --split-input-file | FileCheck %s

// Two dynamic sizes in one group: a reinterpret_cast of the source's base,
// strides row-major within the group from the source dim's stride (4 here),
// static where the result type fixes them.
// CHECK-LABEL: func.func @two_dynamic(
// CHECK-SAME:      %[[M:.*]]: memref<?x4xf32>, %[[A:.*]]: index, %[[B:.*]]: index)
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[BASE:.*]], %{{.*}}, %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata %[[M]]
// CHECK:         %[[S0:.*]] = arith.muli %[[C4]], %[[B]] : index
// CHECK:         %[[R:.*]] = memref.reinterpret_cast %[[BASE]] to offset: [0], sizes: [%[[A]], %[[B]], 4], strides: [%[[S0]], 4, 1] : memref<f32> to memref<?x?x4xf32>
// CHECK-NOT:     memref.expand_shape
// CHECK:         return %[[R]]
func.func @two_dynamic(%m: memref<?x4xf32>, %a: index, %b: index) -> memref<?x?x4xf32> {
  %e = memref.expand_shape %m [[0, 1], [2]] output_shape [%a, %b, 4] : memref<?x4xf32> into memref<?x?x4xf32>
  return %e : memref<?x?x4xf32>
}

// -----

// A strided source keeps its offset and inner stride.
// CHECK-LABEL: func.func @strided_source(
// CHECK-SAME:      %[[M:.*]]: memref<?x4xf32, strided<[?, 2], offset: ?>>, %[[A:.*]]: index, %[[B:.*]]: index)
// CHECK:         %[[BASE:.*]], %[[OFF:.*]], %{{.*}}:2, %[[ST:.*]]:2 = memref.extract_strided_metadata %[[M]]
// CHECK:         %[[S0:.*]] = arith.muli %[[ST]]#0, %[[B]] : index
// CHECK:         memref.reinterpret_cast %[[BASE]] to offset: [%[[OFF]]], sizes: [%[[A]], %[[B]], 4], strides: [%[[S0]], %[[ST]]#0, 2]
func.func @strided_source(%m: memref<?x4xf32, strided<[?, 2], offset: ?>>, %a: index, %b: index) -> memref<?x?x4xf32, strided<[?, ?, 2], offset: ?>> {
  %e = memref.expand_shape %m [[0, 1], [2]] output_shape [%a, %b, 4] : memref<?x4xf32, strided<[?, 2], offset: ?>> into memref<?x?x4xf32, strided<[?, ?, 2], offset: ?>>
  return %e : memref<?x?x4xf32, strided<[?, ?, 2], offset: ?>>
}

// -----

// At most one dynamic size per group: left to upstream.
// CHECK-LABEL: func.func @one_dynamic(
// CHECK:         memref.expand_shape
// CHECK-NOT:     memref.reinterpret_cast
func.func @one_dynamic(%m: memref<?x4xf32>, %a: index) -> memref<?x2x4xf32> {
  %e = memref.expand_shape %m [[0, 1], [2]] output_shape [%a, 2, 4] : memref<?x4xf32> into memref<?x2x4xf32>
  return %e : memref<?x2x4xf32>
}
