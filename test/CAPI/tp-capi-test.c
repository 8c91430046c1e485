/*===- tp-capi-test.c - the C API, end to end ------------------------------===*\
|* Parses upstream per-rank IR, runs the async-TP pipeline through the C API, *|
|* and prints the module (checked by lit). Also checks that bad input fails   *|
|* cleanly.                                                                   *|
\*===----------------------------------------------------------------------===*/

#include "tp-c/TP.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"

#include <stdio.h>
#include <stdlib.h>

static const char *kUpstream =
    "shard.grid @tp(shape = 4)\n"
    "func.func @col(%x: tensor<8x64xf32>, %w: tensor<64x32xf32>) -> "
    "tensor<32x32xf32> {\n"
    "  %g = shard.all_gather %x on @tp grid_axes = [0] gather_axis = 0 : "
    "tensor<8x64xf32> -> tensor<32x64xf32>\n"
    "  %e = tensor.empty() : tensor<32x32xf32>\n"
    "  %y = linalg.matmul ins(%g, %w : tensor<32x64xf32>, tensor<64x32xf32>) "
    "outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>\n"
    "  return %y : tensor<32x32xf32>\n"
    "}\n";

static void printToStdout(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

static MlirLogicalResult printDiagnostic(MlirDiagnostic diagnostic,
                                         void *userData) {
  (void)userData;
  fprintf(stdout, "diagnostic: ");
  mlirDiagnosticPrint(diagnostic, printToStdout, NULL);
  fprintf(stdout, "\n");
  return mlirLogicalResultSuccess();
}

static MlirContext makeContext(void) {
  MlirContext context = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  tpRegisterDialects(registry);
  mlirContextAppendDialectRegistry(context, registry);
  mlirDialectRegistryDestroy(registry);
  mlirContextLoadAllAvailableDialects(context);
  mlirContextAttachDiagnosticHandler(context, printDiagnostic, NULL, NULL);
  return context;
}

int main(void) {
  tpRegisterPasses();
  MlirContext context = makeContext();

  /* The dialect handle names the dialect. */
  MlirDialectHandle handle = mlirGetDialectHandle__tp__();
  MlirStringRef ns = mlirDialectHandleGetNamespace(handle);
  printf("namespace: %.*s\n", (int)ns.length, ns.data);
  // CHECK: namespace: tp

  MlirModule module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(kUpstream));
  if (mlirModuleIsNull(module))
    return 1;
  TPAsyncTPPipelineOptions options = tpAsyncTPPipelineOptionsDefault();
  if (mlirLogicalResultIsFailure(tpRunAsyncTPPipeline(module, options)))
    return 2;
  mlirOperationPrint(mlirModuleGetOperation(module), printToStdout, NULL);
  printf("\n");
  // CHECK-LABEL: func.func @col
  // CHECK-SAME:    (%[[X:.*]]: tensor<8x64xf32>, %[[W:.*]]: tensor<64x32xf32>)
  // CHECK-NEXT:    %[[Y:.*]] = tp.all_gather_matmul %[[X]], [%[[W]]] on @tp axes = [0] dim = 0
  // CHECK-NEXT:    return %[[Y]]
  mlirModuleDestroy(module);

  /* The same pipeline through a pass manager, by name. */
  module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(kUpstream));
  MlirPassManager pm = mlirPassManagerCreate(context);
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  MlirLogicalResult parsed = mlirParsePassPipeline(
      opm, mlirStringRefCreateFromCString("builtin.module(tp-async-tp-pipeline)"),
      printToStdout, NULL);
  if (mlirLogicalResultIsFailure(parsed) ||
      mlirLogicalResultIsFailure(
          mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module))))
    return 3;
  printf("by name: fused\n");
  // CHECK: by name: fused
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);

  /* Bad input: a malformed module does not parse; a bad option fails the run
   * with a diagnostic instead of crashing. */
  module = mlirModuleCreateParse(
      context, mlirStringRefCreateFromCString("func.func @f( {"));
  printf("malformed: %s\n", mlirModuleIsNull(module) ? "rejected" : "parsed");
  // CHECK: diagnostic: {{.+}}
  // CHECK: malformed: rejected
  module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(kUpstream));
  options.tensorParallelAxis = -7;
  MlirLogicalResult bad = tpRunAsyncTPPipeline(module, options);
  printf("bad axis: %s\n",
         mlirLogicalResultIsFailure(bad) ? "failed" : "succeeded");
  // CHECK: diagnostic: tp-async-tp: 'tp-axis' must be a grid axis or -1, got -7
  // CHECK: bad axis: failed
  mlirModuleDestroy(module);
  mlirContextDestroy(context);
  return 0;
}
