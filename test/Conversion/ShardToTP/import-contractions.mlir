// RUN: tp-opt %s --tp-import=emit-remarks -split-input-file -verify-diagnostics | FileCheck %s

// linalg.matmul: a zero init (fill of 0, or tensor.empty) is dropped; any
// other init is added after the product.

// CHECK-LABEL: func.func @matmul_inits
// CHECK-SAME:    (%[[A:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<16x32xf32>, %[[C:.*]]: tensor<8x32xf32>)
// CHECK:       %[[P0:.*]] = tp.matmul %[[A]], %[[B]] : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
// CHECK:       %[[P1:.*]] = tp.matmul %[[A]], %[[B]]
// CHECK:       %[[P2:.*]] = tp.matmul %[[A]], %[[B]]
// CHECK-NEXT:  %[[S:.*]] = arith.addf %[[P2]], %[[C]] : tensor<8x32xf32>
// CHECK-NEXT:  return %[[P0]], %[[P1]], %[[S]]
func.func @matmul_inits(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>, %c: tensor<8x32xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%z : tensor<8x32xf32>) -> tensor<8x32xf32>
  %1 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %2 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %0, %1, %2 : tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>
}

// -----

// A transposed B through linalg.matmul's indexing maps.

// CHECK-LABEL: func.func @matmul_transposed_b
// CHECK-SAME:    (%[[A:.*]]: tensor<8x16xbf16>, %[[B:.*]]: tensor<32x16xbf16>
// CHECK:       tp.matmul %[[A]], %[[B]] transpose_b : tensor<8x16xbf16>, tensor<32x16xbf16> -> tensor<8x32xbf16>
func.func @matmul_transposed_b(%a: tensor<8x16xbf16>, %b: tensor<32x16xbf16>) -> tensor<8x32xbf16> {
  %e = tensor.empty() : tensor<8x32xbf16>
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<8x16xbf16>, tensor<32x16xbf16>) outs(%e : tensor<8x32xbf16>) -> tensor<8x32xbf16>
  return %0 : tensor<8x32xbf16>
}

// -----

// linalg.batch_matmul.

