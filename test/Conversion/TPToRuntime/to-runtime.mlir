// RUN: tp-opt %s --tp-to-runtime --split-input-file | FileCheck %s

// Every function with a body takes the rank context first and passes it on;
// public ones get C-interface wrappers and read-only tensor arguments;
// declarations keep their signature. tp.group_rank calls the runtime and
// tp.bias_add becomes a broadcast linalg.generic.
shard.grid @tp(shape = 4)

// The runtime's entry is declared once, with the C-interface convention; the
// site text, grid shape and axes are constants.
// CHECK-DAG: func.func private @tp_rt_group_rank(!llvm.ptr, memref<*xi8>, memref<*xi64>, memref<*xi64>) -> i64 attributes {llvm.emit_c_interface, tp.runtime_entry}
// CHECK-DAG: memref.global "private" constant @[[$GRID:__tp_ints[_0-9]*]] : memref<1xi64> = dense<4>
// CHECK-DAG: memref.global "private" constant @[[$AXES:__tp_ints[_0-9]*]] : memref<1xi64> = dense<0>
// CHECK-DAG: memref.global "private" constant @[[$SITE:__tp_site[_0-9]*]] : memref<{{[0-9]+}}xi8>

// CHECK-LABEL: func.func @callee(
// CHECK-SAME:    %[[CTX:[^:]*]]: !llvm.ptr {tp.rank_context}, %[[X:[^:]*]]: tensor<2x8xf32> {bufferization.writable = false})
// CHECK-SAME:    attributes {llvm.emit_c_interface}
// CHECK:         tp.all_gather %[[X]]
func.func @callee(%x: tensor<2x8xf32>) -> tensor<8x8xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<2x8xf32> -> tensor<8x8xf32>
  return %g : tensor<8x8xf32>
}

// CHECK: func.func private @external(tensor<2x8xf32>) -> tensor<2x8xf32>
func.func private @external(tensor<2x8xf32>) -> tensor<2x8xf32>

// CHECK-LABEL: func.func @caller(
// CHECK-SAME:    %[[CTX:[^:]*]]: !llvm.ptr {tp.rank_context}, %[[X:[^:]*]]: tensor<2x8xf32> {bufferization.writable = false}, %[[B:[^:]*]]: tensor<8xf32> {bufferization.writable = false})
// CHECK:         %[[G:.*]] = call @callee(%[[CTX]], %[[X]])
// CHECK:         %[[E:.*]] = call @external(%[[X]]) : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK:         %[[SCOPE:.*]] = memref.alloca_scope -> (i64) {
// CHECK:         %[[SITE:.*]] = memref.get_global @[[$SITE]] : memref<{{[0-9]+}}xi8>
// CHECK:         %[[SITE_U:.*]] = memref.cast %[[SITE]] : memref<{{[0-9]+}}xi8> to memref<*xi8>
// CHECK:         %[[GRID:.*]] = memref.get_global @[[$GRID]] : memref<1xi64>
// CHECK:         %[[GRID_U:.*]] = memref.cast %[[GRID]]
// CHECK:         %[[AXES:.*]] = memref.get_global @[[$AXES]] : memref<1xi64>
// CHECK:         %[[AXES_U:.*]] = memref.cast %[[AXES]]
// CHECK:         %[[RANK:.*]] = func.call @tp_rt_group_rank(%[[CTX]], %[[SITE_U]], %[[GRID_U]], %[[AXES_U]]) : (!llvm.ptr, memref<*xi8>, memref<*xi64>, memref<*xi64>) -> i64
// CHECK:         memref.alloca_scope.return %[[RANK]] : i64
// CHECK:         %[[INDEX:.*]] = arith.index_cast %[[SCOPE]] : i64 to index
// CHECK:         %[[INIT:.*]] = tensor.empty() : tensor<2x8xf32>
// CHECK:         %[[SUM:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[X]], %[[B]] : tensor<2x8xf32>, tensor<8xf32>) outs(%[[INIT]] : tensor<2x8xf32>)
// CHECK:           arith.addf
// CHECK:         return %[[G]], %[[INDEX]], %[[SUM]], %[[E]]
func.func @caller(%x: tensor<2x8xf32>, %b: tensor<8xf32>) -> (tensor<8x8xf32>, index, tensor<2x8xf32>, tensor<2x8xf32>) {
  %g = call @callee(%x) : (tensor<2x8xf32>) -> tensor<8x8xf32>
  %e = call @external(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %r = tp.group_rank on @tp axes = [0]
  %y = tp.bias_add %x, %b : tensor<2x8xf32>, tensor<8xf32>
  return %g, %r, %y, %e : tensor<8x8xf32>, index, tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

// Running the pass twice changes nothing the second time.
// CHECK-LABEL: func.func @twice(
// CHECK-SAME:    %{{[^:]*}}: !llvm.ptr {tp.rank_context}, %{{[^:]*}}: tensor<4xf32> {bufferization.writable = false})
// CHECK-NOT:   !llvm.ptr
func.func @twice(%ctx: !llvm.ptr {tp.rank_context}, %x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
