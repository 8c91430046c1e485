// The C test program prints what it did; FileCheck reads its CHECK lines.
// RUN: tp-capi-test 2>&1 | FileCheck %S/tp-capi-test.c
