// A tensor-parallel MLP on 2 ranks, compiled ahead of time by examples/aot:
// the sequence-parallel input is gathered into the column-parallel W1, the
// row-parallel W2's partial sums are reduce-scattered back. The async-TP
// pipeline fuses both collectives with their GEMMs.
shard.grid @tp(shape = 2)

func.func @mlp(%x: tensor<8x16xf32>, %w1: tensor<16x32xf32>,
               %w2: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0
      : tensor<8x16xf32> -> tensor<16x16xf32>
  %h = tp.matmul %g, %w1 : tensor<16x16xf32>, tensor<16x32xf32> -> tensor<16x32xf32>
  %a = math.tanh %h : tensor<16x32xf32>
  %p = tp.matmul %a, %w2 : tensor<16x32xf32>, tensor<32x16xf32> -> tensor<16x16xf32>
  %y = tp.reduce_scatter %p on @tp axes = [0] dim = 0 reduce = sum
      : tensor<16x16xf32> -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
