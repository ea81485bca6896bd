/* Per-world capacities (include/isobar/sim.h, isoCapacityDef): the automatic ones computed from
 * the compiled model at creation, and growing them between steps (iso_sim_reserve) by planning
 * the data table again and copying every per-world array over, world by world. */
#include <limits.h>
#include <string.h>

#include "host/base/error.h"
#include "host/model/model_internal.h"
#include "host/sim/sim_internal.h"
#include "host/step/contact_internal.h"

/* The floors of automatic capacities: the former fixed defaults, which cover the pairs of two
 * meshes (see isoCapacityDef). */
#define AUTO_MIN_CONTACTS 256
#define AUTO_MIN_CANDIDATES 2048
/* The most an automatic capacity grows to (the command line's limits). */
#define AUTO_MAX_CONTACTS (1 << 20)
#define AUTO_MAX_CANDIDATES (1 << 24)
/* Records a polygon of a half-space pair makes with ISO_SURFACE_TRIANGLE: a plane cuts a tet in
 * a triangle or a quad, and clips a triangle to at most a quad, fanned into that many. */
#define HALFSPACE_POLY_MAX 4

static int clamp_capacity(long long n, int lo, int hi) { return n < lo ? lo : n > hi ? hi : (int)n; }

/* Bounds, not estimates: a half-space pair's candidates are the elements the plane crosses (or,
 * for a compliant half-space, the triangles inside it), each making at most one polygon; so the
 * element count bounds both. A pair of two meshes can make a polygon per element pair (n_M · n_N),
 * too loose a bound to allocate, and is left to the floors. Every point-contact pair makes at most
 * one contact. */
void sim_auto_capacity(const isoModel *m, const isoSimDef *d, isoCapacityDef *out) {
  const modelHydro *h = &m->hydro;
  const long long parts = d->contact.surface_representation == ISO_SURFACE_TRIANGLE ? HALFSPACE_POLY_MAX : 1;
  long long faces = h->nfallback, cand = 0;
  for (int p = 0; p < h->npair; ++p) {
    const hydroPair *hp = &h->pair[p];
    const int g = hp->kind == ISO_PAIR_HALFSPACE_COMPLIANT     ? hp->m /* compliant tets */
                  : hp->kind == ISO_PAIR_RIGID_SOFT_HALFSPACE ? hp->n /* rigid triangles */
                                                               : -1;
    const int a = g >= 0 ? h->geom[g].asset : -1;
    if (a < 0) continue;
    const long long n = h->asset[a].bvh.nelem;
    faces += n * parts;
    cand += n;
  }
  *out = d->capacity;
  if (out->max_contacts == 0) out->max_contacts = clamp_capacity(faces, AUTO_MIN_CONTACTS, AUTO_MAX_CONTACTS);
  if (out->max_candidates == 0)
    out->max_candidates = clamp_capacity(cand, AUTO_MIN_CANDIDATES, AUTO_MAX_CANDIDATES);
}

isoCapacityDef iso_sim_capacity(const isoSim *s) {
  isoCapacityDef c;
  memset(&c, 0, sizeof c);
  return s ? s->def.capacity : c;
}

/* Copy every entry of the table from arena `from` (offsets, counts per world) into `to`: an entry
 * whose rows did not change in one piece, one that grew row by row, each world's old row at the
 * start of its new one. What a row holds is a prefix (the lists, the constraints and their dense
 * blocks, indexed from the world's row), so the prefix keeps its meaning; the one array with
 * parts at capacity-dependent places, the candidates, is not copied. */
static isoStatus copy_rows(const isoSim *s, const isoArena *from, const size_t *off_from, const size_t *count_from,
                           const isoArena *to, const size_t *off_to, const size_t *count_to) {
  isoStatus st = ISO_OK;
  for (int k = 0; k < SIMD_COUNT && st == ISO_OK; ++k) {
    const size_t elem = sim_data_info[k].elem, ro = count_from[k] * elem, rn = count_to[k] * elem;
    const char *src = (const char *)arena_at(from, off_from[k]);
    char *dst = (char *)arena_at(to, off_to[k]);
    /* the candidates are rewritten by the next mid phase, and on the CPU their third part holds
     * the kept walks (kernels/hydro/walk_keep.h), laid out by the capacity: left zero (none) */
    if (ro == 0 || rn == 0 || k == SIMD_cand) continue;
    if (ro == rn) {
      st = backend_copy(&s->be, dst, src, ro * (size_t)s->nworld);
      continue;
    }
    const size_t row = ro < rn ? ro : rn;
    for (int w = 0; w < s->nworld && st == ISO_OK; ++w)
      st = backend_copy(&s->be, dst + (size_t)w * rn, src + (size_t)w * ro, row);
  }
  return st;
}

