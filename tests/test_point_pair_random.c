/* Point-contact pair queries (kernels/point/pair.h): invariants on random poses over all shape
 * pairs: A/B swap, witnesses on the surfaces, Drake's relation p_WCa − p_WCb = −depth·nhat_BA
 * (drake_algorithms §4.1: the FCL fallback sets p_WCa = pos − ½·depth·nhat_BA, p_WCb = pos +
 * ½·depth·nhat_BA; the sphere closed forms p_WCa = Ao − r·∇φ_B, p_WCb = N with Ao − N =
 * φ_B·∇φ_B), translation invariance, separation after pushing A out by depth, determinism, and no
 * contact far apart. Shapes are O(1) (sizes 0.2–2 m), so tolerances are absolute, each with its
 * reason. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "kernels/point/pair.h"
#include "support/point_pair_cases.h"
#include "support/support.h"

/* ---- test convex hulls ------------------------------------------------------------------------ */

/* Octahedron |x| + |y| + |z| <= 0.6. */
static const real kOcta[18] = {0.6, 0, 0, -0.6, 0, 0, 0, 0.6, 0, 0, -0.6, 0, 0, 0, 0.6, 0, 0, -0.6};

/* ---- invariants on random poses, every pair of shape kinds ------------------------------------ */

#define NKIND 8 /* sphere, box, cylinder, capsule, ellipsoid, half-space, octahedron, blob */

static pointShape kind_shape(test_rng *r, int kind) {
  double s0 = test_rng_uniform(r, 0.3, 1), s1 = test_rng_uniform(r, 0.3, 1), s2 = test_rng_uniform(r, 0.3, 1);
  switch (kind) {
  case 0:
    return point_shape_make(POINT_SPHERE, s0, 0, 0);
  case 1:
    return point_shape_make(POINT_BOX, s0, s1, s2);
  case 2:
    return point_shape_make(POINT_CYLINDER, s0, s1, 0);
  case 3:
    return point_shape_make(POINT_CAPSULE, s0, s1, 0);
  case 4:
    return point_shape_make(POINT_ELLIPSOID, s0, s1, s2);
  case 5:
    return point_shape_make(POINT_HALFSPACE, 0, 0, 0);
  case 6:
    return point_shape_convex(kOcta, 6);
  default:
    return point_shape_convex(kBlob, 10);
  }
}

/* Tolerances by the algorithm that produced the contact. Closed forms and polytope GJK/EPA are
 * exact up to round-off. EPA on a curved core (cylinder, ellipsoid) converges to 1e-11·scale
 * in depth when it converges; when it stops at its vertex cap the estimate is polished and is
 * good to about 1e-6 in depth. Measured over 3 × 100 000 random pairs of this generator
 * (seeds 7, 42, 1234; and seed 42 again with FMA contraction, as a GPU computes): witness off
 * its surface <= 2.2e-7, depth between two runs <= 2.1e-6, 1 − cos between normals <= 6.8e-8,
 * witness points between runs <= 2.2e-5. The bounds below leave a margin of about 4. */
static int curved_gjk(const pointShape *A, const pointShape *B) {
  int ta = A->type, tb = B->type;
  if (ta == POINT_HALFSPACE || tb == POINT_HALFSPACE) return 0;
  if ((ta == POINT_SPHERE && point_has_distance(tb)) || (tb == POINT_SPHERE && point_has_distance(ta))) return 0;
  return ta == POINT_CYLINDER || ta == POINT_ELLIPSOID || tb == POINT_CYLINDER || tb == POINT_ELLIPSOID;
}

/* How far a witness may sit off its surface. */
static double witness_tol(const pointShape *A, const pointShape *B) {
  if (curved_gjk(A, B)) return 1e-6;
  if (A->type == POINT_BOX && B->type == POINT_BOX) return 1e-9; /* SAT: deepest feature within cos 1e-10 */
  return 1e-12;
}

/* How closely two runs, (A, B) against (B, A) or translated, agree on the depth. */
static double depth_tol(const pointShape *A, const pointShape *B) { return curved_gjk(A, B) ? 1e-5 : 1e-11; }

/* ... on 1 − cos of the normals, for contacts shallow enough to have a unique normal. */
static double normal_tol(const pointShape *A, const pointShape *B) { return curved_gjk(A, B) ? 1e-6 : 1e-12; }

/* ... on the witness points: where a curved shape meets a flat facet nearly face-on the contact
 * point is barely determined (it is not unique for parallel faces), and runs differ by up to
 * 1.2e-5 (measured). */
static double point_tol(const pointShape *A, const pointShape *B) { return curved_gjk(A, B) ? 1e-4 : 1e-11; }

