// The cost model decides per candidate: a small GEMM stays unfused with a
// remark giving both predictions; large ones fuse with the schedule the
// model predicts fastest, written on the fused op.
// RUN: tp-opt %s '--tp-async-tp=emit-remarks=1 target=%S/Inputs/slow-link.json' -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=SLOW
// RUN: tp-opt %s '--tp-async-tp=target=h100-nvlink' -split-input-file | FileCheck %s --check-prefix=H100
// RUN: not tp-opt %s '--tp-async-tp=target=tpu-v9' -split-input-file 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not tp-opt %s '--tp-async-tp=target=%S/Inputs/bad-target.json' -split-input-file 2>&1 | FileCheck %s --check-prefix=BAD

// UNKNOWN: error: tp-async-tp: 'target': 'tpu-v9' is neither a preset (h100-nvlink, h200-nvlink, h800-nvlink, a800-nvlink, l20-pcie, pcie-node, cpu) nor a readable file
// BAD: error: tp-async-tp: 'target': {{.*}}bad-target.json: links.per_peer.bandwidth must be a positive number

shard.grid @tp(shape = 8)

// SLOW-LABEL: func.func @small
// SLOW-NEXT:    tp.all_gather
// SLOW-NEXT:    tp.matmul
// H100-LABEL: func.func @small
// H100-NEXT:    tp.all_gather
// H100-NEXT:    tp.matmul
func.func @small(%x: tensor<2x64xbf16>, %w: tensor<64x64xbf16>) -> tensor<16x64xbf16> {
  // expected-remark @+1 {{all-gather not fused: the cost model for 'slow-link' predicts no gain (coalesced, 1 GEMM for the remote shards: predicted unfused 5.8 us, fused 7.8 us, 53% of the communication hidden)}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<2x64xbf16> -> tensor<16x64xbf16>
  %y = tp.matmul %g, %w : tensor<16x64xbf16>, tensor<64x64xbf16> -> tensor<16x64xbf16>
  return %y : tensor<16x64xbf16>
}

// -----

shard.grid @tp(shape = 8)

// A slow link needs small pieces to hide it. On an H100 one piece per shard
// is too thin to fill the GPU, as PyTorch measured: the tile model merges the
// remote shards into fewer GEMMs (async-tp-cost-model-gpu.mlir).
// SLOW-LABEL: func.func @large_gather
// SLOW-NEXT:    tp.all_gather_matmul {{.*}} {algorithm = #tp.algorithm<per_peer>, chunks = 8 : i64}
// H100-LABEL: func.func @large_gather
// H100-NEXT:    tp.all_gather_matmul {{.*}} {algorithm = #tp.algorithm<coalesced>, chunks = 4 : i64}
func.func @large_gather(%x: tensor<256x8192xbf16>, %w: tensor<8192x3584xbf16>) -> tensor<2048x3584xbf16> {
  // expected-remark @+1 {{all-gather fused for 'slow-link' with per_peer, 8 pieces per rank: predicted unfused 59428.9 us, fused 30192.8 us, 100% of the communication hidden}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<256x8192xbf16> -> tensor<2048x8192xbf16>
  %y = tp.matmul %g, %w : tensor<2048x8192xbf16>, tensor<8192x3584xbf16> -> tensor<2048x3584xbf16>
  return %y : tensor<2048x3584xbf16>
}

// -----

shard.grid @tp(shape = 8)

// SLOW-LABEL: func.func @large_scatter
// SLOW-NEXT:    tp.matmul_reduce_scatter {{.*}} {algorithm = #tp.algorithm<per_peer>, chunks = 8 : i64}
// H100-LABEL: func.func @large_scatter
// H100-NEXT:    tp.matmul
// H100-NEXT:    tp.reduce_scatter
func.func @large_scatter(%h: tensor<2048x1024xbf16>, %w: tensor<1024x8192xbf16>) -> tensor<256x8192xbf16> {
  %p = tp.matmul %h, %w : tensor<2048x1024xbf16>, tensor<1024x8192xbf16> -> tensor<2048x8192xbf16>
  // expected-remark @+1 {{reduce-scatter fused for 'slow-link' with per_peer, 8 pieces per rank: predicted unfused 37954.1 us, fused 29505.3 us, 29% of the communication hidden}}
  %y = tp.reduce_scatter %p on @tp axes = [0] dim = 0 reduce = sum : tensor<2048x8192xbf16> -> tensor<256x8192xbf16>
  return %y : tensor<256x8192xbf16>
}

// -----

// Weight gradients are modelled as the gather of the shard's K-rows (the same
// bytes and FLOPs per piece as the forward gather above): a small one stays
// unfused, a large one becomes tp.all_gather_contract with the chosen
// schedule.

shard.grid @tp(shape = 8)

// SLOW-LABEL: func.func @small_weight_gradient
// SLOW:         tp.all_gather
// SLOW:         tp.matmul
// H100-LABEL: func.func @small_weight_gradient
// H100:         tp.all_gather
// H100:         tp.matmul
func.func @small_weight_gradient(%x: tensor<2x64xbf16>, %dy: tensor<16x64xbf16>) -> tensor<64x64xbf16> {
  // expected-remark @+1 {{all-gather not fused: the cost model for 'slow-link' predicts no gain (coalesced, 1 GEMM for the remote shards: predicted unfused 5.8 us, fused 7.8 us, 53% of the communication hidden)}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<2x64xbf16> -> tensor<16x64xbf16>
  %e = tensor.empty() : tensor<64x16xbf16>
  %t = linalg.transpose ins(%dy : tensor<16x64xbf16>) outs(%e : tensor<64x16xbf16>) permutation = [1, 0]
  %r = tp.matmul %t, %g : tensor<64x16xbf16>, tensor<16x64xbf16> -> tensor<64x64xbf16>
  return %r : tensor<64x64xbf16>
}

// -----

shard.grid @tp(shape = 8)

// SLOW-LABEL: func.func @large_weight_gradient
// SLOW:         tp.all_gather_contract {{.*}} transpose_a {algorithm = #tp.algorithm<per_peer>, chunks = 8 : i64}
// H100-LABEL: func.func @large_weight_gradient
// H100:         tp.all_gather_contract {{.*}} {algorithm = #tp.algorithm<coalesced>, chunks = 4 : i64}
func.func @large_weight_gradient(%x: tensor<256x8192xbf16>, %dy: tensor<2048x3584xbf16>) -> tensor<3584x8192xbf16> {
  // expected-remark @+1 {{all-gather fused for 'slow-link' with per_peer, 8 pieces per rank: predicted unfused 59428.9 us, fused 30192.8 us, 100% of the communication hidden}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<256x8192xbf16> -> tensor<2048x8192xbf16>
  %e = tensor.empty() : tensor<3584x2048xbf16>
  %t = linalg.transpose ins(%dy : tensor<2048x3584xbf16>) outs(%e : tensor<3584x2048xbf16>) permutation = [1, 0]
  %r = tp.matmul %t, %g : tensor<3584x2048xbf16>, tensor<2048x8192xbf16> -> tensor<3584x8192xbf16>
  return %r : tensor<3584x8192xbf16>
}
