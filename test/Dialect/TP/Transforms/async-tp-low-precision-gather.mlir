// RUN: tp-opt %s --tp-async-tp=emit-remarks -split-input-file -verify-diagnostics | FileCheck %s
// RUN: tp-opt %s --tp-async-tp=stats -split-input-file 2>&1 | FileCheck %s --check-prefix=STATS

// An activation dequantized before its all-gather: the gather moves the FP8
// data (a quarter of the f32 bytes) and the scaled GEMM fuses with it. The
// per-tensor scale is the same on every rank (an argument marked
// tp.replicated), so it dequantizes every rank's piece.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @per_tensor
// CHECK-SAME:    (%[[X:.*]]: tensor<8x64xf8E4M3FN>, %[[SX:.*]]: tensor<f32> {tp.replicated}, %[[W:.*]]: tensor<32x64xf8E4M3FN>, %[[SW:.*]]: tensor<f32>)
func.func @per_tensor(%x: tensor<8x64xf8E4M3FN>, %sx: tensor<f32> {tp.replicated}, %w: tensor<32x64xf8E4M3FN>, %sw: tensor<f32>) -> tensor<32x32xf32> {
  // CHECK-NEXT: %[[Y:.*]] = tp.all_gather_scaled_matmul %[[X]] scale %[[SX]], [%[[W]] scale %[[SW]]] on @tp axes = [0] dim = 0 per_tensor : (tensor<8x64xf8E4M3FN>, tensor<f32>, tensor<32x64xf8E4M3FN>, tensor<f32>) -> tensor<32x32xf32>
  // CHECK-NEXT: return %[[Y]]
  %dx = tp.dequantize %x scale %sx per_tensor : (tensor<8x64xf8E4M3FN>, tensor<f32>) -> tensor<8x64xf32>
  // expected-remark @below {{all-gather moves f8E4M3FN data instead of f32: 1536 bytes per rank instead of 6144}}
  %g = tp.all_gather %dx on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %dw = tp.dequantize %w scale %sw per_tensor : (tensor<32x64xf8E4M3FN>, tensor<f32>) -> tensor<32x64xf32>
  %y = tp.matmul %g, %dw transpose_b : tensor<32x64xf32>, tensor<32x64xf32> -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}
// STATS: tp-async-tp: 0 all-gather-matmul (1 matmuls absorbed), 0 matmul-reduce-scatter, 1 all-gather-scaled-matmul, 0 scaled-matmul-reduce-scatter, 0 all-gather-contract, 0 collectives left unfused; 1 all-gather narrowed (1536 instead of 6144 bytes per rank){{$}}

// -----

// A per-tensor weight given as [K, N], dequantized to bf16: the scaled GEMM
// takes the FP8 weight transposed, computed once above the fused op.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @weight_k_by_n
// CHECK-SAME:    (%[[X:.*]]: tensor<8x64xf8E4M3FN>, %[[SX:.*]]: tensor<f32> {tp.replicated}, %[[W:.*]]: tensor<64x32xf8E4M3FN>, %[[SW:.*]]: tensor<f32>)
func.func @weight_k_by_n(%x: tensor<8x64xf8E4M3FN>, %sx: tensor<f32> {tp.replicated}, %w: tensor<64x32xf8E4M3FN>, %sw: tensor<f32>) -> tensor<32x32xbf16> {
  // CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<32x64xf8E4M3FN>
  // CHECK-NEXT: %[[WT:.*]] = linalg.transpose ins(%[[W]] : tensor<64x32xf8E4M3FN>) outs(%[[E]] : tensor<32x64xf8E4M3FN>) permutation = [1, 0]
  // CHECK-NEXT: %[[Y:.*]] = tp.all_gather_scaled_matmul %[[X]] scale %[[SX]], [%[[WT]] scale %[[SW]]] on @tp axes = [0] dim = 0 per_tensor : (tensor<8x64xf8E4M3FN>, tensor<f32>, tensor<32x64xf8E4M3FN>, tensor<f32>) -> tensor<32x32xbf16>
  // CHECK-NEXT: return %[[Y]]
  %dx = tp.dequantize %x scale %sx per_tensor : (tensor<8x64xf8E4M3FN>, tensor<f32>) -> tensor<8x64xbf16>
  // expected-remark @below {{all-gather moves f8E4M3FN data instead of bf16: 1536 bytes per rank instead of 3072}}
  %g = tp.all_gather %dx on @tp axes = [0] dim = 0 : tensor<8x64xbf16> -> tensor<32x64xbf16>
  %dw = tp.dequantize %w scale %sw per_tensor : (tensor<64x32xf8E4M3FN>, tensor<f32>) -> tensor<64x32xbf16>
  %y = tp.matmul %g, %dw : tensor<32x64xbf16>, tensor<64x32xbf16> -> tensor<32x32xbf16>
  return %y : tensor<32x32xbf16>
}

