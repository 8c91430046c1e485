// RUN: tp-opt %s --tp-async-tp="emit-remarks tp-axis=1" -verify-diagnostics | FileCheck %s
// RUN: not tp-opt %s --tp-async-tp="tp-axis=-3" 2>&1 | FileCheck %s --check-prefix=BAD-AXIS

// With tp-axis set, only collectives along that grid axis fuse.

// BAD-AXIS: error: tp-async-tp: 'tp-axis' must be -1 or an axis of a grid, got -3 (the largest grid has 2 axes)

shard.grid @dp_tp(shape = 2x4)

// CHECK-LABEL: func.func @only_tensor_axis
// CHECK-SAME:    (%[[X:.*]]: tensor<8x64xf32>, %[[W:.*]]: tensor<64x128xf32>)
func.func @only_tensor_axis(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>) -> (tensor<32x128xf32>, tensor<16x128xf32>) {
  // CHECK-NEXT: %[[Y:.*]] = tp.all_gather_matmul %[[X]], [%[[W]]] on @dp_tp axes = [1] dim = 0
  // CHECK-NEXT: %[[G:.*]] = tp.all_gather %[[X]] on @dp_tp axes = [0] dim = 0
  // CHECK-NEXT: %[[Y2:.*]] = tp.matmul %[[G]], %[[W]]
  // CHECK-NEXT: return %[[Y]], %[[Y2]]
  %g = tp.all_gather %x on @dp_tp axes = [1] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %y = tp.matmul %g, %w : tensor<32x64xf32>, tensor<64x128xf32> -> tensor<32x128xf32>
  // expected-remark @+1 {{all-gather not fused: the all-gather is along grid axis 0, not the tensor-parallel axis 1}}
  %g2 = tp.all_gather %x on @dp_tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<16x64xf32>
  %y2 = tp.matmul %g2, %w : tensor<16x64xf32>, tensor<64x128xf32> -> tensor<16x128xf32>
  return %y, %y2 : tensor<32x128xf32>, tensor<16x128xf32>
}
