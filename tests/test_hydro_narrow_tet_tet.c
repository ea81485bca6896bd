/* The hydroelastic narrow phase (kernels/hydro/narrow.h), tet–tet (drake_algorithms §2.1): random
 * pairs against brute force, swapping M and N, inverted tets, coplanar and shared features,
 * identical gradients, the gradient filter, and faces that collapse; then, byte for byte against
 * the full path, prepared tets, the filter's shortcut, the planes formed together and the pairs
 * skipped before the slice. The brute-force tests compare against the reference of
 * tests/support/hydro_reference.h with coordinates, gradients and field values of O(1)
 * (|x| <= 2, |g| <= 4), so absolute tolerances are used with the reason next to each. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "kernels/hydro/narrow.h"
#include "support/hydro_reference.h"
#include "support/rng.h"
#include "support/support.h"

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

/* The tet–tet function as it was before prepared tets: every derived value formed per call
 * (hydro_normal_along, hydro_clip_by_tet). */
static int tt_unprepared(const tt_case *k, hydroFace *out) {
  vec3 poly[HYDRO_CLIP_CAP];
  real s[4];
  const vec3 dg = v3_sub(k->gM, k->gN);
  const real len = v3_norm(dg);
  if (!(len > 0)) return 0;
  const vec3 nhat = v3_scale(dg, 1 / len);
  if (!hydro_normal_along(nhat, k->gM) || !hydro_normal_along(v3_neg(nhat), k->gN)) return 0;
  const real off = (k->cM - k->cN) / len;
  for (int i = 0; i < 4; ++i) s[i] = v3_dot(nhat, k->tM[i]) + off;
  int n = hydro_slice_tet(k->tM, s, (const real *)0, poly, (real *)0, (int *)0);
  n = hydro_remove_near_duplicates(poly, (real *)0, n);
  if (n < 3) return 0;
  n = hydro_clip_by_tet(poly, n, k->tN);
  if (n <= 0) return 0;
  n = hydro_remove_near_duplicates(poly, (real *)0, n);
  if (n < 3) return 0;
  hydro_emit_face(out, poly, (real *)0, n, nhat, k->gM, k->cM, k->gM, k->gN, 0);
  return 1;
}

/* Prepared tets (hydroTet) kept across candidates, as the CPU's narrow phase keeps them: 12 M
 * tets against 12 N tets in a scrambled order, each tet's normalised gradient and face planes
 * formed at its first use and reused after, give every face byte for byte as the unprepared
 * function does (and hydro_tet_tet, which prepares afresh), inverted tets included. */
Test(tet_tet, prepared_tets_give_the_same_bytes) {
  test_rng r = {4242};
  int faces = 0;
  for (int rep = 0; rep < 20; ++rep) {
    tt_case base[12];
    hydroTet M[12], N[12];
    for (int i = 0; i < 12; ++i) {
      rand_tt(&r, base + i);
      if (i == 5) { /* an inverted N */
        vec3 t = base[i].tN[0];
        base[i].tN[0] = base[i].tN[1], base[i].tN[1] = t;
      }
      hydro_tet_make(M + i, base[i].tM, base[i].gM, base[i].cM);
      hydro_tet_make(N + i, base[i].tN, base[i].gN, base[i].cN);
    }
    for (int q = 0; q < 144; ++q) {
      const int a = (q * 7 + rep) % 12, b = (q * 5 + 3 * (q / 12)) % 12;
      tt_case k = base[a];
      for (int i = 0; i < 4; ++i) k.tN[i] = base[b].tN[i];
      k.gN = base[b].gN, k.cN = base[b].cN;
      hydroFace fp, fu, ff;
      memset(&fp, 0, sizeof fp), memset(&fu, 0, sizeof fu), memset(&ff, 0, sizeof ff);
      const int gp = hydro_tet_tet_prepared(M + a, N + b, &fp);
      const int gu = tt_unprepared(&k, &fu);
      const int gf = hydro_tet_tet(k.tM, k.gM, k.cM, k.tN, k.gN, k.cN, &ff);
      cr_assert_eq(gp, gu, "rep %d, M %d, N %d: prepared %d, unprepared %d", rep, a, b, gp, gu);
      cr_assert_eq(gf, gu);
      if (!gu) continue;
      ++faces;
      cr_assert(memcmp(&fp, &fu, sizeof fp) == 0, "rep %d, M %d, N %d: the faces differ", rep, a, b);
      cr_assert(memcmp(&ff, &fu, sizeof ff) == 0);
    }
  }
  cr_assert_gt(faces, 200, "the sample must make faces (%d)", faces);
}