// -----

// Row-wise scales travel with their rows: a 3-D activation gathered along the
// sequence, through F.linear's reshapes.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @row_wise_sequence
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4x64xf8E4M3FN>, %[[SX:.*]]: tensor<2x4x1xf32>, %[[W:.*]]: tensor<32x64xf8E4M3FN>, %[[SW:.*]]: tensor<32x1xf32>)
func.func @row_wise_sequence(%x: tensor<2x4x64xf8E4M3FN>, %sx: tensor<2x4x1xf32>, %w: tensor<32x64xf8E4M3FN>, %sw: tensor<32x1xf32>) -> tensor<2x16x32xf32> {
  // CHECK-NEXT: %[[Y:.*]] = tp.all_gather_scaled_matmul %[[X]] scale %[[SX]], [%[[W]] scale %[[SW]]] on @tp axes = [0] dim = 1 row_wise : (tensor<2x4x64xf8E4M3FN>, tensor<2x4x1xf32>, tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) -> tensor<2x16x32xf32>
  // CHECK-NEXT: return %[[Y]]
  %dx = tp.dequantize %x scale %sx row_wise : (tensor<2x4x64xf8E4M3FN>, tensor<2x4x1xf32>) -> tensor<2x4x64xf32>
  // expected-remark @below {{all-gather moves f8E4M3FN data and its scales instead of f32: 1632 bytes per rank instead of 6144}}
  %g = tp.all_gather %dx on @tp axes = [0] dim = 1 : tensor<2x4x64xf32> -> tensor<2x16x64xf32>
  %c = tensor.collapse_shape %g [[0, 1], [2]] : tensor<2x16x64xf32> into tensor<32x64xf32>
  %dw = tp.dequantize %w scale %sw row_wise : (tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) -> tensor<32x64xf32>
  %m = tp.matmul %c, %dw transpose_b : tensor<32x64xf32>, tensor<32x64xf32> -> tensor<32x32xf32>
  %y = tensor.expand_shape %m [[0, 1], [2]] output_shape [2, 16, 32] : tensor<32x32xf32> into tensor<2x16x32xf32>
  return %y : tensor<2x16x32xf32>
}

// -----

// MXFP8 on the bmm path: a batched matmul with one 2-D weight.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @mxfp8_batched
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4x64xf8E4M3FN>, %[[SX:.*]]: tensor<2x4x2xf8E8M0FNU>, %[[W:.*]]: tensor<32x64xf8E4M3FN>, %[[SW:.*]]: tensor<32x2xf8E8M0FNU>)
func.func @mxfp8_batched(%x: tensor<2x4x64xf8E4M3FN>, %sx: tensor<2x4x2xf8E8M0FNU>, %w: tensor<32x64xf8E4M3FN>, %sw: tensor<32x2xf8E8M0FNU>) -> tensor<2x16x32xf32> {
  // CHECK-NEXT: %[[Y:.*]] = tp.all_gather_scaled_matmul %[[X]] scale %[[SX]], [%[[W]] scale %[[SW]]] on @tp axes = [0] dim = 1 mxfp8 : (tensor<2x4x64xf8E4M3FN>, tensor<2x4x2xf8E8M0FNU>, tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU>) -> tensor<2x16x32xf32>
  // CHECK-NEXT: return %[[Y]]
  %dx = tp.dequantize %x scale %sx mxfp8 : (tensor<2x4x64xf8E4M3FN>, tensor<2x4x2xf8E8M0FNU>) -> tensor<2x4x64xf32>
  // expected-remark @below {{all-gather moves f8E4M3FN data and its scales instead of f32: 1584 bytes per rank instead of 6144}}
  %g = tp.all_gather %dx on @tp axes = [0] dim = 1 : tensor<2x4x64xf32> -> tensor<2x16x64xf32>
  %dw = tp.dequantize %w scale %sw mxfp8 : (tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU>) -> tensor<32x64xf32>
  %y = tp.batch_matmul %g, %dw transpose_b : tensor<2x16x64xf32>, tensor<32x64xf32> -> tensor<2x16x32xf32>
  return %y : tensor<2x16x32xf32>
}

