// RUN: tp-opt %s --tp-async-tp=emit-remarks -split-input-file -verify-diagnostics | FileCheck %s

// One all-gather feeding several matmuls (Q/K/V) becomes one fused op with a
// list of B, in program order.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @qkv
// CHECK-SAME:    (%[[X:.*]]: tensor<8x64xf32>, %[[WQ:.*]]: tensor<32x64xf32>, %[[WK:.*]]: tensor<16x64xf32>, %[[WV:.*]]: tensor<16x64xf32>, %[[BQ:.*]]: tensor<32xf32>)
func.func @qkv(%x: tensor<8x64xf32>, %wq: tensor<32x64xf32>, %wk: tensor<16x64xf32>, %wv: tensor<16x64xf32>, %bq: tensor<32xf32>)
    -> (tensor<32x32xf32>, tensor<32x16xf32>, tensor<32x16xf32>) {
  // CHECK-NEXT: %[[R:.*]]:3 = tp.all_gather_matmul %[[X]], [%[[WQ]] bias %[[BQ]], %[[WK]], %[[WV]]] on @tp axes = [0] dim = 0 transpose_b : (tensor<8x64xf32>, tensor<32x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<32xf32>) -> (tensor<32x32xf32>, tensor<32x16xf32>, tensor<32x16xf32>)
  // CHECK-NEXT: return %[[R]]#0, %[[R]]#1, %[[R]]#2
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %q0 = tp.matmul %g, %wq transpose_b : tensor<32x64xf32>, tensor<32x64xf32> -> tensor<32x32xf32>
  %q = tp.bias_add %q0, %bq : tensor<32x32xf32>, tensor<32xf32>
  %k = tp.matmul %g, %wk transpose_b : tensor<32x64xf32>, tensor<16x64xf32> -> tensor<32x16xf32>
  %v = tp.matmul %g, %wv transpose_b : tensor<32x64xf32>, tensor<16x64xf32> -> tensor<32x16xf32>
  return %q, %k, %v : tensor<32x32xf32>, tensor<32x16xf32>, tensor<32x16xf32>
}

// -----

// Gate/up through F.linear's reshapes share one collapse.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @gate_up_reshaped
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4x64xf32>, %[[WG:.*]]: tensor<32x64xf32>, %[[WU:.*]]: tensor<32x64xf32>)
func.func @gate_up_reshaped(%x: tensor<2x4x64xf32>, %wg: tensor<32x64xf32>, %wu: tensor<32x64xf32>) -> (tensor<2x8x32xf32>, tensor<2x8x32xf32>) {
  // CHECK-NEXT: %[[R:.*]]:2 = tp.all_gather_matmul %[[X]], [%[[WG]], %[[WU]]] on @tp axes = [0] dim = 1 transpose_b
  // CHECK-NEXT: return %[[R]]#0, %[[R]]#1
  %g = tp.all_gather %x on @tp axes = [0] dim = 1 : tensor<2x4x64xf32> -> tensor<2x8x64xf32>
  %c = tensor.collapse_shape %g [[0, 1], [2]] : tensor<2x8x64xf32> into tensor<16x64xf32>
  %m1 = tp.matmul %c, %wg transpose_b : tensor<16x64xf32>, tensor<32x64xf32> -> tensor<16x32xf32>
  %y1 = tensor.expand_shape %m1 [[0, 1], [2]] output_shape [2, 8, 32] : tensor<16x32xf32> into tensor<2x8x32xf32>
  %m2 = tp.matmul %c, %wu transpose_b : tensor<16x64xf32>, tensor<32x64xf32> -> tensor<16x32xf32>
  %y2 = tensor.expand_shape %m2 [[0, 1], [2]] output_shape [2, 8, 32] : tensor<16x32xf32> into tensor<2x8x32xf32>
  return %y1, %y2 : tensor<2x8x32xf32>, tensor<2x8x32xf32>
}

// -----

// Only some consumers qualify: the one whose B depends on the gathered value
// keeps reading it from the fused op.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @partial_b_depends_on_gathered
// CHECK-SAME:    (%[[X:.*]]: tensor<16x16xf32>, %[[W:.*]]: tensor<16x16xf32>)
func.func @partial_b_depends_on_gathered(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> (tensor<64x16xf32>, tensor<64x16xf32>) {
  // CHECK-NEXT: %[[R:.*]]:2 = tp.all_gather_matmul %[[X]], [%[[W]]] on @tp axes = [0] dim = 0 return_gathered
  // CHECK-NEXT: %[[S:.*]] = tensor.extract_slice %[[R]]#0[0, 0] [16, 16] [1, 1]
  // CHECK-NEXT: %[[Y2:.*]] = tp.matmul %[[R]]#0, %[[S]]
  // CHECK-NEXT: return %[[R]]#1, %[[Y2]]
  // expected-remark @+1 {{all-gather fused without one of its uses: B depends on the gathered value}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<16x16xf32> -> tensor<64x16xf32>
  %y1 = tp.matmul %g, %w : tensor<64x16xf32>, tensor<16x16xf32> -> tensor<64x16xf32>
  %s = tensor.extract_slice %g[0, 0] [16, 16] [1, 1] : tensor<64x16xf32> to tensor<16x16xf32>
  %y2 = tp.matmul %g, %s : tensor<64x16xf32>, tensor<16x16xf32> -> tensor<64x16xf32>
  return %y1, %y2 : tensor<64x16xf32>, tensor<64x16xf32>
}

// -----

// Consumers with different B layouts: the larger group fuses.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @mixed_b_layouts
// CHECK-SAME:    (%[[X:.*]]: tensor<8x64xf32>, %[[W1:.*]]: tensor<32x64xf32>, %[[W2:.*]]: tensor<32x64xf32>, %[[W3:.*]]: tensor<64x32xf32>)
func.func @mixed_b_layouts(%x: tensor<8x64xf32>, %w1: tensor<32x64xf32>, %w2: tensor<32x64xf32>, %w3: tensor<64x32xf32>)
    -> (tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) {
  // CHECK-NEXT: %[[R:.*]]:3 = tp.all_gather_matmul %[[X]], [%[[W1]], %[[W2]]] on @tp axes = [0] dim = 0 transpose_b return_gathered
  // CHECK-NEXT: %[[Y3:.*]] = tp.matmul %[[R]]#0, %[[W3]] :
  // CHECK-NEXT: return %[[R]]#1, %[[R]]#2, %[[Y3]]
  // expected-remark @+1 {{all-gather fused without one of its uses: its B layout differs from the fused consumers' ([N, K] vs [K, N])}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %y1 = tp.matmul %g, %w1 transpose_b : tensor<32x64xf32>, tensor<32x64xf32> -> tensor<32x32xf32>
  %y2 = tp.matmul %g, %w2 transpose_b : tensor<32x64xf32>, tensor<32x64xf32> -> tensor<32x32xf32>
  %y3 = tp.matmul %g, %w3 : tensor<32x64xf32>, tensor<64x32xf32> -> tensor<32x32xf32>
  return %y1, %y2, %y3 : tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>
}
