/* Stages 2-4 for hydroelastic contact: broad and mid phase into candidate element pairs (on the
 * GPU per (world, pair): count → per-world scan → emit, so the order never depends on timing; on
 * the CPU per world, each pair walked once into the same list), then
 * the narrow phase into the world's compact contact list (kernels/hydro/surface.h). */
#include "host/backend/launch.h"
#include "host/step/contact_internal.h"
#include "host/step/step.h"
#include "isobar/sim.h"

isoStatus step_collide(const stepCtx *c) {
  if (!c->contact || c->contact->dev.npair == 0) return ISO_OK; /* no hydroelastic pair */
  collideArgs a;
  a.H = c->contact->dev;
  a.H.geom_E = c->param[ISO_PARAM_GEOM_MODULUS];
  a.W = c->contact->work;
  a.X_WB = c->X_WB, a.nbody = c->nbody, a.status = c->status;
  const long nw = c->nworld;
  isoStatus st;
  if (c->be->kind == ISO_BACKEND_CUDA) {
    /* one thread per (world, pair): count, scan per world, walk again and write */
    st = launch_hs_count(c->be, nw * a.H.npair, &a);
    if (st == ISO_OK) st = launch_hs_scan(c->be, nw, &a);
    if (st == ISO_OK) st = launch_hs_emit(c->be, nw * a.H.npair, &a);
  } else {
    /* one item per world: each pair walked once, written at the running count (the same
     * candidates; the walk is a third to a half of a contact-rich step, so walking once counts) */
    st = launch_hs_mid_world(c->be, nw, &a);
  }
  if (c->be->kind == ISO_BACKEND_CUDA) {
    /* one thread per candidate: the tet-pair clipping is the work the GPU is for; count the
     * records each candidate makes, scan per world, then compute again and write them */
    if (st == ISO_OK) st = launch_hs_narrow_count(c->be, nw * a.W.max_cand, &a);
    if (st == ISO_OK) st = launch_hs_list_scan(c->be, nw, &a);
    if (st == ISO_OK) st = launch_hs_narrow_emit(c->be, nw * a.W.max_cand, &a);
  } else {
    /* one item per world: each polygon computed once and written at the running count (the
     * same list); the narrow phase dominates, so the split over worlds is even enough */
    if (st == ISO_OK) st = launch_hs_narrow_world(c->be, nw, &a);
  }
  return st;
}