// -----

// NVFP4: half a byte per element, block scales gathered with the data, the
// global scale shared by the group (tp.replicated).

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @nvfp4
// CHECK-SAME:    (%[[X:.*]]: tensor<8x64xf4E2M1FN>, %[[SX:.*]]: tensor<8x4xf8E4M3FN>, %[[GX:.*]]: tensor<f32> {tp.replicated}, %[[W:.*]]: tensor<32x64xf4E2M1FN>, %[[SW:.*]]: tensor<32x4xf8E4M3FN>, %[[GW:.*]]: tensor<f32>)
func.func @nvfp4(%x: tensor<8x64xf4E2M1FN>, %sx: tensor<8x4xf8E4M3FN>, %gx: tensor<f32> {tp.replicated},
    %w: tensor<32x64xf4E2M1FN>, %sw: tensor<32x4xf8E4M3FN>, %gw: tensor<f32>) -> tensor<16x32xbf16> {
  // CHECK-NEXT: %[[Y:.*]] = tp.all_gather_scaled_matmul %[[X]] scale %[[SX]] global %[[GX]], [%[[W]] scale %[[SW]] global %[[GW]]] on @tp axes = [0] dim = 0 nvfp4
  // CHECK-NEXT: return %[[Y]]
  %dx = tp.dequantize %x scale %sx global %gx nvfp4 : (tensor<8x64xf4E2M1FN>, tensor<8x4xf8E4M3FN>, tensor<f32>) -> tensor<8x64xbf16>
  // expected-remark @below {{all-gather moves f4E2M1FN data and its scales instead of bf16: 544 bytes per rank instead of 1024}}
  %g = tp.all_gather %dx on @tp axes = [0] dim = 0 : tensor<8x64xbf16> -> tensor<16x64xbf16>
  %dw = tp.dequantize %w scale %sw global %gw nvfp4 : (tensor<32x64xf4E2M1FN>, tensor<32x4xf8E4M3FN>, tensor<f32>) -> tensor<32x64xbf16>
  %y = tp.matmul %g, %dw transpose_b : tensor<16x64xbf16>, tensor<32x64xbf16> -> tensor<16x32xbf16>
  return %y : tensor<16x32xbf16>
}

// -----

