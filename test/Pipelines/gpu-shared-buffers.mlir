// RUN: tp-opt %s --tp-gpu-shared-buffers --split-input-file --verify-diagnostics | FileCheck %s

// A public function: arguments it reads are copied into host-shared buffers
// on a stream (gpu.memcpy) and constant globals by the host; its own
// buffers are host-shared, its own copies between them become linalg.copy
// (kernels), and its results leave in plain allocations, copied on a
// stream; every shared buffer is freed before the return (on a stream of
// its own, as upstream lowers only async frees).

memref.global "private" constant @ones : memref<4xf32> = dense<1.0>

// CHECK-LABEL: func.func @entry
//  CHECK-SAME:   (%[[X:.*]]: memref<4xf32>, %[[D:.*]]: memref<?xf32>, %[[UNUSED:.*]]: memref<2xf32>)
//       CHECK:   %[[SX:.*]] = gpu.alloc host_shared () : memref<4xf32>
//  CHECK-NEXT:   %[[C0:.*]] = gpu.wait async
//  CHECK-NEXT:   %[[C1:.*]] = gpu.memcpy async [%[[C0]]] %[[SX]], %[[X]]
//  CHECK-NEXT:   gpu.wait [%[[C1]]]
//       CHECK:   %[[N:.*]] = memref.dim %[[D]], %{{.*}} : memref<?xf32>
//  CHECK-NEXT:   %[[SD:.*]] = gpu.alloc host_shared (%[[N]]) : memref<?xf32>
//  CHECK-NEXT:   %[[C2:.*]] = gpu.wait async
//  CHECK-NEXT:   %[[C3:.*]] = gpu.memcpy async [%[[C2]]] %[[SD]], %[[D]]
//  CHECK-NEXT:   gpu.wait [%[[C3]]]
//   CHECK-NOT:   %[[UNUSED]]
//       CHECK:   %[[G:.*]] = memref.get_global @ones
//  CHECK-NEXT:   %[[SG:.*]] = gpu.alloc host_shared () : memref<4xf32>
//  CHECK-NEXT:   memref.copy %[[G]], %[[SG]] {tp.constant_copy}
//  CHECK-NEXT:   %[[T:.*]] = gpu.alloc host_shared () : memref<4xf32>
//  CHECK-NEXT:   linalg.copy ins(%[[SG]] : memref<4xf32>) outs(%[[T]] : memref<4xf32>)
//  CHECK-NEXT:   %[[Y:.*]] = gpu.alloc host_shared (%{{.*}}) : memref<?xf32>
//  CHECK-NEXT:   linalg.copy ins(%[[SD]] : memref<?xf32>) outs(%[[Y]] : memref<?xf32>)
//  CHECK-NEXT:   %[[Z:.*]] = gpu.alloc host_shared () : memref<4xf32>
//  CHECK-NEXT:   linalg.copy ins(%[[SX]] : memref<4xf32>) outs(%[[Z]] : memref<4xf32>)
//  CHECK-NEXT:   %[[W0:.*]] = gpu.wait async
//  CHECK-NEXT:   %[[W1:.*]] = gpu.dealloc async [%[[W0]]] %[[T]]
//  CHECK-NEXT:   gpu.wait [%[[W1]]]
//  CHECK-NEXT:   %[[HZ:.*]] = memref.alloc() : memref<4xf32>
//  CHECK-NEXT:   %[[C4:.*]] = gpu.wait async
//  CHECK-NEXT:   %[[C5:.*]] = gpu.memcpy async [%[[C4]]] %[[HZ]], %[[Z]]
//  CHECK-NEXT:   gpu.wait [%[[C5]]]
//       CHECK:   %[[HY:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
//  CHECK-NEXT:   %[[C6:.*]] = gpu.wait async
//  CHECK-NEXT:   %[[C7:.*]] = gpu.memcpy async [%[[C6]]] %[[HY]], %[[Y]]
//  CHECK-NEXT:   gpu.wait [%[[C7]]]
//   CHECK-DAG:   gpu.dealloc async [%{{.*}}] %[[SX]]
//   CHECK-DAG:   gpu.dealloc async [%{{.*}}] %[[SD]]
//   CHECK-DAG:   gpu.dealloc async [%{{.*}}] %[[SG]]
//   CHECK-DAG:   gpu.dealloc async [%{{.*}}] %[[Z]]
//   CHECK-DAG:   gpu.dealloc async [%{{.*}}] %[[Y]]
//   CHECK-NOT:   memref.copy
//       CHECK:   return %[[HZ]], %[[HY]]
func.func @entry(%x: memref<4xf32>, %d: memref<?xf32>, %unused: memref<2xf32>) -> (memref<4xf32>, memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %d, %c0 : memref<?xf32>
  %g = memref.get_global @ones : memref<4xf32>
  %t = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  memref.copy %g, %t : memref<4xf32> to memref<4xf32>
  %y = memref.alloc(%n) : memref<?xf32>
  memref.copy %d, %y : memref<?xf32> to memref<?xf32>
  %z = memref.alloc() : memref<4xf32>
  memref.copy %x, %z : memref<4xf32> to memref<4xf32>
  memref.dealloc %t : memref<4xf32>
  return %z, %y : memref<4xf32>, memref<?xf32>
}

// A private function takes and returns its callers' shared buffers: only
// its own allocations change.
// CHECK-LABEL: func.func private @helper
//  CHECK-SAME:   (%[[X:.*]]: memref<4xf32>) -> memref<4xf32>
//  CHECK-NEXT:   %[[Z:.*]] = gpu.alloc host_shared () : memref<4xf32>
//  CHECK-NEXT:   linalg.copy ins(%[[X]] : memref<4xf32>) outs(%[[Z]] : memref<4xf32>)
//  CHECK-NEXT:   return %[[Z]]
func.func private @helper(%x: memref<4xf32>) -> memref<4xf32> {
  %z = memref.alloc() : memref<4xf32>
  memref.copy %x, %z : memref<4xf32> to memref<4xf32>
  return %z : memref<4xf32>
}

// A copy from a buffer that comes through a call (not known to be shared
// here) stays with the host, which reaches any buffer.
// CHECK-LABEL: func.func private @through_call
//       CHECK:   %[[R:.*]] = call @helper
//       CHECK:   %[[Z:.*]] = gpu.alloc host_shared () : memref<4xf32>
//  CHECK-NEXT:   memref.copy %[[R]], %[[Z]] : memref<4xf32> to memref<4xf32>
//  CHECK-NEXT:   return %[[Z]]
func.func private @through_call(%x: memref<4xf32>) -> memref<4xf32> {
  %r = func.call @helper(%x) : (memref<4xf32>) -> memref<4xf32>
  %z = memref.alloc() : memref<4xf32>
  memref.copy %r, %z : memref<4xf32> to memref<4xf32>
  return %z : memref<4xf32>
}

// A function without buffers is left alone.
// CHECK-LABEL: func.func @scalars
//  CHECK-NEXT:   arith.addf
//  CHECK-NEXT:   return
func.func @scalars(%a: f32) -> f32 {
  %b = arith.addf %a, %a : f32
  return %b : f32
}

// -----

// An argument whose layout a plain allocation cannot have is refused.
// expected-error @+1 {{tp-gpu-shared-buffers: argument #0 has layout strided<[8, 1], offset: ?>; only identity layouts are copied in}}
func.func @strided(%x: memref<4x4xf32, strided<[8, 1], offset: ?>>) -> f32 {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0, %c0] : memref<4x4xf32, strided<[8, 1], offset: ?>>
  return %v : f32
}
