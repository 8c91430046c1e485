// The tile-and-wave GPU model (docs/CostModel.md#the-gpu-gemm-model-tiles-and-waves).
// On an H100, at the Llama-70B MLP shape with M = 2048 on 8 ranks, one GEMM
// per arriving shard (PyTorch's decomposition, measured slower than NCCL +
// cuBLAS) is predicted slower than unfused: each 256-row piece is one wave
// of 64x128 tiles, eight of them where the whole GEMM takes two waves
// (forced.mlir names the reason). The pass chooses the coalesced schedule
// instead: the own shard while the rest arrives, then the seven remote
// shards in four GEMMs of up to 512 rows. Merged into one GEMM, they would
// wait for the last shard (coalesced1.mlir). At M = 16384 it fuses too.
// RUN: rm -rf %t && split-file %s %t
// RUN: tp-opt %t/h100.mlir '--tp-async-tp=emit-remarks target=h100-nvlink' -verify-diagnostics | FileCheck %t/h100.mlir
// RUN: tp-opt %t/forced.mlir '--tp-async-tp=emit-remarks target=h100-nvlink algorithm=per_peer chunks=1' -verify-diagnostics -o /dev/null
// RUN: tp-opt %t/coalesced1.mlir '--tp-async-tp=emit-remarks target=h100-nvlink algorithm=coalesced chunks=1' -verify-diagnostics -o /dev/null
// Each reason a fused schedule loses for, and a gain below the target's
// margin:
// RUN: tp-opt %t/big.mlir '--tp-async-tp=emit-remarks target=%t/contention.json' 2>&1 | FileCheck %s --check-prefix=CONTENTION
// RUN: tp-opt %t/big.mlir '--tp-async-tp=emit-remarks target=%t/launches.json' 2>&1 | FileCheck %s --check-prefix=LAUNCHES
// RUN: tp-opt %t/big.mlir '--tp-async-tp=emit-remarks target=%t/exposed.json' 2>&1 | FileCheck %s --check-prefix=EXPOSED
// RUN: tp-opt %t/big.mlir '--tp-async-tp=emit-remarks target=%t/margin.json' 2>&1 | FileCheck %s --check-prefix=MARGIN
// A target that charges nothing per launch still names the loss:
// RUN: tp-opt %t/forced.mlir '--tp-async-tp=emit-remarks target=%t/free-launches.json algorithm=per_peer chunks=1' 2>&1 | FileCheck %s --check-prefix=FREE
// Malformed GPU descriptions are refused, naming the field:
// RUN: not tp-opt %t/big.mlir '--tp-async-tp=target=%t/bad-sustained.json' 2>&1 | FileCheck %s --check-prefix=SUSTAINED
// RUN: not tp-opt %t/big.mlir '--tp-async-tp=target=%t/bad-tile.json' 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: not tp-opt %t/big.mlir '--tp-async-tp=target=%t/bad-comm-sms.json' 2>&1 | FileCheck %s --check-prefix=COMMSMS
// RUN: not tp-opt %t/big.mlir '--tp-async-tp=target=%t/bad-no-tiles.json' 2>&1 | FileCheck %s --check-prefix=NOTILES
// RUN: not tp-opt %t/big.mlir '--tp-async-tp=target=%t/bad-transport.json' 2>&1 | FileCheck %s --check-prefix=TRANSPORT
// RUN: not tp-opt %t/big.mlir '--tp-async-tp=target=%t/bad-min-gain.json' 2>&1 | FileCheck %s --check-prefix=MINGAIN

