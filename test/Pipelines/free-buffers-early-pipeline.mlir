// In the lowering, a tp op's operand is freed once the op's runtime entry
// has run, not when it is staged (found by the MPI fusion numerics: an
// all-gather's result, freed before the matmul that read it, was reused).
// RUN: tp-opt %s --tp-bufferize | FileCheck %s

// CHECK-LABEL: func.func @main
// CHECK:         %[[G:.*]] = memref.alloc() {{.*}} : memref<8x8xf32>
// CHECK:         call @tp_rt_all_gather(
// CHECK:         %[[Y:.*]] = memref.alloc() {{.*}} : memref<8x16xf32>
// CHECK:         memref.cast %[[G]]
// CHECK-NOT:     memref.dealloc
// CHECK:         call @tp_rt_matmul(
// CHECK-NEXT:    memref.dealloc %[[G]]
// CHECK-NEXT:    return %[[Y]]
shard.grid @tp(shape = 2)
func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<4x8xf32> -> tensor<8x8xf32>
  %y = tp.matmul %g, %w : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
