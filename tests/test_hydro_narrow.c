/* The hydroelastic narrow phase (kernels/hydro/narrow.h): tet–tet (drake_algorithms §2.1),
 * rigid triangle–tet (§2.2), tet–rigid half-space (§2.3), rigid triangle–compliant half-space
 * (§2.4). Each random test compares against a brute-force reference written here: the region
 * {x on a plane : a_k·x + b_k <= 0 for all k} is computed in 2D by enumerating the pairwise
 * intersections of the constraint lines that satisfy all constraints and sorting them by angle
 * (no clipping), giving its area and centroid. Coordinates, gradients and field values are O(1)
 * (|x| <= 2, |g| <= 4), so absolute tolerances are used with the reason next to each. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "kernels/hydro/narrow.h"
#include "support/support.h"

#define PI 3.14159265358979323846

/* ---- helpers -------------------------------------------------------------------------------- */

static vec3 rand_v3(test_rng *r, double lo, double hi) {
  double x = test_rng_uniform(r, lo, hi);
  double y = test_rng_uniform(r, lo, hi);
  double z = test_rng_uniform(r, lo, hi);
  return v3(x, y, z);
}

static vec3 rand_unit(test_rng *r) {
  for (;;) {
    vec3 v = rand_v3(r, -1, 1);
    double n = v3_norm(v);
    if (n > 0.1 && n <= 1) return v3_scale(v, 1 / n);
  }
}

static double vol6(const vec3 t[4]) {
  return v3_dot(v3_cross(v3_sub(t[1], t[0]), v3_sub(t[2], t[0])), v3_sub(t[3], t[0]));
}

/* A random positively oriented tet with vertices in centre ± half, |6V| > 0.05·(2·half)³/8. */
static void rand_tet(test_rng *r, vec3 centre, double half, vec3 t[4]) {
  for (;;) {
    for (int k = 0; k < 4; ++k) t[k] = v3_add(centre, rand_v3(r, -half, half));
    double v = vol6(t);
    if (fabs(v) < 0.05 * half * half * half) continue;
    if (v < 0) {
      vec3 s = t[0];
      t[0] = t[1];
      t[1] = s;
    }
    return;
  }
}

/* A half-space a·x + b <= 0 with unit a. */
typedef struct {
  vec3 a;
  double b;
} hs;

/* The 4 half-spaces of tet t, built without the kernel's face table: face k is the plane
 * through the three vertices other than k, oriented so that vertex k is inside. */
static void tet_halfspaces(const vec3 t[4], hs out[4]) {
  for (int k = 0; k < 4; ++k) {
    vec3 p[3];
    int m = 0;
    for (int j = 0; j < 4; ++j)
      if (j != k) p[m++] = t[j];
    vec3 a = v3_normalize(v3_cross(v3_sub(p[1], p[0]), v3_sub(p[2], p[0])));
    if (v3_dot(a, v3_sub(t[k], p[0])) > 0) a = v3_neg(a);
    out[k].a = a;
    out[k].b = -v3_dot(a, p[0]);
  }
}

/* The 3 edge half-spaces of triangle tri within its plane (the side containing the triangle). */
static void tri_halfspaces(const vec3 tri[3], hs out[3]) {
  vec3 nt = v3_cross(v3_sub(tri[1], tri[0]), v3_sub(tri[2], tri[0]));
  for (int k = 0; k < 3; ++k) {
    vec3 p = tri[k], q = tri[(k + 1) % 3], o = tri[(k + 2) % 3];
    vec3 a = v3_normalize(v3_cross(v3_sub(q, p), nt));
    if (v3_dot(a, v3_sub(o, p)) > 0) a = v3_neg(a);
    out[k].a = a;
    out[k].b = -v3_dot(a, p);
  }
}

/* Largest violation of the half-spaces at x (<= 0 inside). */
static double hs_violation(const hs *h, int k, vec3 x) {
  double m = -INFINITY;
  for (int i = 0; i < k; ++i) {
    double s = v3_dot(h[i].a, x) + h[i].b;
    if (s > m) m = s;
  }
  return m;
}

/* Brute-force region on the plane {x : nrm·(x − o) = 0} (nrm unit) inside all half-spaces:
 * returns its area and writes its centroid (o when the area is 0). */
