// RUN: tp-opt %s --tp-free-buffers-early --split-input-file | FileCheck %s

// Straight-line code: each buffer is freed after its last reader, not at the
// return, so two are live at a time instead of all three.
// CHECK-LABEL: func.func @chain
// CHECK:         %[[A:.*]] = memref.alloc()
// CHECK-NEXT:    linalg.fill {{.*}} outs(%[[A]]
// CHECK-NEXT:    %[[B:.*]] = memref.alloc()
// CHECK-NEXT:    linalg.copy ins(%[[A]] {{.*}} outs(%[[B]]
// CHECK-NEXT:    memref.dealloc %[[A]]
// CHECK-NEXT:    %[[C:.*]] = memref.alloc()
// CHECK-NEXT:    linalg.copy ins(%[[B]] {{.*}} outs(%[[C]]
// CHECK-NEXT:    memref.dealloc %[[B]]
// CHECK-NEXT:    return %[[C]]
func.func @chain(%v: f32) -> memref<4xf32> {
  %a = memref.alloc() : memref<4xf32>
  linalg.fill ins(%v : f32) outs(%a : memref<4xf32>)
  %b = memref.alloc() : memref<4xf32>
  linalg.copy ins(%a : memref<4xf32>) outs(%b : memref<4xf32>)
  %c = memref.alloc() : memref<4xf32>
  linalg.copy ins(%b : memref<4xf32>) outs(%c : memref<4xf32>)
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  return %c : memref<4xf32>
}

// -----

// Views, casts and what a call returns may be the buffer: the free waits for
// their last use.
func.func private @pick(memref<4xf32>) -> memref<4xf32>

// CHECK-LABEL: func.func @aliases
// CHECK:         %[[A:.*]] = memref.alloc()
// CHECK-NEXT:    %[[V:.*]] = memref.subview %[[A]]
// CHECK-NEXT:    %[[CAST:.*]] = memref.cast %[[A]]
// CHECK-NEXT:    %[[R:.*]] = call @pick(%[[A]])
// CHECK-NEXT:    memref.load %[[V]]
// CHECK-NEXT:    memref.load %[[R]]
// CHECK-NEXT:    memref.dealloc %[[A]]
// CHECK-NEXT:    %[[U:.*]] = memref.alloc()
// CHECK-NEXT:    memref.dealloc %[[U]]
// CHECK-NEXT:    return
func.func @aliases(%i: index) -> (f32, f32) {
  %a = memref.alloc() : memref<4xf32>
  %v = memref.subview %a[1] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1], offset: 1>>
  %cast = memref.cast %a : memref<4xf32> to memref<?xf32>
  %r = func.call @pick(%a) : (memref<4xf32>) -> memref<4xf32>
  %x = memref.load %v[%i] : memref<2xf32, strided<[1], offset: 1>>
  %y = memref.load %r[%i] : memref<4xf32>
  %unused = memref.alloc() : memref<4xf32>
  memref.dealloc %unused : memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  return %x, %y : f32, f32
}

// -----

// A use inside a loop holds the buffer until the loop ends.
// CHECK-LABEL: func.func @loop
// CHECK:         %[[A:.*]] = memref.alloc()
// CHECK-NEXT:    scf.for
// CHECK:           memref.store {{.*}}, %[[A]]
// CHECK:         }
// CHECK-NEXT:    memref.dealloc %[[A]]
// CHECK-NEXT:    %[[B:.*]] = memref.alloc()
func.func @loop(%n: index, %v: f32) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<4xf32>
  scf.for %i = %c0 to %n step %c1 {
    memref.store %v, %a[%c0] : memref<4xf32>
  }
  %b = memref.alloc() : memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  return %b : memref<4xf32>
}

// -----

// Negative cases: a view that is returned, a raw pointer taken, a free in
// another block. Nothing moves.
// CHECK-LABEL: func.func @escapes
// CHECK:         %[[A:.*]] = memref.alloc()
// CHECK-NEXT:    memref.subview %[[A]]
// CHECK-NEXT:    %[[P:.*]] = memref.alloc()
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[P]]
// CHECK-NEXT:    %[[Q:.*]] = memref.alloc()
// CHECK-NEXT:    memref.load %[[Q]]
// CHECK-NEXT:    memref.dealloc %[[P]]
// CHECK-NEXT:    scf.if
// CHECK-NEXT:      memref.dealloc %[[Q]]
// CHECK-NEXT:    }
// CHECK-NEXT:    memref.dealloc %[[A]]
// CHECK-NEXT:    return
func.func @escapes(%c: i1, %i: index) -> (memref<2xf32, strided<[1], offset: 1>>, index, f32) {
  %a = memref.alloc() : memref<4xf32>
  %v = memref.subview %a[1] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1], offset: 1>>
  %p = memref.alloc() : memref<4xf32>
  %ptr = memref.extract_aligned_pointer_as_index %p : memref<4xf32> -> index
  %q = memref.alloc() : memref<4xf32>
  %x = memref.load %q[%i] : memref<4xf32>
  memref.dealloc %p : memref<4xf32>
  scf.if %c {
    memref.dealloc %q : memref<4xf32>
  }
  memref.dealloc %a : memref<4xf32>
  return %v, %ptr, %x : memref<2xf32, strided<[1], offset: 1>>, index, f32
}

