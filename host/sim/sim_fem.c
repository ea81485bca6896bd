/* A sim's deformable bodies in its solver (host/step/sap_internal.h simFem): which half-spaces
 * can touch them, how many of each body's vertices may take part in contact, where their
 * cliques lie after the rigid ones. Fixed at creation, before the data table is planned (its
 * sizes follow from it). What the step cannot do yet is refused here, by name, rather than
 * simulated wrongly. */
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/model/model_internal.h"
#include "host/sim/sim_internal.h"

#define FEM_AUTO_MAX_PARTICIPATING 64
#define FEM_AUTO_MIN_CONTACTS 16
#define FEM_AUTO_MAX_CONTACTS 4096
/* Contact polygons between bodies per surface triangle: where two bodies press face to face each
 * tet under one side's face crosses several of the other's (the slice of its pyramid near the
 * face), and the tets along the face's edges add slivers. The masonry arch (examples/arch.sdf,
 * nine blocks of 12 surface triangles) needs up to 2.3 per triangle (251 polygons in its second
 * step, 202 at most as it falls apart); 4 leaves room for finer or less aligned meshes. */
#define FEM_AUTO_DD_PER_TRIANGLE 4
/* Contact polygons per surface triangle against a rigid geometry's compliant field: the
 * triangle is clipped by every tet of the field it crosses (a half-space makes one). The soft
 * cube of bench/compare's grasp on a box ground (48 triangles against two fingers and the box)
 * needs more than 160 where one per triangle and geometry gave 144; two leave room. */
#define FEM_AUTO_MESH_PER_TRIANGLE 2

/* Vertices of body b's surface. */
static int surface_vertices(const modelDeformable *b) {
  unsigned char *on = (unsigned char *)calloc((size_t)b->nvert + 1, 1);
  if (!on) return b->nvert;
  int n = 0;
  for (int i = 0; i < 3 * b->ntri; ++i)
    if (!on[b->tri[i]]) on[b->tri[i]] = 1, ++n;
  free(on);
  return n;
}

isoStatus sim_fem_layout(isoSim *s, const isoModel *m, isoCapacityDef *cap) {
  simFem *F = &s->fem;
  memset(F, 0, sizeof *F);
  const modelDeformables *D = &m->deformables;
  F->ndef = D->n;
  if (D->n == 0) return ISO_OK;
  const char *fn = "iso_sim_create";
  for (int g = 0; g < m->ngeom; ++g) {
    const isoGeometryDef *gd = &m->geom[g];
    const char *why = NULL;
    if (gd->shape == ISO_SHAPE_HALFSPACE && gd->body != ISO_WORLD_BODY) why = "a half-space on a moving body";
    else if (gd->shape != ISO_SHAPE_HALFSPACE && m->hydro.geom[g].def_asset < 0)
      why = "a shape without a compliant hydroelastic representation (a point, or a margin on a mesh)";
    if (why)
      return iso_fail(ISO_ERR_UNSUPPORTED, "%s: deformable '%s' would pass through %s geometry '%s': contact of "
                      "deformable bodies with %s is not supported yet", fn, D->body[0].def.name,
                      iso_shape_name(gd->shape), gd->name, why);
    F->ntouch++;
    F->per_tri += gd->shape == ISO_SHAPE_HALFSPACE ? 1 : FEM_AUTO_MESH_PER_TRIANGLE;
  }
  long nweld = 0;
  for (int d = 0; d < D->n; ++d) nweld += D->body[d].nweld;
  F->has_dd = D->n > 1;
  F->touch = F->ntouch > 0 || nweld > 0 || F->has_dd;
  F->nhost = F->ntouch + 3 * D->n + 2;
  F->host = (int *)calloc((size_t)F->nhost, sizeof(int));
  if (!F->host) return iso_fail(ISO_ERR_NOMEM, "%s: out of memory", fn);
  int *hs = F->host, *pcap = hs + F->ntouch, *pslot0 = pcap + D->n, *aoff = pslot0 + D->n + 1;
  for (int g = 0; g < m->ngeom; ++g) hs[g] = g; /* every geometry, in index order */
  long tris = 0;
  pslot0[0] = aoff[0] = 0;
  for (int d = 0; d < D->n; ++d) {
    const int nsurf = surface_vertices(&D->body[d]);
    const int want = cap->max_participating ? cap->max_participating : FEM_AUTO_MAX_PARTICIPATING;
    /* welded vertices always take part, on top of the ones contact may bring */
    /* (another body's contact reaches into a tet: any vertex may take part) */
    const int reach = F->has_dd ? D->body[d].nvert : F->ntouch > 0 ? nsurf : 0;
    pcap[d] = F->touch ? (want < reach ? want : reach) + D->body[d].nweld : 0;
    if (D->body[d].ntet > F->tet_cap) F->tet_cap = D->body[d].ntet;
    pslot0[d + 1] = pslot0[d] + pcap[d];
    const long n3 = 3L * pcap[d];
    if (aoff[d] + n3 * n3 > 1L << 30)
      return iso_fail(ISO_ERR_CAPACITY, "%s: deformable '%s': %d participating vertices make a solver block too large", fn,
                      D->body[d].def.name, pcap[d]);
    aoff[d + 1] = aoff[d] + (int)(n3 * n3);
    tris += D->body[d].ntri;
  }
  if (cap->max_participating == 0 && D->n > 0) cap->max_participating = pcap[0] > 0 ? pcap[0] : FEM_AUTO_MAX_PARTICIPATING;
  if (cap->max_deformable_contacts == 0) {
    long want = tris * (F->per_tri + (F->has_dd ? FEM_AUTO_DD_PER_TRIANGLE : 0));
    cap->max_deformable_contacts = (int)(want < FEM_AUTO_MIN_CONTACTS   ? FEM_AUTO_MIN_CONTACTS
                                         : want > FEM_AUTO_MAX_CONTACTS ? FEM_AUTO_MAX_CONTACTS
                                                                         : want);
  }
  F->max_con = F->touch ? (F->ntouch > 0 ? cap->max_deformable_contacts : 0) + (int)nweld : 0;
  if (F->has_dd) {
    F->dd_max = cap->max_deformable_contacts;
    F->dd_pairs = 16 * F->tet_cap; /* pressed-in blocks need ~10 per tet (kernels/fem/dd_contact.h) */
  }
  F->npart = pslot0[D->n];
  F->dofs = 3L * F->npart;
  F->a_reals = aoff[D->n];
  F->touch_geom = hs, F->pcap = pcap, F->pslot0 = pslot0, F->aoff = aoff;
  return ISO_OK;
}

isoStatus sim_fem_upload(isoSim *s) {
  simFem *F = &s->fem;
  if (F->ndef == 0 || s->be.kind == ISO_BACKEND_CPU) return ISO_OK;
  const size_t bytes = sizeof(int) * (size_t)F->nhost;
  isoStatus st = backend_alloc(&s->be, &F->dev, bytes);
  if (st == ISO_OK) st = backend_upload(&s->be, F->dev, F->host, bytes);
  if (st != ISO_OK) return st;
  const int *d = (const int *)F->dev;
  F->touch_geom = d, F->pcap = d + F->ntouch, F->pslot0 = F->pcap + F->ndef, F->aoff = F->pslot0 + F->ndef + 1;
  return ISO_OK;
}

void sim_fem_free(isoSim *s) {
  if (s->fem.dev) backend_free(&s->be, s->fem.dev);
  free(s->fem.host);
  memset(&s->fem, 0, sizeof s->fem);
}
