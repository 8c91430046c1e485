// RUN: tp-opt %s --tp-async-tp=emit-remarks -split-input-file -verify-diagnostics | FileCheck %s

// FP8 with per-tensor scales: the A scale dequantizes every gathered piece,
// so it must be the same on every rank (here: an argument marked
// tp.replicated).

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @per_tensor
// CHECK-SAME:    (%[[X:.*]]: tensor<8x64xf8E4M3FN>, %[[SX:.*]]: tensor<f32> {tp.replicated}, %[[W:.*]]: tensor<32x64xf8E4M3FN>, %[[SW:.*]]: tensor<f32>)
func.func @per_tensor(%x: tensor<8x64xf8E4M3FN>, %sx: tensor<f32> {tp.replicated}, %w: tensor<32x64xf8E4M3FN>, %sw: tensor<f32>) -> tensor<32x32xbf16> {
  // CHECK-NEXT: %[[Y:.*]] = tp.all_gather_scaled_matmul %[[X]] scale %[[SX]], [%[[W]] scale %[[SW]]] on @tp axes = [0] dim = 0 per_tensor : (tensor<8x64xf8E4M3FN>, tensor<f32>, tensor<32x64xf8E4M3FN>, tensor<f32>) -> tensor<32x32xbf16>
  // CHECK-NEXT: return %[[Y]]
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
  %y = tp.scaled_matmul %g scale %sx, %w scale %sw per_tensor : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<32x64xf8E4M3FN>, tensor<f32>) -> tensor<32x32xbf16>
  return %y : tensor<32x32xbf16>
}

// -----

// Row-wise scales: A's scale is all-gathered alongside A; the fused op takes
// the scale shard and both gathers disappear.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @row_wise_two_consumers
// CHECK-SAME:    (%[[X:.*]]: tensor<8x64xf8E4M3FN>, %[[SX:.*]]: tensor<8x1xf32>, %[[W1:.*]]: tensor<32x64xf8E4M3FN>, %[[S1:.*]]: tensor<32x1xf32>, %[[W2:.*]]: tensor<16x64xf8E4M3FN>, %[[S2:.*]]: tensor<16x1xf32>, %[[B2:.*]]: tensor<16xbf16>)
func.func @row_wise_two_consumers(%x: tensor<8x64xf8E4M3FN>, %sx: tensor<8x1xf32>,
    %w1: tensor<32x64xf8E4M3FN>, %s1: tensor<32x1xf32>, %w2: tensor<16x64xf8E4M3FN>, %s2: tensor<16x1xf32>, %b2: tensor<16xbf16>)
    -> (tensor<32x32xbf16>, tensor<32x16xbf16>) {
  // CHECK-NEXT: %[[R:.*]]:2 = tp.all_gather_scaled_matmul %[[X]] scale %[[SX]], [%[[W1]] scale %[[S1]], %[[W2]] scale %[[S2]] bias %[[B2]]] on @tp axes = [0] dim = 0 row_wise
  // CHECK-NEXT: return %[[R]]#0, %[[R]]#1
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
  %gs = tp.all_gather %sx on @tp axes = [0] dim = 0 : tensor<8x1xf32> -> tensor<32x1xf32>
  %y1 = tp.scaled_matmul %g scale %gs, %w1 scale %s1 row_wise : (tensor<32x64xf8E4M3FN>, tensor<32x1xf32>, tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) -> tensor<32x32xbf16>
  %y2 = tp.scaled_matmul %g scale %gs, %w2 scale %s2 bias %b2 row_wise : (tensor<32x64xf8E4M3FN>, tensor<32x1xf32>, tensor<16x64xf8E4M3FN>, tensor<16x1xf32>, tensor<16xbf16>) -> tensor<32x16xbf16>
  return %y1, %y2 : tensor<32x32xbf16>, tensor<32x16xbf16>
}

// -----

