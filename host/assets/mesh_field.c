/* Hydroelastic pressure fields on compliant tet meshes: one pressure per vertex, linear in each
 * tet (reference/drake_algorithms.md §1.1–§1.7, mesh_recipes.md §1.7, §2–§4).
 *
 * Every primitive's mesh is built for the shape inflated by the margin δ (host/assets/mesh.h: the
 * mesher gets inflated sizes, these functions the original ones). The field is
 * E·(depth below the original surface)/(depth of the medial axis): 0 on the original
 * surface, E on the medial axis (or the centre), negative inside the δ layer, down to about
 * −E·δ/(medial depth) on the mesh boundary. Formulas are evaluated as Drake writes them in
 * terms of the inflated shape (e.g. (R' − r − δ)/(R' − δ)), so vertex values round alike.
 *  - sphere: snapped to the exact boundary value when |R' − r|/R' < 1e-14 (§1.1);
 *  - ellipsoid: E·(1 − ‖S⁻¹x‖), S = diag(a'−δ, b'−δ, c'−δ); with δ = 0 extents below 1e-14
 *    in magnitude snap to 0 (§1.5);
 *  - box: E·(−φ − δ)/(h'_min − δ), φ the signed distance to the inflated box; no snapping,
 *    no clamping. The MA mesh makes this exactly linear per tet (mesh_recipes §1.7);
 *  - cylinder: min(E·(−φ − δ)/(h'_min − δ), E), φ the signed distance to the inflated
 *    cylinder (a 2-D box in (r, z)), h'_min = min(R', L'/2); then every boundary vertex of the
 *    mesh is set to exactly −E·δ/(h'_min − δ) (§1.3);
 *  - capsule: E·(1 − r/(R' − δ)), r the distance to the medial segment; boundary vertices (r
 *    within 1e-14·R' of R') snap to −E·δ/(R' − δ). On Drake's mesh this is E at vertices 0, 1
 *    and the snapped value elsewhere, which is exactly Drake's table (§1.4);
 * (field_distance, for meshes and convex hulls, lives in host/assets/mesh_field_distance.c.)
 * Boundary vertices are found topologically (faces used by one tet), like Drake's
 * IdentifyBoundaryFaces, never by position. */
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/assets/mesh.h"
#include "kernels/math/vec3.h"

/* Relative tolerance for "on the boundary" snapping (drake_algorithms.md §1.1, §1.5). */
#define SNAP_TOL 1e-14

/* ---- argument checks --------------------------------------------------------------------- */

static isoStatus check_value(const char *field, const char *name, double v, int allow_zero) {
  if (!isfinite(v) || v < 0 || (!allow_zero && v == 0))
    return iso_fail(ISO_ERR_INVALID, "%s pressure field: %s %g must be %s and finite", field, name, v,
                    allow_zero ? "non-negative" : "positive");
  return ISO_OK;
}

/* Common checks: mesh present, E > 0, margin >= 0; the pressure array exists afterwards. */
static isoStatus check_common(tetMesh *m, const char *field, double E, double margin) {
  if (m == NULL) return iso_fail(ISO_ERR_NULL, "%s pressure field: argument 'm' is NULL", field);
  if (m->nvert > 0 && m->vert == NULL)
    return iso_fail(ISO_ERR_STATE, "%s pressure field: the mesh has no vertex array", field);
  isoStatus st = check_value(field, "hydroelastic modulus", E, 0);
  if (st == ISO_OK) st = check_value(field, "margin", margin, 1);
  if (st != ISO_OK) return st;
  if (m->pressure == NULL) {
    m->pressure = (real *)calloc(m->nvert > 0 ? (size_t)m->nvert : 1, sizeof(real));
    if (m->pressure == NULL)
      return iso_fail(ISO_ERR_NOMEM, "%s pressure field: out of memory for %d vertices", field, m->nvert);
  }
  return ISO_OK;
}

/* The medial depth (original size) must stay positive after the inflate/deflate round trip. */
static isoStatus check_depth(const char *field, double depth, double margin) {
  if (!(depth > 0))
    return iso_fail(ISO_ERR_INVALID, "%s pressure field: margin %g swamps the shape (medial depth %g)", field, margin,
                    depth);
  return ISO_OK;
}

static vec3 vtx(const tetMesh *m, int i) { return v3(m->vert[3 * i], m->vert[3 * i + 1], m->vert[3 * i + 2]); }

/* ---- boundary faces ----------------------------------------------------------------------- */