/* The alignment filter on a vector of unit length up to rounding (hydro_unit_along, which decides
 * on u itself away from the threshold) gives the verdict of the exact test normalize(u)·a >
 * cos(5π/8) on every input: u and a placed at distances from the threshold down to a few ulps
 * (where the exact test alone decides), u off unit length by a few ulps or by far, a zero
 * gradient, and NaN or infinite components. */
Test(tet_tet, unit_filter_gives_the_exact_verdict) {
  test_rng r = {777};
  const double cmax = HYDRO_COS_MAX_ANGLE;
  const double shift[] = {0, 1e-17, -1e-17, 3e-16, -3e-16, 2e-15, -2e-15, 1e-13, -1e-13,
                          5e-13, -5e-13, 2e-12, -2e-12, 1e-9, -1e-9, 0.1, -0.1, 0.9, -0.5};
  const int nshift = (int)(sizeof shift / sizeof shift[0]);
  int near = 0, fast = 0;
  for (int rep = 0; rep < 4000; ++rep) {
    const vec3 a = v3_normalize(rand_v3(&r, -1, 1));
    vec3 b = rand_v3(&r, -1, 1); /* a unit direction perpendicular to a */
    b = v3_normalize(v3_sub(b, v3_scale(a, v3_dot(a, b))));
    const double c = cmax + shift[rep % nshift];
    vec3 u = v3_add(v3_scale(a, c), v3_scale(b, sqrt(fmax(0, 1 - c * c))));
    const int kind = (rep / nshift) % 4;
    if (kind == 1) u = v3_scale(u, 1 + 4e-16 * test_rng_uniform(&r, -1, 1)); /* a few ulps off unit */
    if (kind == 2) u = v3_scale(u, test_rng_uniform(&r, 0.5, 2));            /* far off unit */
    if (kind == 3) u = v3_normalize(u);
    const int exact = v3_dot(v3_normalize(u), a) > (real)cmax;
    cr_assert_eq(hydro_unit_along(u, a), exact, "rep %d: shift %g, kind %d", rep, shift[rep % nshift], kind);
    const double d = v3_dot(u, a);
    if (fabs(d - cmax) <= 1e-12) ++near;
    else if (fabs(v3_norm2(u) - 1) < 1e-13) ++fast;
  }
  cr_assert_gt(near, 500, "the sample must reach the threshold's band (%d)", near);
  cr_assert_gt(fast, 500, "and decide many away from it (%d)", fast);
  const vec3 odd[] = {v3(NAN, 0, 0), v3(INFINITY, 0, 0), v3(-INFINITY, 1, 0), v3(0, 0, 0), v3(1e-310, 0, 0),
                      v3(1, 0, 0), v3(-1, 0, 0)};
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 7; ++j) {
      const vec3 a = v3_normalize(odd[j]);
      cr_assert_eq(hydro_unit_along(odd[i], a), v3_dot(v3_normalize(odd[i]), a) > (real)cmax, "odd %d, %d", i, j);
    }
}

/* A tet's four clipping planes formed together (hydro_tet_planes: two faces' lengths per pair of
 * lanes on the CPU) are hydro_tet_clip_plane's bits face by face, and its sign the volume's:
 * positive and inverted tets, flat ones, NaN ones, and tets so small (1e-105 m) that a face's
 * squared length underflows to 0 while the volume does not, where the normal is zero. */
Test(tet_tet, four_planes_at_once_have_the_single_planes_bits) {
  test_rng r = {31337};
  int zero_normals = 0, planes = 0;
  for (int rep = 0; rep < 2000; ++rep) {
    vec3 t[4];
    const double scale = rep % 5 == 4 ? 1e-105 : 1;
    rand_tet(&r, v3(0, 0, 0), 1, t);
    for (int k = 0; k < 4; ++k) t[k] = v3_scale(t[k], scale);
    if (rep % 7 == 3) t[3] = t[2];                       /* flat */
    if (rep % 11 == 5) t[1] = v3(NAN, t[1].y, t[1].z); /* NaN */
    hydroTet T;
    hydro_tet_make(&T, t, v3(0, 0, 1), 0);
    hydro_tet_planes(&T);
    const real vol6 = hydro_tet_volume6(t);
    const real sgn = !(vol6 != 0) ? 0 : vol6 > 0 ? 1 : -1;
    cr_assert(memcmp(&T.sgn, &sgn, sizeof sgn) == 0, "rep %d: sign %g against %g", rep, T.sgn, sgn);
    if (sgn == 0) continue;
    for (int f = 0; f < 4; ++f) {
      vec3 nrm, point;
      hydro_tet_clip_plane(t, f, sgn, &nrm, &point);
      const vec3 fn = hydro_tet_fn(&T, f);
      cr_assert(memcmp(&fn, &nrm, sizeof nrm) == 0, "rep %d, face %d", rep, f);
      zero_normals += nrm.x == 0 && nrm.y == 0 && nrm.z == 0;
      ++planes;
    }
  }
  cr_assert_gt(planes, 4000);
  cr_assert_gt(zero_normals, 100, "the tiny tets must reach the zero-normal case (%d)", zero_normals);
}

