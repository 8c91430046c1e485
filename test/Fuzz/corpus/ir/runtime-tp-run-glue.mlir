shard.grid @tp(shape = 4)

func.func @constants() -> (tensor<2x3xf32>, tensor<bf16>, tensor<i64>) {
  %t = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %d = arith.addf %t, %t : tensor<2x3xf32>
  %one = arith.constant 1.0 : bf16
  %three = arith.constant 3.0 : bf16
  %third = arith.divf %one, %three : bf16
  %e = tensor.empty() : tensor<bf16>
  %r = linalg.fill ins(%third : bf16) outs(%e : tensor<bf16>) -> tensor<bf16>
  %c17 = arith.constant 17 : i64
  %c5 = arith.constant 5 : i64
  %q = arith.remsi %c17, %c5 : i64
  %s = arith.addi %q, %c5 : i64
  %ie = tensor.empty() : tensor<i64>
  %it = linalg.fill ins(%s : i64) outs(%ie : tensor<i64>) -> tensor<i64>
  return %d, %r, %it : tensor<2x3xf32>, tensor<bf16>, tensor<i64>
}

#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
func.func @activations() -> tensor<2x2xf32> {
  %x = arith.constant dense<1.0> : tensor<2x2xf32>
  %b = arith.constant dense<0.5> : tensor<2xf32>
  %e = tensor.empty() : tensor<2x2xf32>
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<2x2xf32>, tensor<2xf32>) outs(%e : tensor<2x2xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %rsqrt2 = arith.constant 0.70710678118654752 : f32
    %s = arith.mulf %v, %rsqrt2 : f32
    %erf = math.erf %s : f32
    %p = arith.addf %erf, %one : f32
    %h = arith.mulf %v, %half : f32
    %gelu = arith.mulf %h, %p : f32
    %n = arith.negf %v : f32
    %ex = math.exp %n : f32
    %den = arith.addf %ex, %one : f32
    %silu = arith.divf %v, %den : f32
    %sum = arith.addf %gelu, %silu : f32
    %r = arith.addf %sum, %bias : f32
    linalg.yield %r : f32
  } -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

func.func private @double(%x: f32) -> f32 {
  %y = arith.addf %x, %x : f32
  return %y : f32
}
func.func @control_flow() -> tensor<f32> {
  %rank = tp.group_rank on @tp axes = [0]
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %end = arith.addi %rank, %c1 : index
  %zero = arith.constant 0.0 : f32
  %total = scf.for %i = %c0 to %end step %c1 iter_args(%acc = %zero) -> (f32) {
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f32
    %next = arith.addf %acc, %f : f32
    scf.yield %next : f32
  }
  %doubled = func.call @double(%total) : (f32) -> f32
  %is0 = arith.cmpi eq, %rank, %c0 : index
  %r = scf.if %is0 -> (f32) {
    %h = arith.constant 100.0 : f32
    scf.yield %h : f32
  } else {
    scf.yield %doubled : f32
  }
  %e = tensor.empty() : tensor<f32>
  %t = linalg.fill ins(%r : f32) outs(%e : tensor<f32>) -> tensor<f32>
  return %t : tensor<f32>
}

func.func @slices() -> (tensor<2x2xf32>, tensor<16xf32>) {
  %iota = arith.constant dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0]]> : tensor<4x4xf32>
  %mid = tensor.extract_slice %iota[1, 1] [2, 2] [1, 1] : tensor<4x4xf32> to tensor<2x2xf32>
  %zero = arith.constant dense<0.0> : tensor<4x4xf32>
  %back = tensor.insert_slice %mid into %zero[1, 1] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<4x4xf32>
  %flat = tensor.collapse_shape %back [[0, 1]] : tensor<4x4xf32> into tensor<16xf32>
  return %mid, %flat : tensor<2x2xf32>, tensor<16xf32>
}

func.func @integers() -> (tensor<i64>, tensor<i64>) {
  %m1 = arith.constant -1 : i32
  %c2 = arith.constant 2 : i32
  %q = arith.divui %m1, %c2 : i32
  %q64 = arith.extui %q : i32 to i64
  %t = arith.constant true
  %s = arith.extsi %t : i1 to i64
  %e = tensor.empty() : tensor<i64>
  %r0 = linalg.fill ins(%q64 : i64) outs(%e : tensor<i64>) -> tensor<i64>
  %r1 = linalg.fill ins(%s : i64) outs(%e : tensor<i64>) -> tensor<i64>
  return %r0, %r1 : tensor<i64>, tensor<i64>
}

shard.grid @solo(shape = 1)
func.func @low_precision() -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %rank = tp.group_rank on @solo axes = [0]
  %rank_i = arith.index_cast %rank : index to i64
  %rank_f = arith.sitofp %rank_i : i64 to f32
  %c1 = arith.constant 1.0 : f32
  %one = arith.addf %rank_f, %c1 : f32
  %ones = tensor.splat %one : tensor<4xf32>
  %a0 = arith.constant dense<[1.5, 0.3, -2.0, 100.0]> : tensor<4xf32>
  %a = arith.mulf %a0, %ones : tensor<4xf32>
  %e4 = arith.truncf %a : tensor<4xf32> to tensor<4xf8E4M3FN>
  %e4x2 = arith.addf %e4, %e4 : tensor<4xf8E4M3FN>
  %r0 = arith.extf %e4x2 : tensor<4xf8E4M3FN> to tensor<4xf32>
  %e5 = arith.truncf %a : tensor<4xf32> to tensor<4xf8E5M2>
  %e5x2 = arith.addf %e5, %e5 : tensor<4xf8E5M2>
  %r1 = arith.extf %e5x2 : tensor<4xf8E5M2> to tensor<4xf32>
  %b0 = arith.constant dense<[1.5, 0.3, -2.0, 3.0]> : tensor<4xf32>
  %b = arith.mulf %b0, %ones : tensor<4xf32>
  %f4 = arith.truncf %b : tensor<4xf32> to tensor<4xf4E2M1FN>
  %f4x2 = arith.addf %f4, %f4 : tensor<4xf4E2M1FN>
  %r2 = arith.extf %f4x2 : tensor<4xf4E2M1FN> to tensor<4xf32>
  return %r0, %r1, %r2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
