// RUN: tp-opt %s --tp-check-integer-division --split-input-file | FileCheck %s

// Signed divisions: the divisor is not zero, and not the minimum over -1.
// CHECK-LABEL: func.func @signed(
// CHECK-SAME:      %[[A:.*]]: i32, %[[B:.*]]: i32)
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK:         %[[NZ:.*]] = arith.cmpi ne, %[[B]], %[[ZERO]] : i32
// CHECK:         cf.assert %[[NZ]], "ERROR: Runtime op verification failed\0A'arith.divsi' divides by zero\0ALocation: loc(
// CHECK:         %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK:         %[[ISMIN:.*]] = arith.cmpi eq, %[[A]], %[[MIN]] : i32
// CHECK:         %[[M1:.*]] = arith.constant -1 : i32
// CHECK:         %[[ISM1:.*]] = arith.cmpi eq, %[[B]], %[[M1]] : i32
// CHECK:         %[[BOTH:.*]] = arith.andi %[[ISMIN]], %[[ISM1]] : i1
// CHECK:         %[[FITS:.*]] = arith.xori %[[BOTH]], %{{.*}} : i1
// CHECK:         cf.assert %[[FITS]], "{{.*}}'arith.divsi' overflows (the minimum over -1)
// CHECK:         %[[Q:.*]] = arith.divsi %[[A]], %[[B]] : i32
// CHECK:         return %[[Q]]
func.func @signed(%a: i32, %b: i32) -> i32 {
  %q = arith.divsi %a, %b : i32
  return %q : i32
}

// -----

// Unsigned ones and index: only the zero check.
// CHECK-LABEL: func.func @unsigned(
// CHECK-SAME:      %[[A:.*]]: index, %[[B:.*]]: index)
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : index
// CHECK:         %[[NZ:.*]] = arith.cmpi ne, %[[B]], %[[ZERO]] : index
// CHECK:         cf.assert %[[NZ]], "{{.*}}'arith.remui' divides by zero
// CHECK-NOT:     cf.assert
// CHECK:         arith.remui %[[A]], %[[B]] : index
func.func @unsigned(%a: index, %b: index) -> index {
  %r = arith.remui %a, %b : index
  return %r : index
}

// -----

// Floats and vectors are left alone.
// CHECK-LABEL: func.func @untouched(
// CHECK-NOT:     cf.assert
// CHECK:         arith.divf
// CHECK:         arith.divsi {{.*}} : vector<4xi32>
func.func @untouched(%a: f32, %b: f32, %v: vector<4xi32>) -> (f32, vector<4xi32>) {
  %q = arith.divf %a, %b : f32
  %w = arith.divsi %v, %v : vector<4xi32>
  return %q, %w : f32, vector<4xi32>
}