Test(point_pair, random_invariants) {
  test_rng r = {42};
  int hits = 0, misses = 0;
  for (int it = 0; it < 6000; ++it) {
    int ka = (int)(test_rng_u64(&r) % NKIND), kb = (int)(test_rng_u64(&r) % NKIND);
    pointShape A, B;
    xform XA, XB;
    pointContact c, c2, cs;
    int hit;
    if (ka == 5 && kb == 5) continue;
    A = kind_shape(&r, ka);
    B = kind_shape(&r, kb);
    XB = xf_make(rand_quat(&r), rand_v3(&r, -1, 1));
    if (kb == 5) { /* B a half-space: A's centre within its bounding radius of the plane */
      XA = xf_make(rand_quat(&r), v3_axpy(XB.p, test_rng_uniform(&r, -1, 1) * point_shape_bound_radius(&A),
                                          xf_vector(XB, v3(0, 0, 1))));
    } else if (ka == 5) {
      XA = xf_make(rand_quat(&r), v3_axpy(XB.p, test_rng_uniform(&r, -0.9, 0.5), rand_unit(&r)));
    } else {
      XA = near_pose(&r, point_shape_bound_radius(&A) + point_shape_bound_radius(&B));
      XA.p = v3_add(XA.p, XB.p);
    }
    hit = point_pair(&A, XA, &B, XB, &c);

    /* determinism: the same bits again */
    {
      pointContact again;
      int h2 = point_pair(&A, XA, &B, XB, &again);
      cr_assert_eq(hit, h2);
      if (hit) cr_assert(memcmp(&c, &again, sizeof c) == 0, "kinds %d %d: not deterministic", ka, kb);
    }
    if (!hit) {
      ++misses;
      continue;
    }
    if (c.depth <= 1e-9) continue; /* grazing: swap/translation may flip the ε rule */
    ++hits;
    {
      double wt = witness_tol(&A, &B), dt = depth_tol(&A, &B), nt = normal_tol(&A, &B), pt = point_tol(&A, &B);
      /* unit normal, Drake's witness relation: round-off */
      cr_expect(fabs(v3_norm(c.nhat_BA) - 1) <= 1e-13, "kinds %d %d", ka, kb);
      expect_v3(v3_sub(c.p_WCa, c.p_WCb), v3_scale(c.nhat_BA, -c.depth), 1e-12, "p_WCa − p_WCb = −depth·n");
      /* witnesses on the surfaces */
      cr_expect(fabs(surface_phi(&A, XA, c.p_WCa)) <= wt, "kinds %d %d: φ_A(p_WCa) = %g", ka, kb,
                surface_phi(&A, XA, c.p_WCa));
      cr_expect(fabs(surface_phi(&B, XB, c.p_WCb)) <= wt, "kinds %d %d: φ_B(p_WCb) = %g", ka, kb,
                surface_phi(&B, XB, c.p_WCb));

      /* swap: the normal flips, the witnesses trade places */
      cr_assert(point_pair(&B, XB, &A, XA, &cs), "kinds %d %d: swap lost the contact", ka, kb);
      cr_expect(fabs(cs.depth - c.depth) <= dt, "kinds %d %d: swap depth %.17g vs %.17g", ka, kb, cs.depth, c.depth);
      if (c.depth < 0.5 * fmin(point_shape_bound_radius(&A) + (ka == 5), point_shape_bound_radius(&B) + (kb == 5))) {
        cr_expect(1 + v3_dot(cs.nhat_BA, c.nhat_BA) <= nt, "kinds %d %d: swap normal", ka, kb);
        expect_v3(cs.p_WCa, c.p_WCb, pt, "swap p_WCa");
        expect_v3(cs.p_WCb, c.p_WCa, pt, "swap p_WCb");
      }

      /* translation invariance */
      {
        vec3 s = v3(0.37, -1.21, 2.5);
        xform XA2 = XA, XB2 = XB;
        XA2.p = v3_add(XA.p, s);
        XB2.p = v3_add(XB.p, s);
        cr_assert(point_pair(&A, XA2, &B, XB2, &c2), "kinds %d %d: translation lost the contact", ka, kb);
        cr_expect(fabs(c2.depth - c.depth) <= dt, "kinds %d %d: translated depth", ka, kb);
        if (c.depth < 0.5 * fmin(point_shape_bound_radius(&A) + (ka == 5), point_shape_bound_radius(&B) + (kb == 5))) {
          cr_expect(1 - v3_dot(c2.nhat_BA, c.nhat_BA) <= nt, "kinds %d %d: translated normal", ka, kb);
          expect_v3(v3_sub(c2.p_WCa, s), c.p_WCa, pt, "translated p_WCa");
        }
      }

      /* pushing A out along nhat_BA by depth + δ separates; by depth − δ does not. δ = 1e-6
       * is far above every depth error above */
      {
        xform Xo = XA, Xi = XA;
        Xo.p = v3_axpy(XA.p, c.depth + 1e-6, c.nhat_BA);
        Xi.p = v3_axpy(XA.p, c.depth - 1e-6, c.nhat_BA);
        cr_expect_not(point_pair(&A, Xo, &B, XB, &c2), "kinds %d %d: still overlapping after the push", ka, kb);
        cr_expect(point_pair(&A, Xi, &B, XB, &c2), "kinds %d %d: separated short of the depth", ka, kb);
      }
    }
  }
  cr_expect(hits > 2000, "hits %d", hits);
  cr_expect(misses > 200, "misses %d", misses);
}

Test(point_pair, far_apart_is_no_contact) {
  test_rng r = {42};
  for (int it = 0; it < 500; ++it) {
    int ka = (int)(test_rng_u64(&r) % NKIND), kb = (int)(test_rng_u64(&r) % NKIND);
    pointShape A, B;
    xform XA, XB;
    pointContact c;
    if (ka == 5 || kb == 5) continue;
    A = kind_shape(&r, ka);
    B = kind_shape(&r, kb);
    XB = xf_make(rand_quat(&r), rand_v3(&r, -1, 1));
    XA = xf_make(rand_quat(&r), v3_axpy(XB.p, point_shape_bound_radius(&A) + point_shape_bound_radius(&B) + 0.01,
                                        rand_unit(&r)));
    cr_expect_not(point_pair(&A, XA, &B, XB, &c), "kinds %d %d", ka, kb);
  }
}
