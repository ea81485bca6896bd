/* The queries of include/isobar/contact.h: contact surfaces read from the world's contact list
 * (polygons recomputed from their records), pair kinds, overflow sizes, VTK exports. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/step/contact_internal.h"
#include "host/base/error.h"
#include "host/assets/mesh.h"
#include "host/step/sap_internal.h"
#include "host/sim/sim_internal.h"
#include "isobar/contact.h"

void contact_invalidate(isoSim *s) {
  if (s->contact) s->contact->updated = 0;
}

/* ---- queries --------------------------------------------------------------------------------- */

static isoStatus check_world(const isoSim *s, int world, const char *fn) {
  if (world < 0 || world >= s->nworld)
    return iso_fail(ISO_ERR_INVALID, "%s: world %d is out of range [0, %d)", fn, world, s->nworld);
  if (!s->contact->updated)
    return iso_fail(ISO_ERR_STATE, "%s: no contact surfaces yet (step or call iso_sim_update_contact)", fn);
  return ISO_OK;
}

static isoStatus read_int(const isoSim *s, const int *dev_array, long i, int *out) {
  if (!dev_array) {
    *out = 0;
    return ISO_OK;
  }
  return backend_download(&s->be, out, dev_array + i, sizeof(int));
}

isoStatus iso_sim_contact_face_count(const isoSim *s, int world, int *count) {
  const char *fn = "iso_sim_contact_face_count";
  CHECK_NULL(s, fn);
  CHECK_NULL(count, fn);
  isoStatus st = check_world(s, world, fn);
  if (st != ISO_OK) return st;
  return read_int(s, s->contact->work.face_count, world, count);
}

/* One count per selected world from a per-world int array, or zeros where the sim has none. */
static isoStatus gather_counts(const isoSim *s, const simSel *q, const int *base, int *out) {
  if (!base) {
    memset(out, 0, sizeof(int) * (size_t)q->n);
    return ISO_OK;
  }
  return sim_gather_rows(s, q, base, sizeof(int), sizeof(int), out);
}

isoStatus iso_sim_get_contact_counts(const isoSim *s, isoWorlds w, int *faces, int *points, int *constraints) {
  const char *fn = "iso_sim_get_contact_counts";
  CHECK_NULL(s, fn);
  simSel q;
  isoStatus st = sim_select(s, w, fn, &q);
  if (st != ISO_OK || q.n == 0) return st;
  if (s->contact && !s->contact->updated)
    return iso_fail(ISO_ERR_STATE, "%s: no contact surfaces yet (step or call iso_sim_update_contact)", fn);
  const int *face_count = s->contact ? s->face_count : NULL, *list_count = s->contact ? s->list_count : NULL;
  /* the list holds the faces, then the points: points = list − faces */
  int *f = faces || !points ? faces : (int *)malloc(sizeof(int) * (size_t)q.n);
  if (points && !f) return iso_fail(ISO_ERR_NOMEM, "%s: out of memory for %d worlds", fn, q.n);
  if (f) st = gather_counts(s, &q, face_count, f);
  if (st == ISO_OK && points) st = gather_counts(s, &q, list_count, points);
  for (int i = 0; st == ISO_OK && points && list_count && i < q.n; ++i) points[i] -= f[i];
  if (f != faces) free(f);
  if (st == ISO_OK && constraints) st = gather_counts(s, &q, s->sap && s->sap->enabled ? s->ncontact : NULL, constraints);
  return st;
}

/* A face of the public API from its record, with the polygon rebuilt from the record's source
 * elements by the narrow phase's own function on the step's poses and moduli. */
