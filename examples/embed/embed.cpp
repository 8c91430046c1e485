//===- embed.cpp - a compiler that embeds the async-TP pipeline -----------===//
//
// Parses per-rank IR (default: upstream's partitioned sequence-parallel MLP),
// runs the pipeline with typed options through the C++ API, prints the result.
//
//===----------------------------------------------------------------------===//

#include "tp/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : TP_EMBED_DEFAULT_INPUT;

  mlir::DialectRegistry registry;
  mlir::tp::registerTPDialects(registry);
  mlir::MLIRContext context(registry);

  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(path, &context);
  if (!module) {
    llvm::errs() << "tp-embed: cannot parse " << path << "\n";
    return 1;
  }

  mlir::PassManager pm(&context);
  mlir::tp::AsyncTPPipelineOptions options;
  options.emitRemarks = true;
  mlir::tp::buildAsyncTPPipeline(pm, options);
  if (mlir::failed(pm.run(*module))) {
    llvm::errs() << "tp-embed: the async-TP pipeline failed on " << path
                 << "\n";
    return 1;
  }
  module->print(llvm::outs());
  llvm::outs() << "\n";
  return 0;
}