typedef struct faceRec {
  int k[3]; /* sorted vertex indices of one tet face */
} faceRec;

static int face_rec_cmp(const void *pa, const void *pb) {
  const faceRec *a = (const faceRec *)pa, *b = (const faceRec *)pb;
  for (int i = 0; i < 3; ++i)
    if (a->k[i] != b->k[i]) return a->k[i] < b->k[i] ? -1 : 1;
  return 0;
}

/* Flag the vertices of the faces used by exactly one tet (nvert flags). Sorting the face keys
 * makes equal faces adjacent; equal keys are identical, so the order is irrelevant. */
static isoStatus boundary_vertices(const tetMesh *m, unsigned char *on_bnd, const char *what) {
  size_t nf = (size_t)m->ntet * 4;
  faceRec *f = (faceRec *)malloc((nf > 0 ? nf : 1) * sizeof(faceRec));
  if (f == NULL) return iso_fail(ISO_ERR_NOMEM, "%s: out of memory finding the boundary of %d tetrahedra", what, m->ntet);
  for (int e = 0; e < m->ntet; ++e)
    for (int q = 0; q < 4; ++q) {
      int *k = f[4 * (size_t)e + q].k, n = 0;
      for (int i = 0; i < 4; ++i) {
        if (i == q) continue; /* the face opposite local vertex q */
        int v = m->tet[4 * e + i];
        if (v < 0 || v >= m->nvert) {
          free(f);
          return iso_fail(ISO_ERR_INVALID, "%s: tetrahedron %d refers to vertex %d of %d", what, e, v, m->nvert);
        }
        k[n++] = v;
      }
      for (int a = 0; a < 2; ++a) /* sort ascending */
        for (int b = 0; b < 2 - a; ++b)
          if (k[b] > k[b + 1]) {
            int s = k[b];
            k[b] = k[b + 1];
            k[b + 1] = s;
          }
    }
  qsort(f, nf, sizeof *f, face_rec_cmp);
  memset(on_bnd, 0, (size_t)m->nvert);
  for (size_t i = 0; i < nf;) {
    size_t j = i + 1;
    while (j < nf && face_rec_cmp(f + j, f + i) == 0) ++j;
    if (j - i == 1)
      for (int c = 0; c < 3; ++c) on_bnd[f[i].k[c]] = 1;
    i = j;
  }
  free(f);
  return ISO_OK;
}

/* ---- primitives ----------------------------------------------------------------------------- */

isoStatus field_sphere(tetMesh *m, double radius, double E, double margin) {
  isoStatus st = check_common(m, "sphere", E, margin);
  if (st == ISO_OK) st = check_value("sphere", "radius", radius, 0);
  if (st != ISO_OK) return st;
  const double Ri = radius + margin, den = Ri - margin; /* inflated radius, medial depth */
  if ((st = check_depth("sphere", den, margin)) != ISO_OK) return st;
  const double p_bnd = -E * margin / den;
  for (int v = 0; v < m->nvert; ++v) {
    double r = v3_norm(vtx(m, v));
    if (fabs(Ri - r) / Ri < SNAP_TOL)
      m->pressure[v] = p_bnd;
    else
      m->pressure[v] = E * (Ri - r - margin) / den;
  }
  return ISO_OK;
}

isoStatus field_ellipsoid(tetMesh *m, const double abc[3], double E, double margin) {
  isoStatus st = check_common(m, "ellipsoid", E, margin);
  if (st != ISO_OK) return st;
  if (abc == NULL) return iso_fail(ISO_ERR_NULL, "ellipsoid pressure field: argument 'abc' is NULL");
  static const char *kAxis[3] = {"semi-axis a", "semi-axis b", "semi-axis c"};
  double s[3];
  for (int i = 0; i < 3; ++i) {
    if ((st = check_value("ellipsoid", kAxis[i], abc[i], 0)) != ISO_OK) return st;
    s[i] = (abc[i] + margin) - margin; /* S = diag(a' − δ, ...), as Drake forms it */
    if ((st = check_depth("ellipsoid", s[i], margin)) != ISO_OK) return st;
  }
  for (int v = 0; v < m->nvert; ++v) {
    vec3 x = vtx(m, v);
    double extent = 1 - v3_norm(v3(x.x / s[0], x.y / s[1], x.z / s[2]));
    /* §1.5: without a margin, boundary vertices that miss the surface by rounding read 0 */
    if (margin == 0 && fabs(extent) < SNAP_TOL) extent = 0;
    m->pressure[v] = E * extent;
  }
  return ISO_OK;
}

