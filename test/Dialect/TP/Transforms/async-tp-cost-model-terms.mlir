// The cost model's optional terms: the B operand each GEMM call takes in
// (more pieces pay it more often, so fewer pieces win), and an unfused
// collective op slower than the fused schedules' transfers (fusing then pays
// for smaller GEMMs). Each description is slow-link.json plus one term.
// RUN: tp-opt %s '--tp-async-tp=emit-remarks=1 target=%S/Inputs/weight-stream.json' -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=STREAM
// RUN: tp-opt %s '--tp-async-tp=target=%S/Inputs/slow-link.json' -split-input-file | FileCheck %s --check-prefix=BASE
// RUN: tp-opt %s '--tp-async-tp=target=%S/Inputs/slow-collective.json' -split-input-file | FileCheck %s --check-prefix=COLL
// RUN: not tp-opt %s '--tp-async-tp=target=%S/Inputs/bad-b-operand.json' -split-input-file 2>&1 | FileCheck %s --check-prefix=BAD-B
// RUN: not tp-opt %s '--tp-async-tp=target=%S/Inputs/bad-collective.json' -split-input-file 2>&1 | FileCheck %s --check-prefix=BAD-COLL

// BAD-B: error: tp-async-tp: 'target': {{.*}}bad-b-operand.json: gemm.f32.b_operand_bandwidth must be a non-negative number
// BAD-COLL: error: tp-async-tp: 'target': {{.*}}bad-collective.json: links.collective must be an object {bandwidth, latency}

shard.grid @tp(shape = 8)

// 8192 x 3584 bf16 weights at 20 GB/s are 2.9 ms per GEMM call: the fewest
// calls that still overlap the transfers (the own shard, then the rest in 4
// GEMMs: 5, or 6 where the shards wrap) now, where slow-link alone picks 8
// pieces per rank (64 calls).
// STREAM-LABEL: func.func @large_gather
// STREAM-NEXT:    tp.all_gather_matmul {{.*}} {algorithm = #tp.algorithm<coalesced>, chunks = 4 : i64}
// BASE-LABEL: func.func @large_gather
// BASE-NEXT:    tp.all_gather_matmul {{.*}} {algorithm = #tp.algorithm<per_peer>, chunks = 8 : i64}
// COLL-LABEL: func.func @large_gather
// COLL-NEXT:    tp.all_gather_matmul {{.*}} {algorithm = #tp.algorithm<per_peer>, chunks = 8 : i64}
func.func @large_gather(%x: tensor<256x8192xbf16>, %w: tensor<8192x3584xbf16>) -> tensor<2048x3584xbf16> {
  // expected-remark @+1 {{all-gather fused for 'weight-stream' with coalesced, 4 GEMMs for the remote shards: predicted unfused 62364.9 us, fused 47692.8 us, 100% of the communication hidden}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<256x8192xbf16> -> tensor<2048x8192xbf16>
  %y = tp.matmul %g, %w : tensor<2048x8192xbf16>, tensor<8192x3584xbf16> -> tensor<2048x3584xbf16>
  return %y : tensor<2048x3584xbf16>
}

// -----

shard.grid @tp(shape = 8)

// slow-link keeps this one unfused; with a collective op 100 us slower to
// start than the fused transfers, fusing pays.
// STREAM-LABEL: func.func @small
// STREAM-NEXT:    tp.all_gather
// STREAM-NEXT:    tp.matmul
// BASE-LABEL: func.func @small
// BASE-NEXT:    tp.all_gather
// BASE-NEXT:    tp.matmul
// COLL-LABEL: func.func @small
// COLL-NEXT:    tp.all_gather_matmul {{.*}} {algorithm = #tp.algorithm<coalesced>, chunks = 1 : i64}
func.func @small(%x: tensor<2x64xbf16>, %w: tensor<64x64xbf16>) -> tensor<16x64xbf16> {
  // expected-remark @+1 {{all-gather not fused: the cost model for 'weight-stream' predicts no gain (coalesced, 1 GEMM for the remote shards: predicted unfused 6.2 us, fused 8.6 us, 64% of the communication hidden)}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<2x64xbf16> -> tensor<16x64xbf16>
  %y = tp.matmul %g, %w : tensor<16x64xbf16>, tensor<64x64xbf16> -> tensor<16x64xbf16>
  return %y : tensor<16x64xbf16>
}