static isoStatus face_to_public(const isoSim *s, int world, const contactRec *r, isoContactFace *o) {
  const simContact *c = s->contact;
  const hydroDev *H = &c->host;
  memset(o, 0, sizeof *o);
  o->geometry_m = r->geom_m;
  o->geometry_n = r->geom_n;
  o->element_m = r->elem_m;
  o->element_n = r->elem_n;
  o->normal[0] = r->normal.x, o->normal[1] = r->normal.y, o->normal[2] = r->normal.z;
  o->grad_m = r->gM;
  o->grad_n = r->gN;
  o->area = r->area;
  o->centroid[0] = r->point.x, o->centroid[1] = r->point.y, o->centroid[2] = r->point.z;
  o->pressure = r->p0;
  xform X[2];
  double E[2];
  isoStatus st = backend_download(&s->be, X, c->work.X_WG + (long)world * H->ngeom + r->geom_m, sizeof(xform));
  if (st == ISO_OK) st = backend_download(&s->be, X + 1, c->work.X_WG + (long)world * H->ngeom + r->geom_n, sizeof(xform));
  if (st == ISO_OK) st = iso_sim_get_param(s, ISO_PARAM_GEOM_MODULUS, r->geom_m, iso_worlds_one(world), E);
  if (st == ISO_OK) st = iso_sim_get_param(s, ISO_PARAM_GEOM_MODULUS, r->geom_n, iso_worlds_one(world), E + 1);
  if (st != ISO_OK) return st;
  hydroFace f;
  if (!hs_face_compute(H, r->pair, r->elem_m, r->elem_n, X[0], X[1], E[0], E[1], &f))
    return iso_fail(ISO_ERR_STATE, "iso_sim_get_contact_faces: world %d: the polygon of elements %d, %d is gone "
                    "(the state changed since the contact update)", world, r->elem_m, r->elem_n);
  if (r->part < 0) {
    o->nvert = f.nvert;
    for (int k = 0; k < f.nvert; ++k) {
      o->vert[k][0] = f.vert[k].x, o->vert[k][1] = f.vert[k].y, o->vert[k][2] = f.vert[k].z;
      o->vert_pressure[k] = f.vert_p[k];
    }
    return ISO_OK;
  }
  vec3 tri[HYDRO_MAX_POLY][3];
  real tp[HYDRO_MAX_POLY][3];
  hydro_face_fan(&f, tri, tp);
  o->nvert = 3;
  for (int k = 0; k < 3; ++k) {
    o->vert[k][0] = tri[r->part][k].x, o->vert[k][1] = tri[r->part][k].y, o->vert[k][2] = tri[r->part][k].z;
    o->vert_pressure[k] = tp[r->part][k];
  }
  return ISO_OK;
}

isoStatus iso_sim_get_contact_faces(const isoSim *s, int world, isoContactFace *out, int cap, int *count) {
  const char *fn = "iso_sim_get_contact_faces";
  CHECK_NULL(s, fn);
  CHECK_NULL(count, fn);
  if (cap > 0 && !out) return iso_fail(ISO_ERR_NULL, "%s: argument 'out' is NULL", fn);
  isoStatus st = check_world(s, world, fn);
  if (st != ISO_OK) return st;
  const hydroWork *W = &s->contact->work;
  int n = 0;
  st = read_int(s, W->face_count, world, &n);
  *count = n;
  for (int k = 0; k < n && k < cap && st == ISO_OK; ++k) {
    contactRec r;
    st = backend_download(&s->be, &r, W->list + (long)world * W->max_list + k, sizeof r);
    if (st == ISO_OK) st = face_to_public(s, world, &r, out + k);
  }
  return st;
}

isoStatus iso_sim_contact_wrench(const isoSim *s, int world, int a, int b, double force[3], double moment[3]) {
  const char *fn = "iso_sim_contact_wrench";
  CHECK_NULL(s, fn);
  CHECK_NULL(force, fn);
  CHECK_NULL(moment, fn);
  isoStatus st = check_world(s, world, fn);
  if (st != ISO_OK) return st;
  int ng = s->contact->host.ngeom;
  if (a < 0 || a >= ng || b < 0 || b >= ng)
    return iso_fail(ISO_ERR_INVALID, "%s: geometry indices %d, %d must be in [0, %d)", fn, a, b, ng);
  int n = 0;
  st = iso_sim_contact_face_count(s, world, &n);
  if (st != ISO_OK) return st;
  isoContactFace *faces = (isoContactFace *)malloc(sizeof(isoContactFace) * (size_t)(n ? n : 1));
  if (!faces) return iso_fail(ISO_ERR_NOMEM, "%s: out of memory", fn);
  st = iso_sim_get_contact_faces(s, world, faces, n, &n);
  vec3 F = v3_zero(), T = v3_zero();
  for (int k = 0; k < n && st == ISO_OK; ++k) {
    const isoContactFace *f = faces + k;
    int sign;
    if (f->geometry_m == a && f->geometry_n == b) sign = 1; /* pressure pushes M along +n */
    else if (f->geometry_m == b && f->geometry_n == a) sign = -1;
    else continue;
    vec3 nrm = v3(f->normal[0], f->normal[1], f->normal[2]);
    vec3 c0 = v3(f->centroid[0], f->centroid[1], f->centroid[2]);
    /* Force: ∫p dA = p(centroid)·A, exact for a linear p. Moment: ∫x·p dA is quadratic, so
     * integrate each triangle of the fan around the centroid with the edge-midpoint rule,
     * which is exact for quadratics. */
    F = v3_axpy(F, sign * f->pressure * f->area, nrm);
    vec3 xp = v3_zero(); /* ∫ x p dA */
    for (int i = 0; i < f->nvert; ++i) {
      int j = (i + 1) % f->nvert;
      vec3 A = v3(f->vert[i][0], f->vert[i][1], f->vert[i][2]);
      vec3 B = v3(f->vert[j][0], f->vert[j][1], f->vert[j][2]);
      real pa = f->vert_pressure[i], pb = f->vert_pressure[j], pc = f->pressure;
      real area = 0.5 * v3_dot(v3_cross(v3_sub(A, c0), v3_sub(B, c0)), nrm);
      vec3 mAB = v3_scale(v3_add(A, B), 0.5), mBC = v3_scale(v3_add(B, c0), 0.5), mCA = v3_scale(v3_add(c0, A), 0.5);
      vec3 sum = v3_add(v3_add(v3_scale(mAB, 0.5 * (pa + pb)), v3_scale(mBC, 0.5 * (pb + pc))),
                        v3_scale(mCA, 0.5 * (pc + pa)));
      xp = v3_axpy(xp, area / 3.0, sum);
    }
    T = v3_axpy(T, sign, v3_cross(xp, nrm));
  }
  free(faces);
  force[0] = F.x, force[1] = F.y, force[2] = F.z;
  moment[0] = T.x, moment[1] = T.y, moment[2] = T.z;
  return st;
}

