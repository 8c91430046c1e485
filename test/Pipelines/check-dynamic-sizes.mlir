// RUN: tp-opt %s --tp-check-dynamic-sizes --split-input-file | FileCheck %s

// Each dynamic size of tensor.empty, tensor.splat and tensor.generate is
// asserted non-negative; constant ones are not checked.
// CHECK-LABEL: func.func @sizes(
// CHECK-SAME:      %[[N:.*]]: index, %[[M:.*]]: index, %[[V:.*]]: f32)
// CHECK:         %[[Z0:.*]] = arith.constant 0 : index
// CHECK:         %[[OK0:.*]] = arith.cmpi sge, %[[N]], %[[Z0]] : index
// CHECK:         cf.assert %[[OK0]], "ERROR: Runtime op verification failed\0A'tensor.empty' has a negative size (dynamic size 0)\0ALocation: loc(
// CHECK:         %[[Z1:.*]] = arith.constant 0 : index
// CHECK:         %[[OK1:.*]] = arith.cmpi sge, %[[M]], %[[Z1]] : index
// CHECK:         cf.assert %[[OK1]], "{{.*}}'tensor.empty' has a negative size (dynamic size 1)
// CHECK:         tensor.empty(%[[N]], %[[M]]) : tensor<?x4x?xf32>
// CHECK:         %[[OK2:.*]] = arith.cmpi sge, %[[N]], %{{.*}} : index
// CHECK:         cf.assert %[[OK2]], "{{.*}}'tensor.splat' has a negative size (dynamic size 0)
// CHECK:         tensor.splat %[[V]][%[[N]]]
// CHECK:         %[[OK3:.*]] = arith.cmpi sge, %[[M]], %{{.*}} : index
// CHECK:         cf.assert %[[OK3]], "{{.*}}'tensor.generate' has a negative size (dynamic size 0)
// CHECK:         tensor.generate %[[M]]
// CHECK-NOT:     cf.assert
// CHECK:         tensor.empty() : tensor<8xf32>
func.func @sizes(%n: index, %m: index, %v: f32) -> (tensor<?x4x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<8xf32>) {
  %e = tensor.empty(%n, %m) : tensor<?x4x?xf32>
  %s = tensor.splat %v[%n] : tensor<?xf32>
  %g = tensor.generate %m {
  ^bb0(%i: index):
    tensor.yield %v : f32
  } : tensor<?xf32>
  %c = tensor.empty() : tensor<8xf32>
  return %e, %s, %g, %c : tensor<?x4x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<8xf32>
}

// -----

// A loop step known only at run time is asserted positive (not zero for an
// unsigned loop); a constant step is left to the verifier.
// CHECK-LABEL: func.func @steps(
// CHECK-SAME:      %[[S:.*]]: index, %[[U:.*]]: i32)
// CHECK:         %[[OK:.*]] = arith.cmpi sgt, %[[S]], %{{.*}} : index
// CHECK:         cf.assert %[[OK]], "{{.*}}'scf.for' has a step that is not positive
// CHECK:         scf.for {{.*}} step %[[S]]
// CHECK:         %[[NZ:.*]] = arith.cmpi ne, %[[U]], %{{.*}} : i32
// CHECK:         cf.assert %[[NZ]], "{{.*}}'scf.for' has a step that is not positive
// CHECK:         scf.for unsigned {{.*}} step %[[U]]
// CHECK-NOT:     cf.assert
// CHECK:         scf.for
// CHECK:         return
func.func @steps(%s: index, %u: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %s {
  }
  %u0 = arith.constant 0 : i32
  %u8 = arith.constant 8 : i32
  scf.for unsigned %j = %u0 to %u8 step %u : i32 {
  }
  scf.for %k = %c0 to %c8 step %c1 {
  }
  return
}
