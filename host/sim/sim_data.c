/* The data table's descriptors (host/sim/sim_data.h) and the sim-side loops over it:
 * planning the arena, binding the sim's pointers, resetting selected worlds (growing it is
 * host/sim/sim_capacity.c). */
#include "host/sim/sim_data.h"

#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/sim/sim_internal.h"

const simDataInfo sim_data_info[SIMD_COUNT] = {
#define SIM_DATA_INFO(type, name, count, writer, reset) {#name, writer, sizeof(type), reset},
    SIM_DATA(SIM_DATA_INFO)
#undef SIM_DATA_INFO
};

void sim_data_counts(const simSizes *z, size_t count[SIMD_COUNT]) {
#define SIM_DATA_COUNT(type, name, n, writer, reset) count[SIMD_##name] = (size_t)(n);
  SIM_DATA(SIM_DATA_COUNT)
#undef SIM_DATA_COUNT
}

simSizes sim_data_sizes(const isoSim *s) {
  const modelSizes *m = &s->mh.z;
  simSizes z;
  memset(&z, 0, sizeof z);
  /* every model: the state, the body poses, free motion and its cliques */
  z.one = 1;
  z.nq = s->nq;
  z.nv = s->nv;
  z.bodies = s->nbody;
  const simFem *F = &s->fem; /* deformable cliques follow the rigid ones when they can touch */
  z.sap_nv = s->nv + (F->touch ? F->dofs : 0);
  z.cliques = m->nclique + (F->touch ? F->ndef : 0);
  z.origins = 3L * z.cliques;
  if (F->ndef > 0) {
    z.fem_ndef = F->ndef, z.fem_one = 1;
    z.fem_part = F->npart, z.fem_vert = m->ndvert, z.fem_con = F->max_con;
  }
  if (F->touch) z.sv = z.sap_nv;
  if (F->ntouch > 0) z.snode = m->ndsnode, z.stri = m->ndtri;
  if (F->has_dd) {
    z.dd_max = F->dd_max, z.dd_one = 1;
    z.dd_box = fem_dd_box_stride(F->ndef, F->tet_cap);
    z.dd_cand = fem_dd_cand_stride(F->tet_cap);
    z.dd_pair = fem_dd_pair_stride(F->dd_pairs);
  }
  z.nact = m->nact;
  z.ndv3 = 3L * m->ndvert;
  z.fem_L = 9L * m->ndslot;
  if (m->jointed) {
    z.tree_nv = s->nv;
    z.tree_work = tree_work_reals(m->max_nt, m->max_tree_bodies);
  }
  z.taxel = m->ntaxel;
  z.contact = m->npair > 0 || m->nfallback > 0;
  const long njoint_con = (long)m->nlimit + m->nact + m->ncoupler;
  z.solve = z.contact || njoint_con > 0 || F->touch;
  if (njoint_con > 0) z.jforce = s->nv;
  if (z.solve || m->jointed) z.a_blocks = m->a_size + (F->touch ? F->a_reals : 0);
  if (z.solve) {
    z.newton_nv = z.sap_nv;
    z.max_con = (z.contact ? s->def.capacity.max_contacts : 0) + njoint_con + F->max_con + F->dd_max;
    /* a limit has two rows, a coupler two blocks; a contact's dense block is 3 rows */
    if (m->jointed) z.con_jac = z.max_con;
    if (m->jointed && z.contact) z.bjac = 6L * s->nbody * m->max_nt, z.con_body = 2L * z.max_con;
    if (m->jointed) /* deformable contacts on jointed bodies: one 3-row block each */
      z.jpool = ((z.contact ? 3L * s->def.capacity.max_contacts : 0) + 2L * njoint_con + 3L * F->max_con) * m->max_nt;
  }
  if (!z.contact) return z; /* nothing can touch: no collision arrays */
  z.posed = m->ngeom;
  z.wrench = 6L * s->nbody;
  z.tactile_v = m->ntaxel > 0 ? z.sap_nv : 0;
  z.pairs = m->npair > 0;
  z.npair = m->npair;
  z.cand = z.pairs ? 3L * s->def.capacity.max_candidates : 0;
  z.max_list = (long)s->def.capacity.max_contacts + m->nfallback;
  z.npoint = m->nfallback;
  return z;
}