static double plane_region(vec3 o, vec3 nrm, const hs *h, int k, vec3 *centroid) {
  vec3 e1 = v3_normalize(v3_cross(nrm, fabs(nrm.x) < 0.6 ? v3(1, 0, 0) : v3(0, 1, 0)));
  vec3 e2 = v3_cross(nrm, e1);
  double A[16], B[16], C[16];
  int m = 0;
  *centroid = o;
  for (int i = 0; i < k; ++i) {
    double a = v3_dot(h[i].a, e1), b = v3_dot(h[i].a, e2), c = v3_dot(h[i].a, o) + h[i].b;
    double l = sqrt(a * a + b * b);
    if (l < 1e-12) { /* the constraint is parallel to the plane: all or nothing */
      if (c > 1e-12) return 0;
      continue;
    }
    A[m] = a / l, B[m] = b / l, C[m] = c / l;
    ++m;
  }
  double px[256], py[256];
  int np = 0;
  for (int i = 0; i < m; ++i)
    for (int j = i + 1; j < m; ++j) {
      double det = A[i] * B[j] - A[j] * B[i];
      if (fabs(det) < 1e-14) continue;
      double x = (-C[i] * B[j] + C[j] * B[i]) / det, y = (-A[i] * C[j] + A[j] * C[i]) / det;
      int ok = 1;
      for (int l = 0; l < m && ok; ++l) ok = A[l] * x + B[l] * y + C[l] <= 1e-12;
      if (ok && np < 256) px[np] = x, py[np] = y, ++np;
    }
  if (np < 3) return 0;
  double mx = 0, my = 0;
  for (int i = 0; i < np; ++i) mx += px[i] / np, my += py[i] / np;
  double ang[256];
  for (int i = 0; i < np; ++i) ang[i] = atan2(py[i] - my, px[i] - mx);
  for (int i = 1; i < np; ++i)
    for (int j = i; j > 0 && ang[j - 1] > ang[j]; --j) {
      double t = ang[j]; ang[j] = ang[j - 1]; ang[j - 1] = t;
      t = px[j]; px[j] = px[j - 1]; px[j - 1] = t;
      t = py[j]; py[j] = py[j - 1]; py[j - 1] = t;
    }
  double a2 = 0, cx = 0, cy = 0;
  for (int i = 0; i < np; ++i) {
    int j = (i + 1) % np;
    double w = px[i] * py[j] - px[j] * py[i];
    a2 += w;
    cx += (px[i] + px[j]) * w;
    cy += (py[i] + py[j]) * w;
  }
  if (fabs(a2) > 0) *centroid = v3_add(o, v3_add(v3_scale(e1, cx / (3 * a2)), v3_scale(e2, cy / (3 * a2))));
  return 0.5 * fabs(a2);
}

/* Independent filter: the angle between u and v is below 5π/8. */
static int aligned(vec3 u, vec3 v) {
  double nu = v3_norm(u), nv = v3_norm(v);
  if (nu == 0 || nv == 0) return 1; /* a zero vector normalises to zero: 0 > cos(5π/8) */
  return v3_dot(u, v) / (nu * nv) > cos(5 * PI / 8);
}

/* Checks every face shares: count, counter-clockwise convex winding about the normal, the
 * normal against the expected one, area and centroid against the reference. */
static void check_face_shape(const hydroFace *f, vec3 nhat, double area_ref, vec3 cen_ref, const char *what,
                             int trial) {
  cr_assert(f->nvert >= 3 && f->nvert <= HYDRO_MAX_POLY, "%s %d: %d vertices", what, trial, f->nvert);
  /* |normal| = 1 to rounding of one normalisation */
  cr_assert(fabs(v3_norm(f->normal) - 1) <= 1e-15, "%s %d: normal not unit", what, trial);
  /* the normal comes from the vertices: its error is ~ (vertex rounding ~1e-15)·perimeter/area,
   * so it is only checked tightly where the polygon is not a sliver */
  if (f->area > 1e-4)
    cr_assert(v3_max_abs(v3_sub(f->normal, nhat)) <= 1e-9, "%s %d: normal off by %g", what, trial,
              v3_max_abs(v3_sub(f->normal, nhat)));
  else
    cr_assert(v3_dot(f->normal, nhat) > 0, "%s %d: sliver normal flipped", what, trial);
  for (int i = 0; i < f->nvert; ++i) {
    vec3 p = f->vert[(i + f->nvert - 1) % f->nvert], c = f->vert[i], q = f->vert[(i + 1) % f->nvert];
    /* convex and counter-clockwise: each turn is non-negative about the normal; collinear
     * clipping vertices give turns of rounding size (~1e-16 for O(1) edges) */
    cr_assert(v3_dot(v3_cross(v3_sub(c, p), v3_sub(q, c)), nhat) >= -1e-13, "%s %d: turn %d negative", what,
              trial, i);
  }
  /* reference vertices accepted within 1e-12 of the constraints, perimeter < 10: area error
   * < 1e-11; the kernel's own rounding is ~1e-15; 1e-9 leaves margin */
  cr_assert(fabs(f->area - area_ref) <= 1e-9, "%s %d: area %.17g vs reference %.17g", what, trial, f->area,
            area_ref);
  /* centroid error ~ area error·perimeter/area: < 1e-10/1e-2 where checked */
  if (area_ref > 1e-2)
    cr_assert(v3_max_abs(v3_sub(f->centroid, cen_ref)) <= 1e-8, "%s %d: centroid off by %g", what, trial,
              v3_max_abs(v3_sub(f->centroid, cen_ref)));
}

/* ---- tet–tet -------------------------------------------------------------------------------- */

typedef struct {
  vec3 tM[4], tN[4], gM, gN;
  double cM, cN;
} tt_case;