// The reciprocal of A's gathered row-wise scale, taken after the gather and
// after the reshape: it commutes with both, so the fused op takes the
// reciprocal of each rank's shard of the scale.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @row_wise_reciprocal_after_gather
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4x64xf8E4M3FN>, %[[SX:.*]]: tensor<2x4x1xf32>, %[[W:.*]]: tensor<32x64xf8E4M3FN>, %[[SW:.*]]: tensor<32x1xf32>)
func.func @row_wise_reciprocal_after_gather(%x: tensor<2x4x64xf8E4M3FN>, %sx: tensor<2x4x1xf32>, %w: tensor<32x64xf8E4M3FN>, %sw: tensor<32x1xf32>) -> tensor<2x8x32xf32> {
  // CHECK:      %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<2x4x1xf32>
  // CHECK-NEXT: %[[INV:.*]] = arith.divf %[[ONE]], %[[SX]] : tensor<2x4x1xf32>
  // CHECK-NEXT: %[[Y:.*]] = tp.all_gather_scaled_matmul %[[X]] scale %[[INV]], [%[[W]] scale %[[SW]]] on @tp axes = [0] dim = 1 row_wise : (tensor<2x4x64xf8E4M3FN>, tensor<2x4x1xf32>, tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) -> tensor<2x8x32xf32>
  // CHECK-NEXT: return %[[Y]]
  %one = arith.constant dense<1.0> : tensor<16x1xf32>
  %g = tp.all_gather %x on @tp axes = [0] dim = 1 : tensor<2x4x64xf8E4M3FN> -> tensor<2x8x64xf8E4M3FN>
  %gs = tp.all_gather %sx on @tp axes = [0] dim = 1 : tensor<2x4x1xf32> -> tensor<2x8x1xf32>
  %c = tensor.collapse_shape %g [[0, 1], [2]] : tensor<2x8x64xf8E4M3FN> into tensor<16x64xf8E4M3FN>
  %cs = tensor.collapse_shape %gs [[0, 1], [2]] : tensor<2x8x1xf32> into tensor<16x1xf32>
  %inv = arith.divf %one, %cs : tensor<16x1xf32>
  %m = tp.scaled_matmul %c scale %inv, %w scale %sw row_wise : (tensor<16x64xf8E4M3FN>, tensor<16x1xf32>, tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) -> tensor<16x32xf32>
  %y = tensor.expand_shape %m [[0, 1], [2]] output_shape [2, 8, 32] : tensor<16x32xf32> into tensor<2x8x32xf32>
  return %y : tensor<2x8x32xf32>
}

// -----

// Negative: the element-wise op on the gathered scale also reads a gathered
// tensor, so it is not the same op on every shard.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @row_wise_scale_times_tensor_after_gather
func.func @row_wise_scale_times_tensor_after_gather(%x: tensor<8x64xf8E4M3FN>, %sx: tensor<8x1xf32>, %f: tensor<16x1xf32>, %w: tensor<32x64xf8E4M3FN>, %sw: tensor<32x1xf32>) -> tensor<16x32xbf16> {
  // CHECK: tp.all_gather
  // CHECK: tp.scaled_matmul
  // expected-remark @+1 {{all-gather not fused: A's row_wise scale is not all-gathered along with A (same group and dim)}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf8E4M3FN> -> tensor<16x64xf8E4M3FN>
  // expected-remark @+1 {{all-gather not fused: an elementwise op ('arith.mulf') sits between the all-gather and the matmul}}
  %gs = tp.all_gather %sx on @tp axes = [0] dim = 0 : tensor<8x1xf32> -> tensor<16x1xf32>
  %scaled = arith.mulf %gs, %f : tensor<16x1xf32>
  %y = tp.scaled_matmul %g scale %scaled, %w scale %sw row_wise : (tensor<16x64xf8E4M3FN>, tensor<16x1xf32>, tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) -> tensor<16x32xbf16>
  return %y : tensor<16x32xbf16>
}

// -----

// A 3-D activation with row-wise scales through F.linear's reshapes: the
// reference never fuses this form.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @row_wise_reshaped
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4x64xf8E4M3FN>, %[[SX:.*]]: tensor<2x4x1xf32>, %[[W:.*]]: tensor<32x64xf8E4M3FN>, %[[SW:.*]]: tensor<32x1xf32>)
func.func @row_wise_reshaped(%x: tensor<2x4x64xf8E4M3FN>, %sx: tensor<2x4x1xf32>, %w: tensor<32x64xf8E4M3FN>, %sw: tensor<32x1xf32>) -> tensor<2x8x32xf32> {
  // CHECK-NEXT: %[[Y:.*]] = tp.all_gather_scaled_matmul %[[X]] scale %[[SX]], [%[[W]] scale %[[SW]]] on @tp axes = [0] dim = 1 row_wise : (tensor<2x4x64xf8E4M3FN>, tensor<2x4x1xf32>, tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) -> tensor<2x8x32xf32>
  // CHECK-NEXT: return %[[Y]]
  %g = tp.all_gather %x on @tp axes = [0] dim = 1 : tensor<2x4x64xf8E4M3FN> -> tensor<2x8x64xf8E4M3FN>
  %gs = tp.all_gather %sx on @tp axes = [0] dim = 1 : tensor<2x4x1xf32> -> tensor<2x8x1xf32>
  %c = tensor.collapse_shape %g [[0, 1], [2]] : tensor<2x8x64xf8E4M3FN> into tensor<16x64xf8E4M3FN>
  %cs = tensor.collapse_shape %gs [[0, 1], [2]] : tensor<2x8x1xf32> into tensor<16x1xf32>
  %m = tp.scaled_matmul %c scale %cs, %w scale %sw row_wise : (tensor<16x64xf8E4M3FN>, tensor<16x1xf32>, tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) -> tensor<16x32xf32>
  %y = tensor.expand_shape %m [[0, 1], [2]] output_shape [2, 8, 32] : tensor<16x32xf32> into tensor<2x8x32xf32>
  return %y : tensor<2x8x32xf32>
}

