// Arguments marked tp.replicated: seeded inputs are the same on every rank
// (the others differ), the mark does not reach LLVM, and --input-dir data
// that breaks the promise is refused with the argument, rank and element.
// RUN: tp-run %s --ranks 3 2>&1 | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t/rank0 %t/rank1
// RUN: tp-run %s --ranks 2 --dump-dir %t
// RUN: cp %t/rank0/arg1.npy %t/rank1/arg0.npy
// RUN: not tp-run %s --ranks 2 --input-dir %t 2>&1 | FileCheck %s --check-prefix=BROKEN
// RUN: cp %t/rank0/arg0.npy %t/rank1/arg0.npy
// RUN: tp-run %s --ranks 2 --input-dir %t 2>&1 | FileCheck %s --check-prefix=KEPT

// CHECK-NOT: warning
// CHECK:      rank 0 result 0: tensor<4x3xf32> sum={{.*}} checksum=[[X:[0-9a-f]+]]
// CHECK-NEXT: rank 0 result 1: tensor<4x3xf32> sum={{.*}} checksum=[[Y0:[0-9a-f]+]]
// CHECK-NEXT: rank 1 result 0: tensor<4x3xf32> sum={{.*}} checksum=[[X]]
// CHECK-NOT:  checksum=[[Y0]]
// CHECK:      rank 2 result 0: tensor<4x3xf32> sum={{.*}} checksum=[[X]]

// Rank 1's argument 0 is now rank 0's argument 1.
// BROKEN: tp-run: argument 0 is marked tp.replicated, but rank 1's value differs from rank 0's (element 0:

// KEPT: rank 1 result 0

func.func @pass_through(%x: tensor<4x3xf32> {tp.replicated}, %y: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  return %x, %y : tensor<4x3xf32>, tensor<4x3xf32>
}
