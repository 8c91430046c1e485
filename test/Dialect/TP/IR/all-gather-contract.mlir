// RUN: tp-opt %s | FileCheck %s
// RUN: tp-opt %s | tp-opt | FileCheck %s
// RUN: tp-opt %s --mlir-print-op-generic | tp-opt | FileCheck %s

// tp.all_gather_contract in each layout: x on either side, each side
// transposed or not, 3-D operands whose K leads, several products, the
// gathered value returned, a dynamic dim and schedule attributes.

shard.grid @tp(shape = 4)

// CHECK-LABEL: func.func @weight_gradient
// CHECK:         tp.all_gather_contract %{{.*}}, [%{{.*}}] on @tp axes = [0] dim = 0 transpose_a : (tensor<16x32xf32>, tensor<64x24xf32>) -> tensor<24x32xf32>
func.func @weight_gradient(%x: tensor<16x32xf32>, %dy: tensor<64x24xf32>) -> tensor<24x32xf32> {
  %0 = tp.all_gather_contract %x, [%dy] on @tp axes = [0] dim = 0 transpose_a : (tensor<16x32xf32>, tensor<64x24xf32>) -> tensor<24x32xf32>
  return %0 : tensor<24x32xf32>
}

// CHECK-LABEL: func.func @gathered_lhs_k_trailing
// CHECK:         tp.all_gather_contract %{{.*}}, [%{{.*}}] on @tp axes = [0] dim = 1 gathered_lhs : (tensor<8x4xbf16>, tensor<16x12xbf16>) -> tensor<8x12xbf16>
func.func @gathered_lhs_k_trailing(%a: tensor<8x4xbf16>, %b: tensor<16x12xbf16>) -> tensor<8x12xbf16> {
  %0 = tp.all_gather_contract %a, [%b] on @tp axes = [0] dim = 1 gathered_lhs : (tensor<8x4xbf16>, tensor<16x12xbf16>) -> tensor<8x12xbf16>
  return %0 : tensor<8x12xbf16>
}

// CHECK-LABEL: func.func @batched
// CHECK:         %{{.*}}:3 = tp.all_gather_contract %{{.*}}, [%{{.*}}, %{{.*}}] on @tp axes = [0] dim = 1 gathered_lhs transpose_a transpose_b return_gathered {algorithm = #tp.algorithm<ring>, chunks = 2 : i64} : (tensor<2x8x32xf16>, tensor<6x64xf16>, tensor<5x64xf16>) -> (tensor<2x32x32xf16>, tensor<32x6xf16>, tensor<32x5xf16>)
func.func @batched(%x: tensor<2x8x32xf16>, %p: tensor<6x64xf16>, %q: tensor<5x64xf16>) -> (tensor<2x32x32xf16>, tensor<32x6xf16>, tensor<32x5xf16>) {
  %0:3 = tp.all_gather_contract %x, [%p, %q] on @tp axes = [0] dim = 1 gathered_lhs transpose_a transpose_b return_gathered {algorithm = #tp.algorithm<ring>, chunks = 2 : i64} : (tensor<2x8x32xf16>, tensor<6x64xf16>, tensor<5x64xf16>) -> (tensor<2x32x32xf16>, tensor<32x6xf16>, tensor<32x5xf16>)
  return %0#0, %0#1, %0#2 : tensor<2x32x32xf16>, tensor<32x6xf16>, tensor<32x5xf16>
}

// CHECK-LABEL: func.func @both_three_d
// CHECK:         tp.all_gather_contract %{{.*}}, [%{{.*}}] on @tp axes = [0] dim = 0 transpose_a : (tensor<1x8x32xf32>, tensor<4x8x24xf32>) -> tensor<24x32xf32>
func.func @both_three_d(%x: tensor<1x8x32xf32>, %dy: tensor<4x8x24xf32>) -> tensor<24x32xf32> {
  %0 = tp.all_gather_contract %x, [%dy] on @tp axes = [0] dim = 0 transpose_a : (tensor<1x8x32xf32>, tensor<4x8x24xf32>) -> tensor<24x32xf32>
  return %0 : tensor<24x32xf32>
}

// CHECK-LABEL: func.func @dynamic_rows
// CHECK:         tp.all_gather_contract %{{.*}}, [%{{.*}}] on @tp axes = [0] dim = 0 transpose_a : (tensor<?x32xf32>, tensor<?x24xf32>) -> tensor<24x32xf32>
func.func @dynamic_rows(%x: tensor<?x32xf32>, %dy: tensor<?x24xf32>) -> tensor<24x32xf32> {
  %0 = tp.all_gather_contract %x, [%dy] on @tp axes = [0] dim = 0 transpose_a : (tensor<?x32xf32>, tensor<?x24xf32>) -> tensor<24x32xf32>
  return %0 : tensor<24x32xf32>
}
