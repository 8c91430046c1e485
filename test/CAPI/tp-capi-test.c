/*===- tp-capi-test.c - the C API, end to end
------------------------------===*\
|* Parses upstream per-rank IR, runs the async-TP pipeline through the C API, *|
|* and prints the module (checked by lit). Also checks that bad input fails   *|
|* cleanly.                                                                   *|
\*===----------------------------------------------------------------------===*/

#include "ColumnLayer.h"
#include "tp-c/TP.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"

#include <stdio.h>
#include <stdlib.h>

static MlirLogicalResult printDiagnostic(MlirDiagnostic diagnostic,
                                         void *userData) {
  (void)userData;
  fprintf(stdout, "diagnostic: ");
  mlirDiagnosticPrint(diagnostic, printToStdout, NULL);
  fprintf(stdout, "\n");
  return mlirLogicalResultSuccess();
}

/* Dumps a run's values as tp-run --dump does, reads the inputs back as
 * tp-run --input-dir does, and compares them: equal, then with one element
 * changed. `inputs` and `results` are 4 ranks' (2 arguments, 1 result). */
static void checkValues(MlirOperation func, const char *dir,
                        const TPTensor *inputs, const TPTensor *results) {
  enum { RANKS = 4, ARGS = 2 };
  MlirLogicalResult dumped =
      tpDumpValues(dir, RANKS, ARGS, inputs, 1, results, printToStdout, NULL);
  printf("dumped: %s\n", mlirLogicalResultIsSuccess(dumped) ? "ok" : "FAILED");
  TPTensor reread[RANKS * ARGS];
  MlirLogicalResult read =
      tpReadInputs(func, RANKS, dir, 1, reread, printToStdout, NULL);
  if (mlirLogicalResultIsFailure(read)) {
    printf("read back: FAILED\n");
    return;
  }
  double worst = -1;
  MlirLogicalResult same = tpCompareResults(RANKS, ARGS, reread, inputs, 0.0,
                                            &worst, printToStdout, NULL);
  printf("read back: %s (max error %.1e)\n",
         mlirLogicalResultIsSuccess(same) ? "same" : "DIFFERENT", worst);
  tpTensorSet(reread[1 * ARGS + 1], 5, 100.0);
  printf("changed: ");
  MlirLogicalResult differ = tpCompareResults(RANKS, ARGS, reread, inputs, 0.0,
                                              &worst, printToStdout, NULL);
  printf("-> %s\n",
         mlirLogicalResultIsFailure(differ) ? "failed" : "unexpected");
  printf("no ranks: ");
  differ = tpCompareResults(0, ARGS, reread, inputs, 0.0, &worst, printToStdout,
                            NULL);
  printf(" -> %s\n",
         mlirLogicalResultIsFailure(differ) ? "failed" : "unexpected");
  printf("null result: ");
  TPTensor none[RANKS] = {{NULL}, {NULL}, {NULL}, {NULL}};
  dumped = tpDumpValues(dir, RANKS, ARGS, inputs, 1, none, printToStdout, NULL);
  printf(" -> %s\n",
         mlirLogicalResultIsFailure(dumped) ? "failed" : "unexpected");
  printf("missing folder: ");
  read = tpReadInputs(func, RANKS, "/nonexistent-tp-capi", 1, reread,
                      printToStdout, NULL);
  printf(" -> %s\n",
         mlirLogicalResultIsFailure(read) ? "failed" : "unexpected");
  for (int i = 0; i < RANKS * ARGS; ++i)
    tpTensorDestroy(reread[i]);
}

/* Runs the fused function on 4 ranks through the runtime's C API and checks
 * rank r's result against (x_0; x_1; x_2; x_3) @ w_r computed here. */
