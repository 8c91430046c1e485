// Runs examples/aot/mlp.mlir, compiled ahead of time into an object file, on
// 2 ranks with the installed runtime, and checks every rank's result against
// a plain C computation of the same layer. Built twice:
//  - tp-aot: the ranks are threads of this process;
//  - tp-aot-mpi (with TP_AOT_MPI): started by `mpirun -n 2`, every process is
//    one rank and the ranks exchange MPI messages.
#include "tp/Runtime/Embedding.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { RANKS = 2, ROWS = 8, HIDDEN = 16, FFN = 32 };

/// MLIR's descriptor of a 2-D f32 memref.
typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} Buffer2D;

/// The C interface of the compiled @mlp: result first, then the rank's
/// context, then the arguments.
void _mlir_ciface_mlp(Buffer2D *result, TPRtContext *ctx, Buffer2D *x,
                      Buffer2D *w1, Buffer2D *w2);

static Buffer2D wrap(float *data, int64_t rows, int64_t cols) {
  Buffer2D b = {data, data, 0, {rows, cols}, {cols, 1}};
  return b;
}

/// Every rank's inputs: each process makes them all, for the reference.
static float x[RANKS][ROWS * HIDDEN], w1[RANKS][HIDDEN * FFN],
    w2[RANKS][FFN * HIDDEN];

typedef struct {
  TPRtContext *ctx;
  int rank;
  Buffer2D result;
} Rank;

static void *runRank(void *arg) {
  Rank *r = arg;
  Buffer2D bx = wrap(x[r->rank], ROWS, HIDDEN);
  Buffer2D bw1 = wrap(w1[r->rank], HIDDEN, FFN);
  Buffer2D bw2 = wrap(w2[r->rank], FFN, HIDDEN);
  _mlir_ciface_mlp(&r->result, r->ctx, &bx, &bw1, &bw2);
  return NULL;
}

/// The largest error of rank r's result against the reference
/// y = sum over ranks s of tanh(X W1_s) W2_s, X all ranks' rows (rank r
/// keeps rows [r * ROWS, (r + 1) * ROWS)); -1 for a result of another shape.
static double worstError(const Rank *r) {
  const Buffer2D *y = &r->result;
  if (y->sizes[0] != ROWS || y->sizes[1] != HIDDEN) {
    fprintf(stderr, "aot: rank %d returned a %ldx%ld result\n", r->rank,
            (long)y->sizes[0], (long)y->sizes[1]);
    return -1;
  }
  double worst = 0;
  for (int i = 0; i < ROWS; ++i)
    for (int j = 0; j < HIDDEN; ++j) {
      const float *row = x[r->rank] + i * HIDDEN;
      double sum = 0;
      for (int s = 0; s < RANKS; ++s)
        for (int f = 0; f < FFN; ++f) {
          double h = 0;
          for (int k = 0; k < HIDDEN; ++k)
            h += row[k] * w1[s][k * FFN + f];
          sum += tanh(h) * w2[s][f * HIDDEN + j];
        }
      float got = y->aligned[y->offset + i * y->strides[0] + j * y->strides[1]];
      double error = fabs(got - sum);
      worst = error > worst ? error : worst;
    }
  return worst;
}

int main(void) {
  for (int r = 0; r < RANKS; ++r) {
    for (int i = 0; i < ROWS * HIDDEN; ++i)
      x[r][i] = sinf(0.1f * i + r);
    for (int i = 0; i < HIDDEN * FFN; ++i)
      w1[r][i] = cosf(0.05f * i - r) / HIDDEN;
    for (int i = 0; i < FFN * HIDDEN; ++i)
      w2[r][i] = sinf(0.07f * i + 2 * r) / FFN;
  }

#ifdef TP_AOT_MPI
  TPRtRun *run = tpRtMpiRunCreate(10000);
  if (!run)
    return 1;
  if (tpRtRunSize(run) != RANKS) {
    fprintf(stderr, "aot: start %d processes (mpirun -n %d), not %d\n", RANKS,
            RANKS, tpRtRunSize(run));
    tpRtMpiAbort("wrong number of processes");
  }
  int first = tpRtMpiRunRank(run), count = 1;
  const char *how = "MPI processes";
#else
  TPRtRun *run = tpRtRunCreate(RANKS, 10000);
  int first = 0, count = RANKS;
  const char *how = "threads";
#endif
  Rank ranks[RANKS];
  pthread_t threads[RANKS];
  for (int r = first; r < first + count; ++r) {
    ranks[r].ctx = tpRtRunContext(run, r);
    ranks[r].rank = r;
    pthread_create(&threads[r], NULL, runRank, &ranks[r]);
  }
  for (int r = first; r < first + count; ++r)
    pthread_join(threads[r], NULL);
  int status = 0;
  double worst = 0;
  for (int r = first; r < first + count; ++r) {
    const char *error = tpRtContextError(ranks[r].ctx);
    if (error) {
      fprintf(stderr, "aot: rank %d failed: %s\n", r, error);
#ifdef TP_AOT_MPI
      tpRtMpiAbort(error);
#endif
      status = 1;
      continue;
    }
    double e = worstError(&ranks[r]);
    if (e < 0 || e >= 1e-4)
      status = 1;
    worst = e > worst ? e : worst;
    free(ranks[r].result.allocated);
  }
  tpRtRunDestroy(run);
  if (status != 0)
    return status;
  if (count == 1)
    printf("aot: rank %d of %d (%s)", first, RANKS, how);
  else
    printf("aot: ranks %d..%d of %d (%s)", first, first + count - 1, RANKS,
           how);
  printf(" ran the compiled object; max error vs C %.2e\n", worst);
  return 0;
}