// -----

// MXFP8 block scales are gathered with A like row-wise ones.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @mxfp8
// CHECK-SAME:    (%[[X:.*]]: tensor<16x64xf8E4M3FN>, %[[SX:.*]]: tensor<16x2xf8E8M0FNU>
func.func @mxfp8(%x: tensor<16x64xf8E4M3FN>, %sx: tensor<16x2xf8E8M0FNU>, %w: tensor<32x64xf8E4M3FN>, %sw: tensor<32x2xf8E8M0FNU>) -> tensor<32x32xbf16> {
  // CHECK-NEXT: %[[Y:.*]] = tp.all_gather_scaled_matmul %[[X]] scale %[[SX]], [{{.*}}] on @tp axes = [0] dim = 0 mxfp8
  // CHECK-NEXT: return %[[Y]]
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<16x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
  %gs = tp.all_gather %sx on @tp axes = [0] dim = 0 : tensor<16x2xf8E8M0FNU> -> tensor<32x2xf8E8M0FNU>
  %y = tp.scaled_matmul %g scale %gs, %w scale %sw mxfp8 : (tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU>, tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU>) -> tensor<32x32xbf16>
  return %y : tensor<32x32xbf16>
}

// -----

// NVFP4: block scales gathered with A, global scales passed through.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @nvfp4
// CHECK-SAME:    (%[[X:.*]]: tensor<16x64xf4E2M1FN>, %[[SX:.*]]: tensor<16x4xf8E4M3FN>, %[[GX:.*]]: tensor<f32> {tp.replicated}, %[[W:.*]]: tensor<32x64xf4E2M1FN>, %[[SW:.*]]: tensor<32x4xf8E4M3FN>, %[[GW:.*]]: tensor<f32>)
func.func @nvfp4(%x: tensor<16x64xf4E2M1FN>, %sx: tensor<16x4xf8E4M3FN>, %gx: tensor<f32> {tp.replicated},
                 %w: tensor<32x64xf4E2M1FN>, %sw: tensor<32x4xf8E4M3FN>, %gw: tensor<f32>) -> tensor<32x32xbf16> {
  // CHECK-NEXT: %[[Y:.*]] = tp.all_gather_scaled_matmul %[[X]] scale %[[SX]] global %[[GX]], [%[[W]] scale %[[SW]] global %[[GW]]] on @tp axes = [0] dim = 0 nvfp4
  // CHECK-NEXT: return %[[Y]]
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<16x64xf4E2M1FN> -> tensor<32x64xf4E2M1FN>
  %gs = tp.all_gather %sx on @tp axes = [0] dim = 0 : tensor<16x4xf8E4M3FN> -> tensor<32x4xf8E4M3FN>
  %y = tp.scaled_matmul %g scale %gs global %gx, %w scale %sw global %gw nvfp4 : (tensor<32x64xf4E2M1FN>, tensor<32x4xf8E4M3FN>, tensor<f32>, tensor<32x64xf4E2M1FN>, tensor<32x4xf8E4M3FN>, tensor<f32>) -> tensor<32x32xbf16>
  return %y : tensor<32x32xbf16>
}

// -----

// Each rank quantizes its own shard with its own amax: the pieces gathered
// from other ranks would be dequantized with this rank's scale.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @per_tensor_scale_per_rank
func.func @per_tensor_scale_per_rank(%x: tensor<8x64xf32>, %w: tensor<32x64xf8E4M3FN>, %sw: tensor<f32>) -> tensor<32x32xbf16> {
  // CHECK: tp.all_gather
  // CHECK: tp.scaled_matmul
  %q, %s = tp.quantize %x per_tensor : tensor<8x64xf32> -> tensor<8x64xf8E4M3FN>, tensor<f32>
  // expected-remark @+1 {{all-gather not fused: A's per-tensor scale is not known to be the same on every rank of the group (argument #0 of @per_tensor_scale_per_rank, which is not marked tp.replicated), yet it dequantizes the pieces gathered from every rank; compute it from an all-reduce (max) of the ranks' amax, or pass it as an argument marked tp.replicated}}
  %g = tp.all_gather %q on @tp axes = [0] dim = 0 : tensor<8x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
  %y = tp.scaled_matmul %g scale %s, %w scale %sw per_tensor : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<32x64xf8E4M3FN>, tensor<f32>) -> tensor<32x32xbf16>
  return %y : tensor<32x32xbf16>
}

