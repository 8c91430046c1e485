// RUN: tp-opt %s --one-shot-bufferize=bufferize-function-boundaries --verify-diagnostics

// tp ops call the runtime with the rank context tp-to-runtime adds.
shard.grid @tp(shape = 4)
func.func @no_context(%x: tensor<2x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+2 {{has no rank context to call the runtime with; run tp-to-runtime before bufferizing}}
  // expected-error @+1 {{failed to bufferize op}}
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<2x8xf32> -> tensor<8x8xf32>
  return %g : tensor<8x8xf32>
}