// CONTENTION: remark: all-gather not fused: the cost model for 'contention' predicts no gain ({{.*}}); contention: the nccl transport takes 120 of 132 SMs from the pieces
// LAUNCHES: remark: all-gather not fused: the cost model for 'launches' predicts no gain ({{.*}}); launches: 6 GEMM pieces cost 1000.0 us more in launches than one GEMM
// EXPOSED: remark: all-gather not fused: the cost model for 'exposed' predicts no gain ({{.*}}); exposed: {{[0-9.]+}} us of transfers are not hidden behind the pieces
// MARGIN: remark: all-gather not fused: the cost model for 'margin' predicts a gain of 24.4%, less than the 50% it requires (coalesced, 4 GEMMs for the remote shards: predicted unfused 1927.1 us, fused 1456.5 us
// FREE: remark: all-gather not fused: the cost model for 'free-launches' predicts a gain of {{[0-9.]+}}%, less than the 50% it requires ({{.*}}); waves: 8 pieces of 256 rows take 8 waves of 64x128 tiles
// FREE-NOT: nan
// SUSTAINED: error: tp-async-tp: 'target': {{.*}}bad-sustained.json: gpu.sustained must be a fraction of the peak (at most 1)
// TILE: error: tp-async-tp: 'target': {{.*}}bad-tile.json: gpu.tiles: each tile must be [rows >= 1, cols >= 1, efficiency in (0, 1]]
// COMMSMS: error: tp-async-tp: 'target': {{.*}}bad-comm-sms.json: gpu.comm_sms.nccl leaves the GEMMs no SM (gpu.sms is 132)
// NOTILES: error: tp-async-tp: 'target': {{.*}}bad-no-tiles.json: gpu.types.bf16.tiles is missing, and gpu.tiles gives no default
// TRANSPORT: error: tp-async-tp: 'target': {{.*}}bad-transport.json: gpu.transport must be "copy_engine" or "nccl"
// MINGAIN: error: tp-async-tp: 'target': {{.*}}bad-min-gain.json: target.min_gain must be a fraction below 1

//--- h100.mlir
shard.grid @tp(shape = 8)

// CHECK-LABEL: func.func @llama70b_mlp_m2048
// CHECK-NEXT:    tp.all_gather_matmul {{.*}} {algorithm = #tp.algorithm<coalesced>, chunks = 4 : i64}
// CHECK-NEXT:    return
func.func @llama70b_mlp_m2048(%x: tensor<256x8192xbf16>, %w: tensor<8192x3584xbf16>) -> tensor<2048x3584xbf16> {
  // expected-remark-re @+1 {{all-gather fused for 'h100-nvlink' with coalesced, 4 GEMMs for the remote shards: predicted unfused 298.4 us, fused 270.1 us, 100% of the communication hidden; unfused: collective 115.4 us + GEMM 183.1 us (224 tiles of 128x256, 2 waves of 89.5 us); fused: GEMMs 270.1 us + transfers 117.2 us, the largest 512 rows (112 tiles of 128x128, 1 wave of 56.0 us) on 132 SMs}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<256x8192xbf16> -> tensor<2048x8192xbf16>
  %y = tp.matmul %g, %w : tensor<2048x8192xbf16>, tensor<8192x3584xbf16> -> tensor<2048x3584xbf16>
  return %y : tensor<2048x3584xbf16>
}

// Large M: 2048-row pieces fill the GPU, and fusing hides the collective
// (per_peer 1464.5 us on one stream; on two, half the pieces' launches
// overlap: 1448.5 us; coalesced 1456.5 us).
// CHECK-LABEL: func.func @llama70b_mlp_m16384
// CHECK-NEXT:    tp.all_gather_matmul {{.*}} {algorithm = #tp.algorithm<per_peer>, chunks = 1 : i64, streams = 2 : i64}
func.func @llama70b_mlp_m16384(%x: tensor<2048x8192xbf16>, %w: tensor<8192x3584xbf16>) -> tensor<16384x3584xbf16> {
  // expected-remark-re @+1 {{all-gather fused for 'h100-nvlink' with per_peer, 1 piece per rank on 2 streams: predicted unfused 1927.1 us, fused 1448.5 us, {{.*}} each piece 2048 rows (224 tiles of 128x256, 2 waves of 89.5 us) on 132 SMs}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<2048x8192xbf16> -> tensor<16384x8192xbf16>
  %y = tp.matmul %g, %w : tensor<16384x8192xbf16>, tensor<8192x3584xbf16> -> tensor<16384x3584xbf16>
  return %y : tensor<16384x3584xbf16>
}