// -----

// The amax all-reduced (max) over the group: every rank quantizes with the
// same scale, which the fused op may share.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @per_tensor_amax_all_reduced
// CHECK-SAME:    (%[[X:.*]]: tensor<8x64xf32>, %[[A:.*]]: tensor<f32>, %[[W:.*]]: tensor<32x64xf8E4M3FN>, %[[SW:.*]]: tensor<f32>)
func.func @per_tensor_amax_all_reduced(%x: tensor<8x64xf32>, %amax: tensor<f32>, %w: tensor<32x64xf8E4M3FN>, %sw: tensor<f32>) -> tensor<32x32xbf16> {
  // CHECK-NEXT: %[[M:.*]] = tp.all_reduce %[[A]] on @tp axes = [0] reduce = max
  // CHECK-NEXT: %[[Q:.*]], %[[S:.*]] = tp.quantize %[[X]] amax %[[M]] per_tensor
  // CHECK-NEXT: %[[Y:.*]] = tp.all_gather_scaled_matmul %[[Q]] scale %[[S]], [%[[W]] scale %[[SW]]] on @tp axes = [0] dim = 0 per_tensor
  // CHECK-NEXT: return %[[Y]]
  %m = tp.all_reduce %amax on @tp axes = [0] reduce = max : tensor<f32>
  %q, %s = tp.quantize %x amax %m per_tensor : tensor<8x64xf32> -> tensor<8x64xf8E4M3FN>, tensor<f32>
  %g = tp.all_gather %q on @tp axes = [0] dim = 0 : tensor<8x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
  %y = tp.scaled_matmul %g scale %s, %w scale %sw per_tensor : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<32x64xf8E4M3FN>, tensor<f32>) -> tensor<32x32xbf16>
  return %y : tensor<32x32xbf16>
}

// -----

// An all-reduce over another grid axis does not make the scale uniform
// along the gather's axis.

shard.grid @tp2d(shape = 2x4)

// CHECK-LABEL: func.func @amax_reduced_over_another_axis
func.func @amax_reduced_over_another_axis(%x: tensor<8x64xf32>, %amax: tensor<f32>, %w: tensor<32x64xf8E4M3FN>, %sw: tensor<f32>) -> tensor<32x32xbf16> {
  // CHECK: tp.all_gather
  // CHECK: tp.scaled_matmul
  %m = tp.all_reduce %amax on @tp2d axes = [0] reduce = max : tensor<f32>
  %q, %s = tp.quantize %x amax %m per_tensor : tensor<8x64xf32> -> tensor<8x64xf8E4M3FN>, tensor<f32>
  // expected-remark @+1 {{all-gather not fused: A's per-tensor scale is not known to be the same on every rank of the group ('tp.all_reduce' over a group that does not contain this one)}}
  %g = tp.all_gather %q on @tp2d axes = [1] dim = 0 : tensor<8x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
  %y = tp.scaled_matmul %g scale %s, %w scale %sw per_tensor : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<32x64xf8E4M3FN>, tensor<f32>) -> tensor<32x32xbf16>
  return %y : tensor<32x32xbf16>
}

// -----

// NVFP4's global scale dequantizes every gathered piece too.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @nvfp4_global_per_rank
func.func @nvfp4_global_per_rank(%x: tensor<16x64xf32>, %w: tensor<32x64xf4E2M1FN>, %sw: tensor<32x4xf8E4M3FN>, %gw: tensor<f32>) -> tensor<32x32xbf16> {
  // CHECK: tp.all_gather
  // CHECK: tp.scaled_matmul
  %q, %s, %gx = tp.quantize %x nvfp4 : tensor<16x64xf32> -> tensor<16x64xf4E2M1FN>, tensor<16x4xf8E4M3FN>, tensor<f32>
  // expected-remark @+1 {{all-gather not fused: A's global scale is not known to be the same on every rank of the group (argument #0 of @nvfp4_global_per_rank, which is not marked tp.replicated)}}
  %g = tp.all_gather %q on @tp axes = [0] dim = 0 : tensor<16x64xf4E2M1FN> -> tensor<32x64xf4E2M1FN>
  %gs = tp.all_gather %s on @tp axes = [0] dim = 0 : tensor<16x4xf8E4M3FN> -> tensor<32x4xf8E4M3FN>
  %y = tp.scaled_matmul %g scale %gs global %gx, %w scale %sw global %gw nvfp4 : (tensor<32x64xf4E2M1FN>, tensor<32x4xf8E4M3FN>, tensor<f32>, tensor<32x64xf4E2M1FN>, tensor<32x4xf8E4M3FN>, tensor<f32>) -> tensor<32x32xbf16>
  return %y : tensor<32x32xbf16>
}

