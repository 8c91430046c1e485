// RUN: tp-opt %s --tp-async-tp="algorithm=ring chunks=4" | FileCheck %s
// RUN: tp-opt %s --tp-async-tp | FileCheck %s --check-prefix=DEFAULT
// RUN: not tp-opt %s --tp-async-tp="algorithm=tree" 2>&1 | FileCheck %s --check-prefix=BAD-ALGORITHM
// RUN: not tp-opt %s --tp-async-tp="chunks=-2" 2>&1 | FileCheck %s --check-prefix=BAD-CHUNKS
// RUN: tp-opt %s --tp-async-tp="algorithm=coalesced chunks=2 streams=2" | FileCheck %s --check-prefix=STREAMS
// RUN: not tp-opt %s --tp-async-tp="streams=-1" 2>&1 | FileCheck %s --check-prefix=BAD-STREAMS

// The schedule options are written on every fused op; without them the
// runtime chooses.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @mlp
// CHECK:       tp.all_gather_matmul {{.*}} {algorithm = #tp.algorithm<ring>, chunks = 4 : i64}
// CHECK:       tp.matmul_reduce_scatter {{.*}} {algorithm = #tp.algorithm<ring>, chunks = 4 : i64}
// DEFAULT-LABEL: func.func @mlp
// DEFAULT-NOT:   algorithm
// DEFAULT-NOT:   chunks
// BAD-ALGORITHM: error: tp-async-tp: 'algorithm' must be 'ring', 'per_peer' or 'coalesced', got 'tree'
// BAD-CHUNKS: error: tp-async-tp: 'chunks' must be positive or 0, got -2
// STREAMS-LABEL: func.func @mlp
// STREAMS:       tp.all_gather_matmul {{.*}} {algorithm = #tp.algorithm<coalesced>, chunks = 2 : i64, streams = 2 : i64}
// STREAMS:       tp.matmul_reduce_scatter {{.*}} {algorithm = #tp.algorithm<coalesced>, chunks = 2 : i64, streams = 2 : i64}
// BAD-STREAMS: error: tp-async-tp: 'streams' must be positive or 0, got -1
func.func @mlp(%x: tensor<8x64xf32>, %w1: tensor<64x128xf32>, %w2: tensor<128x64xf32>) -> tensor<8x64xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x64xf32> -> tensor<32x64xf32>
  %h = tp.matmul %g, %w1 : tensor<32x64xf32>, tensor<64x128xf32> -> tensor<32x128xf32>
  %y = tp.matmul %h, %w2 : tensor<32x128xf32>, tensor<128x64xf32> -> tensor<32x64xf32>
  %r = tp.reduce_scatter %y on @tp axes = [0] dim = 0 reduce = sum : tensor<32x64xf32> -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}
