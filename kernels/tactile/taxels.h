/* Tactile sampling (DESIGN.md stage 8, after integration): one item per (world, pad) writes the
 * pad's taxel forces and pressures from the world's solved contact constraints
 * (include/isobar/tactile.h says what a taxel receives and in which frame).
 *
 * An item reads only what the step left: the constraints and their contact records (stage 5),
 * the solved velocities (stage 7, at which each constraint's impulse is its law's value, as the
 * queries recompute it: kernels/sap/solve.h stores no impulse), and the geometry poses the
 * records were made at (stage 1). A face's polygon is rebuilt from its record by the narrow
 * phase's own function (hs_face_compute) on those poses and moduli, so it is the polygon the
 * step saw. Taxels are written by their pad's item alone, each summed over the constraints in
 * the contact list's order, so the samples are the same bits on any number of threads and on
 * the emulated device.
 *
 * Cost: per constraint on the pad's geometry, the impulse and the polygon, then the rows of its
 * shadow on the pad (its projection along the face normal), each clipped to the polygon before
 * its taxels are tested, so a pad pays for the taxels its faces cover, not for all of them per
 * face (bench/RESULTS.md, "Tactile pads"). */
#ifndef ISO_KERNELS_TACTILE_TAXELS_H
#define ISO_KERNELS_TACTILE_TAXELS_H

#include <math.h>
#include <stdint.h>

#include "isobar/world_status.h"
#include "kernels/contact/list.h"
#include "kernels/core.h"
#include "kernels/hydro/surface.h"
#include "kernels/math/transform.h"
#include "kernels/sap/solve.h"

/* A taxel within this distance of a polygon's edge, as a fraction of the spacing, is on the
 * edge. Its cell is then shared with the neighbour across the edge, so it takes half the
 * polygon's traction (the neighbour gives the other half), and at a corner of interior angle φ
 * it takes φ/2π (the corners around a point of the surface add up to 2π): a taxel on the shared
 * edges of one contact surface's polygons — whose two copies are computed apart and differ in
 * the last bits — is counted once in all, and one on the surface's border by the half of its
 * cell that is in contact. */
#define TACTILE_EDGE_TOL ((real)1e-6)
/* Faces whose normal is more than 60° from the pad's are not the pad's: the far side, and the
 * sides of a body pressed into the pad, whose shadow along their own normal would smear their
 * force over a long strip of the pad. */
#define TACTILE_MIN_COS ((real)0.5)

typedef struct tactileArgs {
  int npad, ntaxel;        /* pads; taxels per world, all pads */
  const int *pad_geom;     /* (npad) the geometry each samples */
  const int *pad_rows, *pad_cols; /* (npad) */
  const real *pad_spacing; /* (npad) m */
  const xform *pad_X_GP;   /* (npad) the pad frame in its geometry's frame */
  const int *pad_taxel0;   /* (npad + 1) pad p's taxels in a world's row */
  hydroDev H;              /* the model's hydroelastic arrays, moduli as at this step */
  const xform *X_WG;       /* (nworld, ngeom) geometry poses of the step's start */
  sapBatch B;              /* constraints, their records and the solved velocities */
  real dt;                 /* s */
  const uint32_t *status;  /* (nworld) */
  real *force;             /* (nworld, ntaxel, 3) out: pad-frame force on the geometry, N */
  real *pressure;          /* (nworld, ntaxel) out: −f_z / spacing², Pa */
} tactileArgs;

/* Grid index nearest to pad coordinate u (m) along an axis of n taxels, clamped to the grid. */
static inline ISO_HD int tactile_nearest(real u, real s, int n) {
  real k = floor(u / s + (real)(n - 1) * (real)0.5 + (real)0.5);
  if (k < 0) k = 0;
  if (k > (real)(n - 1)) k = (real)(n - 1);
  return (int)k;
}

/* The grid indices [lo, hi] along an axis of n taxels whose coordinate may lie in [a, b] (m),
 * one taxel wider on each side than the rounding needs; hi < lo when none. */
static inline ISO_HD void tactile_span(real a, real b, real s, int n, int *lo, int *hi) {
  real l = floor(a / s + (real)(n - 1) * (real)0.5) - 1, h = ceil(b / s + (real)(n - 1) * (real)0.5) + 1;
  /* clamped before the casts (a far shadow, or a NaN one, is out of int range) */
  if (!(l >= 0)) l = 0;
  if (l > (real)n) l = (real)n;
  if (!(h <= (real)(n - 1))) h = (real)(n - 1);
  if (h < (real)-1) h = -1;
  *lo = (int)l;
  *hi = l > h ? (int)l - 1 : (int)h;
}

/* The polygon of face record r of world w (the whole polygon, or its fan triangle), world
 * frame, counter-clockwise about r->normal; its vertex count, 0 when it is gone. */
