//===- TestUniformity.cpp - print what isUniformAcrossGroup proves --------===//
//
// For every op that carries `test.grid = @g` and `test.axes = array<i16:
// ...>`, a remark per result says whether isUniformAcrossGroup proves it the
// same on every rank of that group, or where the proof stopped. A test pass,
// as upstream tests its analyses (mlir/test/lib): registered in tp-opt only.
//
//===----------------------------------------------------------------------===//

#include "tp/Dialect/TP/Transforms/Uniformity.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

namespace {

struct TestUniformityPass
    : PassWrapper<TestUniformityPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestUniformityPass)

  StringRef getArgument() const final { return "tp-test-uniformity"; }
  StringRef getDescription() const final {
    return "Remark, at each op marked test.grid and test.axes, whether its "
           "results are proven uniform across that group";
  }

  void runOnOperation() override {
    getOperation().walk([&](Operation *op) {
      auto grid = op->getAttrOfType<FlatSymbolRefAttr>("test.grid");
      auto axes = op->getAttrOfType<DenseI16ArrayAttr>("test.axes");
      if (!grid || !axes)
        return;
      for (OpResult result : op->getResults()) {
        std::string why;
        if (mlir::tp::isUniformAcrossGroup(result, grid, axes.asArrayRef(),
                                           &why))
          op->emitRemark() << "result #" << result.getResultNumber()
                           << " is uniform";
        else
          op->emitRemark() << "result #" << result.getResultNumber()
                           << " is not proven uniform: " << why;
      }
    });
  }
};

} // namespace

namespace mlir::tp::test {
void registerTestUniformityPass() { PassRegistration<TestUniformityPass>(); }
} // namespace mlir::tp::test
