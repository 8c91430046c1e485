// RUN: tp-opt %s --tp-unoptimized-straight-code=min-ops=5 | FileCheck %s
// RUN: tp-opt %s --tp-unoptimized-straight-code=min-ops=0 | FileCheck %s --check-prefix=NONE
// RUN: not tp-opt %s --tp-unoptimized-straight-code=min-ops=-1 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// NEGATIVE: error: tp-unoptimized-straight-code: min-ops must not be negative, got -1

// With min-ops=5, a loop-free function of 5 ops or more is left to LLVM
// unoptimized (and never inlined, as optnone requires); one of 4 ops, one
// with a loop, a declaration and an always_inline function keep LLVM's
// optimizations. With min-ops=0 no function is marked.
// NONE-NOT: optimize_none

// CHECK-LABEL: llvm.func @five_ops(
// CHECK-SAME:      attributes {no_inline, optimize_none} {
llvm.func @five_ops(%a: i64) -> i64 {
  %0 = llvm.add %a, %a : i64
  %1 = llvm.add %0, %a : i64
  %2 = llvm.add %1, %a : i64
  %3 = llvm.add %2, %a : i64
  llvm.return %3 : i64
}

// CHECK-LABEL: llvm.func @four_ops(
// CHECK-SAME:      -> i64 {
llvm.func @four_ops(%a: i64) -> i64 {
  %0 = llvm.add %a, %a : i64
  %1 = llvm.add %0, %a : i64
  %2 = llvm.add %1, %a : i64
  llvm.return %2 : i64
}

// Branches that join again are not a loop.
// CHECK-LABEL: llvm.func @diamond(
// CHECK-SAME:      attributes {no_inline, optimize_none} {
llvm.func @diamond(%a: i64, %c: i1) -> i64 {
  llvm.cond_br %c, ^left, ^right
^left:
  %0 = llvm.add %a, %a : i64
  llvm.br ^join(%0 : i64)
^right:
  %1 = llvm.mul %a, %a : i64
  llvm.br ^join(%1 : i64)
^join(%x: i64):
  llvm.return %x : i64
}

// CHECK-LABEL: llvm.func @loop(
// CHECK-SAME:      -> i64 {
llvm.func @loop(%a: i64) -> i64 {
  llvm.br ^body(%a : i64)
^body(%x: i64):
  %0 = llvm.add %x, %a : i64
  %1 = llvm.icmp "slt" %0, %a : i64
  llvm.cond_br %1, ^after, ^body(%0 : i64)
^after:
  %2 = llvm.add %0, %0 : i64
  llvm.return %2 : i64
}

// An existing no_inline stays; optimize_none joins it.
// CHECK-LABEL: llvm.func @already_no_inline(
// CHECK-SAME:      attributes {no_inline, optimize_none} {
llvm.func @already_no_inline(%a: i64) -> i64 attributes {no_inline} {
  %0 = llvm.add %a, %a : i64
  %1 = llvm.add %0, %a : i64
  %2 = llvm.add %1, %a : i64
  %3 = llvm.add %2, %a : i64
  llvm.return %3 : i64
}

// CHECK-LABEL: llvm.func @always_inline(
// CHECK-SAME:      attributes {always_inline} {
llvm.func @always_inline(%a: i64) -> i64 attributes {always_inline} {
  %0 = llvm.add %a, %a : i64
  %1 = llvm.add %0, %a : i64
  %2 = llvm.add %1, %a : i64
  %3 = llvm.add %2, %a : i64
  llvm.return %3 : i64
}

// CHECK-LABEL: llvm.func @declared(i64) -> i64
// CHECK-NOT:     optimize_none
llvm.func @declared(i64) -> i64

// A C interface wrapper of a marked function is marked too, whatever its
// length: it only moves the function's descriptors, in one block as long as
// its argument list (a training step's: every weight and gradient). The
// wrapper of an unmarked function is not.
// CHECK-LABEL: llvm.func @_mlir_ciface_five_ops(
// CHECK-SAME:      attributes {no_inline, optimize_none} {
llvm.func @_mlir_ciface_five_ops(%a: i64) -> i64 {
  %0 = llvm.call @five_ops(%a) : (i64) -> i64
  llvm.return %0 : i64
}

// CHECK-LABEL: llvm.func @_mlir_ciface_four_ops(
// CHECK-SAME:      -> i64 {
llvm.func @_mlir_ciface_four_ops(%a: i64) -> i64 {
  %0 = llvm.call @four_ops(%a) : (i64) -> i64
  llvm.return %0 : i64
}
