// RUN: tp-opt %s --split-input-file --tp-lower-alloca-scopes | FileCheck %s

// A scope (a runtime call's staging) becomes its ops, in place, between a
// stack save and its restore; its result is the value it returned. The
// block around it is not split.

// CHECK-LABEL: func.func @staged(
// CHECK-SAME:      %[[BUF:.*]]: memref<4xf32>)
// CHECK-NEXT:    arith.constant 0 : index
// CHECK-NEXT:    %[[SP0:.*]] = llvm.intr.stacksave : !llvm.ptr
// CHECK-NEXT:    %[[SLOT:.*]] = memref.alloca() : memref<1xindex>
// CHECK-NEXT:    %[[DIM:.*]] = memref.dim %[[BUF]]
// CHECK-NEXT:    memref.store %[[DIM]], %[[SLOT]]
// CHECK-NEXT:    %[[READ:.*]] = memref.load %[[SLOT]]
// CHECK-NEXT:    llvm.intr.stackrestore %[[SP0]] : !llvm.ptr
// CHECK-NEXT:    %[[SP1:.*]] = llvm.intr.stacksave : !llvm.ptr
// CHECK-NEXT:    memref.alloca() : memref<2xindex>
// CHECK-NEXT:    llvm.intr.stackrestore %[[SP1]] : !llvm.ptr
// CHECK-NEXT:    return %[[READ]] : index
func.func @staged(%buf: memref<4xf32>) -> index {
  %c0 = arith.constant 0 : index
  %read = memref.alloca_scope -> index {
    %slot = memref.alloca() : memref<1xindex>
    %dim = memref.dim %buf, %c0 : memref<4xf32>
    memref.store %dim, %slot[%c0] : memref<1xindex>
    %v = memref.load %slot[%c0] : memref<1xindex>
    memref.alloca_scope.return %v : index
  }
  memref.alloca_scope {
    %unused = memref.alloca() : memref<2xindex>
  }
  return %read : index
}

// -----

// Nested scopes: the inner one first, then the outer one, each with its
// own save and restore.

// CHECK-LABEL: func.func @nested(
// CHECK-NEXT:    %[[OUTER:.*]] = llvm.intr.stacksave
// CHECK-NEXT:    memref.alloca() : memref<1xf32>
// CHECK-NEXT:    %[[INNER:.*]] = llvm.intr.stacksave
// CHECK-NEXT:    memref.alloca() : memref<2xf32>
// CHECK-NEXT:    llvm.intr.stackrestore %[[INNER]]
// CHECK-NEXT:    llvm.intr.stackrestore %[[OUTER]]
// CHECK-NEXT:    return
func.func @nested() {
  memref.alloca_scope {
    %a = memref.alloca() : memref<1xf32>
    memref.alloca_scope {
      %b = memref.alloca() : memref<2xf32>
    }
  }
  return
}
