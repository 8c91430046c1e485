// RUN: tp-opt %s --split-input-file --tp-outline-loop-nests=max-loops=2 | FileCheck %s
// RUN: tp-opt %s --split-input-file --tp-outline-loop-nests=max-loops=3 | FileCheck %s --check-prefix=KEEP
// RUN: tp-opt %s --split-input-file --tp-outline-loop-nests=max-loops=0 | FileCheck %s --check-prefix=KEEP
// RUN: not tp-opt %s --tp-outline-loop-nests=max-loops=-1 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// NEGATIVE: error: tp-outline-loop-nests: max-loops must not be negative, got -1

// Three loop nests in a row, more than max-loops=2: each becomes a private
// function LLVM may neither inline nor export, called where it was, taking
// the buffers and values it reads from outside; constants (bounds, the
// scale) are made again inside it. A loop's results are the function's.
// (The constants left unused are canonicalization's to erase.)
// With max-loops=3 (or 0) the function keeps its loops.

// CHECK-LABEL: func.func private @glue_loop(
// CHECK-SAME:      %[[A:.*]]: memref<8xf32>, %[[B:.*]]: memref<8xf32>)
// CHECK-SAME:      attributes {llvm.linkage = #llvm.linkage<internal>, no_inline, passthrough = ["noinline"]}
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK:         scf.for %[[I:.*]] = %[[C0]] to %[[C8]] step %[[C1]] {
// CHECK:           %[[V:.*]] = memref.load %[[A]][%[[I]]]
// CHECK:           %[[M:.*]] = arith.mulf %[[V]], %[[TWO]]
// CHECK:           memref.store %[[M]], %[[B]][%[[I]]]
// CHECK:         return
// CHECK-LABEL: func.func private @glue_loop_0(
// CHECK-SAME:      %[[N:.*]]: index, %[[B0:.*]]: memref<8xf32>)
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[N]] step
// CHECK:           memref.load %[[B0]]
// CHECK:         return
// CHECK-LABEL: func.func private @glue_loop_1(
// CHECK-SAME:      %[[B1:.*]]: memref<8xf32>) -> f32
// CHECK:         %[[S:.*]] = scf.for {{.*}} -> (f32) {
// CHECK:         return %[[S]] : f32
// CHECK-LABEL: func.func @glue(
// CHECK-SAME:      %[[IN:.*]]: memref<8xf32>, %[[OUT:.*]]: memref<8xf32>, %[[COUNT:.*]]: index) -> f32
// CHECK-NOT:     scf.for
// CHECK:         call @glue_loop(%[[IN]], %[[OUT]]) : (memref<8xf32>, memref<8xf32>) -> ()
// CHECK-NEXT:    call @glue_loop_0(%[[COUNT]], %[[OUT]]) : (index, memref<8xf32>) -> ()
// CHECK-NEXT:    %[[SUM:.*]] = call @glue_loop_1(%[[OUT]]) : (memref<8xf32>) -> f32
// CHECK-NEXT:    return %[[SUM]] : f32

// KEEP-LABEL: func.func @glue(
// KEEP-COUNT-3: scf.for
// KEEP-NOT:     call
// KEEP-LABEL:  // -----
func.func @glue(%a: memref<8xf32>, %b: memref<8xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %two = arith.constant 2.0 : f32
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %a[%i] : memref<8xf32>
    %m = arith.mulf %v, %two : f32
    memref.store %m, %b[%i] : memref<8xf32>
  }
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %b[%i] : memref<8xf32>
    %m = arith.addf %v, %two : f32
    memref.store %m, %b[%i] : memref<8xf32>
  }
  %sum = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = memref.load %b[%i] : memref<8xf32>
    %s = arith.addf %acc, %v : f32
    scf.yield %s : f32
  }
  return %sum : f32
}

// -----

// Nests with the same code on other buffers (a model's layers) call one
// function, the first one outlined; a nest that differs in a constant, in
// its operands' order or in a type gets its own.

// CHECK-LABEL: func.func private @layers_loop(
// CHECK-SAME:      %{{.*}}: memref<8xf32>, %{{.*}}: memref<8xf32>)
// CHECK:         arith.constant 2.000000e+00 : f32
// CHECK:         arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-LABEL: func.func private @layers_loop_1(
// CHECK:         arith.constant 3.000000e+00 : f32
// CHECK-LABEL: func.func private @layers_loop_2(
// CHECK-LABEL: func.func private @layers_loop_3(
// CHECK-SAME:      %{{.*}}: memref<8xf64>)
// CHECK-NOT:   func.func private
// CHECK-LABEL: func.func @layers(
// CHECK-SAME:      %[[A:.*]]: memref<8xf32>, %[[B:.*]]: memref<8xf32>, %[[C:.*]]: memref<8xf32>, %[[D:.*]]: memref<8xf64>)
// CHECK-NOT:     scf.for
// CHECK:         call @layers_loop(%[[A]], %[[B]])
// CHECK-NEXT:    call @layers_loop(%[[B]], %[[C]])
// CHECK-NEXT:    call @layers_loop_1(%[[C]], %[[A]])
// CHECK-NEXT:    call @layers_loop_2(%[[C]], %[[A]])
// CHECK-NEXT:    call @layers_loop_3(%[[D]])
// CHECK-NEXT:    call @layers_loop(%[[C]], %[[A]])
// CHECK-NEXT:    return

func.func @layers(%a: memref<8xf32>, %b: memref<8xf32>, %c: memref<8xf32>,
                  %d: memref<8xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %two = arith.constant 2.0 : f32
  %three = arith.constant 3.0 : f32
  %two64 = arith.constant 2.0 : f64
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %a[%i] : memref<8xf32>
    %m = arith.mulf %v, %two : f32
    memref.store %m, %b[%i] : memref<8xf32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %b[%i] : memref<8xf32>
    %m = arith.mulf %v, %two : f32
    memref.store %m, %c[%i] : memref<8xf32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %c[%i] : memref<8xf32>
    %m = arith.mulf %v, %three : f32
    memref.store %m, %a[%i] : memref<8xf32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %c[%i] : memref<8xf32>
    %m = arith.mulf %two, %v : f32
    memref.store %m, %a[%i] : memref<8xf32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %d[%i] : memref<8xf64>
    %m = arith.mulf %v, %two64 : f64
    memref.store %m, %d[%i] : memref<8xf64>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %c[%i] : memref<8xf32>
    %m = arith.mulf %v, %two : f32
    memref.store %m, %a[%i] : memref<8xf32>
  }
  return
}
