/* Setting up the contact-surface stage of a sim: the model's assets flattened into the arrays
 * of hydroDev (kernels/hydro/surface.h), uploaded once, and the per-world work buffers sized by
 * the sim's capacities. Everything here runs at sim creation; nothing at step time. */
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

/* A backend copy of a host array (the same pointer on the CPU backend). */
static isoStatus device_copy(isoSim *s, const void *h, size_t bytes, const void **out) {
  simContact *c = s->contact;
  if (s->be.kind == ISO_BACKEND_CPU) {
    *out = h;
    return ISO_OK;
  }
  if (c->nowned_dev == CONTACT_MAX_OWNED)
    return iso_fail(ISO_ERR_CAPACITY, "contact stage: too many device arrays");
  void *d = NULL;
  isoStatus st = backend_alloc(&s->be, &d, bytes ? bytes : 1);
  if (st == ISO_OK) st = backend_upload(&s->be, d, h, bytes);
  if (st != ISO_OK) {
    backend_free(&s->be, d);
    return st;
  }
  c->owned_dev[c->nowned_dev++] = d;
  *out = d;
  return ISO_OK;
}

static isoStatus device_buffer(isoSim *s, size_t bytes, void **out) {
  simContact *c = s->contact;
  if (c->nowned_dev == CONTACT_MAX_OWNED)
    return iso_fail(ISO_ERR_CAPACITY, "contact stage: too many device arrays");
  isoStatus st = backend_alloc(&s->be, out, bytes ? bytes : 1);
  if (st == ISO_OK) c->owned_dev[c->nowned_dev++] = *out;
  if (st == ISO_OK) s->world_bytes += bytes; /* every work buffer has a world axis */
  return st;
}

