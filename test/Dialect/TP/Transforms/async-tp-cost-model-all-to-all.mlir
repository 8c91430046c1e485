// The cost model on an all-to-all next to a matmul. One that feeds a matmul:
// each step moves one block (1/g of the local tensor) and multiplies the
// rows it lands in, so it is timed as an all-gather of block-sized shards; ring is never chosen
// (each peer takes a different block). On 8 H100s a 8192 x 1024 x 8192 bf16
// projection fuses; a tiny one loses to the GEMM launches.
// RUN: tp-opt %s '--tp-async-tp=emit-remarks target=h100-nvlink' -verify-diagnostics | FileCheck %s

shard.grid @tp(shape = 8)

// CHECK-LABEL: func.func @large
// CHECK: tp.all_to_all_matmul %{{.*}}, [%{{.*}}] on @tp axes = [0] split = 1 concat = 0 {algorithm = #tp.algorithm<per_peer>, chunks = 1 : i64, streams = 2 : i64}
func.func @large(%x: tensor<1024x8192xbf16>, %w: tensor<1024x8192xbf16>) -> tensor<8192x8192xbf16> {
  // expected-remark @below {{all-to-all fused for 'h100-nvlink' with per_peer, 1 piece per rank on 2 streams: predicted unfused 258.9 us, fused 195.1 us, 100% of the communication hidden; unfused: collective 75.8 us + GEMM 183.1 us}}
  %e = tp.all_to_all %x on @tp axes = [0] split = 1 concat = 0 : tensor<1024x8192xbf16> -> tensor<8192x1024xbf16>
  %y = tp.matmul %e, %w : tensor<8192x1024xbf16>, tensor<1024x8192xbf16> -> tensor<8192x8192xbf16>
  return %y : tensor<8192x8192xbf16>
}

// CHECK-LABEL: func.func @small
// CHECK: tp.all_to_all %
func.func @small(%x: tensor<16x256xbf16>, %w: tensor<32x256xbf16>) -> tensor<128x256xbf16> {
  // expected-remark @below {{all-to-all not fused: the cost model for 'h100-nvlink' predicts no gain (per_peer, 1 piece per rank: predicted unfused 19.0 us, fused 42.2 us}}
  %e = tp.all_to_all %x on @tp axes = [0] split = 1 concat = 0 : tensor<16x256xbf16> -> tensor<128x32xbf16>
  %y = tp.matmul %e, %w : tensor<128x32xbf16>, tensor<32x256xbf16> -> tensor<128x256xbf16>
  return %y : tensor<128x256xbf16>
}

// The producer side: a projection's product exchanged (sequence -> heads) is
// timed as a reduce-scatter of the product without the reduction (each
// step makes and sends one peer's block); ring is never chosen here either.

// CHECK-LABEL: func.func @large_producer
// CHECK: tp.matmul_all_to_all %{{.*}}, %{{.*}} on @tp axes = [0] split = 1 concat = 0 {algorithm = #tp.algorithm<per_peer>, chunks = 1 : i64, streams = 2 : i64}
func.func @large_producer(%x: tensor<8192x8192xbf16>, %w: tensor<8192x8192xbf16>) -> tensor<65536x1024xbf16> {
  %p = tp.matmul %x, %w : tensor<8192x8192xbf16>, tensor<8192x8192xbf16> -> tensor<8192x8192xbf16>
  // expected-remark @below {{all-to-all fused for 'h100-nvlink' with per_peer, 1 piece per rank on 2 streams: predicted unfused 1789.4 us, fused 1537.7 us, 75% of the communication hidden; unfused: collective 352.9 us + GEMM 1436.5 us}}
  %e = tp.all_to_all %p on @tp axes = [0] split = 1 concat = 0 : tensor<8192x8192xbf16> -> tensor<65536x1024xbf16>
  return %e : tensor<65536x1024xbf16>
}

// CHECK-LABEL: func.func @small_producer
// CHECK: tp.all_to_all %
func.func @small_producer(%x: tensor<128x256xbf16>, %w: tensor<256x256xbf16>) -> tensor<1024x32xbf16> {
  %p = tp.matmul %x, %w : tensor<128x256xbf16>, tensor<256x256xbf16> -> tensor<128x256xbf16>
  // expected-remark @below {{all-to-all not fused: the cost model for 'h100-nvlink' predicts no gain (coalesced, 4 GEMMs for the remote shards: predicted unfused 20.2 us, fused 47.4 us}}
  %e = tp.all_to_all %p on @tp axes = [0] split = 1 concat = 0 : tensor<128x256xbf16> -> tensor<1024x32xbf16>
  return %e : tensor<1024x32xbf16>
}