static void rand_tt(test_rng *r, tt_case *k) {
  rand_tet(r, rand_v3(r, -0.3, 0.3), 1, k->tM);
  rand_tet(r, rand_v3(r, -0.3, 0.3), 1, k->tN);
  /* fields mostly increasing into opposite directions (so most pairs pass the filter), with
   * enough spread that some do not */
  vec3 u = rand_unit(r);
  k->gM = v3_add(v3_scale(u, test_rng_uniform(r, 0.5, 2)), rand_v3(r, -1, 1));
  k->gN = v3_add(v3_scale(u, -test_rng_uniform(r, 0.5, 2)), rand_v3(r, -1, 1));
  k->cM = test_rng_uniform(r, -1, 1);
  k->cN = test_rng_uniform(r, -1, 1);
}

/* Reference for a tet–tet case: filter, plane, area and centroid of plane ∩ tetM ∩ tetN. */
static double tt_reference(const tt_case *k, int *pass, vec3 *nhat, vec3 *cen) {
  vec3 n = v3_sub(k->gM, k->gN);
  double len = v3_norm(n);
  *pass = len > 0 && aligned(n, k->gM) && aligned(v3_neg(n), k->gN);
  if (!*pass) return 0;
  *nhat = v3_scale(n, 1 / len);
  vec3 o = v3_scale(*nhat, (k->cN - k->cM) / len); /* f_M(o) = f_N(o) */
  hs h[8];
  /* a different constraint order from the kernel's: tet N's faces first, in reverse */
  tet_halfspaces(k->tN, h);
  tet_halfspaces(k->tM, h + 4);
  hs rev[8];
  for (int i = 0; i < 8; ++i) rev[i] = h[7 - i];
  return plane_region(o, *nhat, rev, 8, cen);
}

Test(tet_tet, random_pairs_match_brute_force) {
  test_rng r = {42};
  int faces = 0, big = 0, filtered = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    tt_case k;
    rand_tt(&r, &k);
    int pass;
    vec3 nhat = v3_zero(), cen;
    double area_ref = tt_reference(&k, &pass, &nhat, &cen);
    hydroFace f;
    int got = hydro_tet_tet(k.tM, k.gM, k.cM, k.tN, k.gN, k.cN, &f);
    if (!pass) {
      cr_assert_eq(got, 0, "trial %d: the gradient filter should reject", trial);
      ++filtered;
      continue;
    }
    if (!got) {
      /* no face: the region is empty or a sliver that duplicate removal collapsed */
      cr_assert(area_ref <= 1e-9, "trial %d: missed a face of area %g", trial, area_ref);
      continue;
    }
    ++faces;
    big += area_ref > 1e-2;
    check_face_shape(&f, nhat, area_ref, cen, "tet_tet", trial);
    hs hM[4], hN[4];
    tet_halfspaces(k.tM, hM);
    tet_halfspaces(k.tN, hN);
    for (int i = 0; i < f.nvert; ++i) {
      vec3 x = f.vert[i];
      double fm = hydro_field_eval(k.gM, k.cM, x), fn = hydro_field_eval(k.gN, k.cN, x);
      /* (a) on the equilibrium plane: field values O(10) through one slice interpolation and
       * up to 4 clip interpolations; 1e-12 is a few hundred ulps of 10 */
      cr_assert(fabs(fm - fn) <= 1e-12, "trial %d: f_M − f_N = %g at vertex %d", trial, fm - fn, i);
      /* (b) inside both tets (signed distances to the faces, O(1) coordinates) */
      cr_assert(hs_violation(hM, 4, x) <= 1e-12, "trial %d: vertex %d outside tet M", trial, i);
      cr_assert(hs_violation(hN, 4, x) <= 1e-12, "trial %d: vertex %d outside tet N", trial, i);
      /* pressures from field M: the same expression (a few ulps of O(10) allowed for
       * contraction differences) */
      cr_assert(fabs(f.vert_p[i] - fm) <= 1e-13);
    }
    /* p0 by the face field at the centroid equals field M there (O(10) values) */
    cr_assert(fabs(f.p0 - hydro_field_eval(k.gM, k.cM, f.centroid)) <= 1e-12, "trial %d: p0", trial);
    cr_assert(f.grad_M.x == k.gM.x && f.grad_M.y == k.gM.y && f.grad_M.z == k.gM.z);
    cr_assert(f.grad_N.x == k.gN.x && f.grad_N.y == k.gN.y && f.grad_N.z == k.gN.z);
    /* gM = ∇e_M·n̂, gN = −∇e_N·n̂ (O(4) values: 1e-14) */
    cr_assert(fabs(f.gM - v3_dot(k.gM, f.normal)) <= 1e-14 && fabs(f.gN + v3_dot(k.gN, f.normal)) <= 1e-14);
  }
  /* the draw exercised both branches substantially */
  cr_assert(faces > 500 && big > 200 && filtered > 50, "faces %d, big %d, filtered %d", faces, big, filtered);
}

/* Swapping M and N flips the normal and swaps the gradients; area, centroid, p0 and the vertex
 * set are unchanged to rounding. */
