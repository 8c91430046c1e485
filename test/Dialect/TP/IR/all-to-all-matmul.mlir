// RUN: tp-opt %s | FileCheck %s
// RUN: tp-opt %s | tp-opt | FileCheck %s
// RUN: tp-opt %s --mlir-print-op-generic | tp-opt | FileCheck %s

// tp.all_to_all_matmul: A exchanged as tp.all_to_all does (split dim divided
// by the group size, concat dim multiplied), then one product per B.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @rows_with_bias
// CHECK: tp.all_to_all_matmul %{{.*}}, [%{{.*}} bias %{{.*}}, %{{.*}}] on @tp axes = [0] split = 1 concat = 0 {algorithm = #tp.algorithm<coalesced>, chunks = 2 : i64} : (tensor<8x64xf32>, tensor<16x32xf32>, tensor<16x8xf32>, tensor<32xf32>) -> (tensor<32x32xf32>, tensor<32x8xf32>)
func.func @rows_with_bias(%x: tensor<8x64xf32>, %w: tensor<16x32xf32>, %b: tensor<32xf32>, %v: tensor<16x8xf32>) -> (tensor<32x32xf32>, tensor<32x8xf32>) {
  %y:2 = tp.all_to_all_matmul %x, [%w bias %b, %v] on @tp axes = [0] split = 1 concat = 0 {algorithm = #tp.algorithm<coalesced>, chunks = 2 : i64}
      : (tensor<8x64xf32>, tensor<16x32xf32>, tensor<16x8xf32>, tensor<32xf32>) -> (tensor<32x32xf32>, tensor<32x8xf32>)
  return %y#0, %y#1 : tensor<32x32xf32>, tensor<32x8xf32>
}

// CHECK-LABEL: func.func @exchanged_and_transposed
// CHECK: tp.all_to_all_matmul %{{.*}}, [%{{.*}}] on @tp axes = [0] split = 2 concat = 1 transpose_b return_exchanged : (tensor<2x4x64xbf16>, tensor<8x16xbf16>) -> (tensor<2x16x16xbf16>, tensor<2x16x8xbf16>)
func.func @exchanged_and_transposed(%x: tensor<2x4x64xbf16>, %w: tensor<8x16xbf16>) -> (tensor<2x16x16xbf16>, tensor<2x16x8xbf16>) {
  %e, %y = tp.all_to_all_matmul %x, [%w] on @tp axes = [0] split = 2 concat = 1 transpose_b return_exchanged
      : (tensor<2x4x64xbf16>, tensor<8x16xbf16>) -> (tensor<2x16x16xbf16>, tensor<2x16x8xbf16>)
  return %e, %y : tensor<2x16x16xbf16>, tensor<2x16x8xbf16>
}

// CHECK-LABEL: func.func @same_split_and_concat
// CHECK: tp.all_to_all_matmul %{{.*}}, [%{{.*}}] on @tp axes = [0] split = 0 concat = 0 : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
func.func @same_split_and_concat(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %y = tp.all_to_all_matmul %x, [%w] on @tp axes = [0] split = 0 concat = 0 : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// tp.matmul_all_to_all: the product a @ b exchanged as tp.all_to_all does.

// CHECK-LABEL: func.func @expert_outputs
// CHECK: tp.matmul_all_to_all %{{.*}}, %{{.*}} on @tp axes = [0] split = 1 concat = 0 {chunks = 2 : i64} : (tensor<2x64x32xf32>, tensor<2x32x16xf32>) -> tensor<8x16x16xf32>
func.func @expert_outputs(%h: tensor<2x64x32xf32>, %w: tensor<2x32x16xf32>) -> tensor<8x16x16xf32> {
  %y = tp.matmul_all_to_all %h, %w on @tp axes = [0] split = 1 concat = 0 {chunks = 2 : i64} : (tensor<2x64x32xf32>, tensor<2x32x16xf32>) -> tensor<8x16x16xf32>
  return %y : tensor<8x16x16xf32>
}

// CHECK-LABEL: func.func @product_returned
// CHECK: tp.matmul_all_to_all %{{.*}}, %{{.*}} on @tp axes = [0] split = 1 concat = 0 transpose_b return_product : (tensor<8x16xbf16>, tensor<64x16xbf16>) -> (tensor<8x64xbf16>, tensor<32x16xbf16>)
func.func @product_returned(%x: tensor<8x16xbf16>, %w: tensor<64x16xbf16>) -> (tensor<8x64xbf16>, tensor<32x16xbf16>) {
  %p, %y = tp.matmul_all_to_all %x, %w on @tp axes = [0] split = 1 concat = 0 transpose_b return_product
      : (tensor<8x16xbf16>, tensor<64x16xbf16>) -> (tensor<8x64xbf16>, tensor<32x16xbf16>)
  return %p, %y : tensor<8x64xbf16>, tensor<32x16xbf16>
}
