//===- TestPasses.cpp - registering tp's test passes ----------------------===//

#include "TestPasses.h"

namespace mlir::tp::test {
void registerTestUniformityPass();

void registerTestPasses() { registerTestUniformityPass(); }
} // namespace mlir::tp::test