// -----

// Negative: the row-wise A scale is not gathered along with A.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @row_wise_scale_not_gathered
func.func @row_wise_scale_not_gathered(%x: tensor<8x64xf8E4M3FN>, %sx: tensor<32x1xf32>, %w: tensor<32x64xf8E4M3FN>, %sw: tensor<32x1xf32>) -> tensor<32x32xbf16> {
  // CHECK: tp.all_gather
  // CHECK: tp.scaled_matmul
  // expected-remark @+1 {{all-gather not fused: A's row_wise scale is not all-gathered along with A (same group and dim)}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
  %y = tp.scaled_matmul %g scale %sx, %w scale %sw row_wise : (tensor<32x64xf8E4M3FN>, tensor<32x1xf32>, tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) -> tensor<32x32xbf16>
  return %y : tensor<32x32xbf16>
}

// -----

// Consumers with different A scales cannot share one fused op: the first
// group fuses, the other keeps the gathered value.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @different_a_scales
// CHECK-SAME:    (%[[X:.*]]: tensor<8x64xf8E4M3FN>, %[[S1:.*]]: tensor<f32> {tp.replicated}, %[[S2:.*]]: tensor<f32> {tp.replicated}, %[[W:.*]]: tensor<32x64xf8E4M3FN>, %[[SW:.*]]: tensor<f32>)
func.func @different_a_scales(%x: tensor<8x64xf8E4M3FN>, %s1: tensor<f32> {tp.replicated}, %s2: tensor<f32> {tp.replicated}, %w: tensor<32x64xf8E4M3FN>, %sw: tensor<f32>) -> (tensor<32x32xbf16>, tensor<32x32xbf16>) {
  // CHECK-NEXT: %[[R:.*]]:3 = tp.all_gather_scaled_matmul %[[X]] scale %[[S1]], [%[[W]] scale %[[SW]]] on @tp axes = [0] dim = 0 per_tensor return_gathered
  // CHECK-NEXT: %[[Y2:.*]] = tp.scaled_matmul %[[R]]#0 scale %[[S2]]
  // CHECK-NEXT: return %[[R]]#2, %[[Y2]]
  // expected-remark @+1 {{all-gather fused without one of its uses: it uses a different A scale than the fused consumers}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
  %y1 = tp.scaled_matmul %g scale %s1, %w scale %sw per_tensor : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<32x64xf8E4M3FN>, tensor<f32>) -> tensor<32x32xbf16>
  %y2 = tp.scaled_matmul %g scale %s2, %w scale %sw per_tensor : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<32x64xf8E4M3FN>, tensor<f32>) -> tensor<32x32xbf16>
  return %y1, %y2 : tensor<32x32xbf16>, tensor<32x32xbf16>
}

// -----

// Negative: a scaled gather of the last (K) dim.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @scaled_gather_of_k
func.func @scaled_gather_of_k(%x: tensor<32x16xf8E4M3FN>, %sx: tensor<f32>, %w: tensor<32x64xf8E4M3FN>, %sw: tensor<f32>) -> tensor<32x32xbf16> {
  // CHECK: tp.all_gather
  // expected-remark @+1 {{all-gather not fused: the scaled all-gather is along the last (K) dim, which scales run along}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 1 : tensor<32x16xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
  %y = tp.scaled_matmul %g scale %sx, %w scale %sw per_tensor : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<32x64xf8E4M3FN>, tensor<f32>) -> tensor<32x32xbf16>
  return %y : tensor<32x32xbf16>
}

// -----

// Negative: B's scale depends on the gathered value.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @b_scale_depends_on_gathered
func.func @b_scale_depends_on_gathered(%x: tensor<8x64xf8E4M3FN>, %sx: tensor<f32> {tp.replicated}, %w: tensor<32x64xf8E4M3FN>) -> tensor<32x32xbf16> {
  // CHECK: tp.all_gather
  // expected-remark @+1 {{all-gather not fused: B's scale depends on the gathered value}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
  %f = tp.dequantize %g scale %sx per_tensor : (tensor<32x64xf8E4M3FN>, tensor<f32>) -> tensor<32x64xf32>
  %q, %sw = tp.quantize %f per_tensor : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<f32>
  %y = tp.scaled_matmul %g scale %sx, %w scale %sw per_tensor : (tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<32x64xf8E4M3FN>, tensor<f32>) -> tensor<32x32xbf16>
  return %y : tensor<32x32xbf16>
}