// CHECK-LABEL: func.func @batch_matmul
// CHECK-SAME:    (%[[A:.*]]: tensor<2x8x16xf32>, %[[B:.*]]: tensor<2x16x32xf32>
// CHECK:       tp.batch_matmul %[[A]], %[[B]] : tensor<2x8x16xf32>, tensor<2x16x32xf32> -> tensor<2x8x32xf32>
func.func @batch_matmul(%a: tensor<2x8x16xf32>, %b: tensor<2x16x32xf32>) -> tensor<2x8x32xf32> {
  %e = tensor.empty() : tensor<2x8x32xf32>
  %0 = linalg.batch_matmul ins(%a, %b : tensor<2x8x16xf32>, tensor<2x16x32xf32>) outs(%e : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  return %0 : tensor<2x8x32xf32>
}

// -----

// F.linear on a 3-D activation as a contraction generic: a batched matmul
// with the weight broadcast over the batch.

#act = affine_map<(b, s, n, k) -> (b, s, k)>
#wt = affine_map<(b, s, n, k) -> (n, k)>
#out = affine_map<(b, s, n, k) -> (b, s, n)>

// CHECK-LABEL: func.func @linear_3d
// CHECK-SAME:    (%[[X:.*]]: tensor<2x8x16xf32>, %[[W:.*]]: tensor<32x16xf32>, %[[C:.*]]: tensor<2x8x32xf32>)
// CHECK-NEXT:  %[[P:.*]] = tp.batch_matmul %[[X]], %[[W]] transpose_b : tensor<2x8x16xf32>, tensor<32x16xf32> -> tensor<2x8x32xf32>
// CHECK-NEXT:  %[[S:.*]] = arith.addf %[[P]], %[[C]]
// CHECK-NEXT:  return %[[S]]
func.func @linear_3d(%x: tensor<2x8x16xf32>, %w: tensor<32x16xf32>, %c: tensor<2x8x32xf32>) -> tensor<2x8x32xf32> {
  %0 = linalg.generic {indexing_maps = [#act, #wt, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<2x8x16xf32>, tensor<32x16xf32>) outs(%c : tensor<2x8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x8x32xf32>
  return %0 : tensor<2x8x32xf32>
}

// -----

// A 4-D activation: collapse, matmul, expand.

#act = affine_map<(a, b, s, n, k) -> (a, b, s, k)>
#wt = affine_map<(a, b, s, n, k) -> (k, n)>
#out = affine_map<(a, b, s, n, k) -> (a, b, s, n)>

// CHECK-LABEL: func.func @linear_4d
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x8x16xf32>, %[[W:.*]]: tensor<16x32xf32>
// CHECK-NEXT:  %[[C:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1, 2], [3]] : tensor<2x3x8x16xf32> into tensor<48x16xf32>
// CHECK-NEXT:  %[[M:.*]] = tp.matmul %[[C]], %[[W]] : tensor<48x16xf32>, tensor<16x32xf32> -> tensor<48x32xf32>
// CHECK-NEXT:  %[[E:.*]] = tensor.expand_shape %[[M]] {{\[\[}}0, 1, 2], [3]] output_shape [2, 3, 8, 32]
// CHECK-NEXT:  return %[[E]]
func.func @linear_4d(%x: tensor<2x3x8x16xf32>, %w: tensor<16x32xf32>) -> tensor<2x3x8x32xf32> {
  %e = tensor.empty() : tensor<2x3x8x32xf32>
  %0 = linalg.generic {indexing_maps = [#act, #wt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<2x3x8x16xf32>, tensor<16x32xf32>) outs(%e : tensor<2x3x8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x3x8x32xf32>
  return %0 : tensor<2x3x8x32xf32>
}

// -----

// A transposed A (a weight gradient, dW = dY^T . X): A goes through a
// linalg.transpose, which the weight-gradient fusion looks through.

// CHECK-LABEL: func.func @transposed_a
// CHECK-SAME:    (%[[A:.*]]: tensor<16x8xf32>, %[[B:.*]]: tensor<16x32xf32>)
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<8x16xf32>
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[A]] : tensor<16x8xf32>) outs(%[[E]] : tensor<8x16xf32>) permutation = [1, 0]
// CHECK:         %[[P:.*]] = tp.matmul %[[T]], %[[B]] : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
// CHECK:         return %[[P]]
func.func @transposed_a(%a: tensor<16x8xf32>, %b: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %e = tensor.empty() : tensor<8x32xf32>
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<16x8xf32>, tensor<16x32xf32>) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

// A transposed A with B given as [N, K].

// CHECK-LABEL: func.func @transposed_a_and_b
// CHECK:         %[[T:.*]] = linalg.transpose
// CHECK:         tp.matmul %[[T]], %{{.*}} transpose_b : tensor<8x16xf32>, tensor<32x16xf32> -> tensor<8x32xf32>
func.func @transposed_a_and_b(%a: tensor<16x8xf32>, %b: tensor<32x16xf32>) -> tensor<8x32xf32> {
  %e = tensor.empty() : tensor<8x32xf32>
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<16x8xf32>, tensor<32x16xf32>) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

// A weight gradient over batch and sequence: [B, S, M] x [B, S, N] -> [M, N]
// collapses both to [B * S, ...], then transposes A.

#a = affine_map<(m, n, p, q) -> (p, q, m)>
#b = affine_map<(m, n, p, q) -> (p, q, n)>
#c = affine_map<(m, n, p, q) -> (m, n)>

// CHECK-LABEL: func.func @batch_sequence_weight_gradient
// CHECK-SAME:    (%[[DY:.*]]: tensor<2x8x24xbf16>, %[[X:.*]]: tensor<2x8x32xbf16>, %[[ACC:.*]]: tensor<24x32xbf16>)
// CHECK:         %[[DYC:.*]] = tensor.collapse_shape %[[DY]] {{\[}}[0, 1], [2]] : tensor<2x8x24xbf16> into tensor<16x24xbf16>
// CHECK:         %[[XC:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<2x8x32xbf16> into tensor<16x32xbf16>
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[DYC]] : tensor<16x24xbf16>)
// CHECK:         %[[P:.*]] = tp.matmul %[[T]], %[[XC]] : tensor<24x16xbf16>, tensor<16x32xbf16> -> tensor<24x32xbf16>
// CHECK:         %[[S:.*]] = arith.addf %[[P]], %[[ACC]]
// CHECK:         return %[[S]]
func.func @batch_sequence_weight_gradient(%dy: tensor<2x8x24xbf16>, %x: tensor<2x8x32xbf16>, %acc: tensor<24x32xbf16>) -> tensor<24x32xbf16> {
  %0 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%dy, %x : tensor<2x8x24xbf16>, tensor<2x8x32xbf16>) outs(%acc : tensor<24x32xbf16>) {
  ^bb0(%u: bf16, %v: bf16, %o: bf16):
    %m = arith.mulf %u, %v : bf16
    %s = arith.addf %o, %m : bf16
    linalg.yield %s : bf16
  } -> tensor<24x32xbf16>
  return %0 : tensor<24x32xbf16>
}