Test(tet_tet, swap_m_and_n) {
  test_rng r = {7};
  int compared = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    tt_case k;
    rand_tt(&r, &k);
    hydroFace a, b;
    int ga = hydro_tet_tet(k.tM, k.gM, k.cM, k.tN, k.gN, k.cN, &a);
    int gb = hydro_tet_tet(k.tN, k.gN, k.cN, k.tM, k.gM, k.cM, &b);
    if (ga && a.area < 1e-6) continue; /* slivers may fall either side of the duplicate threshold */
    if (gb && b.area < 1e-6) continue;
    cr_assert_eq(ga, gb, "trial %d: one order made a face, the other not", trial);
    if (!ga) continue;
    ++compared;
    /* different slicing and clipping sequences of the same region: O(1) values agree to a few
     * hundred ulps; the normal from the vertices as in check_face_shape */
    cr_assert(fabs(a.area - b.area) <= 1e-12, "trial %d: area %.17g vs %.17g", trial, a.area, b.area);
    if (a.area > 1e-4) cr_assert(v3_max_abs(v3_add(a.normal, b.normal)) <= 1e-9, "trial %d: normal", trial);
    if (a.area > 1e-2) {
      cr_assert(v3_max_abs(v3_sub(a.centroid, b.centroid)) <= 1e-10, "trial %d: centroid", trial);
      /* p0 from field M vs field N at centroids 1e-10 apart, |g| < 4 */
      cr_assert(fabs(a.p0 - b.p0) <= 1e-9, "trial %d: p0 %.17g vs %.17g", trial, a.p0, b.p0);
      cr_assert(fabs(a.gM - b.gN) <= 1e-8 && fabs(a.gN - b.gM) <= 1e-8, "trial %d: gM/gN swap", trial);
    }
    cr_assert(a.grad_M.x == b.grad_N.x && a.grad_M.y == b.grad_N.y && a.grad_M.z == b.grad_N.z);
    cr_assert(a.grad_N.x == b.grad_M.x && a.grad_N.y == b.grad_M.y && a.grad_N.z == b.grad_M.z);
    cr_assert_eq(a.nvert, b.nvert, "trial %d: vertex count", trial);
    for (int i = 0; i < a.nvert; ++i) {
      double best = INFINITY;
      for (int j = 0; j < b.nvert; ++j) {
        double d = v3_max_abs(v3_sub(a.vert[i], b.vert[j]));
        if (d < best) best = d;
      }
      cr_assert(best <= 1e-12, "trial %d: vertex %d has no partner (%g)", trial, i, best);
    }
  }
  cr_assert(compared > 200, "compared %d", compared);
}

/* Inverted tets (FEM elements can invert) give the same face as their positive twins
 * (documented deviation from Drake, which would clip to nothing). */
Test(tet_tet, inverted_tets) {
  test_rng r = {9};
  int compared = 0;
  for (int trial = 0; trial < 1500; ++trial) {
    tt_case k;
    rand_tt(&r, &k);
    hydroFace a, b;
    int ga = hydro_tet_tet(k.tM, k.gM, k.cM, k.tN, k.gN, k.cN, &a);
    tt_case m = k;
    vec3 s = m.tM[0]; m.tM[0] = m.tM[1]; m.tM[1] = s;
    s = m.tN[2]; m.tN[2] = m.tN[3]; m.tN[3] = s;
    int gb = hydro_tet_tet(m.tM, m.gM, m.cM, m.tN, m.gN, m.cN, &b);
    if (!ga || a.area < 1e-6) continue;
    cr_assert(gb, "trial %d", trial);
    ++compared;
    cr_assert(fabs(a.area - b.area) <= 1e-12 && v3_dot(a.normal, b.normal) > 1 - 1e-9, "trial %d", trial);
  }
  cr_assert(compared > 100, "compared %d", compared);
}

static void std_tet(vec3 t[4], double s) {
  t[0] = v3(0, 0, 0), t[1] = v3(s, 0, 0), t[2] = v3(0, s, 0), t[3] = v3(0, 0, s);
}

/* The equilibrium plane contains a face of each tet: the two tets share the face z = 0. */
Test(tet_tet, coplanar_shared_face) {
  vec3 tM[4], tN[4];
  std_tet(tM, 1);
  tN[0] = v3(0, 0, 0), tN[1] = v3(0, 1, 0), tN[2] = v3(1, 0, 0), tN[3] = v3(0, 0, -1);
  cr_assert(vol6(tN) > 0);
  hydroFace f;
  /* f_M = z (increasing into M, above), f_N = −z (into N, below): plane z = 0, n̂ = +z */
  cr_assert(hydro_tet_tet(tM, v3(0, 0, 1), 0, tN, v3(0, 0, -1), 0, &f));
  cr_assert(fabs(f.area - 0.5) <= 1e-15, "area %.17g", f.area); /* exact inputs, a few roundings */
  /* a normalisation: an ulp or two */
  cr_assert(fabs(f.normal.z - 1) <= 4e-16 && fabs(f.gM - 1) <= 4e-16 && fabs(f.gN - 1) <= 4e-16);
  cr_assert_eq(f.nvert, 3);
  for (int i = 0; i < 3; ++i) cr_assert(f.vert[i].z == 0 && f.vert_p[i] == 0);
}

/* Tets touching at one vertex only: the slice collapses to a point, no face. A tet sharing a
 * vertex with the other but overlapping it gives the brute-force area. */