// -----

// Scaled matmul -> reduce-scatter, with F.linear's reshapes and row-wise scales.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @scaled_reduce_scatter
// CHECK-SAME:    (%[[H:.*]]: tensor<2x8x64xf8E4M3FN>, %[[SH:.*]]: tensor<2x8x1xf32>, %[[W:.*]]: tensor<32x64xf8E4M3FN>, %[[SW:.*]]: tensor<32x1xf32>, %[[B:.*]]: tensor<32xbf16>)
func.func @scaled_reduce_scatter(%h: tensor<2x8x64xf8E4M3FN>, %sh: tensor<2x8x1xf32>, %w: tensor<32x64xf8E4M3FN>, %sw: tensor<32x1xf32>, %b: tensor<32xbf16>) -> tensor<2x4x32xbf16> {
  // CHECK-NEXT: %[[Y:.*]] = tp.scaled_matmul_reduce_scatter %[[H]] scale %[[SH]], %[[W]] scale %[[SW]] bias %[[B]] on @tp axes = [0] dim = 1 reduce = sum row_wise : (tensor<2x8x64xf8E4M3FN>, tensor<2x8x1xf32>, tensor<32x64xf8E4M3FN>, tensor<32x1xf32>, tensor<32xbf16>) -> tensor<2x4x32xbf16>
  // CHECK-NEXT: return %[[Y]]
  %c = tensor.collapse_shape %h [[0, 1], [2]] : tensor<2x8x64xf8E4M3FN> into tensor<16x64xf8E4M3FN>
  %cs = tensor.collapse_shape %sh [[0, 1], [2]] : tensor<2x8x1xf32> into tensor<16x1xf32>
  %m = tp.scaled_matmul %c scale %cs, %w scale %sw row_wise : (tensor<16x64xf8E4M3FN>, tensor<16x1xf32>, tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) -> tensor<16x32xbf16>
  %p = tensor.expand_shape %m [[0, 1], [2]] output_shape [2, 8, 32] : tensor<16x32xbf16> into tensor<2x8x32xbf16>
  %r = tp.reduce_scatter %p on @tp axes = [0] dim = 1 reduce = sum : tensor<2x8x32xbf16> -> tensor<2x4x32xbf16>
  %y = tp.bias_add %r, %b : tensor<2x4x32xbf16>, tensor<32xbf16>
  return %y : tensor<2x4x32xbf16>
}

// -----

// PyTorch's reshape_mm_reshape row-wise case: the reciprocal of A's scale is
// taken after the scale's reshape. It commutes with the reshape, so the fused
// op takes the reciprocal of the scale before it.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @scaled_reduce_scatter_reciprocal_after_reshape
// CHECK-SAME:    (%[[H:.*]]: tensor<2x8x64xf8E4M3FN>, %[[SH:.*]]: tensor<2x8x1xf32>, %[[W:.*]]: tensor<32x64xf8E4M3FN>, %[[SW:.*]]: tensor<32x1xf32>)
func.func @scaled_reduce_scatter_reciprocal_after_reshape(%h: tensor<2x8x64xf8E4M3FN>, %sh: tensor<2x8x1xf32>, %w: tensor<32x64xf8E4M3FN>, %sw: tensor<32x1xf32>) -> tensor<2x4x32xbf16> {
  // CHECK:      %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<2x8x1xf32>
  // CHECK-NEXT: %[[INV:.*]] = arith.divf %[[ONE]], %[[SH]] fastmath<afn> : tensor<2x8x1xf32>
  // CHECK-NEXT: %[[Y:.*]] = tp.scaled_matmul_reduce_scatter %[[H]] scale %[[INV]], %[[W]] scale %[[SW]] on @tp axes = [0] dim = 1 reduce = sum row_wise : (tensor<2x8x64xf8E4M3FN>, tensor<2x8x1xf32>, tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) -> tensor<2x4x32xbf16>
  // CHECK-NEXT: return %[[Y]]
  %one = arith.constant dense<1.0> : tensor<16x1xf32>
  %c = tensor.collapse_shape %h [[0, 1], [2]] : tensor<2x8x64xf8E4M3FN> into tensor<16x64xf8E4M3FN>
  %cs = tensor.collapse_shape %sh [[0, 1], [2]] : tensor<2x8x1xf32> into tensor<16x1xf32>
  %inv = arith.divf %one, %cs fastmath<afn> : tensor<16x1xf32>
  %m = tp.scaled_matmul %c scale %inv, %w scale %sw row_wise : (tensor<16x64xf8E4M3FN>, tensor<16x1xf32>, tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) -> tensor<16x32xbf16>
  %p = tensor.expand_shape %m [[0, 1], [2]] output_shape [2, 8, 32] : tensor<16x32xbf16> into tensor<2x8x32xbf16>
  %r = tp.reduce_scatter %p on @tp axes = [0] dim = 1 reduce = sum : tensor<2x8x32xbf16> -> tensor<2x4x32xbf16>
  return %r : tensor<2x4x32xbf16>
}