// The reduce-scatter twin (the down projection): fp32 partials on the link
// and one summing kernel, its pieces on two streams: 9% faster than NCCL +
// cuBLAS.
// CHECK-LABEL: func.func @down_proj_m2048
// CHECK-NEXT:    tp.matmul_reduce_scatter {{.*}} {algorithm = #tp.algorithm<per_peer>, chunks = 1 : i64, streams = 2 : i64}
func.func @down_proj_m2048(%h: tensor<2048x3584xbf16>, %w: tensor<3584x8192xbf16>) -> tensor<256x8192xbf16> {
  %p = tp.matmul %h, %w : tensor<2048x3584xbf16>, tensor<3584x8192xbf16> -> tensor<2048x8192xbf16>
  // expected-remark-re @+1 {{reduce-scatter fused for 'h100-nvlink' with per_peer, 1 piece per rank on 2 streams: predicted unfused 276.1 us, fused 250.1 us, {{.*}}}}
  %y = tp.reduce_scatter %p on @tp axes = [0] dim = 0 reduce = sum : tensor<2048x8192xbf16> -> tensor<256x8192xbf16>
  return %y : tensor<256x8192xbf16>
}

// A tiny gather: NCCL's low-latency protocol beats eight GEMM launches.
// CHECK-LABEL: func.func @tiny
// CHECK-NEXT:    tp.all_gather
// CHECK-NEXT:    tp.matmul
func.func @tiny(%x: tensor<2x64xbf16>, %w: tensor<64x64xbf16>) -> tensor<16x64xbf16> {
  // expected-remark-re @+1 {{all-gather not fused: the cost model for 'h100-nvlink' predicts no gain ({{.*}} predicted unfused 19.1 us, {{.*}}); launches: {{.*}}}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<2x64xbf16> -> tensor<16x64xbf16>
  %y = tp.matmul %g, %w : tensor<16x64xbf16>, tensor<64x64xbf16> -> tensor<16x64xbf16>
  return %y : tensor<16x64xbf16>
}

//--- forced.mlir
// The decomposition judged on its own (the options force the schedule).
shard.grid @tp(shape = 8)
func.func @llama70b_mlp_m2048(%x: tensor<256x8192xbf16>, %w: tensor<8192x3584xbf16>) -> tensor<2048x3584xbf16> {
  // expected-remark-re @+1 {{all-gather not fused: the cost model for 'h100-nvlink' predicts no gain (per_peer, 1 piece per rank: predicted unfused 298.4 us, fused 300.5 us{{.*}}}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<256x8192xbf16> -> tensor<2048x8192xbf16>
  %y = tp.matmul %g, %w : tensor<2048x8192xbf16>, tensor<8192x3584xbf16> -> tensor<2048x3584xbf16>
  return %y : tensor<2048x3584xbf16>
}

//--- coalesced1.mlir
// "Own shard, then the rest": the rest waits for the last shard, then runs
// as one GEMM, or two on ranks whose shards wrap past rank 7 (rank 3: rows
// [0, 768) and [1024, 2048)); 80 us of transfers are then exposed.
shard.grid @tp(shape = 8)
func.func @llama70b_mlp_m2048(%x: tensor<256x8192xbf16>, %w: tensor<8192x3584xbf16>) -> tensor<2048x3584xbf16> {
  // expected-remark-re @+1 {{all-gather not fused: the cost model for 'h100-nvlink' predicts no gain (coalesced, 1 GEMM for the remote shards: predicted unfused 298.4 us, fused 348.9 us, {{.*}} the largest 1280 rows (560 tiles of 64x128, 5 waves of 33.6 us) on 132 SMs); exposed: 79.6 us of transfers are not hidden behind the pieces}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<256x8192xbf16> -> tensor<2048x8192xbf16>
  %y = tp.matmul %g, %w : tensor<2048x8192xbf16>, tensor<8192x3584xbf16> -> tensor<2048x3584xbf16>
  return %y : tensor<2048x3584xbf16>
}

