//===- TestPasses.h - tp's test passes, for tp-opt --------------*- C++ -*-===//

#ifndef TP_TEST_LIB_TESTPASSES_H
#define TP_TEST_LIB_TESTPASSES_H

namespace mlir::tp::test {
/// Registers the test passes (tp-test-uniformity).
void registerTestPasses();
} // namespace mlir::tp::test

#endif // TP_TEST_LIB_TESTPASSES_H
