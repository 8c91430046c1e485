// RUN: tp-opt %s --split-input-file --tp-split-distinct-deallocs | FileCheck %s

// The end of a straight-line function after ownership-based deallocation:
// one dealloc of every buffer it made, retaining what it returns (a buffer,
// a view of another, an argument). Each buffer no retained value aliases
// gets a dealloc of its own; a retained buffer is not freed, and the result
// of each retained value of its allocation is its condition.

// CHECK-LABEL: func.func @straight(
// CHECK-SAME:      %[[ARG:.*]]: memref<4xf32>, %[[C0:.*]]: i1, %[[C1:.*]]: i1, %[[C2:.*]]: i1, %[[C3:.*]]: i1)
// CHECK:         %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK:         %[[B:.*]] = memref.alloc() : memref<8xf32>
// CHECK:         %[[C:.*]] = memref.alloc() : memref<4xf32>
// CHECK:         %[[D:.*]] = memref.alloc() : memref<4xf32>
// CHECK:         %[[VIEW:.*]] = memref.subview %[[B]][0] [4] [1]
// CHECK-NEXT:    bufferization.dealloc (%[[A]] : memref<4xf32>) if (%[[C0]]){{$}}
// CHECK-NEXT:    bufferization.dealloc (%[[C]] : memref<4xf32>) if (%[[C2]]){{$}}
// CHECK-NEXT:    %[[FALSE:.*]] = arith.constant false
// CHECK-NEXT:    return %[[D]], %[[VIEW]], %[[ARG]], %[[C3]], %[[C1]], %[[FALSE]]
func.func @straight(%arg: memref<4xf32>, %c0: i1, %c1: i1, %c2: i1, %c3: i1)
    -> (memref<4xf32>, memref<4xf32, strided<[1]>>, memref<4xf32>, i1, i1, i1) {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<8xf32>
  %c = memref.alloc() : memref<4xf32>
  %d = memref.alloc() : memref<4xf32>
  %view = memref.subview %b[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
  %r:3 = bufferization.dealloc (%a, %b, %c, %d : memref<4xf32>, memref<8xf32>, memref<4xf32>, memref<4xf32>)
      if (%c0, %c1, %c2, %c3)
      retain (%d, %view, %arg : memref<4xf32>, memref<4xf32, strided<[1]>>, memref<4xf32>)
  return %d, %view, %arg, %r#0, %r#1, %r#2
      : memref<4xf32>, memref<4xf32, strided<[1]>>, memref<4xf32>, i1, i1, i1
}

// -----

// Two freed views of one allocation: upstream judges whether that frees
// it once, so the dealloc stays as it is.

// CHECK-LABEL: func.func @one_allocation_freed_twice(
// CHECK:         %[[R:.*]]:2 = bufferization.dealloc (%{{.*}}, %{{.*}} : memref<2xf32, strided<[1]>>, memref<2xf32, strided<[1], offset: 2>>) if (%{{.*}}, %{{.*}}) retain (%{{.*}}, %{{.*}} : memref<4xf32>, memref<4xf32>)
// CHECK:         return %[[R]]#0, %[[R]]#1
func.func @one_allocation_freed_twice(%c0: i1, %c1: i1) -> (i1, i1) {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  %lo = memref.subview %a[0] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1]>>
  %hi = memref.subview %a[2] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1], offset: 2>>
  %r:2 = bufferization.dealloc (%lo, %hi : memref<2xf32, strided<[1]>>, memref<2xf32, strided<[1], offset: 2>>)
      if (%c0, %c1) retain (%a, %b : memref<4xf32>, memref<4xf32>)
  return %r#0, %r#1 : i1, i1
}

// -----

// A retained buffer, aliased by two retained values (itself and a view):
// it is not freed, and both results are its condition.

// CHECK-LABEL: func.func @retained_aliases(
// CHECK-SAME:      %[[C0:.*]]: i1, %[[C1:.*]]: i1)
// CHECK-NOT:     bufferization.dealloc
// CHECK:         return %[[C0]], %[[C0]]
func.func @retained_aliases(%c0: i1, %c1: i1) -> (i1, i1) {
  %a = memref.alloc() : memref<4xf32>
  %view = memref.subview %a[1] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1], offset: 1>>
  %r:2 = bufferization.dealloc (%a : memref<4xf32>) if (%c0)
      retain (%a, %view : memref<4xf32>, memref<2xf32, strided<[1], offset: 1>>)
  return %r#0, %r#1 : i1, i1
}

// -----

// Operands that may alias anything stay upstream's to judge: a freed
// function argument, a retained value of unknown origin (a call's result),
// a retained block argument of a loop.

// CHECK-LABEL: func.func @freed_argument(
// CHECK:         bufferization.dealloc (%{{.*}}, %{{.*}} : memref<4xf32>, memref<4xf32>) if (%{{.*}}, %{{.*}}){{$}}
func.func @freed_argument(%arg: memref<4xf32>, %c0: i1, %c1: i1) {
  %a = memref.alloc() : memref<4xf32>
  bufferization.dealloc (%arg, %a : memref<4xf32>, memref<4xf32>) if (%c0, %c1)
  return
}

func.func private @make() -> memref<4xf32>

// CHECK-LABEL: func.func @retained_call_result(
// CHECK:         %[[M:.*]] = call @make()
// CHECK:         %{{.*}} = bufferization.dealloc (%{{.*}} : memref<4xf32>) if (%{{.*}}) retain (%[[M]] : memref<4xf32>)
func.func @retained_call_result(%c0: i1) -> i1 {
  %m = call @make() : () -> memref<4xf32>
  %a = memref.alloc() : memref<4xf32>
  %r = bufferization.dealloc (%a : memref<4xf32>) if (%c0) retain (%m : memref<4xf32>)
  return %r : i1
}

// CHECK-LABEL: func.func @retained_loop_argument(
// CHECK:         scf.for
// CHECK:           %{{.*}} = bufferization.dealloc (%{{.*}} : memref<4xf32>) if (%{{.*}}) retain (%{{.*}} : memref<4xf32>)
func.func @retained_loop_argument(%init: memref<4xf32>, %c: i1, %n: index) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %res = scf.for %i = %c0 to %n step %c1 iter_args(%x = %init) -> memref<4xf32> {
    %a = memref.alloc() : memref<4xf32>
    %r = bufferization.dealloc (%a : memref<4xf32>) if (%c) retain (%x : memref<4xf32>)
    scf.yield %x : memref<4xf32>
  }
  return %res : memref<4xf32>
}
