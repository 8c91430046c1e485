// Weight gradients as a frontend's linalg writes them: linalg.matmul with a
// transposed A over the tokens, and an einsum over batch and sequence of a
// [B, S, H] activation gathered along S. tp-import raises both to a
// transposed tp.matmul, and the pipeline fuses the gather into
// tp.all_gather_contract; on 4 ranks the fused program computes what the
// program as written does, in f32 and bf16.
// RUN: tp-opt %s --tp-async-tp-pipeline="emit-remarks stats" 2>&1 | FileCheck %s
// RUN: tp-run %s --entry wgrad_2d_f32 --ranks 4 --pipeline tp-async-tp-pipeline --compare-pipeline '' | FileCheck %s --check-prefix=SAME
// RUN: tp-run %s --entry wgrad_3d_f32 --ranks 4 --pipeline tp-async-tp-pipeline --compare-pipeline '' | FileCheck %s --check-prefix=SAME
// RUN: tp-run %s --entry wgrad_2d_bf16 --ranks 4 --pipeline tp-async-tp-pipeline --compare-pipeline '' | FileCheck %s --check-prefix=SAME
// RUN: tp-run %s --entry wgrad_3d_bf16 --ranks 4 --pipeline tp-async-tp-pipeline --compare-pipeline '' | FileCheck %s --check-prefix=SAME

// CHECK: remark: tp-async-tp: 0 all-gather-matmul (0 matmuls absorbed), 0 matmul-reduce-scatter, 0 all-gather-scaled-matmul, 0 scaled-matmul-reduce-scatter, 4 all-gather-contract, 0 collectives left unfused
// CHECK-LABEL: func.func @wgrad_2d_f32
// CHECK-SAME:    (%[[X:.*]]: tensor<4x32xf32>, %[[DY:.*]]: tensor<16x24xf32>)
// CHECK:         %[[DW:.*]] = tp.all_gather_contract %[[X]], [%[[DY]]] on @tp axes = [0] dim = 0 transpose_a : (tensor<4x32xf32>, tensor<16x24xf32>) -> tensor<24x32xf32>
// CHECK:         return %[[DW]]
// CHECK-LABEL: func.func @wgrad_3d_f32
// CHECK-SAME:    (%[[X:.*]]: tensor<2x2x32xf32>, %[[DY:.*]]: tensor<2x8x24xf32>)
// CHECK:         %[[DYC:.*]] = tensor.collapse_shape %[[DY]]
// CHECK:         %[[DW:.*]] = tp.all_gather_contract %[[X]], [%[[DYC]]] on @tp axes = [0] dim = 1 transpose_a : (tensor<2x2x32xf32>, tensor<16x24xf32>) -> tensor<24x32xf32>
// CHECK:         return %[[DW]]
// SAME: compare: every result on every rank matches (tp-async-tp-pipeline on cpu vs as given on cpu

shard.grid @tp(shape = 4)

#dy = affine_map<(m, n, p, q) -> (p, q, m)>
#x = affine_map<(m, n, p, q) -> (p, q, n)>
#dw = affine_map<(m, n, p, q) -> (m, n)>

func.func @wgrad_2d_f32(%x: tensor<4x32xf32>, %dy: tensor<16x24xf32>) -> tensor<24x32xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<4x32xf32> -> tensor<16x32xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<24x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<24x32xf32>) -> tensor<24x32xf32>
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%dy, %g : tensor<16x24xf32>, tensor<16x32xf32>) outs(%f : tensor<24x32xf32>) -> tensor<24x32xf32>
  return %0 : tensor<24x32xf32>
}

func.func @wgrad_3d_f32(%x: tensor<2x2x32xf32>, %dy: tensor<2x8x24xf32>) -> tensor<24x32xf32> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 1 : tensor<2x2x32xf32> -> tensor<2x8x32xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<24x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<24x32xf32>) -> tensor<24x32xf32>
  %0 = linalg.generic {indexing_maps = [#dy, #x, #dw], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%dy, %g : tensor<2x8x24xf32>, tensor<2x8x32xf32>) outs(%f : tensor<24x32xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %m = arith.mulf %u, %v : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<24x32xf32>
  return %0 : tensor<24x32xf32>
}

func.func @wgrad_2d_bf16(%x: tensor<4x32xbf16>, %dy: tensor<16x24xbf16>) -> tensor<24x32xbf16> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<4x32xbf16> -> tensor<16x32xbf16>
  %z = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<24x32xbf16>
  %f = linalg.fill ins(%z : bf16) outs(%e : tensor<24x32xbf16>) -> tensor<24x32xbf16>
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%dy, %g : tensor<16x24xbf16>, tensor<16x32xbf16>) outs(%f : tensor<24x32xbf16>) -> tensor<24x32xbf16>
  return %0 : tensor<24x32xbf16>
}

func.func @wgrad_3d_bf16(%x: tensor<2x2x32xbf16>, %dy: tensor<2x8x24xbf16>) -> tensor<24x32xbf16> {
  %g = tp.all_gather %x on @tp axes = [0] dim = 1 : tensor<2x2x32xbf16> -> tensor<2x8x32xbf16>
  %z = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<24x32xbf16>
  %f = linalg.fill ins(%z : bf16) outs(%e : tensor<24x32xbf16>) -> tensor<24x32xbf16>
  %0 = linalg.generic {indexing_maps = [#dy, #x, #dw], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%dy, %g : tensor<2x8x24xbf16>, tensor<2x8x32xbf16>) outs(%f : tensor<24x32xbf16>) {
  ^bb0(%u: bf16, %v: bf16, %o: bf16):
    %m = arith.mulf %u, %v : bf16
    %s = arith.addf %o, %m : bf16
    linalg.yield %s : bf16
  } -> tensor<24x32xbf16>
  return %0 : tensor<24x32xbf16>
}
