// The cost model sees what a gather narrowed to FP8 moves and multiplies: at
// a Llama-70B-like shape on 8 H100s, a per-tensor FP8 activation dequantized
// to bf16 before its all-gather. With the group's scale the gather moves
// 1 byte per element (collective 194.6 us) and the GEMM runs in FP8
// (317.3 us); with a scale that may differ per rank it stays bf16 (352.9 us
// and 630.7 us).
// RUN: tp-opt %s '--tp-async-tp=emit-remarks target=h100-nvlink' -verify-diagnostics | FileCheck %s

shard.grid @tp(shape = 8)

// CHECK-LABEL: func.func @narrowed
// CHECK: tp.all_gather_scaled_matmul {{.*}} per_tensor {algorithm = #tp.algorithm<per_peer>, chunks = 1 : i64, streams = 2 : i64}
func.func @narrowed(%x: tensor<1024x8192xf8E4M3FN>, %sx: tensor<f32> {tp.replicated}, %w: tensor<3584x8192xf8E4M3FN>, %sw: tensor<f32>) -> tensor<8192x3584xbf16> {
  %dx = tp.dequantize %x scale %sx per_tensor : (tensor<1024x8192xf8E4M3FN>, tensor<f32>) -> tensor<1024x8192xbf16>
  // expected-remark @below {{all-gather moves f8E4M3FN data instead of bf16: 58720256 bytes per rank instead of 117440512}}
  // expected-remark @below {{predicted unfused 511.9 us, fused 374.1 us, 100% of the communication hidden; unfused: collective 194.6 us + GEMM 317.3 us}}
  %g = tp.all_gather %dx on @tp axes = [0] dim = 0 : tensor<1024x8192xbf16> -> tensor<8192x8192xbf16>
  %dw = tp.dequantize %w scale %sw per_tensor : (tensor<3584x8192xf8E4M3FN>, tensor<f32>) -> tensor<3584x8192xbf16>
  %y = tp.matmul %g, %dw transpose_b : tensor<8192x8192xbf16>, tensor<3584x8192xbf16> -> tensor<8192x3584xbf16>
  return %y : tensor<8192x3584xbf16>
}

// CHECK-LABEL: func.func @wide
// CHECK: tp.all_gather_matmul
func.func @wide(%x: tensor<1024x8192xf8E4M3FN>, %sx: tensor<f32>, %w: tensor<3584x8192xf8E4M3FN>, %sw: tensor<f32>) -> tensor<8192x3584xbf16> {
  %dx = tp.dequantize %x scale %sx per_tensor : (tensor<1024x8192xf8E4M3FN>, tensor<f32>) -> tensor<1024x8192xbf16>
  // expected-remark @below {{stays bf16: its per-tensor scale is not known to be the same on every rank}}
  // expected-remark @below {{predicted unfused 983.7 us, fused 732.3 us, 100% of the communication hidden; unfused: collective 352.9 us + GEMM 630.7 us}}
  %g = tp.all_gather %dx on @tp axes = [0] dim = 0 : tensor<1024x8192xbf16> -> tensor<8192x8192xbf16>
  %dw = tp.dequantize %w scale %sw per_tensor : (tensor<3584x8192xf8E4M3FN>, tensor<f32>) -> tensor<3584x8192xbf16>
  %y = tp.matmul %g, %dw transpose_b : tensor<8192x8192xbf16>, tensor<3584x8192xbf16> -> tensor<8192x3584xbf16>
  return %y : tensor<8192x3584xbf16>
}
