// An attention-like block with an RMS norm in front (Q, K, V column-parallel
// from one gathered activation, an element-wise mix standing in for the
// attention core, a row-parallel output projection with a sequence-parallel
// output), at the global view with upstream sharding annotations and
// accumulators created in the function. As in norm_mlp_fill.mlir, the output
// projection's accumulator empty is annotated with the row sharding, and
// shard-partition all-gathers it only to zero-fill it. Per-rank program:
//   mlir-opt-22 norm_attn_fill.mlir \
//   --pass-pipeline='builtin.module(func.func(shard-partition,canonicalize,cse))'
shard.grid @tp(shape = 4)
func.func @norm_attn(%x: tensor<64x128xf32>, %g: tensor<128xf32>, %wq: tensor<128x128xf32>, %wk: tensor<128x128xf32>, %wv: tensor<128x128xf32>, %wo: tensor<128x128xf32>) -> tensor<64x128xf32> {
  %rows = shard.sharding @tp split_axes = [[0]] : !shard.sharding
  %repl = shard.sharding @tp split_axes = [[]] : !shard.sharding
  %cols = shard.sharding @tp split_axes = [[], [0]] : !shard.sharding
  %x0 = shard.shard %x to %rows : tensor<64x128xf32>
  %x1 = shard.shard %x0 to %rows annotate_for_users : tensor<64x128xf32>
  %g0 = shard.shard %g to %repl : tensor<128xf32>
  %g1 = shard.shard %g0 to %repl annotate_for_users : tensor<128xf32>
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
  %wq1 = shard.shard %wq to %cols : tensor<128x128xf32>
  %wq2 = shard.shard %wq1 to %cols annotate_for_users : tensor<128x128xf32>
  %wk1 = shard.shard %wk to %cols : tensor<128x128xf32>
  %wk2 = shard.shard %wk1 to %cols annotate_for_users : tensor<128x128xf32>
  %wv1 = shard.shard %wv to %cols : tensor<128x128xf32>
  %wv2 = shard.shard %wv1 to %cols annotate_for_users : tensor<128x128xf32>
  %e1 = tensor.empty() : tensor<64x128xf32>
  %e1s = shard.shard %e1 to %cols : tensor<64x128xf32>
  %e1u = shard.shard %e1s to %cols annotate_for_users : tensor<64x128xf32>
  %f1 = linalg.fill ins(%cst : f32) outs(%e1u : tensor<64x128xf32>) -> tensor<64x128xf32>
  %f1s = shard.shard %f1 to %cols : tensor<64x128xf32>
  %f1u = shard.shard %f1s to %cols annotate_for_users : tensor<64x128xf32>
  %q = linalg.matmul ins(%n2, %wq2 : tensor<64x128xf32>, tensor<128x128xf32>) outs(%f1u : tensor<64x128xf32>) -> tensor<64x128xf32>
  %k = linalg.matmul ins(%n2, %wk2 : tensor<64x128xf32>, tensor<128x128xf32>) outs(%f1u : tensor<64x128xf32>) -> tensor<64x128xf32>
  %v = linalg.matmul ins(%n2, %wv2 : tensor<64x128xf32>, tensor<128x128xf32>) outs(%f1u : tensor<64x128xf32>) -> tensor<64x128xf32>
  %q1 = shard.shard %q to %cols : tensor<64x128xf32>
  %q2 = shard.shard %q1 to %cols annotate_for_users : tensor<64x128xf32>
  %k1 = shard.shard %k to %cols : tensor<64x128xf32>
  %k2 = shard.shard %k1 to %cols annotate_for_users : tensor<64x128xf32>
  %v1 = shard.shard %v to %cols : tensor<64x128xf32>
  %v2 = shard.shard %v1 to %cols annotate_for_users : tensor<64x128xf32>
  %e3 = tensor.empty() : tensor<64x128xf32>
  %e3s = shard.shard %e3 to %cols : tensor<64x128xf32>
  %e3u = shard.shard %e3s to %cols annotate_for_users : tensor<64x128xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(i,j)->(i,j)>, affine_map<(i,j)->(i,j)>, affine_map<(i,j)->(i,j)>, affine_map<(i,j)->(i,j)>], iterator_types = ["parallel","parallel"]}
     ins(%q2, %k2, %v2 : tensor<64x128xf32>, tensor<64x128xf32>, tensor<64x128xf32>) outs(%e3u : tensor<64x128xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = math.tanh %m : f32
    %r = arith.mulf %s, %c : f32
    linalg.yield %r : f32
  } -> tensor<64x128xf32>
  %t1 = shard.shard %t to %cols : tensor<64x128xf32>
  %t2 = shard.shard %t1 to %cols annotate_for_users : tensor<64x128xf32>
  %wo1 = shard.shard %wo to %rows : tensor<128x128xf32>
  %wo2 = shard.shard %wo1 to %rows annotate_for_users : tensor<128x128xf32>
  %e2 = tensor.empty() : tensor<64x128xf32>
  %e2s = shard.shard %e2 to %rows : tensor<64x128xf32>
  %e2u = shard.shard %e2s to %repl annotate_for_users : tensor<64x128xf32>
  %f2 = linalg.fill ins(%cst : f32) outs(%e2u : tensor<64x128xf32>) -> tensor<64x128xf32>
  %f2s = shard.shard %f2 to %repl : tensor<64x128xf32>
  %f2u = shard.shard %f2s to %repl annotate_for_users : tensor<64x128xf32>
  %y = linalg.matmul ins(%t2, %wo2 : tensor<64x128xf32>, tensor<128x128xf32>) outs(%f2u : tensor<64x128xf32>) -> tensor<64x128xf32>
  %y1 = shard.shard %y to %repl : tensor<64x128xf32>
  %y2 = shard.shard %y1 to %rows annotate_for_users : tensor<64x128xf32>
  return %y2 : tensor<64x128xf32>
}