/* Pairs skipped before the slice (hydro_plane_misses, hydro_tets_apart) give what the full path
 * gives, byte for byte: tets placed against each other across one of M's faces, at gaps from
 * 1e-6 down to 0 and overlaps, in random poses and at coordinates up to 1e3 from the origin,
 * where the shared face's vertices sit on the other tet's plane up to rounding. With the gap 0
 * and opposed fields the two tets make a face on their common face (as in coplanar_shared_face),
 * which a margin below zero skips (a margin of −1e-6 fails here). The shortcuts must also fire,
 * or the test would pass on a stub. */
Test(tet_tet, skipped_pairs_give_the_full_paths_bytes) {
  test_rng r = {2024};
  const double gaps[] = {1e-6, 1e-9, 1e-12, 1e-15, 0, -1e-15, -1e-12, -1e-6, -1e-2, 0, 0};
  int faces = 0, touching_faces = 0, skipped = 0, compared = 0;
  for (int rep = 0; rep < 2000; ++rep) {
    const double far = rep % 3 == 0 ? 1e3 : 1;
    const quat q = rand_rotation(&r);
    const vec3 at = rand_v3(&r, -far, far);
    const double gap = gaps[rep % 11];
    /* M = the standard tet, N its mirror below z = 0, both then shifted and posed; the shared
     * face z = 0 of M is face 3 (vertices 0, 1, 2) */
    vec3 m0[4], n0[4];
    std_tet(m0, 1);
    n0[0] = v3(0, 0, 0), n0[1] = v3(0, 1, 0), n0[2] = v3(1, 0, 0), n0[3] = v3(0, 0, -1);
    tt_case k;
    for (int i = 0; i < 4; ++i) {
      k.tM[i] = v3_add(quat_rotate(q, m0[i]), at);
      k.tN[i] = v3_add(quat_rotate(q, v3_sub(n0[i], v3(0, 0, gap))), at);
    }
    const vec3 up = quat_rotate(q, v3(0, 0, 1));
    /* opposed fields half the time (f_M = z, f_N = −z: the plane z = 0), random ones else */
    if (rep % 2 == 0) {
      k.gM = up, k.gN = v3_neg(up);
      k.cM = -v3_dot(up, at), k.cN = v3_dot(up, at);
    } else {
      k.gM = v3_add(up, rand_v3(&r, -0.5, 0.5)), k.gN = v3_sub(rand_v3(&r, -0.5, 0.5), up);
      k.cM = -v3_dot(k.gM, at) + test_rng_uniform(&r, -0.1, 0.1), k.cN = -v3_dot(k.gN, at);
    }
    hydroTet M, N;
    hydro_tet_make(&M, k.tM, k.gM, k.cM);
    hydro_tet_make(&N, k.tN, k.gN, k.cN);
    skipped += hydro_plane_misses(&M, &N) || hydro_tets_apart(&M, &N);
    hydroFace fp, fu;
    memset(&fp, 0, sizeof fp), memset(&fu, 0, sizeof fu);
    const int gp = hydro_tet_tet_prepared(&M, &N, &fp), gu = tt_unprepared(&k, &fu);
    ++compared;
    cr_assert_eq(gp, gu, "rep %d, gap %g: with the shortcuts %d, without %d", rep, gap, gp, gu);
    if (!gu) continue;
    ++faces;
    touching_faces += gap == 0 && rep % 2 == 0;
    cr_assert(memcmp(&fp, &fu, sizeof fp) == 0, "rep %d: the faces differ", rep);
  }
  cr_assert_gt(skipped, 100, "the shortcuts must skip the separated pairs (%d)", skipped);
  cr_assert_gt(faces, 100, "faces %d", faces);
  cr_assert_gt(touching_faces, 60, "the touching pairs must make faces (%d)", touching_faces);
  cr_assert_eq(compared, 2000);
}

/* The separating-axis test on points: the pair of lanes' verdict is the scalar loop's, written
 * out here in the same operation order, on points placed near each face's plane (a few ulps to
 * 1e-3 either side of the margin), NaN points and a NaN margin included. */
