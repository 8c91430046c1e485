//===- FuzzIR.cpp - fuzz the tp parser, verifiers and passes --------------===//
//
// The input is MLIR text. It is parsed with tp-opt's registry and verified;
// then the passes users run go over it (tp-import, tp-lower-linear,
// canonicalize, cse, tp-async-tp with remarks, and tp-async-tp-pipeline),
// and tp-lower-to-llvm over what survived. Diagnostics are expected (most
// inputs are invalid) and swallowed; a crash, an abort or a sanitizer report
// is a bug.
//
//===----------------------------------------------------------------------===//

#include "tp/Conversion/Passes.h"
#include "tp/Dialect/TP/Transforms/Passes.h"
#include "tp/Pipelines/LowerToLLVM.h"
#include "tp/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace mlir;

namespace {

/// One registry for every input: building it is the costly part of a
/// context, and it is read-only once built.
const DialectRegistry &getRegistry() {
  static const DialectRegistry *registry = [] {
    auto *r = new DialectRegistry();
    mlir::tp::registerTPDialects(*r);
    return r;
  }();
  return *registry;
}

/// Runs `build`'s passes on a clone of `module`; returns the result, or null
/// when a pass failed (an error diagnostic, not a bug).
OwningOpRef<ModuleOp> runOnClone(ModuleOp module,
                                 void (*build)(OpPassManager &)) {
  OwningOpRef<ModuleOp> clone(module.clone());
  PassManager pm(module.getContext());
  build(pm);
  if (failed(pm.run(*clone)))
    return nullptr;
  return clone;
}

void buildPasses(OpPassManager &pm) {
  mlir::tp::TPImportOptions importOptions;
  importOptions.emitRemarks = true;
  pm.addPass(mlir::tp::createTPImport(importOptions));
  pm.addPass(mlir::tp::createTPLowerLinear());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  mlir::tp::TPAsyncTPOptions fuseOptions;
  fuseOptions.emitRemarks = true;
  fuseOptions.reportCounts = true;
  pm.addPass(mlir::tp::createTPAsyncTP(fuseOptions));
}

void buildPipeline(OpPassManager &pm) {
  mlir::tp::AsyncTPPipelineOptions options;
  options.emitRemarks = true;
  mlir::tp::buildAsyncTPPipeline(pm, options);
}

void buildLowering(OpPassManager &pm) {
  mlir::tp::buildLowerToLLVMPipeline(pm, mlir::tp::LowerToLLVMOptions());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // Threads would only add nondeterminism and cost per input.
  MLIRContext context(getRegistry(), MLIRContext::Threading::DISABLED);
  // Swallows every diagnostic: errors and remarks are the expected outcome
  // of most inputs, and printing them would only slow the fuzzer down.
  ScopedDiagnosticHandler swallow(&context,
                                  [](Diagnostic &) { return success(); });

  // MLIR's lexer finds the end of its buffer by the NUL after it, which
  // files read from disk have and libFuzzer's inputs do not: copy.
  std::string text(reinterpret_cast<const char *>(data), size);
  ParserConfig config(&context);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(text, config, "fuzz-input");
  if (!module || failed(verify(*module)))
    return 0;

  // The passes one by one, then the one-flag pipeline; each on its own copy
  // so a failure in one still lets the other run.
  OwningOpRef<ModuleOp> passed = runOnClone(*module, buildPasses);
  OwningOpRef<ModuleOp> piped = runOnClone(*module, buildPipeline);
  // Lower the furthest-along module that survived; the input itself when
  // neither did (tp-lower-to-llvm also takes unfused programs).
  ModuleOp toLower = passed ? *passed : piped ? *piped : *module;
  (void)runOnClone(toLower, buildLowering);
  return 0;
}