isoStatus field_box(tetMesh *m, const double half[3], double E, double margin) {
  isoStatus st = check_common(m, "box", E, margin);
  if (st != ISO_OK) return st;
  if (half == NULL) return iso_fail(ISO_ERR_NULL, "box pressure field: argument 'half' is NULL");
  double hi[3];
  for (int i = 0; i < 3; ++i) {
    if ((st = check_value("box", "half size", half[i], 0)) != ISO_OK) return st;
    hi[i] = half[i] + margin; /* the inflated box the mesh was built for */
  }
  const double den = fmin(hi[0], fmin(hi[1], hi[2])) - margin;
  if ((st = check_depth("box", den, margin)) != ISO_OK) return st;
  for (int v = 0; v < m->nvert; ++v) {
    vec3 x = vtx(m, v);
    /* signed distance to the inflated box: inside, minus the distance to the nearest face;
     * outside, the distance to the clamped point */
    double q[3] = {fabs(x.x) - hi[0], fabs(x.y) - hi[1], fabs(x.z) - hi[2]};
    double phi;
    if (q[0] <= 0 && q[1] <= 0 && q[2] <= 0) {
      phi = fmax(q[0], fmax(q[1], q[2]));
    } else {
      double o[3] = {fmax(q[0], 0), fmax(q[1], 0), fmax(q[2], 0)};
      phi = sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]);
    }
    m->pressure[v] = E * (-phi - margin) / den;
  }
  return ISO_OK;
}

isoStatus field_cylinder(tetMesh *m, double radius, double length, double E, double margin) {
  isoStatus st = check_common(m, "cylinder", E, margin);
  if (st == ISO_OK) st = check_value("cylinder", "radius", radius, 0);
  if (st == ISO_OK) st = check_value("cylinder", "length", length, 0);
  if (st != ISO_OK) return st;
  const double Ri = radius + margin, hzi = length / 2 + margin; /* inflated */
  const double den = fmin(Ri, hzi) - margin;
  if ((st = check_depth("cylinder", den, margin)) != ISO_OK) return st;
  unsigned char *bnd = (unsigned char *)malloc(m->nvert > 0 ? (size_t)m->nvert : 1);
  if (bnd == NULL) return iso_fail(ISO_ERR_NOMEM, "cylinder pressure field: out of memory for %d vertices", m->nvert);
  if ((st = boundary_vertices(m, bnd, "cylinder pressure field")) != ISO_OK) {
    free(bnd);
    return st;
  }
  const double p_bnd = -E * margin / den;
  for (int v = 0; v < m->nvert; ++v) {
    if (bnd[v]) {
      /* §1.3: the mesh boundary reads exactly the minimum, whatever the rounding of the rims */
      m->pressure[v] = p_bnd;
      continue;
    }
    vec3 x = vtx(m, v);
    double qr = sqrt(x.x * x.x + x.y * x.y) - Ri, qz = fabs(x.z) - hzi, phi;
    if (qr <= 0 && qz <= 0) {
      phi = fmax(qr, qz);
    } else {
      double a = fmax(qr, 0), b = fmax(qz, 0);
      phi = sqrt(a * a + b * b);
    }
    /* clamped at E: medial vertices may round a hair above it */
    m->pressure[v] = fmin(E * (-phi - margin) / den, E);
  }
  free(bnd);
  return ISO_OK;
}

isoStatus field_capsule(tetMesh *m, double radius, double length, double E, double margin) {
  isoStatus st = check_common(m, "capsule", E, margin);
  if (st == ISO_OK) st = check_value("capsule", "radius", radius, 0);
  if (st == ISO_OK) st = check_value("capsule", "length", length, 0);
  if (st != ISO_OK) return st;
  const double Ri = radius + margin, den = Ri - margin, hl = length / 2;
  if ((st = check_depth("capsule", den, margin)) != ISO_OK) return st;
  const double p_bnd = -E * margin / den;
  for (int v = 0; v < m->nvert; ++v) {
    vec3 x = vtx(m, v);
    double zc = x.z > hl ? hl : (x.z < -hl ? -hl : x.z); /* nearest point of the medial segment */
    double r = v3_norm(v3(x.x, x.y, x.z - zc));
    if (fabs(Ri - r) / Ri < SNAP_TOL)
      m->pressure[v] = p_bnd;
    else
      m->pressure[v] = E * (1 - r / den);
  }
  return ISO_OK;
}