static inline ISO_HD int tactile_polygon(const tactileArgs *a, int w, const contactRec *r, vec3 poly[HYDRO_MAX_POLY]) {
  const hydroDev *H = &a->H;
  const xform *X = a->X_WG + (long)w * H->ngeom;
  hydroFace f;
  if (!hs_face_compute(H, r->pair, r->elem_m, r->elem_n, X[r->geom_m], X[r->geom_n], *wf_at(H->geom_E, w, r->geom_m, 1),
                       *wf_at(H->geom_E, w, r->geom_n, 1), &f))
    return 0;
  if (r->part < 0) {
    for (int k = 0; k < f.nvert; ++k) poly[k] = f.vert[k];
    return f.nvert;
  }
  vec3 tri[HYDRO_MAX_POLY][3];
  real tp[HYDRO_MAX_POLY][3];
  hydro_face_fan(&f, tri, tp);
  for (int k = 0; k < 3; ++k) poly[k] = tri[r->part][k];
  return 3;
}

/* Spread a face's force f_P (pad frame, on the pad's geometry) over the taxels of pad p whose
 * projection along the face normal lies in its polygon: each gets f_P·s²·cos θ / area (times
 * its share when on an edge or a corner, TACTILE_EDGE_TOL). */
static inline ISO_HD void tactile_face(const tactileArgs *a, int w, int p, const contactRec *r, xform X_WP, vec3 f_P,
                                       real cos_t, real *F) {
  vec3 poly[HYDRO_MAX_POLY];
  const int n = tactile_polygon(a, w, r, poly);
  if (n < 3 || !(r->area > 0)) return;
  const int rows = a->pad_rows[p], cols = a->pad_cols[p];
  const real s = a->pad_spacing[p];
  const vec3 nP = xf_inv_vector(X_WP, r->normal); /* the polygon turns counter-clockwise about it */
  /* the polygon in the pad frame, and its shadow on the pad's plane along the normal: the
   * rectangle of taxels that can be inside */
  vec3 v[HYDRO_MAX_POLY];
  real x0 = 0, x1 = 0, y0 = 0, y1 = 0;
  for (int k = 0; k < n; ++k) {
    v[k] = xf_inv_point(X_WP, poly[k]);
    const real t = v[k].z / nP.z;
    const real x = v[k].x - t * nP.x, y = v[k].y - t * nP.y;
    if (k == 0 || x < x0) x0 = x;
    if (k == 0 || x > x1) x1 = x;
    if (k == 0 || y < y0) y0 = y;
    if (k == 0 || y > y1) y1 = y;
  }
  int ilo, ihi, jlo, jhi;
  tactile_span(y0, y1, s, rows, &ilo, &ihi);
  tactile_span(x0, x1, s, cols, &jlo, &jhi);
  /* Edge k's in-plane distance of a taxel's projection, (n̂ × e)·(x − a) / |e| — the same for
   * the taxel as for its projection, which differ along n̂ — is affine in the taxel's pad
   * coordinates (z = 0): A·x + B·y + C. Inside when none is below −tol; on the edges below +tol. */
  real A[HYDRO_MAX_POLY], B[HYDRO_MAX_POLY], C[HYDRO_MAX_POLY];
  int live[HYDRO_MAX_POLY];
  for (int k = 0; k < n; ++k) {
    const vec3 e = v3_sub(v[(k + 1) % n], v[k]);
    const real len = v3_norm(e);
    live[k] = len > 0; /* a repeated vertex bounds nothing */
    const vec3 m = live[k] ? v3_scale(v3_cross(nP, e), (real)1 / len) : v3_zero();
    A[k] = m.x, B[k] = m.y, C[k] = -v3_dot(m, v[k]);
  }
  const vec3 df = v3_scale(f_P, s * s * cos_t / r->area);
  const real tol = TACTILE_EDGE_TOL * s;
  for (int i = ilo; i <= ihi; ++i) {
    const real y = ((real)i - (real)(rows - 1) * (real)0.5) * s;
    /* the row's stretch inside every edge's half-plane (and the shadow's box: with the
     * tolerance alone, the sharp corner of a sliver, angle α, would reach tol / sin(α/2)
     * beyond its vertex), one taxel wider; the test below decides */
    real xa = x0 - tol, xb = x1 + tol;
    int empty = !(y >= y0 - tol && y <= y1 + tol);
    for (int k = 0; k < n && !empty; ++k) {
      if (!live[k]) continue;
      const real c = B[k] * y + C[k] + tol; /* inside the tolerance: A·x + c >= 0 */
      if (A[k] > 0) {
        const real t = -c / A[k];
        if (t > xa) xa = t;
      } else if (A[k] < 0) {
        const real t = -c / A[k];
        if (t < xb) xb = t;
      } else if (!(c >= 0)) {
        empty = 1; /* NaN too */
      }
    }
    if (empty) continue;
    int j0, j1;
    tactile_span(xa, xb, s, cols, &j0, &j1);
    if (j0 < jlo) j0 = jlo;
    if (j1 > jhi) j1 = jhi;
    for (int j = j0; j <= j1; ++j) {
      const real x = ((real)j - (real)(cols - 1) * (real)0.5) * s;
      if (!(x >= x0 - tol && x <= x1 + tol)) continue;
      int out = 0, near = 0, e0 = -1, e1 = -1;
      for (int k = 0; k < n && !out; ++k) {
        if (!live[k]) continue;
        const real d = A[k] * x + B[k] * y + C[k];
        if (!(d >= -tol)) out = 1; /* NaN too */
        else if (d < tol) {
          e1 = e0, e0 = k;
          ++near;
        }
      }
      if (out) continue;
      real share = 1;
      if (near == 1) {
        share = (real)0.5;
      } else if (near == 2 && (e1 + 1 == e0 || (e1 == 0 && e0 == n - 1))) {
        /* the corner between consecutive edges e1 → e0 (or the last and the first) */
        const int c = e1 + 1 == e0 ? e0 : 0;
        const vec3 u = v3_sub(v[(c + 1) % n], v[c]), b = v3_sub(v[(c + n - 1) % n], v[c]);
        share = atan2(v3_dot(v3_cross(u, b), nP), v3_dot(u, b)) / ((real)2 * (real)3.14159265358979323846);
      } else if (near >= 2) {
        continue; /* the polygon is within the tolerance of the taxel: it carries nothing */
      }
      const int t = i * cols + j;
      F[3 * t] += share * df.x, F[3 * t + 1] += share * df.y, F[3 * t + 2] += share * df.z;
    }
  }
}