isoStatus contact_create(isoSim *s, const isoModel *m) {
  simContact *c = (simContact *)calloc(1, sizeof *c);
  if (!c) return iso_fail(ISO_ERR_NOMEM, "iso_sim_create: out of memory");
  s->contact = c;
  const modelHydro *mh = &m->hydro;
  const int ng = m->ngeom, na = mh->nasset, np = mh->npair;
  /* the CPU loops index (world, item) with an int */
  const long long items = (long long)s->nworld * (ng > np ? ng : np);
  if (items > 2147483647LL || (long long)s->nworld * s->def.max_candidates > 2147483647LL)
    return iso_fail(ISO_ERR_INVALID, "iso_sim_create: %d worlds x %d geometries (or pairs, or candidates) is "
                    "too large a batch", s->nworld, ng > np ? ng : np);
  c->nasset = na;
  hydroDev *h = &c->host;
  h->nbody = m->nbody;
  h->ngeom = ng;
  h->npair = np;

  /* sizes of the concatenated asset arrays */
  long nv = 0, ne = 0, nn = 0;
  for (int a = 0; a < na; ++a) {
    const hydroAsset *as = &mh->asset[a];
    nv += as->kind == HGEOM_TETS ? as->tets.nvert : as->tris.nvert;
    ne += as->kind == HGEOM_TETS ? as->tets.ntet : as->tris.ntri;
    nn += as->bvh.nnode;
  }
  int *gbody = (int *)host_array(c, (size_t)ng, sizeof(int));
  xform *gX = (xform *)host_array(c, (size_t)ng, sizeof(xform));
  int *gkind = (int *)host_array(c, (size_t)ng, sizeof(int));
  int *gasset = (int *)host_array(c, (size_t)ng, sizeof(int));
  real *gmargin = (real *)host_array(c, (size_t)ng, sizeof(real));
  real *gslab = (real *)host_array(c, (size_t)ng, sizeof(real));
  int *av0 = (int *)host_array(c, (size_t)na, sizeof(int));
  int *ae0 = (int *)host_array(c, (size_t)na, sizeof(int));
  int *an0 = (int *)host_array(c, (size_t)na, sizeof(int));
  int *ann = (int *)host_array(c, (size_t)na, sizeof(int));
  real *vert = (real *)host_array(c, (size_t)nv * 3, sizeof(real));
  real *pres = (real *)host_array(c, (size_t)nv, sizeof(real));
  int *elem = (int *)host_array(c, (size_t)ne * 4, sizeof(int));
  real *grad = (real *)host_array(c, (size_t)ne * 3, sizeof(real));
  real *porig = (real *)host_array(c, (size_t)ne, sizeof(real));
  real *nrm = (real *)host_array(c, (size_t)ne * 3, sizeof(real));
  bvhNode *node = (bvhNode *)host_array(c, (size_t)nn, sizeof(bvhNode));
  int *belem = (int *)host_array(c, (size_t)ne, sizeof(int));
  real *bbox = (real *)host_array(c, (size_t)ne * 6, sizeof(real));
  int *pm = (int *)host_array(c, (size_t)np, sizeof(int));
  int *pn = (int *)host_array(c, (size_t)np, sizeof(int));
  int *pk = (int *)host_array(c, (size_t)np, sizeof(int));
  c->geom_name = (char **)host_array(c, (size_t)ng, sizeof(char *));
  size_t name_bytes = 0;
  for (int g = 0; g < ng; ++g) name_bytes += strlen(m->geom[g].name) + 1;
  char *names = (char *)host_array(c, name_bytes, 1);
  c->nfallback = mh->nfallback;
  c->fallback = (int *)host_array(c, (size_t)mh->nfallback * 2, sizeof(int));
  if (!gbody || !gX || !gkind || !gasset || !gmargin || !gslab || !av0 || !ae0 || !an0 ||
      !ann || !vert || !pres || !elem || !grad || !porig || !nrm || !node || !belem || !bbox ||
      !pm || !pn || !pk || !c->geom_name || !names || !c->fallback)
    return iso_fail(ISO_ERR_NOMEM, "iso_sim_create: out of memory for the contact stage");

  for (int g = 0; g < ng; ++g) {
    const isoGeometryDef *gd = &m->geom[g];
    gbody[g] = gd->body;
    gX[g] = xf_make(quat_make(gd->quaternion[0], gd->quaternion[1], gd->quaternion[2], gd->quaternion[3]),
                    v3(gd->position[0], gd->position[1], gd->position[2]));
    gkind[g] = mh->geom[g].kind;
    gasset[g] = mh->geom[g].asset;
    gmargin[g] = gd->margin;
    gslab[g] = gd->slab_thickness > 0 ? gd->slab_thickness : 1.0;
    c->geom_name[g] = names;
    strcpy(names, gd->name);
    names += strlen(gd->name) + 1;
  }
  long v = 0, e = 0, n = 0;
  for (int a = 0; a < na; ++a) {
    const hydroAsset *as = &mh->asset[a];
    av0[a] = (int)v, ae0[a] = (int)e, an0[a] = (int)n, ann[a] = as->bvh.nnode;
    if (as->kind == HGEOM_TETS) {
      const tetMesh *t = &as->tets;
      memcpy(vert + 3 * v, t->vert, sizeof(real) * 3 * (size_t)t->nvert);
      memcpy(pres + v, t->pressure, sizeof(real) * (size_t)t->nvert);
      memcpy(elem + 4 * e, t->tet, sizeof(int) * 4 * (size_t)t->ntet);
      memcpy(grad + 3 * e, t->grad, sizeof(real) * 3 * (size_t)t->ntet);
      memcpy(porig + e, t->p_origin, sizeof(real) * (size_t)t->ntet);
      v += t->nvert;
      e += t->ntet;
    } else {
      const triMesh *t = &as->tris;
      memcpy(vert + 3 * v, t->vert, sizeof(real) * 3 * (size_t)t->nvert);
      for (int i = 0; i < t->ntri; ++i) {
        for (int k = 0; k < 3; ++k) elem[4 * (e + i) + k] = t->tri[3 * i + k];
        elem[4 * (e + i) + 3] = -1;
      }
      memcpy(nrm + 3 * e, t->normal, sizeof(real) * 3 * (size_t)t->ntri);
      v += t->nvert;
      e += t->ntri;
    }
    memcpy(node + n, as->bvh.node, sizeof(bvhNode) * (size_t)as->bvh.nnode);
    memcpy(belem + ae0[a], as->bvh.elem, sizeof(int) * (size_t)as->bvh.nelem);
    memcpy(bbox + 6L * ae0[a], as->bvh.box, sizeof(real) * 6 * (size_t)as->bvh.nelem);
    n += as->bvh.nnode;
  }
  for (int p = 0; p < np; ++p) {
    pm[p] = mh->pair[p].m;
    pn[p] = mh->pair[p].n;
    pk[p] = mh->pair[p].kind;
  }
  for (int p = 0; p < mh->nfallback; ++p) {
    c->fallback[2 * p] = mh->fallback[p].m;
    c->fallback[2 * p + 1] = mh->fallback[p].n;
  }
  h->geom_body = gbody, h->geom_X_BG = gX, h->geom_kind = gkind, h->geom_asset = gasset;
  h->geom_E = s->param[ISO_PARAM_GEOM_MODULUS].f; /* read per world through the parameter */
  h->geom_margin = gmargin, h->geom_slab = gslab;
  h->asset_vert0 = av0, h->asset_elem0 = ae0, h->asset_node0 = an0, h->asset_nnode = ann;
  h->vert = vert, h->pressure = pres, h->elem = elem, h->grad = grad, h->porig = porig, h->normal = nrm;
  h->node = node, h->bvh_elem = belem, h->bvh_box = bbox;
  h->pair_m = pm, h->pair_n = pn, h->pair_kind = pk;
  c->host_nvert = (int)nv;
  c->host_nelem = (int)ne;

  /* the same arrays in backend memory */
  hydroDev *d = &c->dev;
  *d = *h;
  isoStatus st = ISO_OK;
#define UP(field, count, type) \
  if (st == ISO_OK) st = device_copy(s, h->field, sizeof(type) * (size_t)(count), (const void **)&d->field)
  UP(geom_body, ng, int);
  UP(geom_X_BG, ng, xform);
  UP(geom_kind, ng, int);
  UP(geom_asset, ng, int);
  UP(geom_margin, ng, real);
  UP(geom_slab, ng, real);
  UP(asset_vert0, na, int);
  UP(asset_elem0, na, int);
  UP(asset_node0, na, int);
  UP(asset_nnode, na, int);
  UP(vert, nv * 3, real);
  UP(pressure, nv, real);
  UP(elem, ne * 4, int);
  UP(grad, ne * 3, real);
  UP(porig, ne, real);
  UP(normal, ne * 3, real);
  UP(node, nn, bvhNode);
  UP(bvh_elem, ne, int);
  UP(bvh_box, ne * 6, real);
  UP(pair_m, np, int);
  UP(pair_n, np, int);
  UP(pair_kind, np, int);
#undef UP
  d->geom_E = s->param[ISO_PARAM_GEOM_MODULUS].f; /* refreshed before each update: set_param may reallocate it */
  if (st != ISO_OK) return st;

  /* per-world work buffers */
  hydroWork *w = &c->work;
  const size_t W = (size_t)s->nworld;
  w->max_cand = s->def.max_candidates;
  w->max_face = s->def.max_contacts;
  w->max_list = s->def.max_contacts + mh->nfallback; /* faces, then one per point pair at most */
  w->triangles = s->def.surface_representation == ISO_SURFACE_TRIANGLE;
  w->cand_stride = 3L * w->max_cand;
  const size_t mc = (size_t)w->max_cand, ml = (size_t)w->max_list;
#define BUF(field, count, type) \
  if (st == ISO_OK) st = device_buffer(s, sizeof(type) * (count), (void **)&w->field)
  if (np == 0 && mh->nfallback == 0) return ISO_OK; /* nothing can touch: the stage never runs */
  BUF(X_WG, W * (size_t)ng, xform); /* poses serve point contact too */
  BUF(list, W * ml, contactRec);
  BUF(face_count, W, int);
  BUF(face_needed, W, int);
  BUF(list_count, W, int);
  if (np > 0) {
    BUF(pair_count, W * (size_t)np, int);
    BUF(pair_off, W * (size_t)np, int);
    BUF(cand_total, W, int);
    BUF(cand_needed, W, int);
    BUF(cand, W * (size_t)w->cand_stride, int);
  }
#undef BUF
  if (st == ISO_ERR_NOMEM)
    return iso_fail(ISO_ERR_NOMEM, "iso_sim_create: not enough memory for the contact work of %d worlds "
                    "(%.1f MiB for %d candidates and %d contacts per world); lower max_candidates or "
                    "max_contacts", s->nworld,
                    (double)(W * (mc * 3 * sizeof(int) + ml * sizeof(contactRec))) / 1048576.0,
                    w->max_cand, w->max_face);
  return st;
}

void contact_destroy(isoSim *s) {
  simContact *c = s->contact;
  if (!c) return;
  for (int i = 0; i < c->nowned_dev; ++i) backend_free(&s->be, c->owned_dev[i]);
  for (int i = 0; i < c->nowned_host; ++i) free(c->owned_host[i]);
  free(c);
  s->contact = NULL;
}