isoStatus iso_sim_pair_kind(const isoSim *s, int a, int b, isoPairKind *kind) {
  const char *fn = "iso_sim_pair_kind";
  CHECK_NULL(s, fn);
  CHECK_NULL(kind, fn);
  const simContact *c = s->contact;
  int ng = c->host.ngeom;
  if (a < 0 || a >= ng || b < 0 || b >= ng || a == b)
    return iso_fail(ISO_ERR_INVALID, "%s: geometry indices %d, %d must be distinct and in [0, %d)", fn, a, b, ng);
  for (int p = 0; p < c->host.npair; ++p)
    if ((c->host.pair_m[p] == a && c->host.pair_n[p] == b) || (c->host.pair_m[p] == b && c->host.pair_n[p] == a)) {
      *kind = (isoPairKind)c->host.pair_kind[p];
      return ISO_OK;
    }
  for (int p = 0; p < c->nfallback; ++p)
    if ((c->fallback[2 * p] == a && c->fallback[2 * p + 1] == b) ||
        (c->fallback[2 * p] == b && c->fallback[2 * p + 1] == a)) {
      *kind = ISO_PAIR_POINT_FALLBACK;
      return ISO_OK;
    }
  *kind = ISO_PAIR_FILTERED;
  return ISO_OK;
}

isoStatus iso_sim_get_overflow(const isoSim *s, int world, int *needed_candidates, int *needed_faces,
                               int *needed_constraints) {
  const char *fn = "iso_sim_get_overflow";
  CHECK_NULL(s, fn);
  CHECK_NULL(needed_candidates, fn);
  CHECK_NULL(needed_faces, fn);
  isoStatus st = check_world(s, world, fn);
  if (st != ISO_OK) return st;
  const hydroWork *W = &s->contact->work;
  int nc = 0, nf = 0;
  st = read_int(s, W->cand_needed, world, &nc);
  if (st == ISO_OK) st = read_int(s, W->face_needed, world, &nf);
  *needed_candidates = nc > W->max_cand ? nc : 0;
  *needed_faces = nf > W->max_face ? nf : 0;
  if (needed_constraints) {
    int ncon = 0;
    if (st == ISO_OK && s->sap->enabled) st = backend_download(&s->be, &ncon, s->needed + world, sizeof(int));
    *needed_constraints = ncon > s->def.capacity.max_contacts ? ncon : 0;
  }
  return st;
}

/* ---- VTK ---------------------------------------------------------------------------------------- */

isoStatus iso_sim_write_contact_vtk(const isoSim *s, int world, const char *path) {
  const char *fn = "iso_sim_write_contact_vtk";
  CHECK_NULL(s, fn);
  CHECK_NULL(path, fn);
  isoStatus st = check_world(s, world, fn);
  int n = 0;
  if (st == ISO_OK) st = iso_sim_contact_face_count(s, world, &n);
  if (st != ISO_OK) return st;
  isoContactFace *faces = (isoContactFace *)malloc(sizeof(isoContactFace) * (size_t)(n + 1));
  real *vert = (real *)malloc(sizeof(real) * 3 * (size_t)(n * ISO_MAX_FACE_VERTICES + 1));
  int *start = (int *)malloc(sizeof(int) * (size_t)(n + 1));
  int *pv = (int *)malloc(sizeof(int) * (size_t)(n * ISO_MAX_FACE_VERTICES + 1));
  real *press = (real *)malloc(sizeof(real) * (size_t)(n + 1));
  if (!faces || !vert || !start || !pv || !press) {
    st = iso_fail(ISO_ERR_NOMEM, "%s: out of memory", fn);
  } else {
    st = iso_sim_get_contact_faces(s, world, faces, n, &n);
    int nv = 0;
    start[0] = 0;
    for (int k = 0; k < n && st == ISO_OK; ++k) {
      for (int i = 0; i < faces[k].nvert; ++i, ++nv) {
        for (int d = 0; d < 3; ++d) vert[3 * nv + d] = faces[k].vert[i][d];
        pv[nv] = nv;
      }
      start[k + 1] = nv;
      press[k] = faces[k].pressure;
    }
    if (st == ISO_OK) st = vtk_write_polygons(path, vert, nv, start, pv, n, press);
  }
  free(faces), free(vert), free(start), free(pv), free(press);
  return st;
}

