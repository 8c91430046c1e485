// RUN: tp-opt %s --tp-approximate-math -split-input-file | FileCheck %s

// Scalars and vectors: upstream's polynomial approximations replace the
// libm calls.
// CHECK-LABEL: func.func @scalar_and_vector
// CHECK-NOT:   math.tanh
// CHECK-NOT:   math.erf
// CHECK:       return
func.func @scalar_and_vector(%x: f32, %v: vector<8xf32>) -> (f32, vector<8xf32>) {
  %t = math.tanh %x : f32
  %e = math.erf %v : vector<8xf32>
  return %t, %e : f32, vector<8xf32>
}

// -----

// Tensors (glue not yet lowered to loops) are left alone: the patterns do
// not handle them.
// CHECK-LABEL: func.func @tensor
// CHECK-NEXT:  %[[T:.*]] = math.tanh %{{.*}} : tensor<4xf32>
// CHECK-NEXT:  %[[E:.*]] = math.erf %[[T]] : tensor<4xf32>
// CHECK-NEXT:  %[[S:.*]] = math.sin %[[E]] : tensor<4xf32>
// CHECK-NEXT:  return %[[S]]
func.func @tensor(%x: tensor<4xf32>) -> tensor<4xf32> {
  %t = math.tanh %x : tensor<4xf32>
  %e = math.erf %t : tensor<4xf32>
  %s = math.sin %e : tensor<4xf32>
  return %s : tensor<4xf32>
}
