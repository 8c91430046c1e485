// A sequence-parallel MLP with an RMS norm in front, written at the global
// view with upstream MLIR sharding annotations, its accumulators created in
// the function (tensor.empty + linalg.fill) and annotated. The row-parallel
// layer's accumulator tensor.empty carries the layer's output (row) sharding
// while the fill's users want it replicated, so shard-partition all-gathers
// the uninitialized empty only to zero-fill it (tp-simplify-collectives
// removes that gather). Per-rank program: mlir-opt-22 norm_mlp_fill.mlir \
//   --pass-pipeline='builtin.module(func.func(shard-partition,canonicalize,cse))'
shard.grid @tp(shape = 4)
func.func @norm_mlp(%x: tensor<64x128xf32>, %g: tensor<128xf32>, %w1: tensor<128x256xf32>, %w2: tensor<256x128xf32>) -> tensor<64x128xf32> {
  %rows = shard.sharding @tp split_axes = [[0]] : !shard.sharding
  %repl = shard.sharding @tp split_axes = [[]] : !shard.sharding
  %cols = shard.sharding @tp split_axes = [[], [0]] : !shard.sharding
  %vrepl = shard.sharding @tp split_axes = [[]] : !shard.sharding
  %x0 = shard.shard %x to %rows : tensor<64x128xf32>
  %x1 = shard.shard %x0 to %rows annotate_for_users : tensor<64x128xf32>
  %g0 = shard.shard %g to %vrepl : tensor<128xf32>
  %g1 = shard.shard %g0 to %vrepl annotate_for_users : tensor<128xf32>
  %cst = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<64xf32>
  %ess = shard.shard %es to %rows annotate_for_users : tensor<64xf32>
  %zs = linalg.fill ins(%cst : f32) outs(%ess : tensor<64xf32>) -> tensor<64xf32>
  %zs1 = shard.shard %zs to %rows : tensor<64xf32>
  %zs2 = shard.shard %zs1 to %rows annotate_for_users : tensor<64xf32>
  %ss = linalg.generic {indexing_maps = [affine_map<(i,j)->(i,j)>, affine_map<(i,j)->(i)>], iterator_types = ["parallel","reduction"]}
     ins(%x1 : tensor<64x128xf32>) outs(%zs2 : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %a : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %ss1 = shard.shard %ss to %rows : tensor<64xf32>
  %ss2 = shard.shard %ss1 to %rows annotate_for_users : tensor<64xf32>
  %e0 = tensor.empty() : tensor<64x128xf32>
  %e0s = shard.shard %e0 to %rows annotate_for_users : tensor<64x128xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(i,j)->(i,j)>, affine_map<(i,j)->(i)>, affine_map<(i,j)->(j)>, affine_map<(i,j)->(i,j)>], iterator_types = ["parallel","parallel"]}
     ins(%x1, %ss2, %g1 : tensor<64x128xf32>, tensor<64xf32>, tensor<128xf32>) outs(%e0s : tensor<64x128xf32>) {
  ^bb0(%a: f32, %q: f32, %b: f32, %o: f32):
    %k = arith.constant 7.8125e-03 : f32
    %eps = arith.constant 1.0e-05 : f32
    %mean = arith.mulf %q, %k : f32
    %me = arith.addf %mean, %eps : f32
    %r = math.rsqrt %me : f32
    %xn = arith.mulf %a, %r : f32
    %m = arith.mulf %xn, %b : f32
    linalg.yield %m : f32
  } -> tensor<64x128xf32>
  %n1 = shard.shard %n to %rows : tensor<64x128xf32>
  %n2 = shard.shard %n1 to %repl annotate_for_users : tensor<64x128xf32>
  %w1s = shard.shard %w1 to %cols : tensor<128x256xf32>
  %w1u = shard.shard %w1s to %cols annotate_for_users : tensor<128x256xf32>
  %e1 = tensor.empty() : tensor<64x256xf32>
  %e1s = shard.shard %e1 to %cols : tensor<64x256xf32>
  %e1u = shard.shard %e1s to %cols annotate_for_users : tensor<64x256xf32>
  %f1 = linalg.fill ins(%cst : f32) outs(%e1u : tensor<64x256xf32>) -> tensor<64x256xf32>
  %f1s = shard.shard %f1 to %cols : tensor<64x256xf32>
  %f1u = shard.shard %f1s to %cols annotate_for_users : tensor<64x256xf32>
  %h = linalg.matmul ins(%n2, %w1u : tensor<64x128xf32>, tensor<128x256xf32>) outs(%f1u : tensor<64x256xf32>) -> tensor<64x256xf32>
  %h1 = shard.shard %h to %cols : tensor<64x256xf32>
  %h2 = shard.shard %h1 to %cols annotate_for_users : tensor<64x256xf32>
  %w2s = shard.shard %w2 to %rows : tensor<256x128xf32>
  %w2u = shard.shard %w2s to %rows annotate_for_users : tensor<256x128xf32>
  %e2 = tensor.empty() : tensor<64x128xf32>
  %e2s = shard.shard %e2 to %rows : tensor<64x128xf32>
  %e2u = shard.shard %e2s to %repl annotate_for_users : tensor<64x128xf32>
  %f2 = linalg.fill ins(%cst : f32) outs(%e2u : tensor<64x128xf32>) -> tensor<64x128xf32>
  %f2s = shard.shard %f2 to %repl : tensor<64x128xf32>
  %f2u = shard.shard %f2s to %repl annotate_for_users : tensor<64x128xf32>
  %y = linalg.matmul ins(%h2, %w2u : tensor<64x256xf32>, tensor<256x128xf32>) outs(%f2u : tensor<64x128xf32>) -> tensor<64x128xf32>
  %y1 = shard.shard %y to %repl : tensor<64x128xf32>
  %y2 = shard.shard %y1 to %rows annotate_for_users : tensor<64x128xf32>
  return %y2 : tensor<64x128xf32>
}