/* Point the sim at the table in its arena and the set-ups at the arrays. */
static isoStatus rebind(isoSim *s) {
  sim_data_bind(s);
  sim_step_ctx_stale(s);
  s->world_bytes = s->arena.size;
  if (s->contact) contact_bind(s);
  return s->sap ? sap_bind(s) : ISO_OK;
}

isoStatus iso_sim_reserve(isoSim *s, int max_contacts, int max_candidates) {
  const char *fn = "iso_sim_reserve";
  CHECK_NULL(s, fn);
  if (max_contacts < 0 || max_candidates < 0)
    return iso_fail(ISO_ERR_INVALID, "%s: max_contacts = %d, max_candidates = %d: capacities must be >= 0", fn,
                    max_contacts, max_candidates);
  const isoCapacityDef old_cap = s->def.capacity;
  isoCapacityDef cap = old_cap;
  if (max_contacts > cap.max_contacts) cap.max_contacts = max_contacts;
  if (max_candidates > cap.max_candidates) cap.max_candidates = max_candidates;
  if (cap.max_contacts == old_cap.max_contacts && cap.max_candidates == old_cap.max_candidates) return ISO_OK;
  /* the CPU loops index (world, candidate) with an int */
  if ((long long)s->nworld * cap.max_candidates > INT_MAX)
    return iso_fail(ISO_ERR_INVALID, "%s: %d worlds x %d candidates is too large a batch", fn, s->nworld,
                    cap.max_candidates);
  isoStatus st = sim_tactile_flush(s); /* the copy below leaves the candidates behind */
  if (st == ISO_OK) st = backend_sync(&s->be);
  if (st != ISO_OK) return st;

  /* plan and fill the new table while the old one stays in use: a failure leaves the sim as it was */
  const isoArena old = s->arena;
  size_t old_off[SIMD_COUNT], old_count[SIMD_COUNT], off[SIMD_COUNT], count[SIMD_COUNT];
  memcpy(old_off, s->data_off, sizeof old_off);
  memcpy(old_count, s->data_count, sizeof old_count);
  isoArena grown;
  s->def.capacity = cap;
  st = sim_data_plan(s, fn, &grown, off, count);
  if (st == ISO_OK) {
    st = backend_alloc(&s->be, (void **)&grown.base, grown.size);
    if (st == ISO_ERR_NOMEM)
      st = iso_fail(ISO_ERR_NOMEM, "%s: not enough memory for %d worlds of %.1f KiB (max_contacts %d, "
                    "max_candidates %d)", fn, s->nworld, (double)grown.size / 1024.0 / s->nworld, cap.max_contacts,
                    cap.max_candidates);
  }
  if (st != ISO_OK) {
    s->def.capacity = old_cap;
    return st;
  }
  st = backend_memset0(&s->be, grown.base, grown.size);
  if (st == ISO_OK) st = copy_rows(s, &old, old_off, old_count, &grown, off, count);
  if (st == ISO_OK) st = backend_sync(&s->be);
  if (st == ISO_OK) {
    s->arena = grown;
    memcpy(s->data_off, off, sizeof off);
    memcpy(s->data_count, count, sizeof count);
    st = rebind(s);
    if (st == ISO_OK) {
      backend_free(&s->be, old.base);
      return ISO_OK;
    }
    /* the set-ups could not follow (the solver's workspace): back to the old table */
    s->arena = old;
    memcpy(s->data_off, old_off, sizeof old_off);
    memcpy(s->data_count, old_count, sizeof old_count);
  }
  s->def.capacity = old_cap;
  backend_free(&s->be, grown.base);
  isoStatus back = rebind(s);
  return back != ISO_OK ? back : st;
}