isoStatus iso_sim_write_meshes_vtk(const isoSim *s, int world, const char *prefix) {
  const char *fn = "iso_sim_write_meshes_vtk";
  CHECK_NULL(s, fn);
  CHECK_NULL(prefix, fn);
  if (world < 0 || world >= s->nworld)
    return iso_fail(ISO_ERR_INVALID, "%s: world %d is out of range [0, %d)", fn, world, s->nworld);
  const simContact *c = s->contact;
  const hydroDev *H = &c->host;
  real *q = (real *)malloc(sizeof(real) * (size_t)(s->nq + 1));
  if (!q) return iso_fail(ISO_ERR_NOMEM, "%s: out of memory", fn);
  isoStatus st = iso_sim_get_state(s, ISO_STATE_Q, iso_worlds_one(world), q);
  for (int g = 0; g < H->ngeom && st == ISO_OK; ++g) {
    int a = H->geom_asset[g];
    if (a < 0) continue;
    xform X = H->geom_X_BG[g];
    int b = H->geom_body[g];
    if (b >= 0) {
      const real *qb = q + 7 * b;
      X = xf_mul(xf_make(quat_make(qb[0], qb[1], qb[2], qb[3]), v3(qb[4], qb[5], qb[6])), X);
    }
    /* an asset's extent runs to the next asset's offsets (or the totals) */
    int v0 = H->asset_vert0[a], e0 = H->asset_elem0[a];
    int nv = (a + 1 < c->nasset ? H->asset_vert0[a + 1] : c->host_nvert) - v0;
    int ne = (a + 1 < c->nasset ? H->asset_elem0[a + 1] : c->host_nelem) - e0;
    char path[1024];
    snprintf(path, sizeof path, "%s_%s.vtk", prefix, c->geom_name[g]);
    double E = 0;
    st = iso_sim_get_param(s, ISO_PARAM_GEOM_MODULUS, g, iso_worlds_one(world), &E);
    if (H->geom_kind[g] == HS_GEOM_TETS) {
      tetMesh t;
      memset(&t, 0, sizeof t);
      st = tet_mesh_alloc(&t, nv, ne);
      for (int i = 0; i < nv && st == ISO_OK; ++i) {
        const real *x = H->vert + 3L * (v0 + i);
        vec3 y = xf_point(X, v3(x[0], x[1], x[2]));
        t.vert[3 * i] = y.x, t.vert[3 * i + 1] = y.y, t.vert[3 * i + 2] = y.z;
        t.pressure[i] = E * H->pressure[v0 + i];
      }
      for (int i = 0; i < ne && st == ISO_OK; ++i)
        for (int k = 0; k < 4; ++k) t.tet[4 * i + k] = H->elem[4L * (e0 + i) + k];
      if (st == ISO_OK) st = vtk_write_tets(path, &t);
      tet_mesh_free(&t);
    } else {
      real *vert = (real *)malloc(sizeof(real) * 3 * (size_t)(nv + 1));
      int *start = (int *)malloc(sizeof(int) * (size_t)(ne + 1));
      int *pv = (int *)malloc(sizeof(int) * 3 * (size_t)(ne + 1));
      if (!vert || !start || !pv) st = iso_fail(ISO_ERR_NOMEM, "%s: out of memory", fn);
      for (int i = 0; i < nv && st == ISO_OK; ++i) {
        const real *x = H->vert + 3L * (v0 + i);
        vec3 y = xf_point(X, v3(x[0], x[1], x[2]));
        vert[3 * i] = y.x, vert[3 * i + 1] = y.y, vert[3 * i + 2] = y.z;
      }
      for (int i = 0; i < ne && st == ISO_OK; ++i) {
        start[i] = 3 * i;
        for (int k = 0; k < 3; ++k) pv[3 * i + k] = H->elem[4L * (e0 + i) + k];
      }
      if (st == ISO_OK) {
        start[ne] = 3 * ne;
        st = vtk_write_polygons(path, vert, nv, start, pv, ne, NULL);
      }
      free(vert), free(start), free(pv);
    }
  }
  free(q);
  return st;
}