// -----

// Negative: the element-wise op after the scale's reshape also reads a value
// that is not a splat constant, so it does not commute with the reshape.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @scaled_scale_times_tensor_after_reshape
func.func @scaled_scale_times_tensor_after_reshape(%h: tensor<2x8x64xf8E4M3FN>, %sh: tensor<2x8x1xf32>, %f: tensor<16x1xf32>, %w: tensor<32x64xf8E4M3FN>, %sw: tensor<32x1xf32>) -> tensor<2x4x32xbf16> {
  // CHECK: arith.mulf
  // CHECK: tp.scaled_matmul
  // CHECK: tp.reduce_scatter
  %c = tensor.collapse_shape %h [[0, 1], [2]] : tensor<2x8x64xf8E4M3FN> into tensor<16x64xf8E4M3FN>
  %cs = tensor.collapse_shape %sh [[0, 1], [2]] : tensor<2x8x1xf32> into tensor<16x1xf32>
  %scaled = arith.mulf %cs, %f : tensor<16x1xf32>
  %m = tp.scaled_matmul %c scale %scaled, %w scale %sw row_wise : (tensor<16x64xf8E4M3FN>, tensor<16x1xf32>, tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) -> tensor<16x32xbf16>
  %p = tensor.expand_shape %m [[0, 1], [2]] output_shape [2, 8, 32] : tensor<16x32xbf16> into tensor<2x8x32xbf16>
  // expected-remark @+1 {{reduce-scatter not fused: A's scale is not reshaped along with A}}
  %r = tp.reduce_scatter %p on @tp axes = [0] dim = 1 reduce = sum : tensor<2x8x32xbf16> -> tensor<2x4x32xbf16>
  return %r : tensor<2x4x32xbf16>
}

// -----

// Negative: the scaled matmul's own bias is added before the reduction.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @scaled_bias_before_reduction
func.func @scaled_bias_before_reduction(%h: tensor<16x64xf8E4M3FN>, %sh: tensor<f32>, %w: tensor<32x64xf8E4M3FN>, %sw: tensor<f32>, %b: tensor<32xf32>) -> tensor<8x32xf32> {
  // CHECK: tp.scaled_matmul
  // CHECK: tp.reduce_scatter
  %m = tp.scaled_matmul %h scale %sh, %w scale %sw bias %b per_tensor : (tensor<16x64xf8E4M3FN>, tensor<f32>, tensor<32x64xf8E4M3FN>, tensor<f32>, tensor<32xf32>) -> tensor<16x32xf32>
  // expected-remark @+1 {{reduce-scatter not fused: the scaled matmul adds its bias before the reduce-scatter, so the bias is summed over the group}}
  %r = tp.reduce_scatter %m on @tp axes = [0] dim = 0 reduce = sum : tensor<16x32xf32> -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}

// -----

// Negative: row-wise A scale of the reshaped scaled matmul is not a reshape of
// a scale of A's rank.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @scaled_scale_not_reshaped
func.func @scaled_scale_not_reshaped(%h: tensor<2x8x64xf8E4M3FN>, %sh: tensor<16x1xf32>, %w: tensor<32x64xf8E4M3FN>, %sw: tensor<32x1xf32>) -> tensor<2x4x32xbf16> {
  // CHECK: tp.reduce_scatter
  %c = tensor.collapse_shape %h [[0, 1], [2]] : tensor<2x8x64xf8E4M3FN> into tensor<16x64xf8E4M3FN>
  %m = tp.scaled_matmul %c scale %sh, %w scale %sw row_wise : (tensor<16x64xf8E4M3FN>, tensor<16x1xf32>, tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) -> tensor<16x32xbf16>
  %p = tensor.expand_shape %m [[0, 1], [2]] output_shape [2, 8, 32] : tensor<16x32xbf16> into tensor<2x8x32xbf16>
  // expected-remark @+1 {{reduce-scatter not fused: A's scale is not reshaped along with A}}
  %r = tp.reduce_scatter %p on @tp axes = [0] dim = 1 reduce = sum : tensor<2x8x32xbf16> -> tensor<2x4x32xbf16>
  return %r : tensor<2x4x32xbf16>
}