// -----

// Negative: mixed precision (bf16 inputs, f32 accumulator).

// CHECK-LABEL: func.func @mixed_precision
// CHECK:       linalg.matmul
func.func @mixed_precision(%a: tensor<8x16xbf16>, %b: tensor<16x32xbf16>, %c: tensor<8x32xf32>) -> tensor<8x32xf32> {
  // expected-remark @+1 {{'linalg.matmul' not raised: it mixes element types}}
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xbf16>, tensor<16x32xbf16>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

// Negative: an integer matmul.

// CHECK-LABEL: func.func @integer
// CHECK:       linalg.matmul
func.func @integer(%a: tensor<8x16xi32>, %b: tensor<16x32xi32>, %c: tensor<8x32xi32>) -> tensor<8x32xi32> {
  // expected-remark @+1 {{'linalg.matmul' not raised: its element type is not f16, bf16, f32 or f64}}
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xi32>, tensor<16x32xi32>) outs(%c : tensor<8x32xi32>) -> tensor<8x32xi32>
  return %0 : tensor<8x32xi32>
}

// -----

// Negative: a transposed result.

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (n, m)>

// CHECK-LABEL: func.func @transposed_result
// CHECK:       linalg.generic
func.func @transposed_result(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>, %c: tensor<32x8xf32>) -> tensor<32x8xf32> {
  // expected-remark @+1 {{'linalg.generic' not raised: it writes a transposed result}}
  %0 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%c : tensor<32x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<32x8xf32>
  return %0 : tensor<32x8xf32>
}

// -----

// Multi-head projections, written as einsums over grouped dims: each group
// (rows, columns, contraction, batch) collapses to one dim around one matmul.
// Q = x . Wq with Wq [D, H, hd]: the columns are (h, d).

#x = affine_map<(s, h, d, k) -> (s, k)>
#wq = affine_map<(s, h, d, k) -> (k, h, d)>
#q = affine_map<(s, h, d, k) -> (s, h, d)>