// -----

// A buffer staged for a runtime call (tp_rt_buffer_*, which only records it)
// is in use until the op's own entry runs; with no such call after it, it
// stays where it is.
func.func private @tp_rt_buffer_f32(memref<*xf32>)
func.func private @tp_rt_matmul()

// CHECK-LABEL: func.func @staged
// CHECK:         %[[A:.*]] = memref.alloc()
// CHECK-NEXT:    %[[CAST:.*]] = memref.cast %[[A]]
// CHECK-NEXT:    call @tp_rt_buffer_f32(%[[CAST]])
// CHECK-NEXT:    %[[B:.*]] = memref.alloc()
// CHECK-NEXT:    call @tp_rt_matmul()
// CHECK-NEXT:    memref.dealloc %[[A]]
// CHECK-NEXT:    %[[CAST2:.*]] = memref.cast %[[B]]
// CHECK-NEXT:    call @tp_rt_buffer_f32(%[[CAST2]])
// CHECK-NEXT:    %[[C:.*]] = memref.alloc()
// CHECK-NEXT:    memref.dealloc %[[C]]
// CHECK-NEXT:    memref.dealloc %[[B]]
// CHECK-NEXT:    return
func.func @staged() {
  %a = memref.alloc() : memref<4xf32>
  %cast = memref.cast %a : memref<4xf32> to memref<*xf32>
  call @tp_rt_buffer_f32(%cast) : (memref<*xf32>) -> ()
  %b = memref.alloc() : memref<4xf32>
  call @tp_rt_matmul() : () -> ()
  %cast2 = memref.cast %b : memref<4xf32> to memref<*xf32>
  call @tp_rt_buffer_f32(%cast2) : (memref<*xf32>) -> ()
  %c = memref.alloc() : memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %c : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  return
}

// -----

// Found by review: a tensor made from the buffer, the buffer stored into
// memory, and a runtime entry that takes no staged buffers (an FP8
// conversion) between staging and the op's entry.
func.func private @tp_rt_buffer_f32(memref<*xf32>)
func.func private @tp_rt_extf_f8(i8, i32) -> f32
func.func private @tp_rt_matmul()

// CHECK-LABEL: func.func @to_tensor
// CHECK:         tensor.extract
// CHECK-NEXT:    memref.dealloc
func.func @to_tensor(%i: index) -> f32 {
  %a = memref.alloc() : memref<4xf32>
  %t = bufferization.to_tensor %a restrict : memref<4xf32> to tensor<4xf32>
  %x = tensor.extract %t[%i] : tensor<4xf32>
  memref.dealloc %a : memref<4xf32>
  return %x : f32
}

// CHECK-LABEL: func.func @boxed
// CHECK:         %[[A:.*]] = memref.alloc()
// CHECK:         memref.load %{{.*}}[%{{.*}}] : memref<4xf32>
// CHECK-NEXT:    memref.dealloc %[[A]]
func.func @boxed(%i: index) -> f32 {
  %box = memref.alloca() : memref<memref<4xf32>>
  %a = memref.alloc() : memref<4xf32>
  memref.store %a, %box[] : memref<memref<4xf32>>
  %r = memref.load %box[] : memref<memref<4xf32>>
  %x = memref.load %r[%i] : memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  return %x : f32
}

// CHECK-LABEL: func.func @conversion_between
// CHECK:         %[[A:.*]] = memref.alloc()
// CHECK:         call @tp_rt_extf_f8
// CHECK-NOT:     memref.dealloc %[[A]] :
// CHECK:         call @tp_rt_matmul()
// CHECK-NEXT:    memref.dealloc %[[A]] :
func.func @conversion_between(%s: i8, %k: i32) -> f32 {
  %a = memref.alloc() : memref<4xf32>
  %cast = memref.cast %a : memref<4xf32> to memref<*xf32>
  call @tp_rt_buffer_f32(%cast) : (memref<*xf32>) -> ()
  %f = call @tp_rt_extf_f8(%s, %k) : (i8, i32) -> f32
  %b = memref.alloc() : memref<4xf32>
  call @tp_rt_matmul() : () -> ()
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  return %f : f32
}