// -----

// Negative: a 2-D scaled matmul's product split into leading dims before the
// reduce-scatter. The remark says what differs from tp.matmul, which fuses
// this form, and which form fuses.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @scaled_matrix_product_expanded
// CHECK-SAME:    (%[[A:.*]]: tensor<16x64xf8E4M3FN>, %[[SA:.*]]: tensor<16x1xf32>, %[[W:.*]]: tensor<32x64xf8E4M3FN>, %[[SW:.*]]: tensor<32x1xf32>)
func.func @scaled_matrix_product_expanded(%a: tensor<16x64xf8E4M3FN>, %sa: tensor<16x1xf32>, %w: tensor<32x64xf8E4M3FN>, %sw: tensor<32x1xf32>) -> tensor<2x4x32xbf16> {
  // CHECK-NEXT: %[[M:.*]] = tp.scaled_matmul %[[A]] scale %[[SA]], %[[W]] scale %[[SW]] row_wise
  // CHECK-NEXT: %[[P:.*]] = tensor.expand_shape %[[M]]
  // CHECK-NEXT: %[[R:.*]] = tp.reduce_scatter %[[P]]
  // CHECK-NEXT: return %[[R]]
  %m = tp.scaled_matmul %a scale %sa, %w scale %sw row_wise : (tensor<16x64xf8E4M3FN>, tensor<16x1xf32>, tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) -> tensor<16x32xbf16>
  %p = tensor.expand_shape %m [[0, 1], [2]] output_shape [2, 8, 32] : tensor<16x32xbf16> into tensor<2x8x32xbf16>
  // expected-remark @+1 {{reduce-scatter not fused: the 2-D product of a scaled matmul is split into leading dims before the reduce-scatter, and A's scales are not split to match it (a tp.matmul's are): reshape A before the scaled matmul instead (collapse, scaled matmul, expand fuses)}}
  %r = tp.reduce_scatter %p on @tp axes = [0] dim = 1 reduce = sum : tensor<2x8x32xbf16> -> tensor<2x4x32xbf16>
  return %r : tensor<2x4x32xbf16>
}

// -----

// Negative: an addend on a scaled product (the scaled fused op has none).

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @scaled_addend
func.func @scaled_addend(%h: tensor<2x8x64xf8E4M3FN>, %sh: tensor<f32>, %w: tensor<32x64xf8E4M3FN>, %sw: tensor<f32>, %d: tensor<2x8x32xbf16>) -> tensor<2x4x32xbf16> {
  // CHECK: tp.reduce_scatter
  %c = tensor.collapse_shape %h [[0, 1], [2]] : tensor<2x8x64xf8E4M3FN> into tensor<16x64xf8E4M3FN>
  %m = tp.scaled_matmul %c scale %sh, %w scale %sw per_tensor : (tensor<16x64xf8E4M3FN>, tensor<f32>, tensor<32x64xf8E4M3FN>, tensor<f32>) -> tensor<16x32xbf16>
  %p = tensor.expand_shape %m [[0, 1], [2]] output_shape [2, 8, 32] : tensor<16x32xbf16> into tensor<2x8x32xbf16>
  %s = arith.addf %p, %d : tensor<2x8x32xbf16>
  // expected-remark @+1 {{reduce-scatter not fused: an addend sits between the scaled matmul and the reduce-scatter}}
  %r = tp.reduce_scatter %s on @tp axes = [0] dim = 1 reduce = sum : tensor<2x8x32xbf16> -> tensor<2x4x32xbf16>
  return %r : tensor<2x4x32xbf16>
}

// -----

// A scale's all-gather that comes first is not a miss of its own: it fuses
// with its data's all-gather.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @scale_gathered_first
// CHECK-NEXT:  tp.all_gather_scaled_matmul
// CHECK-NEXT:  return
func.func @scale_gathered_first(%x: tensor<8x64xf8E4M3FN>, %sx: tensor<8x1xf32>, %w: tensor<32x64xf8E4M3FN>, %sw: tensor<32x1xf32>) -> tensor<32x32xbf16> {
  %gs = tp.all_gather %sx on @tp axes = [0] dim = 0 : tensor<8x1xf32> -> tensor<32x1xf32>
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
  %y = tp.scaled_matmul %g scale %gs, %w scale %sw row_wise : (tensor<32x64xf8E4M3FN>, tensor<32x1xf32>, tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) -> tensor<32x32xbf16>
  return %y : tensor<32x32xbf16>
}