// CHECK-LABEL: func.func @grouped_columns
// CHECK-SAME:    %[[X:.*]]: tensor<8x16xf32>, %[[W:.*]]: tensor<16x2x4xf32>
// CHECK:         %[[WM:.*]] = tensor.collapse_shape %[[W]] {{\[}}[0], [1, 2]] : tensor<16x2x4xf32> into tensor<16x8xf32>
// CHECK:         %[[P:.*]] = tp.matmul %[[X]], %[[WM]] : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<8x8xf32>
// CHECK:         %[[Q:.*]] = tensor.expand_shape %[[P]] {{\[}}[0], [1, 2]] output_shape [8, 2, 4] : tensor<8x8xf32> into tensor<8x2x4xf32>
// CHECK:         return %[[Q]]
func.func @grouped_columns(%x: tensor<8x16xf32>, %w: tensor<16x2x4xf32>) -> tensor<8x2x4xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x2x4xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
  %0 = linalg.generic {indexing_maps = [#x, #wq, #q], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<8x16xf32>, tensor<16x2x4xf32>) outs(%c : tensor<8x2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x2x4xf32>
  return %0 : tensor<8x2x4xf32>
}

// -----

// The output projection contracts over (h, d), and reads Wo [N, H, hd]
// transposed; its init is added after the product.

#o = affine_map<(s, n, h, d) -> (s, h, d)>
#wo = affine_map<(s, n, h, d) -> (n, h, d)>
#y = affine_map<(s, n, h, d) -> (s, n)>

// CHECK-LABEL: func.func @grouped_contraction_transposed_b
// CHECK-SAME:    %[[O:.*]]: tensor<8x2x4xf32>, %[[W:.*]]: tensor<16x2x4xf32>, %[[ACC:.*]]: tensor<8x16xf32>
// CHECK-DAG:     %[[OM:.*]] = tensor.collapse_shape %[[O]] {{\[}}[0], [1, 2]] : tensor<8x2x4xf32> into tensor<8x8xf32>
// CHECK-DAG:     %[[WM:.*]] = tensor.collapse_shape %[[W]] {{\[}}[0], [1, 2]] : tensor<16x2x4xf32> into tensor<16x8xf32>
// CHECK:         %[[P:.*]] = tp.matmul %[[OM]], %[[WM]] transpose_b : tensor<8x8xf32>, tensor<16x8xf32> -> tensor<8x16xf32>
// CHECK:         %[[S:.*]] = arith.addf %[[P]], %[[ACC]] : tensor<8x16xf32>
// CHECK:         return %[[S]]
func.func @grouped_contraction_transposed_b(%o: tensor<8x2x4xf32>, %w: tensor<16x2x4xf32>, %acc: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = linalg.generic {indexing_maps = [#o, #wo, #y], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%o, %w : tensor<8x2x4xf32>, tensor<16x2x4xf32>) outs(%acc : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// A weight gradient dWq = x^T . dQ contracts the rows (A is read (k, m)):
// collapse, transpose A, matmul, expand.

#x = affine_map<(k, h, d, s) -> (s, k)>
#dq = affine_map<(k, h, d, s) -> (s, h, d)>
#dw = affine_map<(k, h, d, s) -> (k, h, d)>

// CHECK-LABEL: func.func @grouped_weight_gradient
// CHECK-SAME:    %[[X:.*]]: tensor<8x16xf32>, %[[DQ:.*]]: tensor<8x2x4xf32>
// CHECK:         %[[DQM:.*]] = tensor.collapse_shape %[[DQ]] {{\[}}[0], [1, 2]] : tensor<8x2x4xf32> into tensor<8x8xf32>
// CHECK:         %[[XT:.*]] = linalg.transpose ins(%[[X]] : tensor<8x16xf32>) outs(%{{.*}} : tensor<16x8xf32>) permutation = [1, 0]
// CHECK:         %[[P:.*]] = tp.matmul %[[XT]], %[[DQM]] : tensor<16x8xf32>, tensor<8x8xf32> -> tensor<16x8xf32>
// CHECK:         %[[DW:.*]] = tensor.expand_shape %[[P]] {{\[}}[0], [1, 2]] output_shape [16, 2, 4] : tensor<16x8xf32> into tensor<16x2x4xf32>
// CHECK:         return %[[DW]]
func.func @grouped_weight_gradient(%x: tensor<8x16xf32>, %dq: tensor<8x2x4xf32>) -> tensor<16x2x4xf32> {
  %e = tensor.empty() : tensor<16x2x4xf32>
  %0 = linalg.generic {indexing_maps = [#x, #dq, #dw], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %dq : tensor<8x16xf32>, tensor<8x2x4xf32>) outs(%e : tensor<16x2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x2x4xf32>
  return %0 : tensor<16x2x4xf32>
}

// -----

// Attention's scores: grouped-query heads (kv head h, group g) batch the
// product; the rows are (g, s) and the contraction is d.

#q = affine_map<(h, g, s, t, d) -> (h, g, s, d)>
#k = affine_map<(h, g, s, t, d) -> (h, t, d)>
#p = affine_map<(h, g, s, t, d) -> (h, g, s, t)>

// CHECK-LABEL: func.func @grouped_batch
// CHECK-SAME:    %[[Q:.*]]: tensor<2x3x8x4xf32>, %[[K:.*]]: tensor<2x8x4xf32>
// CHECK:         %[[QM:.*]] = tensor.collapse_shape %[[Q]] {{\[}}[0], [1, 2], [3]] : tensor<2x3x8x4xf32> into tensor<2x24x4xf32>
// CHECK:         %[[P:.*]] = tp.batch_matmul %[[QM]], %[[K]] transpose_b : tensor<2x24x4xf32>, tensor<2x8x4xf32> -> tensor<2x24x8xf32>
// CHECK:         %[[S:.*]] = tensor.expand_shape %[[P]] {{\[}}[0], [1, 2], [3]] output_shape [2, 3, 8, 8] : tensor<2x24x8xf32> into tensor<2x3x8x8xf32>
// CHECK:         return %[[S]]
func.func @grouped_batch(%q: tensor<2x3x8x4xf32>, %k: tensor<2x8x4xf32>) -> tensor<2x3x8x8xf32> {
  %e = tensor.empty() : tensor<2x3x8x8xf32>
  %0 = linalg.generic {indexing_maps = [#q, #k, #p], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x3x8x4xf32>, tensor<2x8x4xf32>) outs(%e : tensor<2x3x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x3x8x8xf32>
  return %0 : tensor<2x3x8x8xf32>
}

// -----

// A grouped contraction with a dynamic row dim into a static result: the
// product is cast to the result's type.

#a = affine_map<(m, n, k1, k2) -> (m, k1, k2)>
#b = affine_map<(m, n, k1, k2) -> (k1, k2, n)>
#c = affine_map<(m, n, k1, k2) -> (m, n)>

// CHECK-LABEL: func.func @grouped_dynamic_rows
// CHECK-SAME:    %[[A:.*]]: tensor<?x4x4xf32>, %[[B:.*]]: tensor<4x4x32xf32>, %[[C:.*]]: tensor<8x32xf32>
// CHECK-DAG:     %[[AM:.*]] = tensor.collapse_shape %[[A]] {{\[}}[0], [1, 2]] : tensor<?x4x4xf32> into tensor<?x16xf32>
// CHECK-DAG:     %[[BM:.*]] = tensor.collapse_shape %[[B]] {{\[}}[0, 1], [2]] : tensor<4x4x32xf32> into tensor<16x32xf32>
// CHECK:         %[[P:.*]] = tp.matmul %[[AM]], %[[BM]] : tensor<?x16xf32>, tensor<16x32xf32> -> tensor<?x32xf32>
// CHECK:         %[[CAST:.*]] = tensor.cast %[[P]] : tensor<?x32xf32> to tensor<8x32xf32>
// CHECK:         %[[S:.*]] = arith.addf %[[CAST]], %[[C]] : tensor<8x32xf32>
// CHECK:         return %[[S]]
func.func @grouped_dynamic_rows(%a: tensor<?x4x4xf32>, %b: tensor<4x4x32xf32>, %c: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %0 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%a, %b : tensor<?x4x4xf32>, tensor<4x4x32xf32>) outs(%c : tensor<8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

// Negative: the contraction dims are not contiguous in A, so no collapse
// gives a matmul; the remark keeps the first form's reason.

#a = affine_map<(m, n, k1, k2) -> (k1, m, k2)>
#b = affine_map<(m, n, k1, k2) -> (k1, k2, n)>
#c = affine_map<(m, n, k1, k2) -> (m, n)>

// CHECK-LABEL: func.func @two_reductions_apart
// CHECK:       linalg.generic
func.func @two_reductions_apart(%a: tensor<4x8x4xf32>, %b: tensor<4x4x32xf32>, %c: tensor<8x32xf32>) -> tensor<8x32xf32> {
  // expected-remark @+1 {{'linalg.generic' not raised: it contracts over 2 dims, not one}}
  %0 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%a, %b : tensor<4x8x4xf32>, tensor<4x4x32xf32>) outs(%c : tensor<8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

// Negative: B reads its contraction dims in another order than A.

#a = affine_map<(m, n, k1, k2) -> (m, k1, k2)>
#b = affine_map<(m, n, k1, k2) -> (k2, k1, n)>
#c = affine_map<(m, n, k1, k2) -> (m, n)>

// CHECK-LABEL: func.func @reductions_reordered
// CHECK:       linalg.generic
func.func @reductions_reordered(%a: tensor<8x4x2xf32>, %b: tensor<2x4x32xf32>, %c: tensor<8x32xf32>) -> tensor<8x32xf32> {
  // expected-remark @+1 {{'linalg.generic' not raised: it contracts over 2 dims, not one}}
  %0 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%a, %b : tensor<8x4x2xf32>, tensor<2x4x32xf32>) outs(%c : tensor<8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

// Negative: a contraction that is no (batched) matmul (B's batch dim is not
// A's).

#a = affine_map<(b, m, n, k) -> (b, m, k)>
#b = affine_map<(b, m, n, k) -> (m, k, n)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>

// CHECK-LABEL: func.func @not_a_matmul
// CHECK:       linalg.generic
func.func @not_a_matmul(%a: tensor<2x8x16xf32>, %b: tensor<8x16x32xf32>, %c: tensor<2x8x32xf32>) -> tensor<2x8x32xf32> {
  // expected-remark @+1 {{'linalg.generic' not raised: its indexing maps are not a (batched) matmul}}
  %0 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<2x8x16xf32>, tensor<8x16x32xf32>) outs(%c : tensor<2x8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x8x32xf32>
  return %0 : tensor<2x8x32xf32>
}

// -----

// Negative: a vector-matrix product has no row dim to gather or scatter.

// CHECK-LABEL: func.func @vecmat
// CHECK:       linalg.vecmat
func.func @vecmat(%a: tensor<16xf32>, %b: tensor<16x32xf32>, %c: tensor<32xf32>) -> tensor<32xf32> {
  // expected-remark @+1 {{'linalg.vecmat' not raised: its A has no row dim (a vector-matrix product)}}
  %0 = linalg.vecmat ins(%a, %b : tensor<16xf32>, tensor<16x32xf32>) outs(%c : tensor<32xf32>) -> tensor<32xf32>
  return %0 : tensor<32xf32>
}

// -----

// Elementwise generics and other ops are left as they are, without remarks.

// CHECK-LABEL: func.func @untouched
// CHECK:       linalg.generic
// CHECK:       math.tanh
func.func @untouched(%a: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %t = math.tanh %x : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