isoStatus sim_data_plan(const isoSim *s, const char *fn, isoArena *a, size_t off[SIMD_COUNT],
                        size_t count[SIMD_COUNT]) {
  simSizes z = sim_data_sizes(s);
  sim_data_counts(&z, count);
  memset(a, 0, sizeof *a);
  for (int k = 0; k < SIMD_COUNT; ++k)
    if (arena_plan(a, (size_t)s->nworld * count[k], sim_data_info[k].elem, &off[k]) != 0)
      return iso_fail(ISO_ERR_INVALID, "%s: %d worlds: the size of '%s' overflows", fn, s->nworld,
                      sim_data_info[k].name);
  /* the largest batch this model fits in the memory there is: refuse a bigger one now, with the
   * number, rather than fail (or be killed) part way through creation or at the first touch */
  const size_t per_world = a->size / (size_t)s->nworld;
  const size_t avail = backend_memory_available(&s->be);
  if (avail > 0 && per_world > 0 && (double)per_world * s->nworld > (double)avail)
    return iso_fail(ISO_ERR_NOMEM,
                    "%s: %d worlds need %.2f GiB (%.1f KiB per world) but %.2f GiB is available on "
                    "the %s backend: at most %llu worlds of this model fit (lower capacity.max_candidates or "
                    "capacity.max_contacts to fit more)",
                    fn, s->nworld, (double)per_world * s->nworld / 1073741824.0, (double)per_world / 1024.0,
                    (double)avail / 1073741824.0, s->be.kind == ISO_BACKEND_CUDA ? "CUDA" : "CPU",
                    (unsigned long long)(avail / per_world));
  return ISO_OK;
}

void sim_data_bind(isoSim *s) {
#define SIM_DATA_BIND(type, name, count, writer, reset) \
  s->name = s->data_count[SIMD_##name] ? (type *)arena_at(&s->arena, s->data_off[SIMD_##name]) : NULL;
  SIM_DATA(SIM_DATA_BIND)
#undef SIM_DATA_BIND
}

isoStatus sim_data_create(isoSim *s) {
  isoStatus st = sim_data_plan(s, "iso_sim_create", &s->arena, s->data_off, s->data_count);
  if (st != ISO_OK) return st;
  st = backend_alloc(&s->be, (void **)&s->arena.base, s->arena.size);
  if (st == ISO_ERR_NOMEM)
    return iso_fail(ISO_ERR_NOMEM, "iso_sim_create: not enough memory for %d worlds: %.1f MiB of per-world "
                    "arrays (%.1f KiB per world); lower the number of worlds, max_candidates or max_contacts",
                    s->nworld, (double)s->arena.size / 1048576.0, (double)s->arena.size / 1024.0 / s->nworld);
  if (st != ISO_OK) return st;
  sim_data_bind(s);
  return ISO_OK;
}

void sim_data_destroy(isoSim *s) {
  backend_free(&s->be, s->arena.base);
  s->arena.base = NULL;
}

static const void *init_row(const isoSim *s, int k) {
  switch (k) {
    case SIMD_q: return s->q_init;
    case SIMD_v: return s->v_init;
    case SIMD_xd: return s->mh.def_rest;
  }
  return NULL;
}

isoStatus sim_data_reset(isoSim *s, const simSel *q) {
  size_t widest = 0;
  for (int k = 0; k < SIMD_COUNT; ++k)
    if (s->data_count[k] * sim_data_info[k].elem > widest) widest = s->data_count[k] * sim_data_info[k].elem;
  void *zeros = calloc(widest + 1, 1);
  if (!zeros) return iso_fail(ISO_ERR_NOMEM, "iso_sim_reset: out of memory");
  isoStatus st = ISO_OK;
  for (int k = 0; k < SIMD_COUNT && st == ISO_OK; ++k) {
    size_t row = s->data_count[k] * sim_data_info[k].elem;
    const void *src = sim_data_info[k].reset == SIM_RESET_INIT ? init_row(s, k) : zeros;
    if (sim_data_info[k].reset != SIM_RESET_KEEP && row > 0)
      st = sim_scatter_rows(s, q, arena_at(&s->arena, s->data_off[k]), (long)row, row, src, 1);
  }
  free(zeros);
  return st;
}
