/*===- tp-capi-ranks-test.c - the C API with one process per rank --------===*\
|* Started by mpirun, every process joins the run as a rank, fuses the same  *|
|* upstream program through the C API and runs it as its rank over MPI. The  *|
|* reporting rank checks every rank's result against the product computed   *|
|* here, and against the same run with the ranks as threads (tpRunSPMD):    *|
|* bit for bit. Started plainly, it says it is no rank.                     *|
|*                                                                            *|
|*   tp-capi-ranks-test [TRANSPORT]   (default mpi)                           *|
\*===----------------------------------------------------------------------===*/

#include "ColumnLayer.h"
#include "tp-c/TP.h"

/* On the reporting rank: every rank's result against the product, and
 * against the ranks run as threads. */
static int checkReport(MlirOperation func, const TPTensor *results) {
  TPTensor inputs[kRanks * 2], threads[kRanks];
  for (int r = 0; r < kRanks; ++r)
    makeColumnInputs(r, &inputs[2 * r], &inputs[2 * r + 1]);
  double worst = 0;
  for (int r = 0; r < kRanks; ++r) {
    double error = columnError(inputs, results[r], r);
    worst = error > worst ? error : worst;
  }
  printf("processes: %d ranks, max error %.2e (%s)\n", kRanks, worst,
         worst < 1e-4 ? "ok" : "WRONG");
  int failed = worst >= 1e-4;
  MlirLogicalResult ran =
      tpRunSPMD(func, kRanks, "cpu", inputs, threads, printToStdout, NULL);
  if (mlirLogicalResultIsSuccess(ran)) {
    double threadWorst = 1;
    MlirLogicalResult same = tpCompareResults(
        kRanks, 1, results, threads, 0.0, &threadWorst, printToStdout, NULL);
    printf("threads: %s (max normalized error %.1e)\n",
           mlirLogicalResultIsSuccess(same) ? "same" : "DIFFERENT",
           threadWorst);
    failed |= mlirLogicalResultIsFailure(same) || threadWorst != 0;
    for (int r = 0; r < kRanks; ++r)
      tpTensorDestroy(threads[r]);
  } else {
    printf(" -> threads failed\n");
    failed = 1;
  }
  for (int i = 0; i < kRanks * 2; ++i)
    tpTensorDestroy(inputs[i]);
  return failed;
}

int main(int argc, char **argv) {
  const char *transport = argc > 1 ? argv[1] : "mpi";
  TPRankProcess process;
  if (mlirLogicalResultIsFailure(
          tpRankProcessJoin(&process, printToStdout, NULL)))
    return 1;
  if (!process.ptr) {
    printf("not started as a rank\n");
    MlirOperation none = {NULL};
    MlirLogicalResult ran = tpRunAsRank(none, process, transport, NULL, NULL,
                                        NULL, printToStdout, NULL);
    printf(" -> %s\n", mlirLogicalResultIsFailure(ran) ? "failed" : "ran");
    printf("rank %d of %d\n", tpRankProcessRank(process),
           tpRankProcessSize(process));
    return 0;
  }

  tpRegisterPasses();
  MlirContext context = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  tpRegisterDialects(registry);
  mlirContextAppendDialectRegistry(context, registry);
  mlirDialectRegistryDestroy(registry);
  mlirContextLoadAllAvailableDialects(context);
  MlirModule module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(kUpstream));
  if (mlirModuleIsNull(module) ||
      mlirLogicalResultIsFailure(
          tpRunAsyncTPPipeline(module, tpAsyncTPPipelineOptionsDefault())))
    return 2;
  /* The grid comes first; the function follows it. */
  MlirOperation func = mlirOperationGetNextInBlock(
      mlirBlockGetFirstOperation(mlirModuleGetBody(module)));

  int me = tpRankProcessRank(process);
  TPTensor inputs[2], results[kRanks];
  makeColumnInputs(me, &inputs[0], &inputs[1]);
  int reports = 0;
  /* A failure ends the job here, with the rank's message. */
  tpRunAsRank(func, process, transport, inputs, results, &reports,
              printToStdout, NULL);
  int failed = 0;
  if (reports) {
    printf("rank %d of %d reports\n", me, tpRankProcessSize(process));
    failed = checkReport(func, results);
    for (int r = 0; r < kRanks; ++r)
      tpTensorDestroy(results[r]);
  }
  tpTensorDestroy(inputs[0]);
  tpTensorDestroy(inputs[1]);
  mlirModuleDestroy(module);
  mlirContextDestroy(context);
  tpRankProcessDestroy(process);
  return failed;
}