//--- big.mlir
shard.grid @tp(shape = 8)
func.func @m16384(%x: tensor<2048x8192xbf16>, %w: tensor<8192x3584xbf16>) -> tensor<16384x3584xbf16> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<2048x8192xbf16> -> tensor<16384x8192xbf16>
  %y = tp.matmul %g, %w : tensor<16384x8192xbf16>, tensor<8192x3584xbf16> -> tensor<16384x3584xbf16>
  return %y : tensor<16384x3584xbf16>
}

//--- contention.json
{"name": "contention",
 "gpu": {"sms": 132, "sustained": 0.8, "hbm_bandwidth": 3.35e12,
         "transport": "nccl", "comm_sms": {"copy_engine": 0, "nccl": 120}, "nccl_channels": 24,
         "tiles": [[128, 256, 1.0], [256, 128, 0.889], [128, 128, 0.8], [64, 256, 0.8], [64, 128, 0.667]],
         "types": {"bf16": {"dense_flops": 9.894e14, "element_bytes": 2}}},
 "links": {"per_peer": {"bandwidth": 3.708e11, "latency": 1.0e-5},
           "ring": {"bandwidth": 3.708e11, "latency": 6.0e-6},
           "collective": {"bandwidth": 3.708e11, "latency": 8.4e-6, "step_latency": 3.4e-6}},
 "overlap_slowdown": 0.0, "launch_overhead": 4.0e-6, "min_gain": 0.0}
//--- launches.json
{"name": "launches",
 "gpu": {"sms": 132, "sustained": 0.8, "hbm_bandwidth": 3.35e12,
         "transport": "copy_engine", "comm_sms": {"copy_engine": 0, "nccl": 16}, "nccl_channels": 24,
         "tiles": [[128, 256, 1.0], [256, 128, 0.889], [128, 128, 0.8], [64, 256, 0.8], [64, 128, 0.667]],
         "types": {"bf16": {"dense_flops": 9.894e14, "element_bytes": 2}}},
 "links": {"per_peer": {"bandwidth": 3.708e11, "latency": 1.0e-5},
           "ring": {"bandwidth": 3.708e11, "latency": 6.0e-6},
           "collective": {"bandwidth": 3.708e11, "latency": 8.4e-6, "step_latency": 3.4e-6}},
 "overlap_slowdown": 0.0, "launch_overhead": 2.0e-4, "min_gain": 0.0}
//--- exposed.json
{"name": "exposed",
 "gpu": {"sms": 132, "sustained": 0.8, "hbm_bandwidth": 3.35e12,
         "transport": "copy_engine", "comm_sms": {"copy_engine": 0, "nccl": 16}, "nccl_channels": 24,
         "tiles": [[128, 256, 1.0], [256, 128, 0.889], [128, 128, 0.8], [64, 256, 0.8], [64, 128, 0.667]],
         "types": {"bf16": {"dense_flops": 9.894e14, "element_bytes": 2}}},
 "links": {"per_peer": {"bandwidth": 1.0e9, "latency": 1.0e-5},
           "ring": {"bandwidth": 1.0e9, "latency": 6.0e-6},
           "collective": {"bandwidth": 3.708e11, "latency": 8.4e-6, "step_latency": 3.4e-6}},
 "overlap_slowdown": 0.0, "launch_overhead": 4.0e-6, "min_gain": 0.0}
//--- margin.json
{"name": "margin",
 "gpu": {"sms": 132, "sustained": 0.8, "hbm_bandwidth": 3.35e12,
         "transport": "copy_engine", "comm_sms": {"copy_engine": 0, "nccl": 16}, "nccl_channels": 24,
         "tiles": [[128, 256, 1.0], [256, 128, 0.889], [128, 128, 0.8], [64, 256, 0.8], [64, 128, 0.667]],
         "types": {"bf16": {"dense_flops": 9.894e14, "element_bytes": 2}}},
 "links": {"per_peer": {"bandwidth": 3.708e11, "latency": 1.0e-5},
           "ring": {"bandwidth": 3.708e11, "latency": 6.0e-6},
           "collective": {"bandwidth": 3.708e11, "latency": 8.4e-6, "step_latency": 3.4e-6}},
 "overlap_slowdown": 0.0, "launch_overhead": 4.0e-6, "min_gain": 0.5}