Test(tet_tet, beyond_faces_gives_the_scalar_verdict) {
  test_rng r = {99};
  int yes = 0, no = 0;
  for (int rep = 0; rep < 4000; ++rep) {
    vec3 t[4], v[4];
    rand_tet(&r, v3(0, 0, 0), 1, t);
    hydroTet B;
    hydro_tet_make(&B, t, v3(0, 0, 1), 0);
    hydro_tet_planes(&B);
    const int f = rep % 4, nv = 3 + rep % 2;
    const real margin = rep % 97 == 5 ? NAN : 1e-9;
    const vec3 n = hydro_tet_fn(&B, f);
    for (int i = 0; i < nv; ++i) {
      const double spread = rep % 5 == 0 ? 1e-15 : 1e-3;
      const double d = margin + test_rng_uniform(&r, -spread, spread);
      const vec3 w = rand_v3(&r, -0.5, 0.5), along = v3_sub(w, v3_scale(n, v3_dot(n, w))); /* in the plane */
      v[i] = v3_add(v3_add(t[hydro_tet_face_point(f)], along), v3_scale(n, d));
    }
    if (rep % 89 == 7) v[1].y = NAN;
    int want = 0;
    for (int g = 0; g < 4; ++g) {
      int all = 1;
      for (int i = 0; i < nv; ++i) all &= B.nx[g] * v[i].x + B.ny[g] * v[i].y + B.nz[g] * v[i].z - B.nd[g] > margin;
      want |= all;
    }
    const int got = hydro_beyond_faces(v, nv, &B, margin);
    cr_assert_eq(got, want, "rep %d", rep);
    yes += got, no += !got;
  }
  cr_assert(yes > 100 && no > 100, "yes %d, no %d", yes, no);
}

/* The separating-axis test on both tets in the eight lanes of AVX-512F (hydro_tets_apart8) gives
 * hydro_tets_apart's verdict: tets placed across a face of M at gaps from 1e-6 to 0 and overlaps
 * (the verdict near the margin), random pairs at random distances, a flat tet on either side
 * or both (its lanes off), and NaN coordinates. Each test gets its own fresh copies, so the
 * planes one forms do not serve the other. */
Test(tet_tet, apart_in_eight_lanes_gives_the_scalar_verdict) {
#if ISO_AVX2 && ISO_CPU_SCRATCH
  if (!iso_cpu_avx512()) {
    cr_log_warn("this CPU has no AVX-512F: the narrow phase takes the pairs of lanes; nothing to compare");
    return;
  }
  test_rng r = {77};
  const double gaps[] = {1e-6, 1e-9, 1e-12, 1e-15, 0, -1e-15, -1e-12, -1e-6};
  int yes = 0, no = 0, flat = 0;
  for (int rep = 0; rep < 6000; ++rep) {
    vec3 tM[4], tN[4];
    if (rep % 2 == 0) { /* across M's face 3, posed */
      const quat q = rand_rotation(&r);
      const vec3 at = rand_v3(&r, rep % 3 == 0 ? -1e3 : -1, rep % 3 == 0 ? 1e3 : 1);
      vec3 m0[4];
      std_tet(m0, 1);
      const vec3 n0[4] = {v3(0, 0, 0), v3(0, 1, 0), v3(1, 0, 0), v3(0, 0, -1)};
      const double gap = gaps[(rep / 2) % 8] + (rep % 7 == 0 ? test_rng_uniform(&r, -1e-3, 1e-3) : 0);
      for (int i = 0; i < 4; ++i) {
        tM[i] = v3_add(quat_rotate(q, m0[i]), at);
        tN[i] = v3_add(quat_rotate(q, v3_sub(n0[i], v3(0, 0, gap))), at);
      }
    } else { /* random tets at random distances */
      rand_tet(&r, v3(0, 0, 0), 1, tM);
      rand_tet(&r, rand_v3(&r, -2.5, 2.5), 1, tN);
    }
    if (rep % 13 == 3) tM[3] = tM[1]; /* flat: no interior */
    if (rep % 17 == 5) tN[2] = tN[0];
    if (rep % 101 == 9) tN[1].z = NAN;
    if (rep % 103 == 11) tM[2].x = NAN;
    hydroTet M1, N1, M2, N2;
    hydro_tet_make(&M1, tM, v3(0, 0, 1), 0), hydro_tet_make(&N1, tN, v3(0, 0, -1), 0);
    hydro_tet_make(&M2, tM, v3(0, 0, 1), 0), hydro_tet_make(&N2, tN, v3(0, 0, -1), 0);
    const int want = hydro_tets_apart(&M1, &N1), got = hydro_tets_apart8(&M2, &N2);
    cr_assert_eq(got, want, "rep %d: eight lanes %d, scalar test %d", rep, got, want);
    yes += got, no += !got;
    flat += !hydro_tet_solid(&M2) || !hydro_tet_solid(&N2);
  }
  cr_assert(yes > 500 && no > 500, "both verdicts must occur: apart %d, not %d", yes, no);
  cr_assert_gt(flat, 500, "flat tets %d", flat);
#else
  cr_log_warn("built without the CPU's lanes: nothing to compare");
#endif
}
