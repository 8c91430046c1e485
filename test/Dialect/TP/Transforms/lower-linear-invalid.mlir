// RUN: not tp-opt %s --tp-lower-linear=mode=dense 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: tp-opt %s --tp-lower-linear=mode=bmm -verify-diagnostics

// MODE: error: tp-lower-linear: unknown mode 'dense'; expected 'reshape' or 'bmm'

shard.grid @tp(shape = 2)

func.func @rank4_bmm(%x: tensor<2x2x4x64xf32>, %w: tensor<32x64xf32>) -> tensor<2x2x8x32xf32> {
  // expected-error @+1 {{tp-lower-linear: the batched-matmul path takes 2-D or 3-D inputs only; use mode=reshape for rank 4}}
  %y = tp.linear %x, %w on @tp axes = [0] column input = shard(2) output = shard(3)
      : (tensor<2x2x4x64xf32>, tensor<32x64xf32>) -> tensor<2x2x8x32xf32>
  return %y : tensor<2x2x8x32xf32>
}