// Gathered in FP8 by the program itself and dequantized next to the dot (as
// XLA writes it): the matmul becomes the scaled one, and it fuses.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @dequantized_after_gather
// CHECK-SAME:    (%[[X:.*]]: tensor<8x64xf8E4M3FN>, %[[SX:.*]]: tensor<8x1xf32>, %[[W:.*]]: tensor<32x64xf8E4M3FN>, %[[SW:.*]]: tensor<32x1xf32>)
func.func @dequantized_after_gather(%x: tensor<8x64xf8E4M3FN>, %sx: tensor<8x1xf32>, %w: tensor<32x64xf8E4M3FN>, %sw: tensor<32x1xf32>) -> tensor<32x32xf32> {
  // CHECK-NEXT: %[[Y:.*]] = tp.all_gather_scaled_matmul %[[X]] scale %[[SX]], [%[[W]] scale %[[SW]]] on @tp axes = [0] dim = 0 row_wise : (tensor<8x64xf8E4M3FN>, tensor<8x1xf32>, tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) -> tensor<32x32xf32>
  // CHECK-NEXT: return %[[Y]]
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
  %gs = tp.all_gather %sx on @tp axes = [0] dim = 0 : tensor<8x1xf32> -> tensor<32x1xf32>
  %dx = tp.dequantize %g scale %gs row_wise : (tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) -> tensor<32x64xf32>
  %dw = tp.dequantize %w scale %sw row_wise : (tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) -> tensor<32x64xf32>
  %y = tp.matmul %dx, %dw transpose_b : tensor<32x64xf32>, tensor<32x64xf32> -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

// -----

// The dequantized value has another use (saved for backward, say): it is
// computed again from the gathered FP8 data, which the fused op returns.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @gathered_value_also_saved
// CHECK-SAME:    (%[[X:.*]]: tensor<8x64xf8E4M3FN>, %[[SX:.*]]: tensor<8x1xf32>, %[[W:.*]]: tensor<32x64xf8E4M3FN>, %[[SW:.*]]: tensor<32x1xf32>)
func.func @gathered_value_also_saved(%x: tensor<8x64xf8E4M3FN>, %sx: tensor<8x1xf32>, %w: tensor<32x64xf8E4M3FN>, %sw: tensor<32x1xf32>) -> (tensor<32x32xf32>, tensor<32x64xf32>) {
  // CHECK-NEXT: %[[R:.*]]:3 = tp.all_gather_scaled_matmul %[[X]] scale %[[SX]], [%[[W]] scale %[[SW]]] on @tp axes = [0] dim = 0 row_wise return_gathered : (tensor<8x64xf8E4M3FN>, tensor<8x1xf32>, tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) -> (tensor<32x64xf8E4M3FN>, tensor<32x1xf32>, tensor<32x32xf32>)
  // CHECK-NEXT: %[[D:.*]] = tp.dequantize %[[R]]#0 scale %[[R]]#1 row_wise : (tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) -> tensor<32x64xf32>
  // CHECK-NEXT: return %[[R]]#2, %[[D]]
  %dx = tp.dequantize %x scale %sx row_wise : (tensor<8x64xf8E4M3FN>, tensor<8x1xf32>) -> tensor<8x64xf32>
  // expected-remark @below {{all-gather moves f8E4M3FN data and its scales instead of f32}}
  %g = tp.all_gather %dx on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %dw = tp.dequantize %w scale %sw row_wise : (tensor<32x64xf8E4M3FN>, tensor<32x1xf32>) -> tensor<32x64xf32>
  %y = tp.matmul %g, %dw transpose_b : tensor<32x64xf32>, tensor<32x64xf32> -> tensor<32x32xf32>
  return %y, %g : tensor<32x32xf32>, tensor<32x64xf32>
}

// -----

// A widening cast before a gather that feeds no matmul (sequence-parallel
// glue): the gather moves bf16, and the cast follows it.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @widened_glue
// CHECK-SAME:    (%[[X:.*]]: tensor<8x64xbf16>)
func.func @widened_glue(%x: tensor<8x64xbf16>) -> tensor<32x64xf32> {
  // CHECK-NEXT: %[[G:.*]] = tp.all_gather %[[X]] on @tp axes = [0] dim = 0 : tensor<8x64xbf16> -> tensor<32x64xbf16>
  // CHECK-NEXT: %[[E:.*]] = arith.extf %[[G]] : tensor<32x64xbf16> to tensor<32x64xf32>
  // CHECK-NEXT: return %[[E]]
  %e = arith.extf %x : tensor<8x64xbf16> to tensor<8x64xf32>
  // expected-remark @below {{all-gather moves bf16 data instead of f32: 3072 bytes per rank instead of 6144}}
  // expected-remark @below {{all-gather not fused: the gathered value feeds an elementwise op ('arith.extf') and no matmul follows}}
  %g = tp.all_gather %e on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  return %g : tensor<32x64xf32>
}

// -----

// Negative: a per-tensor scale that may differ between ranks. Gathered
// narrow, every piece would be dequantized with this rank's scale; the wide
// gather stays, and fuses as it is.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @scale_not_uniform
// CHECK-SAME:    (%[[X:.*]]: tensor<8x64xf8E4M3FN>, %[[SX:.*]]: tensor<f32>, %[[W:.*]]: tensor<32x64xf8E4M3FN>, %[[SW:.*]]: tensor<f32>)
func.func @scale_not_uniform(%x: tensor<8x64xf8E4M3FN>, %sx: tensor<f32>, %w: tensor<32x64xf8E4M3FN>, %sw: tensor<f32>) -> tensor<32x32xf32> {
  // CHECK-NEXT: %[[DX:.*]] = tp.dequantize %[[X]] scale %[[SX]] per_tensor
  // CHECK-NEXT: %[[DW:.*]] = tp.dequantize %[[W]] scale %[[SW]] per_tensor
  // CHECK-NEXT: %[[Y:.*]] = tp.all_gather_matmul %[[DX]], [%[[DW]]] on @tp axes = [0] dim = 0 transpose_b : (tensor<8x64xf32>, tensor<32x64xf32>) -> tensor<32x32xf32>
  // CHECK-NEXT: return %[[Y]]
  %dx = tp.dequantize %x scale %sx per_tensor : (tensor<8x64xf8E4M3FN>, tensor<f32>) -> tensor<8x64xf32>
  // expected-remark @below {{all-gather of a value converted from narrower data stays f32: its per-tensor scale is not known to be the same on every rank (argument #1 of @scale_not_uniform, which is not marked tp.replicated), and it would dequantize every rank's piece}}
  %g = tp.all_gather %dx on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %dw = tp.dequantize %w scale %sw per_tensor : (tensor<32x64xf8E4M3FN>, tensor<f32>) -> tensor<32x64xf32>
  %y = tp.matmul %g, %dw transpose_b : tensor<32x64xf32>, tensor<32x64xf32> -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

// -----

// Negative: B is not quantized. Narrowing would leave the matmul unfused,
// so the wide gather stays and fuses.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @weight_not_quantized
// CHECK:       tp.all_gather_matmul %{{.*}}, [%{{.*}}] on @tp axes = [0] dim = 0 transpose_b : (tensor<8x64xf32>, tensor<32x64xf32>) -> tensor<32x32xf32>
func.func @weight_not_quantized(%x: tensor<8x64xf8E4M3FN>, %sx: tensor<f32> {tp.replicated}, %w: tensor<32x64xf32>) -> tensor<32x32xf32> {
  %dx = tp.dequantize %x scale %sx per_tensor : (tensor<8x64xf8E4M3FN>, tensor<f32>) -> tensor<8x64xf32>
  // expected-remark @below {{all-gather of a value converted from narrower data stays f32: 'tp.matmul' reads it as A, but its B is not dequantized, and the scaled fused op needs both operands in low precision}}
  %g = tp.all_gather %dx on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %y = tp.matmul %g, %w transpose_b : tensor<32x64xf32>, tensor<32x64xf32> -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

// -----

// Negative: the program gathers FP8 itself, but B is not quantized: nothing
// fuses, and the remark says why.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @gathered_fp8_weight_not_quantized
// CHECK:       tp.all_gather %{{.*}} : tensor<8x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
// CHECK:       tp.matmul
func.func @gathered_fp8_weight_not_quantized(%x: tensor<8x64xf8E4M3FN>, %sx: tensor<f32> {tp.replicated}, %w: tensor<32x64xf32>) -> tensor<32x32xf32> {
  // expected-remark @below {{all-gather not fused: the gathered value is dequantized before 'tp.matmul', which cannot become a scaled matmul: its B is not dequantized, and the scaled fused op needs both operands in low precision}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
  %dx = tp.dequantize %g scale %sx per_tensor : (tensor<32x64xf8E4M3FN>, tensor<f32>) -> tensor<32x64xf32>
  %y = tp.matmul %dx, %w transpose_b : tensor<32x64xf32>, tensor<32x64xf32> -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

// -----

// Negative: A and B dequantized with different modes.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @modes_differ
// CHECK:       tp.all_gather_matmul
func.func @modes_differ(%x: tensor<8x64xf8E4M3FN>, %sx: tensor<8x1xf32>, %w: tensor<32x64xf8E4M3FN>, %sw: tensor<f32>) -> tensor<32x32xf32> {
  %dx = tp.dequantize %x scale %sx row_wise : (tensor<8x64xf8E4M3FN>, tensor<8x1xf32>) -> tensor<8x64xf32>
  // expected-remark @below {{stays f32: 'tp.matmul' reads it as A, but its B is dequantized per_tensor, A row_wise: a scaled GEMM takes one scaling mode}}
  %g = tp.all_gather %dx on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %dw = tp.dequantize %w scale %sw per_tensor : (tensor<32x64xf8E4M3FN>, tensor<f32>) -> tensor<32x64xf32>
  %y = tp.matmul %g, %dw transpose_b : tensor<32x64xf32>, tensor<32x64xf32> -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

// -----

// Negative: a row-wise B given as [K, N] has its scales along N.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @row_wise_weight_k_by_n
// CHECK:       tp.all_gather_matmul
func.func @row_wise_weight_k_by_n(%x: tensor<8x64xf8E4M3FN>, %sx: tensor<8x1xf32>, %w: tensor<64x32xf8E4M3FN>, %sw: tensor<64x1xf32>) -> tensor<32x32xf32> {
  %dx = tp.dequantize %x scale %sx row_wise : (tensor<8x64xf8E4M3FN>, tensor<8x1xf32>) -> tensor<8x64xf32>
  // expected-remark @below {{stays f32: 'tp.matmul' reads it as A, but its B is [K, N] with row_wise scales along N, and a scaled GEMM needs B's scales along K ([N, K], transpose_b)}}
  %g = tp.all_gather %dx on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %dw = tp.dequantize %w scale %sw row_wise : (tensor<64x32xf8E4M3FN>, tensor<64x1xf32>) -> tensor<64x32xf32>
  %y = tp.matmul %g, %dw : tensor<32x64xf32>, tensor<64x32xf32> -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

// -----

// Negative: a row-wise activation gathered along K: each shard's rows have
// their own scale, which one gathered row cannot carry.

shard.grid @tp(shape = 2)

// CHECK-LABEL: func.func @row_wise_along_k
// CHECK:       tp.all_gather_matmul
func.func @row_wise_along_k(%x: tensor<8x32xf8E4M3FN>, %sx: tensor<8x1xf32>, %w: tensor<64x16xf32>) -> tensor<8x16xf32> {
  %dx = tp.dequantize %x scale %sx row_wise : (tensor<8x32xf8E4M3FN>, tensor<8x1xf32>) -> tensor<8x32xf32>
  // expected-remark @below {{stays f32: it is gathered along K, and a row-wise scale has one value per row of each shard}}
  %g = tp.all_gather %dx on @tp axes = [0] dim = 1 : tensor<8x32xf32> -> tensor<8x64xf32>
  %y = tp.matmul %g, %w : tensor<8x64xf32>, tensor<64x16xf32> -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

// Negative: a widened value that a matmul reads as A stays wide: the fused op
// multiplies at the width the matmul reads.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @widened_matmul_input
// CHECK:       tp.all_gather_matmul
func.func @widened_matmul_input(%x: tensor<8x64xbf16>, %w: tensor<64x32xf32>) -> tensor<32x32xf32> {
  %e = arith.extf %x : tensor<8x64xbf16> to tensor<8x64xf32>
  // expected-remark @below {{all-gather of a value converted from narrower data stays f32: 'tp.matmul' reads it as A, and a widened gather fuses only at the width the matmul reads}}
  %g = tp.all_gather %e on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %y = tp.matmul %g, %w : tensor<32x64xf32>, tensor<64x32xf32> -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

// -----

// Dequantization written as glue (widen, times a broadcast scale), as
// frameworks lower it: it becomes tp.dequantize, and the gather narrows.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @glue_per_tensor
// CHECK-SAME:    (%[[X:.*]]: tensor<8x64xf8E4M3FN>, %[[SX:.*]]: tensor<f32> {tp.replicated}, %[[W:.*]]: tensor<32x64xf8E4M3FN>, %[[SW:.*]]: tensor<f32>)
func.func @glue_per_tensor(%x: tensor<8x64xf8E4M3FN>, %sx: tensor<f32> {tp.replicated}, %w: tensor<32x64xf8E4M3FN>, %sw: tensor<f32>) -> tensor<32x32xf32> {
  // CHECK-NEXT: %[[Y:.*]] = tp.all_gather_scaled_matmul %[[X]] scale %[[SX]], [%[[W]] scale %[[SW]]] on @tp axes = [0] dim = 0 per_tensor
  // CHECK-NEXT: return %[[Y]]
  %xf = arith.extf %x : tensor<8x64xf8E4M3FN> to tensor<8x64xf32>
  %e = tensor.empty() : tensor<8x64xf32>
  %xb = linalg.broadcast ins(%sx : tensor<f32>) outs(%e : tensor<8x64xf32>) dimensions = [0, 1]
  %dx = arith.mulf %xf, %xb : tensor<8x64xf32>
  // expected-remark @below {{all-gather moves f8E4M3FN data instead of f32: 1536 bytes per rank instead of 6144}}
  %g = tp.all_gather %dx on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %wf = arith.extf %w : tensor<32x64xf8E4M3FN> to tensor<32x64xf32>
  %e2 = tensor.empty() : tensor<32x64xf32>
  %wb = linalg.broadcast ins(%sw : tensor<f32>) outs(%e2 : tensor<32x64xf32>) dimensions = [0, 1]
  %dw = arith.mulf %wb, %wf : tensor<32x64xf32>
  %y = tp.matmul %g, %dw transpose_b : tensor<32x64xf32>, tensor<32x64xf32> -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

// -----

// Row-wise glue: a scale per row broadcast along K (linalg.broadcast for A;
// for B, one linalg.generic with the scale first), and a scalar scale splat.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @glue_row_wise
// CHECK-SAME:    (%[[X:.*]]: tensor<8x64xf8E4M3FN>, %[[SX:.*]]: tensor<8xf32>, %[[W:.*]]: tensor<32x64xf8E4M3FN>, %[[SW:.*]]: tensor<32xf32>)
func.func @glue_row_wise(%x: tensor<8x64xf8E4M3FN>, %sx: tensor<8xf32>, %w: tensor<32x64xf8E4M3FN>, %sw: tensor<32xf32>) -> tensor<32x32xf32> {
  // CHECK-NEXT: %[[RX:.*]] = tensor.expand_shape %[[SX]] {{\[\[}}0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
  // CHECK-NEXT: %[[RW:.*]] = tensor.expand_shape %[[SW]] {{\[\[}}0, 1]] output_shape [32, 1] : tensor<32xf32> into tensor<32x1xf32>
  // CHECK-NEXT: %[[Y:.*]] = tp.all_gather_scaled_matmul %[[X]] scale %[[RX]], [%[[W]] scale %[[RW]]] on @tp axes = [0] dim = 0 row_wise
  // CHECK-NEXT: return %[[Y]]
  %xf = arith.extf %x : tensor<8x64xf8E4M3FN> to tensor<8x64xf32>
  %e = tensor.empty() : tensor<8x64xf32>
  %xb = linalg.broadcast ins(%sx : tensor<8xf32>) outs(%e : tensor<8x64xf32>) dimensions = [1]
  %dx = arith.mulf %xf, %xb : tensor<8x64xf32>
  // expected-remark @below {{all-gather moves f8E4M3FN data and its scales instead of f32: 1632 bytes per rank instead of 6144}}
  %g = tp.all_gather %dx on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %e2 = tensor.empty() : tensor<32x64xf32>
  %dw = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%sw, %w : tensor<32xf32>, tensor<32x64xf8E4M3FN>) outs(%e2 : tensor<32x64xf32>) {
    ^bb0(%s: f32, %a: f8E4M3FN, %o: f32):
      %f = arith.extf %a : f8E4M3FN to f32
      %m = arith.mulf %s, %f : f32
      linalg.yield %m : f32
  } -> tensor<32x64xf32>
  %y = tp.matmul %g, %dw transpose_b : tensor<32x64xf32>, tensor<32x64xf32> -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

// -----

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @glue_splat
// CHECK-SAME:    (%[[X:.*]]: tensor<8x64xf8E4M3FN>, %[[SX:.*]]: f32 {tp.replicated}, %[[W:.*]]: tensor<32x64xf8E4M3FN>, %[[SW:.*]]: tensor<f32>)
func.func @glue_splat(%x: tensor<8x64xf8E4M3FN>, %sx: f32 {tp.replicated}, %w: tensor<32x64xf8E4M3FN>, %sw: tensor<f32>) -> tensor<32x32xf32> {
  // CHECK-NEXT: %[[S:.*]] = tensor.from_elements %[[SX]] : tensor<f32>
  // CHECK-NEXT: %[[Y:.*]] = tp.all_gather_scaled_matmul %[[X]] scale %[[S]], [%[[W]] scale %[[SW]]] on @tp axes = [0] dim = 0 per_tensor
  // CHECK-NEXT: return %[[Y]]
  %xf = arith.extf %x : tensor<8x64xf8E4M3FN> to tensor<8x64xf32>
  %xb = tensor.splat %sx : tensor<8x64xf32>
  %dx = arith.mulf %xf, %xb : tensor<8x64xf32>
  // expected-remark @below {{all-gather moves f8E4M3FN data instead of f32}}
  %g = tp.all_gather %dx on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %dw = tp.dequantize %w scale %sw per_tensor : (tensor<32x64xf8E4M3FN>, tensor<f32>) -> tensor<32x64xf32>
  %y = tp.matmul %g, %dw transpose_b : tensor<32x64xf32>, tensor<32x64xf32> -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

// -----

// XLA's form: FP8 gathered, then widened and scaled next to the dot.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @glue_after_gather
// CHECK-SAME:    (%[[X:.*]]: tensor<8x64xf8E4M3FN>, %[[SX:.*]]: tensor<f32> {tp.replicated}, %[[W:.*]]: tensor<32x64xf8E4M3FN>, %[[SW:.*]]: tensor<f32>)
func.func @glue_after_gather(%x: tensor<8x64xf8E4M3FN>, %sx: tensor<f32> {tp.replicated}, %w: tensor<32x64xf8E4M3FN>, %sw: tensor<f32>) -> tensor<32x32xf32> {
  // CHECK-NEXT: %[[Y:.*]] = tp.all_gather_scaled_matmul %[[X]] scale %[[SX]], [%[[W]] scale %[[SW]]] on @tp axes = [0] dim = 0 per_tensor
  // CHECK-NEXT: return %[[Y]]
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
  %gf = arith.extf %g : tensor<32x64xf8E4M3FN> to tensor<32x64xf32>
  %e = tensor.empty() : tensor<32x64xf32>
  %xb = linalg.broadcast ins(%sx : tensor<f32>) outs(%e : tensor<32x64xf32>) dimensions = [0, 1]
  %dx = arith.mulf %gf, %xb : tensor<32x64xf32>
  %wf = arith.extf %w : tensor<32x64xf8E4M3FN> to tensor<32x64xf32>
  %wb = linalg.broadcast ins(%sw : tensor<f32>) outs(%e : tensor<32x64xf32>) dimensions = [0, 1]
  %dw = arith.mulf %wf, %wb : tensor<32x64xf32>
  %y = tp.matmul %dx, %dw transpose_b : tensor<32x64xf32>, tensor<32x64xf32> -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

// -----

// Negative glue: a widened bf16 (not FP8) times a scale is no dequantize, and
// a scale broadcast along rows (one per column) is not a row-wise scale.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @glue_not_dequantize
// CHECK:       arith.mulf
// CHECK:       tp.all_gather_matmul
// CHECK:       arith.mulf
// CHECK:       tp.all_gather
func.func @glue_not_dequantize(%x: tensor<8x64xbf16>, %sx: tensor<f32>, %y8: tensor<8x64xf8E4M3FN>, %sc: tensor<64xf32>, %w: tensor<32x64xf32>) -> (tensor<32x32xf32>, tensor<32x64xf32>) {
  %xf = arith.extf %x : tensor<8x64xbf16> to tensor<8x64xf32>
  %e = tensor.empty() : tensor<8x64xf32>
  %xb = linalg.broadcast ins(%sx : tensor<f32>) outs(%e : tensor<8x64xf32>) dimensions = [0, 1]
  %dx = arith.mulf %xf, %xb : tensor<8x64xf32>
  %g = tp.all_gather %dx on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %mm = tp.matmul %g, %w transpose_b : tensor<32x64xf32>, tensor<32x64xf32> -> tensor<32x32xf32>
  %yf = arith.extf %y8 : tensor<8x64xf8E4M3FN> to tensor<8x64xf32>
  %cb = linalg.broadcast ins(%sc : tensor<64xf32>) outs(%e : tensor<8x64xf32>) dimensions = [0]
  %dy = arith.mulf %yf, %cb : tensor<8x64xf32>
  // expected-remark @below {{all-gather not fused: the gathered value feeds 'func.return', which is not a matmul}}
  %gy = tp.all_gather %dy on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  return %mm, %gy : tensor<32x32xf32>, tensor<32x64xf32>
}

// -----

// Negative: dequantization glue where no gather is involved stays as written.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @glue_without_gather
// CHECK-NOT:   tp.dequantize
// CHECK-NOT:   tp.scaled_matmul
// CHECK:       return
func.func @glue_without_gather(%x: tensor<8x64xf8E4M3FN>, %sx: tensor<f32>, %w: tensor<32x64xf8E4M3FN>, %sw: tensor<f32>) -> tensor<8x32xf32> {
  %xf = arith.extf %x : tensor<8x64xf8E4M3FN> to tensor<8x64xf32>
  %e = tensor.empty() : tensor<8x64xf32>
  %xb = linalg.broadcast ins(%sx : tensor<f32>) outs(%e : tensor<8x64xf32>) dimensions = [0, 1]
  %dx = arith.mulf %xf, %xb : tensor<8x64xf32>
  %wf = arith.extf %w : tensor<32x64xf8E4M3FN> to tensor<32x64xf32>
  %e2 = tensor.empty() : tensor<32x64xf32>
  %wb = linalg.broadcast ins(%sw : tensor<f32>) outs(%e2 : tensor<32x64xf32>) dimensions = [0, 1]
  %dw = arith.mulf %wf, %wb : tensor<32x64xf32>
  %y = tp.matmul %dx, %dw transpose_b : tensor<8x64xf32>, tensor<32x64xf32> -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}
