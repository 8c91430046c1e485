// The C test program prints what it did; FileCheck reads its CHECK lines.
// RUN: rm -rf %t.dump && tp-capi-test %t.dump 2>&1 | FileCheck %S/tp-capi-test.c
// RUN: ls %t.dump/rank3 | FileCheck %s --check-prefix=DUMP
// DUMP: arg0.npy
// DUMP-NEXT: arg1.npy
// DUMP-NEXT: result0.npy
// RUN: test ! -e %t.dump/INCOMPLETE