static void checkExecution(MlirModule module, const char *dumpDir) {
  enum { RANKS = kRanks };
  // The grid comes first; the function follows it.
  MlirOperation func = mlirOperationGetNextInBlock(
      mlirBlockGetFirstOperation(mlirModuleGetBody(module)));
  TPTensor inputs[RANKS * 2], results[RANKS];
  for (int r = 0; r < RANKS; ++r)
    makeColumnInputs(r, &inputs[2 * r], &inputs[2 * r + 1]);
  MlirLogicalResult ran =
      tpRunSPMD(func, RANKS, "cpu", inputs, results, printToStdout, NULL);
  double worst = 0;
  if (mlirLogicalResultIsSuccess(ran))
    for (int r = 0; r < RANKS; ++r) {
      double error = columnError(inputs, results[r], r);
      worst = error > worst ? error : worst;
    }
  printf("executed on %d ranks: max error %.2e (%s)\n", RANKS, worst,
         mlirLogicalResultIsSuccess(ran) && worst < 1e-4 ? "ok" : "WRONG");
  if (mlirLogicalResultIsSuccess(ran)) {
    checkValues(func, dumpDir, inputs, results);
    for (int r = 0; r < RANKS; ++r)
      tpTensorDestroy(results[r]);
  }
  printf("bad backend: ");
  ran = tpRunSPMD(func, RANKS, "tpu", inputs, results, printToStdout, NULL);
  printf(" -> %s\n", mlirLogicalResultIsFailure(ran) ? "failed" : "unexpected");
  for (int i = 0; i < RANKS * 2; ++i)
    tpTensorDestroy(inputs[i]);
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

int main(int argc, char **argv) {
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
  // clang-format off
  // CHECK-LABEL: func.func @col
  // CHECK-SAME:    (%[[X:.*]]: tensor<8x64xf32>, %[[W:.*]]: tensor<64x32xf32>)
  // CHECK-NEXT:    %[[Y:.*]] = tp.all_gather_matmul %[[X]], [%[[W]]] on @tp axes = [0] dim = 0
  // CHECK-NEXT:    return %[[Y]]
  // clang-format on
  checkExecution(module, argc > 1 ? argv[1] : "tp-capi-dump");
  // clang-format off
  // CHECK: executed on 4 ranks: max error {{[0-9.e+-]+}} (ok)
  // CHECK-NEXT: dumped: ok
  // CHECK-NEXT: read back: same (max error 0.0e+00)
  // CHECK-NEXT: changed: mismatch: rank 1 result 1: max abs error
  // CHECK-NEXT: -> failed
  // CHECK-NEXT: no ranks: tpCompareResults: needs ranks >= 1 and numResults >= 0 -> failed
  // CHECK-NEXT: null result: tpDumpValues: result 0 of rank 0 is null -> failed
  // CHECK-NEXT: missing folder: tpReadInputs: argument 0 of rank 0:
  // CHECK-SAME: -> failed
  // CHECK: bad backend: rank {{[0-9]}} failed first: unknown backend 'tpu' -> failed
  // clang-format on
  mlirModuleDestroy(module);

  /* The same pipeline through a pass manager, by name. */
  module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(kUpstream));
  MlirPassManager pm = mlirPassManagerCreate(context);
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  MlirLogicalResult parsed = mlirParsePassPipeline(
      opm,
      mlirStringRefCreateFromCString("builtin.module(tp-async-tp-pipeline)"),
      printToStdout, NULL);
  if (mlirLogicalResultIsFailure(parsed) ||
      mlirLogicalResultIsFailure(
          mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module))))
    return 3;
  printf("by name: fused\n");
  // CHECK: by name: fused
  mlirPassManagerDestroy(pm);

  /* The fused module lowered to the LLVM dialect: tp ops are runtime calls. */
  if (mlirLogicalResultIsFailure(
          tpRunLowerToLLVMPipeline(module, tpLowerToLLVMOptionsDefault())))
    return 4;
  mlirOperationPrint(mlirModuleGetOperation(module), printToStdout, NULL);
  printf("\n");
  // CHECK-LABEL: llvm.func @col(
  // CHECK:         llvm.call @tp_rt_all_gather_matmul(
  // CHECK-NOT:     tp.all_gather_matmul
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
  // CHECK: diagnostic: tp-async-tp: 'tp-axis' must be -1 or an axis of a grid, got -7
  // CHECK: bad axis: failed
  mlirModuleDestroy(module);

  /* A program on a grid of dynamic size cannot be lowered: a diagnostic and
   * a failure, not a crash. */
  module = mlirModuleCreateParse(
      context, mlirStringRefCreateFromCString(
                   "shard.grid @g(shape = ?)\n"
                   "func.func @f() -> index {\n"
                   "  %r = tp.group_rank on @g axes = [0]\n"
                   "  return %r : index\n"
                   "}\n"));
  bad = tpRunLowerToLLVMPipeline(module, tpLowerToLLVMOptionsDefault());
  printf("dynamic grid: %s\n",
         mlirLogicalResultIsFailure(bad) ? "failed" : "succeeded");
  // CHECK: diagnostic: grid @g has a dynamic size; compiled programs need static grids
  // CHECK: dynamic grid: failed
  mlirModuleDestroy(module);
  mlirContextDestroy(context);
  return 0;
}
