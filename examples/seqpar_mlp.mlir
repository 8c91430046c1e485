// A sequence-parallel Llama-style MLP block on 4 ranks, written with
// tp.linear at the layer level: gate and up projections are column-parallel
// on an activation sharded along the sequence (dim 1), the down projection is
// row-parallel back to a sequence-sharded output.
//
//   tp-opt seqpar_mlp.mlir --tp-lower-linear --cse --tp-async-tp=emit-remarks
shard.grid @tp(shape = 4)

func.func @seqpar_mlp(%x: tensor<2x64x256xf32>, %w_gate: tensor<256x256xf32>,
                      %w_up: tensor<256x256xf32>, %w_down: tensor<256x256xf32>,
                      %b_down: tensor<256xf32>) -> tensor<2x64x256xf32> {
  %gate = tp.linear %x, %w_gate on @tp axes = [0] column input = shard(1) output = shard(2)
      : (tensor<2x64x256xf32>, tensor<256x256xf32>) -> tensor<2x256x256xf32>
  %up = tp.linear %x, %w_up on @tp axes = [0] column input = shard(1) output = shard(2)
      : (tensor<2x64x256xf32>, tensor<256x256xf32>) -> tensor<2x256x256xf32>
  %act = math.tanh %gate : tensor<2x256x256xf32>
  %h = arith.mulf %act, %up : tensor<2x256x256xf32>
  %y = tp.linear %h, %w_down bias %b_down on @tp axes = [0] row input = shard(2) output = shard(1)
      : (tensor<2x256x256xf32>, tensor<256x256xf32>, tensor<256xf32>) -> tensor<2x64x256xf32>
  return %y : tensor<2x64x256xf32>
}
