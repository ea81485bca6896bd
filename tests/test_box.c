/* Box tests (kernels/collide/box.h): oriented-box overlap against a brute-force separating-
 * axis test on random boxes and poses, known touching and edge-edge cases, plane straddling and
 * half-space overlap, and the world AABB of a posed box.
 *
 * Tolerances. The box tests are exact SAT arithmetic plus padding of ~1e-14 and an |R| epsilon
 * of 1e-12; brute-force comparisons therefore skip configurations within 1e-9 of touching,
 * where the two are allowed to differ. */
#include <criterion/criterion.h>
#include <math.h>

#include "kernels/collide/box.h"
#include "kernels/math/transform.h"
#include "support/collide_rand.h"
#include "support/support.h"

static const double PI = 3.14159265358979323846;

static void rand_box(test_rng *r, double *lo, double *hi) {
  for (int i = 0; i < 3; ++i) {
    lo[i] = test_rng_uniform(r, -1, 1);
    hi[i] = lo[i] + test_rng_uniform(r, 0.01, 1.0);
  }
}

/* ---- brute-force references ------------------------------------------------------------ */

/* Separation of two boxes along axis L (positive: separated), by projecting all corners. */
static double axis_gap(const vec3 *ca, const vec3 *cb, vec3 L) {
  double n = v3_norm(L), amin = HUGE_VAL, amax = -HUGE_VAL, bmin = HUGE_VAL, bmax = -HUGE_VAL;
  for (int k = 0; k < 8; ++k) {
    double x = v3_dot(ca[k], L) / n, y = v3_dot(cb[k], L) / n;
    if (x < amin) amin = x;
    if (x > amax) amax = x;
    if (y < bmin) bmin = y;
    if (y > bmax) bmax = y;
  }
  return fmax(bmin - amax, amin - bmax);
}

static void corners(const double *lo, const double *hi, xform X, vec3 *c) {
  for (int k = 0; k < 8; ++k)
    c[k] = xf_point(X, v3((k & 1) ? hi[0] : lo[0], (k & 2) ? hi[1] : lo[1],
                          (k & 4) ? hi[2] : lo[2]));
}

/* Largest gap over the 15 SAT axes (skipping degenerate cross products); *only_cross is set
 * when the face axes all overlap but a cross axis separates. */
static double sat_gap(const double *lo_a, const double *hi_a, const double *lo_b,
                      const double *hi_b, xform X_AB, int *only_cross) {
  vec3 ca[8], cb[8], ua[3], ub[3];
  double face = -HUGE_VAL, cross = -HUGE_VAL;
  corners(lo_a, hi_a, xf_identity(), ca);
  corners(lo_b, hi_b, X_AB, cb);
  ua[0] = v3(1, 0, 0);
  ua[1] = v3(0, 1, 0);
  ua[2] = v3(0, 0, 1);
  for (int i = 0; i < 3; ++i) ub[i] = xf_vector(X_AB, ua[i]);
  for (int i = 0; i < 3; ++i) {
    face = fmax(face, axis_gap(ca, cb, ua[i]));
    face = fmax(face, axis_gap(ca, cb, ub[i]));
  }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      vec3 L = v3_cross(ua[i], ub[j]);
      if (v3_norm(L) > 1e-6) cross = fmax(cross, axis_gap(ca, cb, L));
    }
  if (only_cross) *only_cross = face <= 0 && cross > 0;
  return fmax(face, cross);
}

/* ---- box tests ----------------------------------------------------------------------------- */

Test(box, obb_matches_brute_force_sat) {
  test_rng r = {42};
  int over = 0, sep = 0, cross_only = 0, sampled = 0;
  for (int t = 0; t < 20000; ++t) {
    double lo_a[3], hi_a[3], lo_b[3], hi_b[3];
    rand_box(&r, lo_a, hi_a);
    rand_box(&r, lo_b, hi_b);
    xform X = rand_pose(&r, 0.5);
    int oc = 0;
    double gap = sat_gap(lo_a, hi_a, lo_b, hi_b, X, &oc);
    int got = box_overlap_obb(lo_a, hi_a, lo_b, hi_b, X);
    if (gap > 1e-9) {
      cr_assert_eq(got, 0, "case %d: gap %g but reported overlapping", t, gap);
      ++sep;
      cross_only += oc;
    } else if (gap < -1e-9) {
      cr_assert_eq(got, 1, "case %d: penetration %g but reported separated", t, -gap);
      ++over;
    }
    /* a point in both boxes forces overlap */
    for (int s = 0; s < 4; ++s) {
      vec3 p = v3(test_rng_uniform(&r, lo_a[0], hi_a[0]), test_rng_uniform(&r, lo_a[1], hi_a[1]),
                  test_rng_uniform(&r, lo_a[2], hi_a[2]));
      vec3 q = xf_inv_point(X, p);
      if (q.x >= lo_b[0] && q.x <= hi_b[0] && q.y >= lo_b[1] && q.y <= hi_b[1] &&
          q.z >= lo_b[2] && q.z <= hi_b[2]) {
        cr_assert_eq(got, 1, "case %d: common point but reported separated", t);
        ++sampled;
      }
    }
  }
  /* the sample must exercise all three outcomes, including edge-edge-only separation */
  cr_assert_gt(over, 1000, "over %d sep %d cross %d sampled %d", over, sep, cross_only, sampled);
  cr_assert_gt(sep, 1000);
  cr_assert_gt(cross_only, 10, "only %d cases separated by an edge axis alone", cross_only);
  cr_assert_gt(sampled, 100);
}