Test(tet_tet, shared_vertex) {
  vec3 tM[4], tN[4];
  std_tet(tM, 1);
  std_tet(tN, -1); /* mirrored through the origin: negative, swap to positive */
  vec3 s = tN[0]; tN[0] = tN[1]; tN[1] = s;
  cr_assert(vol6(tN) > 0);
  hydroFace f;
  cr_assert_eq(hydro_tet_tet(tM, v3(1, 1, 1), 0, tN, v3(-1, -1, -1), 0, &f), 0);

  test_rng r = {11};
  int faces = 0;
  for (int trial = 0; trial < 300; ++trial) {
    tt_case k;
    rand_tt(&r, &k);
    k.tN[0] = k.tM[2]; /* shared vertex */
    if (vol6(k.tN) < 0.01) continue;
    int pass;
    vec3 nhat = v3_zero(), cen;
    double area_ref = tt_reference(&k, &pass, &nhat, &cen);
    int got = hydro_tet_tet(k.tM, k.gM, k.cM, k.tN, k.gN, k.cN, &f);
    if (!pass || !got) {
      cr_assert(!got && area_ref <= 1e-9, "trial %d", trial);
      continue;
    }
    ++faces;
    check_face_shape(&f, nhat, area_ref, cen, "shared vertex", trial);
  }
  cr_assert(faces > 30, "faces %d", faces);
}

/* Identical gradients: no equilibrium plane (§2.1 step 1), whatever the offsets. */
Test(tet_tet, identical_gradients) {
  vec3 tM[4], tN[4];
  std_tet(tM, 1);
  std_tet(tN, 1);
  hydroFace f;
  cr_assert_eq(hydro_tet_tet(tM, v3(0.5, -1, 2), 0, tN, v3(0.5, -1, 2), 0.3, &f), 0);
  cr_assert_eq(hydro_tet_tet(tM, v3(0.5, -1, 2), 0, tN, v3(0.5, -1, 2), 0, &f), 0);
  cr_assert_eq(hydro_tet_tet(tM, v3_zero(), 1, tN, v3_zero(), 0, &f), 0);
}

/* Opposed gradients are rejected by the 5π/8 filter even though the tets overlap. */
Test(tet_tet, gradient_filter) {
  vec3 tM[4], tN[4];
  std_tet(tM, 1);
  std_tet(tN, 1);
  hydroFace f;
  /* control: opposite fields, plane z = 0.25 */
  cr_assert(hydro_tet_tet(tM, v3(0, 0, 1), 0, tN, v3(0, 0, -1), 0.5, &f));
  /* n = gM − gN = (0, 0, −2): n̂ against ĝM */
  cr_assert_eq(hydro_tet_tet(tM, v3(0, 0, 1), 0, tN, v3(0, 0, 3), 0.5, &f), 0);
  /* n = (0, 0, 2) along ĝM but −n̂ against ĝN */
  cr_assert_eq(hydro_tet_tet(tM, v3(0, 0, 3), -0.5, tN, v3(0, 0, 1), 0, &f), 0);
  /* just inside/outside the cone of half-angle 5π/8 for ĝM, with −n̂ = ĝN exactly:
   * gN = −z, gM = a·(sin θ, 0, cos θ) with a chosen so that n = gM − gN makes angle θ' with gM */
  for (int side = 0; side < 2; ++side) {
    /* with gN = (0,0,−L) huge, n ≈ gN direction flipped = +z, and the angle between n̂ and ĝM
     * is ≈ θ; L = 1e6 makes the difference below 1e-6 rad, and θ = 5π/8 ∓ 1e-3 */
    double th = 5 * PI / 8 + (side ? 1e-3 : -1e-3), L = 1e6;
    vec3 gM = v3(sin(th), 0, cos(th)), gN = v3(0, 0, -L);
    int got = hydro_tet_tet(tM, gM, 0, tN, gN, L * 0.25, &f); /* plane z ≈ 0.25 */
    cr_assert_eq(got, side ? 0 : 1, "θ = 5π/8 %s 1e-3", side ? "+" : "−");
  }
}

/* Polygons collapsing to fewer than 3 vertices after duplicate removal: a tet far below the
 * duplicate threshold, and a plane through an edge of tet M only. */
Test(tet_tet, collapse_below_three_vertices) {
  vec3 tiny[4], big[4];
  std_tet(tiny, 1e-15);
  for (int k = 0; k < 4; ++k) big[k] = v3_add(v3(-1, -1, -1), v3_scale(v3_sub(tiny[k], tiny[0]), 1e15 * 4));
  cr_assert(vol6(big) > 0);
  hydroFace f;
  cr_assert_eq(hydro_tet_tet(tiny, v3(0, 0, 1), 0, big, v3(0, 0, -1), 1e-15, &f), 0, "sub-1e-14 polygon");
  /* plane x + y = 1 through edge (1,0,0)–(0,1,0) of M; the rest of M below: code 0000 or a
   * two-point degenerate polygon */
  vec3 tM[4];
  std_tet(tM, 1);
  cr_assert_eq(hydro_tet_tet(tM, v3(-1, -1, 0), 0, big, v3(1, 1, 0), -2, &f), 0);
  cr_assert_eq(hydro_tet_tet(tM, v3(1, 1, 0), -2, big, v3(-1, -1, 0), 0, &f), 0);
}

