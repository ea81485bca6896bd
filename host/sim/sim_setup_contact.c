/* Setting up the collision stages of a sim: hydroDev (kernels/hydro/surface.h) pointed at
 * the compiled model's arrays (host/model/model_flat.h), which the sim already holds on the
 * host and on the backend, and the per-world work buffers sized by the sim's capacities.
 * Everything here runs at sim creation (contact_bind again when iso_sim_reserve moves the
 * per-world arrays); nothing at step time. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host/step/contact_internal.h"
#include "host/base/error.h"
#include "host/model/model_internal.h"
#include "host/sim/sim_internal.h"

/* Host array of n items of `size` bytes, remembered for freeing. */
static void *host_array(simContact *c, size_t n, size_t size) {
  if (c->nowned_host == CONTACT_MAX_OWNED) return NULL;
  void *p = calloc(n ? n : 1, size);
  if (p) c->owned_host[c->nowned_host++] = p;
  return p;
}


isoStatus contact_create(isoSim *s, const isoModel *m) {
  simContact *c = (simContact *)calloc(1, sizeof *c);
  if (!c) return iso_fail(ISO_ERR_NOMEM, "iso_sim_create: out of memory");
  s->contact = c;
  sim_step_ctx_stale(s);
  const modelHydro *mh = &m->hydro;
  const int ng = m->ngeom, na = mh->nasset, np = mh->npair;
  /* the CPU loops index (world, item) with an int */
  const long long items = (long long)s->nworld * (ng > np ? ng : np);
  if (items > 2147483647LL || (long long)s->nworld * s->def.capacity.max_candidates > 2147483647LL)
    return iso_fail(ISO_ERR_INVALID, "iso_sim_create: %d worlds x %d geometries (or pairs, or candidates) is "
                    "too large a batch", s->nworld, ng > np ? ng : np);
  c->nasset = na;
  /* the model's arrays: the compiled model's block, which the sim holds on the host (queries,
   * VTK) and on the backend (the stages) */
  isoStatus st = ISO_OK;
  const modelView *views[2] = {&s->mh, &s->md};
  hydroDev *devs[2] = {&c->host, &c->dev};
  for (int k = 0; k < 2; ++k) {
    const modelView *v = views[k];
    hydroDev *h = devs[k];
    h->nbody = m->nbody, h->ngeom = ng, h->npair = np;
    h->geom_body = v->geom_body, h->geom_X_BG = v->geom_X_BG, h->geom_kind = v->geom_kind;
    h->geom_asset = v->geom_asset;
    h->geom_E = s->param[ISO_PARAM_GEOM_MODULUS].f; /* read per world through the parameter */
    h->geom_margin = v->geom_margin, h->geom_slab = v->geom_slab;
    h->asset_vert0 = v->asset_vert0, h->asset_elem0 = v->asset_elem0, h->asset_node0 = v->asset_node0;
    h->asset_nnode = v->asset_nnode;
    h->vert = v->vert, h->pressure = v->pressure, h->elem = v->elem, h->grad = v->grad, h->porig = v->porig;
    h->normal = v->normal;
    h->node = v->node, h->bvh_elem = v->bvh_elem, h->bvh_box = v->bvh_box;
    h->pair_m = v->pair_m, h->pair_n = v->pair_n, h->pair_kind = v->pair_kind;
  }
  c->host_nvert = (int)s->mh.z.nvert;
  c->host_nelem = (int)s->mh.z.nelem;
  /* geometry names for file output, and the point-contact pairs for the pair query (host) */
  c->geom_name = (char **)host_array(c, (size_t)ng, sizeof(char *));
  size_t name_bytes = 0;
  for (int g = 0; g < ng; ++g) name_bytes += strlen(m->geom[g].name) + 1;
  char *names = (char *)host_array(c, name_bytes, 1);
  c->nfallback = mh->nfallback;
  c->fallback = (int *)host_array(c, (size_t)mh->nfallback * 2, sizeof(int));
  if (!c->geom_name || !names || !c->fallback)
    return iso_fail(ISO_ERR_NOMEM, "iso_sim_create: out of memory for the contact stage");
  for (int g = 0; g < ng; ++g) {
    c->geom_name[g] = names;
    strcpy(names, m->geom[g].name);
    names += strlen(m->geom[g].name) + 1;
  }
  for (int p = 0; p < mh->nfallback; ++p) {
    c->fallback[2 * p] = s->mh.fallback_a[p];
    c->fallback[2 * p + 1] = s->mh.fallback_b[p];
  }
  hydroDev *d = &c->dev;
  d->geom_E = s->param[ISO_PARAM_GEOM_MODULUS].f; /* refreshed before each update: set_param may reallocate it */
  /* each mesh's vertex count, for the CPU narrow phase, which moves a pair's meshes into the
   * world at once where that saves work (hs_posed_for); the GPU moves each candidate's elements */
  if (s->be.kind == ISO_BACKEND_CPU) {
    int *gn = (int *)host_array(c, (size_t)ng, sizeof(int));
    if (!gn) return iso_fail(ISO_ERR_NOMEM, "iso_sim_create: out of memory for the contact stage");
    const modelView *v = &s->mh;
    for (int g = 0; g < ng; ++g) {
      const int a = v->geom_asset[g];
      gn[g] = a < 0 ? 0 : (int)((a + 1 < v->z.nasset ? v->asset_vert0[a + 1] : v->z.nvert) - v->asset_vert0[a]);
    }
    d->geom_nvert = c->host.geom_nvert = gn;
  }
  if (st != ISO_OK) return st;

  contact_bind(s);
  return st;
}

/* Whether the worlds keep their walks between steps (kernels/hydro/walk_keep.h): on the CPU,
 * unless ISO_WALK_KEEP=0 in the environment (to measure without; the results are the same bits
 * either way). */
static int contact_keeps_walks(const isoSim *s) {
  if (s->be.kind != ISO_BACKEND_CPU) return 0;
  const char *e = getenv("ISO_WALK_KEEP");
  return !(e && strcmp(e, "0") == 0);
}

void contact_bind(isoSim *s) {
  hydroWork *w = &s->contact->work;
  w->max_cand = s->def.capacity.max_candidates;
  w->max_face = s->def.capacity.max_contacts;
  w->max_list = s->def.capacity.max_contacts + s->contact->nfallback; /* faces, then one per point pair at most */
  w->triangles = s->def.contact.surface_representation == ISO_SURFACE_TRIANGLE;
  w->cand_stride = 3L * w->max_cand;
  /* the per-world arrays live in the sim's data table (host/sim/sim_data.h) */
  w->X_WG = s->X_WG; /* poses serve point contact too */
  w->list = s->list;
  w->face_count = s->face_count, w->face_needed = s->face_needed, w->list_count = s->list_count;
  w->pair_count = s->pair_count, w->pair_off = s->pair_off;
  w->cand_total = s->cand_total, w->cand_needed = s->cand_needed, w->cand = s->cand;
  w->keep = contact_keeps_walks(s);
}

void contact_destroy(isoSim *s) {
  simContact *c = s->contact;
  if (!c) return;
  for (int i = 0; i < c->nowned_host; ++i) free(c->owned_host[i]);
  free(c);
  s->contact = NULL;
  sim_step_ctx_stale(s);
}