/* The face axes alone (box_overlap_rel_faces) are conservative: they keep every pair the full
 * test keeps, and drop exactly those separated along a face axis; the pairs they keep beyond the
 * full test are separated along an edge axis only. Near the identity they are the full test. */
Test(box, face_axes_are_conservative) {
  test_rng r = {7};
  int extra = 0;
  for (int t = 0; t < 20000; ++t) {
    double lo_a[3], hi_a[3], lo_b[3], hi_b[3];
    rand_box(&r, lo_a, hi_a);
    rand_box(&r, lo_b, hi_b);
    /* every fourth pose turned by at most 1e-6 rad: near-aligned boxes, as in a stack */
    xform X = (t % 4) ? rand_pose(&r, 0.5) : xf_make(quat_from_axis_angle(v3_normalize(v3(1, 2, 3)), 1e-6 * test_rng_uniform(&r, -1, 1)), v3(test_rng_uniform(&r, -0.5, 0.5), test_rng_uniform(&r, -0.5, 0.5), test_rng_uniform(&r, -0.5, 0.5)));
    boxRel rel = box_rel_make(X);
    int full = box_overlap_rel(lo_a, hi_a, lo_b, hi_b, &rel);
    int faces = box_overlap_rel_faces(lo_a, hi_a, lo_b, hi_b, &rel);
    if (full) cr_assert(faces, "case %d: the face axes separated a pair the full test keeps", t);
    if (faces && !full) {
      int oc = 0;
      double gap = sat_gap(lo_a, hi_a, lo_b, hi_b, X, &oc);
      cr_assert(oc || fabs(gap) < 1e-9, "case %d: kept by the face axes, but not an edge-axis separation", t);
      cr_assert(t % 4, "case %d: near-aligned boxes separated by an edge axis only", t);
      ++extra;
    }
  }
  cr_assert_gt(extra, 10, "the sample must hold edge-axis-only separations (%d)", extra);
}

/* Prepared sides (box_side_a, box_side_b, box_sat_sides) give box_sat_faces's verdict and
 * offset t bit for bit, and with box_sat_edges the full test's verdict, on random and on touching
 * pairs (b's box shifted onto a's face, where a rounding difference would flip the verdict). */
Test(box, prepared_sides_give_the_same_bits) {
  test_rng r = {11};
  int touching = 0, over = 0;
  for (int t = 0; t < 20000; ++t) {
    double lo_a[3], hi_a[3], lo_b[3], hi_b[3];
    rand_box(&r, lo_a, hi_a);
    rand_box(&r, lo_b, hi_b);
    xform X = (t % 2) ? rand_pose(&r, 0.5) : xf_make(quat_from_axis_angle(v3_normalize(v3(1, 2, 3)), 1e-9 * t), v3(0, 0, 0));
    if (t % 2 == 0) { /* b set on a's top face, exactly touching before the rotation */
      double dz = hi_a[2] - lo_b[2];
      lo_b[2] += dz, hi_b[2] += dz;
      ++touching;
    }
    boxRel rel = box_rel_make(X);
    real ea[3], eb[3], t0[3], t1[3];
    int faces = box_sat_faces(lo_a, hi_a, lo_b, hi_b, &rel, ea, eb, t0);
    boxSide pa, pb;
    box_side_a(lo_a, hi_a, &rel, &pa);
    box_side_b(lo_b, hi_b, &rel, &pb);
    int sides = box_sat_sides(&pa, &pb, &rel, t1);
    cr_assert_eq(sides, faces, "case %d: verdict %d against %d", t, sides, faces);
    for (int i = 0; i < 3; ++i) {
      cr_assert(t1[i] == t0[i], "case %d: t[%d] %.17g against %.17g", t, i, t1[i], t0[i]);
      cr_assert(pa.e[i] == ea[i] && pb.e[i] == eb[i], "case %d: half-widths differ", t);
    }
    int full = box_overlap_rel(lo_a, hi_a, lo_b, hi_b, &rel);
    cr_assert_eq(sides && box_sat_edges(pa.e, pb.e, t1, &rel), full, "case %d: full verdict differs", t);
    over += full;
  }
  cr_assert_gt(touching, 1000);
  cr_assert_gt(over, 1000, "the sample must hold overlapping pairs (%d)", over);
}

