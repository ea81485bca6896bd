/* Stage 7: each world's SAP problem solved by Newton's method with an exact line search, the
 * world's whole loop as one item (kernels/sap/solve.h: sap_solve_world), so a world that is
 * done stops and nothing is read back between iterations. On the CPU each thread hands the
 * worlds of its chunk its own workspace (simSap.work), so a world's Jacobian blocks are formed
 * once per step; the GPU runs the kernel table's launcher without one (or with one per world,
 * ISO_CUDA_SOLVE_WORKSPACE=1: slower on an H200). The results are the same bits either way, on
 * any number of threads. */
#include "host/backend/launch.h"
#include "host/step/sap_internal.h"
#include "host/step/step.h"

typedef struct solveChunks {
  solveArgs a;
  sapWorkCon *work; /* (threads, max_con) */
} solveChunks;

static void solve_chunk(int t, int start, int end, void *ctx) {
  const solveChunks *c = (const solveChunks *)ctx;
  solveArgs a = c->a;
  a.B.work = c->work + (long)t * a.B.max_con;
  for (long i = start; i < end; ++i) sap_solve_item_at(&a, i);
}

isoStatus step_solve(const stepCtx *c) {
  solveArgs a;
  a.B = c->sap->batch;
  if (c->be->kind == ISO_BACKEND_CUDA || !c->sap->work) return launch_sap_solve(c->be, c->nworld, &a);
  solveChunks ch = {a, c->sap->work};
  backend_cpu_for_chunks(c->be, c->nworld, solve_chunk, &ch);
  return ISO_OK;
}