/* ---- triangle–tet --------------------------------------------------------------------------- */

Test(tri_tet, random_pairs_match_brute_force) {
  test_rng r = {42};
  int faces = 0, big = 0, filtered = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    vec3 tet[4], tri[3];
    rand_tet(&r, v3_zero(), 1, tet);
    for (int i = 0; i < 3; ++i) tri[i] = rand_v3(&r, -1.5, 1.5);
    vec3 wn = v3_cross(v3_sub(tri[1], tri[0]), v3_sub(tri[2], tri[0]));
    if (v3_norm(wn) < 0.05) continue;
    vec3 nt = v3_normalize(wn);
    /* one in four: the caller's normal disagrees with the winding; the normal wins */
    if (trial % 4 == 3) nt = v3_neg(nt);
    vec3 g = v3_add(v3_scale(nt, test_rng_uniform(&r, 0, 2)), rand_v3(&r, -1.5, 1.5));
    double c = test_rng_uniform(&r, -1, 1);
    hydroFace f;
    int got = hydro_tri_tet(tri, nt, tet, g, c, &f);
    if (!aligned(nt, g)) {
      cr_assert_eq(got, 0, "trial %d: normal filter", trial);
      ++filtered;
      continue;
    }
    hs h[7];
    tri_halfspaces(tri, h);
    tet_halfspaces(tet, h + 3);
    vec3 cen;
    double area_ref = plane_region(tri[0], nt, h, 7, &cen);
    if (!got) {
      cr_assert(area_ref <= 1e-9, "trial %d: missed a face of area %g", trial, area_ref);
      continue;
    }
    ++faces;
    big += area_ref > 1e-2;
    check_face_shape(&f, nt, area_ref, cen, "tri_tet", trial);
    for (int i = 0; i < f.nvert; ++i) {
      vec3 x = f.vert[i];
      /* on the triangle's plane and inside the triangle and the tet (O(1) distances) */
      cr_assert(fabs(v3_dot(nt, v3_sub(x, tri[0]))) <= 1e-12, "trial %d: off the triangle plane", trial);
      cr_assert(hs_violation(h, 7, x) <= 1e-12, "trial %d: vertex %d outside", trial, i);
      cr_assert(fabs(f.vert_p[i] - hydro_field_eval(g, c, x)) <= 1e-13); /* same expression */
    }
    cr_assert(fabs(f.p0 - hydro_field_eval(g, c, f.centroid)) <= 1e-12);
    cr_assert(f.gN == INFINITY && f.grad_N.x == 0 && f.grad_N.y == 0 && f.grad_N.z == 0);
    cr_assert(f.grad_M.x == g.x && f.grad_M.y == g.y && f.grad_M.z == g.z);
    cr_assert(fabs(f.gM - v3_dot(g, f.normal)) <= 1e-14); /* O(4) values */
    cr_assert(f.nvert <= 7, "a triangle clipped by a tet has at most 7 vertices");
  }
  cr_assert(faces > 300 && big > 100 && filtered > 50, "faces %d, big %d, filtered %d", faces, big, filtered);
}

/* The triangle lies in the plane of a tet face (touching from outside): the face is kept
 * (signed distance 0 is inside) and the polygon is that tet face. */
Test(tri_tet, coplanar_with_tet_face) {
  vec3 tet[4], tri[3] = {{-1, -1, 0}, {3, -1, 0}, {-1, 3, 0}};
  std_tet(tet, 1);
  hydroFace f;
  cr_assert(hydro_tri_tet(tri, v3(0, 0, 1), tet, v3(0.1, 0.2, 1), 0, &f));
  /* exact inputs: a few roundings of O(1) */
  cr_assert(fabs(f.area - 0.5) <= 1e-15 && fabs(f.normal.z - 1) <= 4e-16 && f.nvert == 3);
  /* a shared vertex only: the triangle touches the tet at the origin */
  vec3 tri2[3] = {{0, 0, 0}, {-1, 0, 0}, {0, -1, 0}};
  cr_assert_eq(hydro_tri_tet(tri2, v3(0, 0, -1), tet, v3(0, 0, -1), 0, &f), 0);
}

/* The normal filter: n̂_tri·ĝ > cos(5π/8), strictly, on both sides of the threshold. */
Test(tri_tet, normal_filter) {
  vec3 tet[4], tri[3] = {{-1, -1, 0.2}, {3, -1, 0.2}, {-1, 3, 0.2}};
  std_tet(tet, 1);
  hydroFace f;
  cr_assert_eq(hydro_tri_tet(tri, v3(0, 0, 1), tet, v3(0, 0, -1), 0, &f), 0, "opposed");
  double lo = 5 * PI / 8 - 1e-9, hi = 5 * PI / 8 + 1e-9;
  cr_assert(hydro_tri_tet(tri, v3(0, 0, 1), tet, v3(sin(lo), 0, cos(lo)), 0, &f));
  cr_assert_eq(hydro_tri_tet(tri, v3(0, 0, 1), tet, v3(sin(hi), 0, cos(hi)), 0, &f), 0);
  cr_assert_eq((double)HYDRO_COS_MAX_ANGLE, cos(5 * PI / 8), "the literal is the double cos(5π/8)");
}