Test(box, obb_known_cases) {
  double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  double clo[3] = {-1, -1, -1}, chi[3] = {1, 1, 1};
  xform X = xf_identity();
  /* touching faces overlap; a gap of 1e-9 separates */
  X.p = v3(1, 0, 0);
  cr_assert(box_overlap_obb(lo, hi, lo, hi, X));
  X.p = v3(1 + 1e-9, 0, 0);
  cr_assert_not(box_overlap_obb(lo, hi, lo, hi, X));
  /* touching along an edge and at a corner */
  X.p = v3(1, 1, 0);
  cr_assert(box_overlap_obb(lo, hi, lo, hi, X));
  X.p = v3(1, 1, 1);
  cr_assert(box_overlap_obb(lo, hi, lo, hi, X));
  X.p = v3(1 + 1e-9, 1 + 1e-9, 1);
  cr_assert_not(box_overlap_obb(lo, hi, lo, hi, X));
  /* rotated 45° about z: b's corner reaches √2 along x */
  X.q = quat_from_axis_angle(v3(0, 0, 1), PI / 4);
  X.p = v3(1 + sqrt(2.0) - 1e-9, 0, 0);
  cr_assert(box_overlap_obb(clo, chi, clo, chi, X));
  X.p = v3(1 + sqrt(2.0) + 1e-9, 0, 0);
  cr_assert_not(box_overlap_obb(clo, chi, clo, chi, X));
  /* parallel edges (R = identity, and 90° turns whose R has 6e-17 entries): the degenerate
   * cross axes must not separate overlapping boxes, and face axes still separate */
  for (int turn = 0; turn < 4; ++turn) {
    X.q = quat_from_axis_angle(v3(0, 0, 1), turn * PI / 2);
    X.p = v3(1.5, 1.5, 0);
    cr_assert(box_overlap_obb(clo, chi, clo, chi, X), "turn %d", turn);
    X.p = v3(2 - 1e-9, 2 - 1e-9, 2 - 1e-9);
    cr_assert(box_overlap_obb(clo, chi, clo, chi, X), "turn %d", turn);
    X.p = v3(2 + 1e-9, 0.3, -0.7);
    cr_assert_not(box_overlap_obb(clo, chi, clo, chi, X), "turn %d", turn);
    X.p = v3(1e3, 1e3, 0); /* far apart along a diagonal */
    cr_assert_not(box_overlap_obb(clo, chi, clo, chi, X), "turn %d", turn);
  }
  /* parallel edges with rounding noise in R: long thin boxes overlapping end to end, R the
   * identity but for one 1e-16 entry that has no transposed partner (as rounding leaves it).
   * On the degenerate axis A2 × B2 the projected gap is 15e-16 against radii 10e-16: noise
   * that only the |R| epsilon keeps from "separating" the pair */
  {
    double llo[3] = {-10, -0.01, -0.01}, lhi[3] = {10, 0.01, 0.01};
    mat3 R = m3_identity();
    boxRel rel;
    R.m[1][2] = 1e-16;
    rel = box_rel_from_m3(R, v3(15, 0, 0));
    cr_assert(box_overlap_rel(llo, lhi, llo, lhi, &rel));
    rel = box_rel_from_m3(R, v3(20 + 1e-9, 0, 0));
    cr_assert_not(box_overlap_rel(llo, lhi, llo, lhi, &rel));
  }
  /* thin plates crossed at right angles (edge-edge contact of flat boxes) */
  {
    double plo[3] = {-1, -1e-3, -1e-3}, phi[3] = {1, 1e-3, 1e-3};
    X.q = quat_from_axis_angle(v3(0, 0, 1), PI / 2);
    X.p = v3(0, 0, 2e-3 - 1e-9);
    cr_assert(box_overlap_obb(plo, phi, plo, phi, X));
    X.p = v3(0, 0, 2e-3 + 1e-9);
    cr_assert_not(box_overlap_obb(plo, phi, plo, phi, X));
  }
  /* an edge-edge separation no face axis finds: b is the cube turned 45° about x, then 45°
   * about z, moved along (1, 0, 1); its edge touches a's edge at s = 2 */
  {
    quat q = quat_mul(quat_from_axis_angle(v3(0, 0, 1), PI / 4),
                      quat_from_axis_angle(v3(1, 0, 0), PI / 4));
    int oc = 0;
    X.q = q;
    X.p = v3(2.1, 0, 2.1);
    cr_assert_gt(sat_gap(clo, chi, clo, chi, X, &oc), 0.1);
    cr_assert_eq(oc, 1, "only an edge axis separates this pair");
    cr_assert_not(box_overlap_obb(clo, chi, clo, chi, X));
    X.p = v3(2, 0, 2);
    cr_assert(box_overlap_obb(clo, chi, clo, chi, X), "touching edges overlap");
    X.p = v3(1.95, 0, 1.95);
    cr_assert(box_overlap_obb(clo, chi, clo, chi, X));
  }
}

