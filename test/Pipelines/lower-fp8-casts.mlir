// RUN: tp-opt %s --tp-lower-fp8-casts | FileCheck %s

// Scalar conversions of the FP8 types LLVM lacks become runtime calls with
// the type's code (f8E4M3FN 4, f8E5M2 5); others stay for upstream.
// CHECK-LABEL: func.func @casts(
// CHECK-SAME:    %[[X:.*]]: f8E4M3FN, %[[Y:.*]]: f64, %[[Z:.*]]: f8E8M0FNU)
// CHECK:         %[[BITS:.*]] = arith.bitcast %[[X]] : f8E4M3FN to i8
// CHECK:         %[[E4M3:.*]] = arith.constant 4 : i32
// CHECK:         %[[WIDE:.*]] = call @tp_rt_extf_f8(%[[BITS]], %[[E4M3]]) : (i8, i32) -> f32
// CHECK:         %[[F64:.*]] = arith.extf %[[WIDE]] : f32 to f64
// CHECK:         %[[NARROW:.*]] = arith.truncf %[[Y]] : f64 to f32
// CHECK:         %[[E5M2:.*]] = arith.constant 5 : i32
// CHECK:         %[[OUT:.*]] = call @tp_rt_truncf_f8(%[[NARROW]], %[[E5M2]]) : (f32, i32) -> i8
// CHECK:         %[[F8:.*]] = arith.bitcast %[[OUT]] : i8 to f8E5M2
// CHECK:         %[[SCALE:.*]] = arith.extf %[[Z]] : f8E8M0FNU to f32
// CHECK:         return %[[F64]], %[[F8]], %[[SCALE]]
func.func @casts(%x: f8E4M3FN, %y: f64, %z: f8E8M0FNU) -> (f64, f8E5M2, f32) {
  %a = arith.extf %x : f8E4M3FN to f64
  %b = arith.truncf %y : f64 to f8E5M2
  %c = arith.extf %z : f8E8M0FNU to f32
  return %a, %b, %c : f64, f8E5M2, f32
}