/* ---- tet–rigid half-space ------------------------------------------------------------------- */

Test(tet_halfspace, random_slices_match_brute_force) {
  test_rng r = {42};
  int faces = 0, big = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    vec3 tet[4];
    rand_tet(&r, rand_v3(&r, -1, 1), 1, tet);
    vec3 n = rand_unit(&r);
    double d = -v3_dot(n, rand_v3(&r, -1.5, 1.5));
    vec3 g = rand_v3(&r, -3, 3);
    double c = test_rng_uniform(&r, -1, 1), p[4];
    for (int k = 0; k < 4; ++k) p[k] = hydro_field_eval(g, c, tet[k]);
    hydroFace f;
    int got = hydro_tet_halfspace(tet, p, g, n, d, &f);
    hs h[4];
    tet_halfspaces(tet, h);
    vec3 cen;
    double area_ref = plane_region(v3_scale(n, -d), n, h, 4, &cen);
    if (!got) {
      cr_assert(area_ref <= 1e-9, "trial %d: missed a slice of area %g", trial, area_ref);
      continue;
    }
    ++faces;
    big += area_ref > 1e-2;
    check_face_shape(&f, n, area_ref, cen, "tet_halfspace", trial);
    cr_assert(f.nvert <= 4);
    for (int i = 0; i < f.nvert; ++i) {
      vec3 x = f.vert[i];
      cr_assert(fabs(v3_dot(n, x) + d) <= 1e-12, "trial %d: off the boundary", trial);
      cr_assert(hs_violation(h, 4, x) <= 1e-12, "trial %d: outside the tet", trial);
      /* interpolated vertex pressures equal the linear field (values O(10), 1e-12 margin) */
      cr_assert(fabs(f.vert_p[i] - hydro_field_eval(g, c, x)) <= 1e-12, "trial %d: pressure", trial);
    }
    cr_assert(fabs(f.p0 - hydro_field_eval(g, c, f.centroid)) <= 1e-12);
    cr_assert(f.gN == INFINITY && f.grad_M.x == g.x && fabs(f.gM - v3_dot(g, f.normal)) <= 1e-14);
  }
  cr_assert(faces > 500 && big > 300, "faces %d, big %d", faces, big);
}

/* Touching the boundary at a vertex, along an edge, with a face; no gradient filter. */
Test(tet_halfspace, touching_cases) {
  vec3 tet[4];
  std_tet(tet, 1);
  double p[4] = {1, 0, 0, 0};
  hydroFace f;
  vec3 g = v3(-1, -1, -1);
  /* vertex 0 on the plane x + y + z = 0, the tet outside (above) or the plane normal reversed */
  vec3 n = v3_normalize(v3(1, 1, 1));
  cr_assert_eq(hydro_tet_halfspace(tet, p, g, n, 0, &f), 0, "vertex touch, tet outside the solid");
  cr_assert_eq(hydro_tet_halfspace(tet, p, g, v3_neg(n), 0, &f), 0, "vertex touch, tet inside the solid");
  /* edge 0–1 (the x axis) on the plane y + z = 0 */
  vec3 m = v3_normalize(v3(0, 1, 1));
  cr_assert_eq(hydro_tet_halfspace(tet, p, g, m, 0, &f), 0, "edge touch, outside");
  cr_assert_eq(hydro_tet_halfspace(tet, p, g, v3_neg(m), 0, &f), 0, "edge touch, inside");
  /* face z = 0 on the plane with the tet outside the solid: the face itself (Drake slices it);
   * with the tet inside the solid the code is 0000 */
  cr_assert(hydro_tet_halfspace(tet, p, g, v3(0, 0, 1), 0, &f));
  cr_assert(fabs(f.area - 0.5) <= 1e-15 && fabs(f.normal.z - 1) <= 4e-16);
  cr_assert_eq(hydro_tet_halfspace(tet, p, g, v3(0, 0, -1), 0, &f), 0);
  /* gradient pointing away from the plane normal: still a face (no filter, §2.3) */
  cr_assert(hydro_tet_halfspace(tet, p, v3(0, 0, -5), v3(0, 0, 1), -0.5, &f));
  cr_assert(fabs(f.gM + 5) <= 1e-14); /* normal from vertices on z = 0.5: ulps */
}

/* ---- rigid triangle–compliant half-space ---------------------------------------------------- */

