// RUN: tp-opt %s --tp-async-tp --tp-lower-to-llvm | FileCheck %s
// RUN: tp-opt %s --tp-async-tp --tp-lower-to-llvm=runtime-checks=false | FileCheck %s --check-prefix=NOCHECKS
// The output translates to LLVM IR as it is.
// RUN: tp-opt %s --tp-async-tp --tp-lower-to-llvm | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVMIR

// A fused layer with glue around it becomes LLVM dialect only: tp ops are
// calls of the runtime ABI (through the C-interface wrappers), the glue is
// loops, grids are gone, buffers are freed.
shard.grid @tp(shape = 2)

// CHECK-NOT: shard.grid
// The dynamic slice's runtime check fails through puts() and abort().
// CHECK-DAG:   llvm.func @abort()
// CHECK-DAG:   llvm.func @_mlir_ciface_tp_rt_all_gather_matmul(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i32, i32, i32, i32, i64, i32)
// CHECK-DAG:   llvm.func @_mlir_ciface_tp_rt_matmul_reduce_scatter(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i32, i32, i32, i32, i32, i64, i32)
// CHECK-DAG:   llvm.func @_mlir_ciface_tp_rt_buffer_f32(!llvm.ptr, i32, i32, !llvm.ptr)
// CHECK-DAG:   llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
// CHECK-LABEL: llvm.func @layer(
// CHECK-SAME:    %[[CTX:[^:]*]]: !llvm.ptr,
// CHECK:         llvm.call @tp_rt_buffer_f32(%[[CTX]],
// CHECK:         llvm.call @tp_rt_all_gather_matmul(%[[CTX]],
// CHECK:         llvm.call @tp_rt_matmul_reduce_scatter(%[[CTX]],
// Buffers come from and go back to the runtime's allocator.
// CHECK:         llvm.call @_mlir_memref_to_llvm_free(
// CHECK:         llvm.call @abort()
// CHECK-NOT:     tp.

// NOCHECKS-NOT: @abort

// LLVMIR: call void @_mlir_ciface_tp_rt_all_gather_matmul(
// LLVMIR: define {{.*}} @layer(ptr %0,
func.func @layer(%x: tensor<4x8xf32>, %w1: tensor<8x16xf32>, %w2: tensor<16x8xf32>, %n: index) -> tensor<4x8xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<4x8xf32> -> tensor<8x8xf32>
  %h = tp.matmul %g, %w1 : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  %a = math.tanh %h : tensor<8x16xf32>
  %p = tp.matmul %a, %w2 : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
  %y = tp.reduce_scatter %p on @tp axes = [0] dim = 0 reduce = sum : tensor<8x8xf32> -> tensor<4x8xf32>
  %s = tensor.extract_slice %y[%n, 0] [2, 8] [1, 1] : tensor<4x8xf32> to tensor<2x8xf32>
  %r = tensor.insert_slice %s into %x[0, 0] [2, 8] [1, 1] : tensor<2x8xf32> into tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
