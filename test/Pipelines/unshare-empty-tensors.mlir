// RUN: tp-opt %s --split-input-file --tp-unshare-empty-tensors | FileCheck %s

// One empty tensor (as CSE leaves it) is the destination of two fills and
// of a third nested in a loop: each use gets its own copy, made just before
// its user (the dynamic size still defined before it).

// CHECK-LABEL: func.func @shared(
// CHECK-SAME:      %[[N:.*]]: index, %[[X:.*]]: f32, %[[STEPS:.*]]: index)
// CHECK:         %[[E0:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK-NEXT:    %[[A:.*]] = linalg.fill ins(%[[X]] : f32) outs(%[[E0]] : tensor<?xf32>)
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK-NEXT:    %[[B:.*]] = linalg.fill ins(%[[X]] : f32) outs(%[[E1]] : tensor<?xf32>)
// CHECK:         scf.for
// CHECK-NEXT:      %[[E2:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK-NEXT:      linalg.fill ins(%[[X]] : f32) outs(%[[E2]] : tensor<?xf32>)
// CHECK:         return
func.func @shared(%n: index, %x: f32, %steps: index) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty(%n) : tensor<?xf32>
  %a = linalg.fill ins(%x : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %b = linalg.fill ins(%x : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %c = scf.for %i = %c0 to %steps step %c1 iter_args(%acc = %a) -> tensor<?xf32> {
    %f = linalg.fill ins(%x : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    scf.yield %f : tensor<?xf32>
  }
  return %a, %b, %c : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}

// -----

// An empty tensor with one use, or none, stays as it is.

// CHECK-LABEL: func.func @single(
// CHECK-NEXT:    tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    tensor.empty() : tensor<8xf32>
// CHECK-NOT:     tensor.empty
func.func @single(%x: f32) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %unused = tensor.empty() : tensor<8xf32>
  %a = linalg.fill ins(%x : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}