Test(tri_halfspace, random_triangles_match_brute_force) {
  test_rng r = {42};
  int faces = 0, big = 0, filtered = 0;
  const double Eh = 1e4; /* E/h, Pa/m: pressure tolerances scale with it */
  for (int trial = 0; trial < 3000; ++trial) {
    vec3 tri[3];
    for (int i = 0; i < 3; ++i) tri[i] = rand_v3(&r, -1, 1);
    vec3 wn = v3_cross(v3_sub(tri[1], tri[0]), v3_sub(tri[2], tri[0]));
    if (v3_norm(wn) < 0.05) continue;
    vec3 nt = v3_normalize(wn);
    /* the half-space normal mostly against the triangle normal */
    vec3 n = v3_normalize(v3_add(v3_neg(nt), rand_v3(&r, -1.2, 1.2)));
    double d = test_rng_uniform(&r, -0.8, 0.8), margin = trial % 3 ? test_rng_uniform(&r, 0, 0.1) : 0;
    hydroFace f;
    int got = hydro_tri_compliant_halfspace(tri, nt, n, d, Eh, margin, &f);
    if (!aligned(nt, v3_neg(n))) {
      cr_assert_eq(got, 0, "trial %d: normal filter", trial);
      ++filtered;
      continue;
    }
    hs h[4];
    tri_halfspaces(tri, h);
    h[3].a = n;
    h[3].b = d - margin; /* the shifted boundary */
    vec3 cen;
    double area_ref = plane_region(tri[0], nt, h, 4, &cen);
    if (!got) {
      cr_assert(area_ref <= 1e-9, "trial %d: missed a face of area %g", trial, area_ref);
      continue;
    }
    ++faces;
    big += area_ref > 1e-2;
    check_face_shape(&f, nt, area_ref, cen, "tri_halfspace", trial);
    cr_assert(f.nvert <= 4);
    for (int i = 0; i < f.nvert; ++i) {
      vec3 x = f.vert[i];
      double phi = v3_dot(n, x) + d;
      cr_assert(phi <= margin + 1e-12, "trial %d: vertex beyond the shifted boundary", trial);
      cr_assert(hs_violation(h, 3, x) <= 1e-12, "trial %d: outside the triangle", trial);
      /* p = −φ·E/h with the original φ; the same expression up to the product order */
      cr_assert(fabs(f.vert_p[i] + phi * Eh) <= 1e-12 * Eh, "trial %d: pressure", trial);
    }
    cr_assert(fabs(f.p0 + (v3_dot(n, f.centroid) + d) * Eh) <= 1e-12 * Eh, "trial %d: p0", trial);
    cr_assert(f.grad_M.x == -Eh * n.x && f.grad_M.y == -Eh * n.y && f.grad_M.z == -Eh * n.z);
    cr_assert(f.gN == INFINITY && fabs(f.gM - v3_dot(f.grad_M, f.normal)) <= 1e-12 * Eh);
  }
  cr_assert(faces > 300 && big > 200 && filtered > 50, "faces %d, big %d, filtered %d", faces, big, filtered);
}

/* Known geometry: a unit right triangle half below z = 0 (half-space below, normal +z), triangle
 * facing down into it; the margin lets the layer above the boundary in with negative pressure. */
Test(tri_halfspace, known_cases) {
  /* a vertical triangle in the plane y = 0 (normal −y), z in [−0.5, 0.5]; a tilted half-space
   * whose boundary meets that plane along z = 0 */
  vec3 tri[3] = {{0, 0, -0.5}, {1, 0, -0.5}, {0, 0, 0.5}};
  vec3 nt = v3_normalize(v3_cross(v3_sub(tri[1], tri[0]), v3_sub(tri[2], tri[0]))); /* −y */
  vec3 n = v3_normalize(v3(0, 1, 1)); /* angle to −nt = 45°: passes the filter */
  hydroFace f;
  /* boundary y + z = 0 within the triangle's plane y = 0 is z = 0 */
  cr_assert(hydro_tri_compliant_halfspace(tri, nt, n, 0, 100, 0, &f));
  /* the part z <= 0 of the triangle: trapezoid between z = −0.5 (width 1) and z = 0 (width 0.5) */
  cr_assert(fabs(f.area - 0.375) <= 1e-15, "area %.17g", f.area);
  cr_assert(f.nvert == 4 && fabs(f.normal.y + 1) <= 4e-16);
  double p_min = INFINITY;
  for (int i = 0; i < f.nvert; ++i) p_min = fmin(p_min, f.vert_p[i]);
  cr_assert(fabs(p_min) <= 1e-13, "zero pressure on the boundary");
  /* margin 0.25·√2 along n shifts the boundary to z = 0.5 in the plane y = 0: the whole
   * triangle (area 0.5) with negative pressure above z = 0 */
  cr_assert(hydro_tri_compliant_halfspace(tri, nt, n, 0, 100, 0.5 / sqrt(2.0), &f));
  cr_assert(fabs(f.area - 0.5) <= 1e-15);
  cr_assert_eq(f.nvert, 3);
  /* the top vertex (0, 0, 0.5) has φ = 0.5/√2 */
  for (int i = 0; i < 3; ++i)
    if (f.vert[i].z > 0.4) cr_assert(fabs(f.vert_p[i] + 100 * 0.5 / sqrt(2.0)) <= 1e-12);
  /* the filter: triangle facing along +n (away from the half-space) */
  cr_assert_eq(hydro_tri_compliant_halfspace(tri, v3_neg(nt), n, 0, 100, 0, &f), 0);
  /* touching at the top vertex only: solid {z >= 0.5} */
  cr_assert_eq(hydro_tri_compliant_halfspace(tri, nt, v3(0, 0, -1), 0.5, 100, 0, &f), 0);
  /* the bottom edge on the boundary and the rest outside: solid {z <= −0.5} */
  cr_assert_eq(hydro_tri_compliant_halfspace(tri, nt, v3(0, 0, 1), 0.5, 100, 0, &f), 0);
}