//--- free-launches.json
{"name": "free-launches",
 "gpu": {"sms": 132, "sustained": 0.8, "hbm_bandwidth": 3.35e12,
         "transport": "copy_engine", "comm_sms": {"copy_engine": 0, "nccl": 16}, "nccl_channels": 24,
         "tiles": [[128, 256, 1.0], [256, 128, 0.889], [128, 128, 0.8], [64, 256, 0.8], [64, 128, 0.667]],
         "types": {"bf16": {"dense_flops": 9.894e14, "element_bytes": 2}}},
 "links": {"per_peer": {"bandwidth": 3.708e11, "latency": 1.0e-5},
           "ring": {"bandwidth": 3.708e11, "latency": 6.0e-6},
           "collective": {"bandwidth": 3.708e11, "latency": 8.4e-6, "step_latency": 3.4e-6}},
 "overlap_slowdown": 0.0, "launch_overhead": 0, "min_gain": 0.5}
//--- bad-sustained.json
{"name": "b", "gpu": {"sms": 132, "sustained": 1.5, "hbm_bandwidth": 1e12, "tiles": [[128, 128, 1.0]], "types": {"bf16": {"dense_flops": 1e15, "element_bytes": 2}}}, "links": {"per_peer": {"bandwidth": 1e11, "latency": 1e-5}, "ring": {"bandwidth": 1e11, "latency": 1e-5}}, "overlap_slowdown": 0, "launch_overhead": 4e-6}
//--- bad-tile.json
{"name": "b", "gpu": {"sms": 132, "sustained": 0.8, "hbm_bandwidth": 1e12, "tiles": [[128, 0, 1.0]], "types": {"bf16": {"dense_flops": 1e15, "element_bytes": 2}}}, "links": {"per_peer": {"bandwidth": 1e11, "latency": 1e-5}, "ring": {"bandwidth": 1e11, "latency": 1e-5}}, "overlap_slowdown": 0, "launch_overhead": 4e-6}
//--- bad-comm-sms.json
{"name": "b", "gpu": {"sms": 132, "sustained": 0.8, "hbm_bandwidth": 1e12, "comm_sms": {"nccl": 132}, "tiles": [[128, 128, 1.0]], "types": {"bf16": {"dense_flops": 1e15, "element_bytes": 2}}}, "links": {"per_peer": {"bandwidth": 1e11, "latency": 1e-5}, "ring": {"bandwidth": 1e11, "latency": 1e-5}}, "overlap_slowdown": 0, "launch_overhead": 4e-6}
//--- bad-no-tiles.json
{"name": "b", "gpu": {"sms": 132, "sustained": 0.8, "hbm_bandwidth": 1e12, "types": {"bf16": {"dense_flops": 1e15, "element_bytes": 2}}}, "links": {"per_peer": {"bandwidth": 1e11, "latency": 1e-5}, "ring": {"bandwidth": 1e11, "latency": 1e-5}}, "overlap_slowdown": 0, "launch_overhead": 4e-6}
//--- bad-transport.json
{"name": "b", "gpu": {"sms": 132, "sustained": 0.8, "hbm_bandwidth": 1e12, "transport": "smoke-signals", "tiles": [[128, 128, 1.0]], "types": {"bf16": {"dense_flops": 1e15, "element_bytes": 2}}}, "links": {"per_peer": {"bandwidth": 1e11, "latency": 1e-5}, "ring": {"bandwidth": 1e11, "latency": 1e-5}}, "overlap_slowdown": 0, "launch_overhead": 4e-6}
//--- bad-min-gain.json
{"name": "b", "gpu": {"sms": 132, "sustained": 0.8, "hbm_bandwidth": 1e12, "tiles": [[128, 128, 1.0]], "types": {"bf16": {"dense_flops": 1e15, "element_bytes": 2}}}, "links": {"per_peer": {"bandwidth": 1e11, "latency": 1e-5}, "ring": {"bandwidth": 1e11, "latency": 1e-5}}, "overlap_slowdown": 0, "launch_overhead": 4e-6, "min_gain": 1}