/* Pad p of world w: every contact constraint on its geometry, facing it, sampled. */
static inline ISO_HD void tactile_item(const tactileArgs *a, int w, int p) {
  const int t0 = a->pad_taxel0[p], nt = a->pad_taxel0[p + 1] - t0;
  real *F = a->force + 3 * ((long)w * a->ntaxel + t0);
  real *P = a->pressure + (long)w * a->ntaxel + t0;
  for (int k = 0; k < 3 * nt; ++k) F[k] = 0;
  if (!(a->status[w] & ISO_WORLD_FROZEN)) {
    const sapBatch *B = &a->B;
    const int g = a->pad_geom[p];
    const xform X_WP = xf_mul(a->X_WG[(long)w * a->H.ngeom + g], a->pad_X_GP[p]);
    const vec3 zP = xf_vector(X_WP, v3(0, 0, 1));
    const sapCon *con = B->con + (long)w * B->max_con;
    const contactRec *list = B->list + (long)w * B->max_list;
    const sapClique *cl = sap_batch_cliques(B, w);
    const real *v = B->v + (long)w * B->nv;
    for (int k = 0; k < B->ncontact[w]; ++k) {
      const sapCon *c = con + k;
      if (c->kind != SAP_CON_CONTACT) continue;
      const contactRec *r = list + c->contact;
      /* the record's normal n̂_BA points out of B (N) into A (M); γ acts on B, −γ on A */
      const real side = r->geom_n == g ? (real)1 : r->geom_m == g ? (real)-1 : (real)0;
      if (side == 0) continue;
      const real cos_t = side * v3_dot(r->normal, zP);
      if (!(cos_t > TACTILE_MIN_COS)) continue;
      const sapJac j = sap_con_jac(B, w, c);
      real gam[SAP_MAX_ROWS];
      for (int q = 0; q < SAP_MAX_ROWS; ++q) gam[q] = 0;
      sap_con_eval(c, &j, cl, v, gam, (real *)0);
      vec3 fW = v3_zero();
      for (int q = 0; q < 3; ++q) fW = v3_axpy(fW, side * gam[q] / a->dt, m3_col(j.R_WC, q));
      const vec3 f_P = xf_inv_vector(X_WP, fW);
      if (contact_is_point(r)) {
        const vec3 x = xf_inv_point(X_WP, r->point);
        const int t = tactile_nearest(x.y, a->pad_spacing[p], a->pad_rows[p]) * a->pad_cols[p] +
                      tactile_nearest(x.x, a->pad_spacing[p], a->pad_cols[p]);
        F[3 * t] += f_P.x, F[3 * t + 1] += f_P.y, F[3 * t + 2] += f_P.z;
      } else {
        tactile_face(a, w, p, r, X_WP, f_P, cos_t, F);
      }
    }
  }
  const real s = a->pad_spacing[p];
  for (int k = 0; k < nt; ++k) P[k] = (real)0 - F[3 * k + 2] / (s * s); /* +0 where nothing pressed */
}

#endif