Test(box, plane_and_halfspace) {
  test_rng r = {42};
  int n_str = 0, n_in = 0, n_out = 0;
  for (int t = 0; t < 20000; ++t) {
    double lo[3], hi[3];
    rand_box(&r, lo, hi);
    vec3 n = v3_normalize(v3(test_rng_uniform(&r, -1, 1), test_rng_uniform(&r, -1, 1),
                             test_rng_uniform(&r, -1, 1)));
    double d = test_rng_uniform(&r, -1.5, 1.5);
    vec3 c[8];
    double mn = HUGE_VAL, mx = -HUGE_VAL;
    corners(lo, hi, xf_identity(), c);
    for (int k = 0; k < 8; ++k) {
      mn = fmin(mn, v3_dot(n, c[k]));
      mx = fmax(mx, v3_dot(n, c[k]));
    }
    int str = box_plane_straddle(lo, hi, n, d), in = box_halfspace_overlap(lo, hi, n, d);
    if (mn < d - 1e-9 && mx > d + 1e-9) {
      cr_assert(str && in, "case %d", t);
      ++n_str;
    } else if (mx < d - 1e-9) {
      cr_assert(!str && in, "case %d", t);
      ++n_in;
    } else if (mn > d + 1e-9) {
      cr_assert(!str && !in, "case %d", t);
      ++n_out;
    }
  }
  cr_assert(n_str > 1000 && n_in > 1000 && n_out > 1000);
  /* touching */
  {
    double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    cr_assert(box_plane_straddle(lo, hi, v3(0, 0, 1), 1.0));
    cr_assert(box_halfspace_overlap(lo, hi, v3(0, 0, 1), 0.0));
    cr_assert(box_halfspace_overlap(lo, hi, v3(0, 0, -1), -1.0));
    cr_assert_not(box_halfspace_overlap(lo, hi, v3(0, 0, 1), -1e-12));
    cr_assert_not(box_plane_straddle(lo, hi, v3(0, 0, 1), 1.0 + 1e-12));
  }
}

Test(box, transform_aabb) {
  test_rng r = {42};
  for (int t = 0; t < 5000; ++t) {
    double lo[3], hi[3], wlo[3], whi[3];
    rand_box(&r, lo, hi);
    xform X = rand_pose(&r, 10);
    vec3 c[8];
    box_transform_aabb(lo, hi, X, wlo, whi);
    corners(lo, hi, X, c);
    for (int i = 0; i < 3; ++i) {
      double mn = HUGE_VAL, mx = -HUGE_VAL;
      for (int k = 0; k < 8; ++k) {
        mn = fmin(mn, v3_get(c[k], i));
        mx = fmax(mx, v3_get(c[k], i));
      }
      /* contains every corner, and tight to the padding (~1e-14) plus rounding */
      cr_assert(wlo[i] <= mn && whi[i] >= mx, "case %d axis %d", t, i);
      cr_assert(mn - wlo[i] < 1e-12 && whi[i] - mx < 1e-12, "case %d axis %d", t, i);
    }
  }
  {
    double lo[3] = {1, 0, 0}, hi[3] = {0, 1, 1}, wlo[3], whi[3];
    box_transform_aabb(lo, hi, xf_identity(), wlo, whi);
    cr_assert(isinf(wlo[0]) && wlo[0] > 0 && isinf(whi[2]) && whi[2] < 0);
  }
}
