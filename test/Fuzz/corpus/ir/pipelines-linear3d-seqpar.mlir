#act = affine_map<(b, s, n, k) -> (b, s, k)>
#wt = affine_map<(b, s, n, k) -> (n, k)>
#out = affine_map<(b, s, n, k) -> (b, s, n)>
#id = affine_map<(b, s, n) -> (b, s, n)>
shard.grid @tp(shape = 4)
func.func @mlp3d(%x: tensor<2x64x128xbf16>, %w1: tensor<256x128xbf16>, %w2: tensor<128x256xbf16>,
                 %o1: tensor<2x64x256xbf16>, %o2: tensor<2x64x128xbf16>) -> tensor<2x64x128xbf16> {
  %seq = shard.sharding @tp split_axes = [[], [0]] : !shard.sharding
  %repl = shard.sharding @tp split_axes = [[]] : !shard.sharding
  %nrows = shard.sharding @tp split_axes = [[0]] : !shard.sharding
  %kcols = shard.sharding @tp split_axes = [[], [0]] : !shard.sharding
  %feat = shard.sharding @tp split_axes = [[], [], [0]] : !shard.sharding
  %x0 = shard.shard %x to %seq : tensor<2x64x128xbf16>
  %x1 = shard.shard %x0 to %repl annotate_for_users : tensor<2x64x128xbf16>
  %w1a = shard.shard %w1 to %nrows : tensor<256x128xbf16>
  %w1b = shard.shard %w1a to %nrows annotate_for_users : tensor<256x128xbf16>
  %o1a = shard.shard %o1 to %feat : tensor<2x64x256xbf16>
  %o1b = shard.shard %o1a to %feat annotate_for_users : tensor<2x64x256xbf16>
  %h = linalg.generic {indexing_maps = [#act, #wt, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x1, %w1b : tensor<2x64x128xbf16>, tensor<256x128xbf16>) outs(%o1b : tensor<2x64x256xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %c: bf16):
    %m = arith.mulf %a, %b : bf16
    %s = arith.addf %c, %m : bf16
    linalg.yield %s : bf16
  } -> tensor<2x64x256xbf16>
  %h0 = shard.shard %h to %feat : tensor<2x64x256xbf16>
  %h1 = shard.shard %h0 to %feat annotate_for_users : tensor<2x64x256xbf16>
  %ge = tensor.empty() : tensor<2x64x256xbf16>
  %ge0 = shard.shard %ge to %feat : tensor<2x64x256xbf16>
  %ge1 = shard.shard %ge0 to %feat annotate_for_users : tensor<2x64x256xbf16>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%h1 : tensor<2x64x256xbf16>) outs(%ge1 : tensor<2x64x256xbf16>) {
  ^bb0(%a: bf16, %c: bf16):
    %t = math.tanh %a : bf16
    linalg.yield %t : bf16
  } -> tensor<2x64x256xbf16>
  %g0 = shard.shard %g to %feat : tensor<2x64x256xbf16>
  %g1 = shard.shard %g0 to %feat annotate_for_users : tensor<2x64x256xbf16>
  %w2a = shard.shard %w2 to %kcols : tensor<128x256xbf16>
  %w2b = shard.shard %w2a to %kcols annotate_for_users : tensor<128x256xbf16>
  %o2a = shard.shard %o2 to %repl : tensor<2x64x128xbf16>
  %o2b = shard.shard %o2a to %repl annotate_for_users : tensor<2x64x128xbf16>
  %y = linalg.generic {indexing_maps = [#act, #wt, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%g1, %w2b : tensor<2x64x256xbf16>, tensor<128x256xbf16>) outs(%o2b : tensor<2x64x128xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %c: bf16):
    %m = arith.mulf %a, %b : bf16
    %s = arith.addf %c, %m : bf16
    linalg.yield %s : bf16
  } -> tensor<2x64x128xbf16>
  %y0 = shard.shard %y to %repl : tensor<2x64x128xbf16>
  %y1 = shard.shard %y0 to %seq annotate_for_users : tensor<2x64x128xbf16>
  return %y1 : tensor<2x64x128xbf16>
}
