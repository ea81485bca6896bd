#define _DEFAULT_SOURCE
/* Kept walks (kernels/hydro/walk_keep.h, the superset walk and its filter in
 * kernels/collide/bvh.h): a superset filtered at any pose within its motion gives the walk's
 * candidates exactly, the same pairs in the same order; and a sim whose worlds keep their walks
 * finds the same candidates every step, and ends in the same state to the bit, as one that
 * walks every step, including where the supersets do not fit; the same for a tree's walk against a
 * plane (a mesh on a floor, rigid on compliant or compliant on rigid).
 *
 * Tolerances: none. Every comparison is exact, because the kept path is meant to reproduce the
 * walk bit for bit, not approximately. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host/sim/sim_internal.h"
#include "host/step/contact_internal.h"
#include "isobar/isobar.h"
#include "kernels/hydro/walk_keep.h"
#include "support/collide_rand.h"
#include "support/scene_builders.h"
#include "support/soup.h"
#include "support/support.h"

/* The walk's candidates at X_AB: their count, into a[], b[] (cap entries). */
static int walk(bvhTree A, bvhTree B, xform X_AB, int *a, int *b, int cap) {
  int n = bvh_pairs_walk(A, B, X_AB, a, b, cap);
  cr_assert(n >= 0 && n <= cap, "walk: %d candidates (cap %d)", n, cap);
  return n;
}

/* X0 moved by a rotation of angle th about a random axis and a translation of length dp. */
static xform nudge(test_rng *r, xform X0, double th, double dp) {
  vec3 ax = v3_normalize(v3(test_rng_uniform(r, -1, 1), test_rng_uniform(r, -1, 1), test_rng_uniform(r, -1, 1)));
  vec3 dir = v3_normalize(v3(test_rng_uniform(r, -1, 1), test_rng_uniform(r, -1, 1), test_rng_uniform(r, -1, 1)));
  quat dq = quat_make(cos(th / 2), sin(th / 2) * ax.x, sin(th / 2) * ax.y, sin(th / 2) * ax.z);
  return xf_make(quat_normalize(quat_mul(dq, X0.q)), v3_add(X0.p, v3_scale(dir, dp)));
}

static void superset_case(int nper_b, int leaf_b, uint64_t seed) {
  test_rng r = {seed};
  soup sa = make_soup(&r, 300, 4, 0.12), sb = make_soup(&r, 250, nper_b, 0.12);
  bvhHost ha = soup_bvh(&sa, 1), hb = soup_bvh(&sb, leaf_b);
  const bvhTree A = bvh_host_view(&ha), B = bvh_host_view(&hb);
  const int cap = 300 * 250;
  int *wa = malloc(sizeof(int) * cap), *wb = malloc(sizeof(int) * cap);
  int *fa = malloc(sizeof(int) * cap), *fb = malloc(sizeof(int) * cap);
  int *pos = malloc(sizeof(int) * 2 * cap);
  const real reach_a = bvh_tree_reach(A), reach_b = bvh_tree_reach(B);
  int checked = 0, missed_beyond = 0;
  for (int trial = 0; trial < 6; ++trial) {
    const xform X0 = rand_pose(&r, 0.6);
    const double mu = 0.02;
    bvhSuper S = {pos, cap, 0, mu};
    int n0 = bvh_pairs_walk_sup(A, B, X0, &S, fa, fb, cap);
    int m0 = walk(A, B, X0, wa, wb, cap);
    /* the superset walk's own candidates are the walk's */
    cr_assert_eq(n0, m0);
    cr_assert(memcmp(fa, wa, sizeof(int) * n0) == 0 && memcmp(fb, wb, sizeof(int) * n0) == 0);
    cr_assert(S.n <= S.cap && S.n >= n0, "superset %d against %d candidates", S.n, n0);
    hsKeep k = {{X0}, mu, S.n, 0};
    for (int i = 0; i < 60; ++i) {
      /* within the motion (the bound says so), then well beyond it */
      const int beyond = i >= 50;
      const xform X = beyond ? nudge(&r, X0, 0.05, 0.3) : nudge(&r, X0, test_rng_uniform(&r, 0, 4e-4),
                                                                test_rng_uniform(&r, 0, 0.008));
      const boxRel rel = box_rel_make(X);
      const real moved = hs_keep_motion(&k, &rel, reach_a, reach_b);
      const int n = bvh_pairs_filter(A, B, &rel, pos, S.n, fa, fb, cap);
      const int m = walk(A, B, X, wa, wb, cap);
      if (beyond) {
        cr_assert_gt(moved, mu);
        missed_beyond += n != m;
        continue;
      }
      if (!(moved <= mu)) continue;
      ++checked;
      cr_assert_eq(n, m, "trial %d pose %d (moved %g of %g): %d candidates filtered, %d walked", trial, i, moved, mu,
                   n, m);
      cr_assert(memcmp(fa, wa, sizeof(int) * n) == 0 && memcmp(fb, wb, sizeof(int) * n) == 0,
                "trial %d pose %d: other pairs or another order", trial, i);
    }
  }
  /* most nudges are within the bound, and beyond it the superset does miss candidates (so the
   * equality above is not one a stale list would pass anyway) */
  cr_assert_gt(checked, 200, "only %d poses within the motion", checked);
  cr_assert_gt(missed_beyond, 0);
  free(wa), free(wb), free(fa), free(fb), free(pos);
  bvh_free(&ha), bvh_free(&hb);
  soup_free(&sa), soup_free(&sb);
}

Test(walk_keep, superset_filtered_within_its_motion_is_the_walk_tets) { superset_case(4, 1, 11); }
Test(walk_keep, superset_filtered_within_its_motion_is_the_walk_triangle_leaves) { superset_case(3, 3, 12); }

/* The motion bound holds for every node pair: a face-axis gap changes by no more than it. The
 * gaps are measured with box_overlap_rel_faces_slack at slacks around the bound: a pair that
 * passes exactly at X passes at X0 with the bound (and rounding) as slack. */
Test(walk_keep, motion_bound_covers_every_node_pair) {
  test_rng r = {21};
  soup sa = make_soup(&r, 120, 4, 0.2), sb = make_soup(&r, 120, 4, 0.2);
  bvhHost ha = soup_bvh(&sa, 1), hb = soup_bvh(&sb, 1);
  const bvhTree A = bvh_host_view(&ha), B = bvh_host_view(&hb);
  const real reach_a = bvh_tree_reach(A), reach_b = bvh_tree_reach(B);
  long pairs = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const xform X0 = rand_pose(&r, 0.8);
    const xform X = nudge(&r, X0, test_rng_uniform(&r, 0, 0.02), test_rng_uniform(&r, 0, 0.05));
    const boxRel rel0 = box_rel_make(X0), rel = box_rel_make(X);
    const hsKeep k = {{X0}, 1, 0, 0};
    const real moved = hs_keep_motion(&k, &rel, reach_a, reach_b);
    const real round = 2 * bvh_walk_round(reach_a, reach_b, X0.p);
    for (int i = 0; i < A.nnode; ++i)
      for (int j = 0; j < B.nnode; ++j) {
        const bvhNode *a = A.node + i, *b = B.node + j;
        if (!box_overlap_rel_faces(a->lo, a->hi, b->lo, b->hi, &rel)) continue;
        ++pairs;
        cr_assert(box_overlap_rel_faces_slack(a->lo, a->hi, b->lo, b->hi, &rel0, moved + round),
                  "trial %d nodes %d, %d: passes at the new pose but not at the old one with slack %g", trial, i,
                  j, moved);
      }
  }
  cr_assert_gt(pairs, 1000);
  bvh_free(&ha), bvh_free(&hb);
  soup_free(&sa), soup_free(&sb);
}

/* The slack of a new superset stays finite and in its range whatever the motion seen: a pose
 * that was NaN (a faulted world, reset since) must not make the loosened tests pass nothing. */
Test(walk_keep, superset_motion_is_finite_and_in_range) {
  const real reach = 2, lo = HS_KEEP_MU_MIN * reach, hi = HS_KEEP_MU_MAX * reach;
  hsKeep none = {{xf_identity()}, 0, 0, 0}, some = {{xf_identity()}, 1e-3, 10, 3};
  cr_assert_eq(hs_keep_mu(&none, 1, reach), lo);
  cr_assert_eq(hs_keep_mu(&some, NAN, reach), lo);
  cr_assert_eq(hs_keep_mu(&some, INFINITY, reach), hi);
  cr_assert_eq(hs_keep_mu(&some, 0, reach), lo);
  const real mid = 0.5 * (lo + hi);
  cr_assert_eq(hs_keep_mu(&some, mid * 4 / HS_KEEP_STEPS, reach), mid); /* age 3: four steps */
}

/* A superset sized for a motion the pair no longer has (a body that bounced, now at rest) is
 * walked again once it has served HS_KEEP_STEPS steps, so it shrinks; not sooner, not while the
 * pair still moves at the rate it was sized for, and not when its μ is already the range's
 * floor (which would walk a resting pair every step). */
Test(walk_keep, a_superset_too_loose_for_the_motion_is_walked_again) {
  const real reach = 2, lo = HS_KEEP_MU_MIN * reach;
  const hsKeep loose = {{xf_identity()}, 40 * lo, 10, HS_KEEP_STEPS};
  const hsKeep young = {{xf_identity()}, 40 * lo, 10, HS_KEEP_STEPS - 1};
  const hsKeep tight = {{xf_identity()}, lo, 10, 5 * HS_KEEP_STEPS};
  cr_assert(hs_keep_stale(&loose, 0, reach), "at rest after its steps: walked again");
  cr_assert(!hs_keep_stale(&young, 0, reach), "not before it has served its steps");
  /* a motion that would size a new superset at just over a quarter of μ keeps this one; just
   * under, walks */
  const real quarter = 0.25 * loose.mu * (real)(loose.age + 1) / HS_KEEP_STEPS;
  cr_assert(!hs_keep_stale(&loose, 1.01 * quarter, reach), "still moving: kept");
  cr_assert(hs_keep_stale(&loose, 0.99 * quarter, reach));
  cr_assert(!hs_keep_stale(&tight, 0, reach), "at the floor already: kept");
}

/* ---- half-space pairs: a tree's walk against a plane, kept ------------------------------- */

/* The plane walk's candidates: their count, into out[] (cap entries). */
static int plane_walk(bvhTree A, vec3 n, real d, int mode, int *out, int cap) {
  int c = bvh_plane_walk(A, n, d, mode, out, cap);
  cr_assert(c >= 0 && c <= cap, "plane walk: %d candidates (cap %d)", c, cap);
  return c;
}

/* n turned by th about a random axis (still unit), d moved by dd. */
static void nudge_plane(test_rng *r, vec3 n0, real d0, double th, double dd, vec3 *n, real *d) {
  const xform X = nudge(r, xf_identity(), th, 0);
  *n = v3_normalize(quat_rotate(X.q, n0));
  *d = d0 + (test_rng_uniform(r, 0, 1) < 0.5 ? -dd : dd);
}

/* As superset_case, for a tree of tets (mode STRADDLE, a compliant mesh on a rigid floor) or of
 * triangles in leaves of three (INSIDE, rigid triangles on a compliant floor): the superset
 * filtered within its motion is the walk, element for element and in order. */
static void plane_superset_case(int nper, int leaf, int mode, uint64_t seed) {
  test_rng r = {seed};
  soup so = make_soup(&r, 400, nper, 0.1);
  bvhHost h = soup_bvh(&so, leaf);
  const bvhTree A = bvh_host_view(&h);
  const int cap = so.nelem;
  int *w = malloc(sizeof(int) * cap), *f = malloc(sizeof(int) * cap), *pos = malloc(sizeof(int) * cap);
  const real reach = bvh_tree_reach(A);
  int checked = 0, missed_beyond = 0;
  for (int trial = 0; trial < 8; ++trial) {
    const vec3 n0 =
        v3_normalize(v3(test_rng_uniform(&r, -1, 1), test_rng_uniform(&r, -1, 1), test_rng_uniform(&r, -1, 1)));
    const real d0 = test_rng_uniform(&r, -0.2, 0.2), mu = 0.01;
    bvhSuper S = {pos, cap, 0, mu};
    const int c0 = bvh_plane_walk_sup(A, n0, d0, mode, &S, f, cap);
    /* the superset walk's own candidates are the walk's */
    cr_assert_eq(c0, plane_walk(A, n0, d0, mode, w, cap));
    cr_assert(memcmp(f, w, sizeof(int) * c0) == 0);
    cr_assert(S.n <= S.cap && S.n >= c0, "superset %d against %d candidates", S.n, c0);
    hsKeep k = {{xf_identity()}, mu, S.n, 0};
    k.at.plane.n = n0, k.at.plane.d = d0;
    for (int i = 0; i < 80; ++i) {
      const int beyond = i >= 60;
      vec3 n;
      real d;
      if (beyond) nudge_plane(&r, n0, d0, 0.2, 0.03, &n, &d);
      else nudge_plane(&r, n0, d0, test_rng_uniform(&r, 0, 0.005), test_rng_uniform(&r, 0, 0.004), &n, &d);
      const real moved = hs_keep_plane_motion(&k, n, d, reach);
      const int c = bvh_plane_filter(A, n, d, mode, pos, S.n, f, cap);
      const int m = plane_walk(A, n, d, mode, w, cap);
      if (beyond) {
        cr_assert_gt(moved, mu);
        missed_beyond += c != m;
        continue;
      }
      if (!(moved <= mu)) continue;
      ++checked;
      cr_assert_eq(c, m, "trial %d plane %d (moved %g of %g): %d filtered, %d walked", trial, i, moved, mu, c, m);
      cr_assert(memcmp(f, w, sizeof(int) * c) == 0, "trial %d plane %d: other elements or another order", trial, i);
    }
  }
  cr_assert_gt(checked, 200, "only %d planes within the motion", checked);
  cr_assert_gt(missed_beyond, 0);
  free(w), free(f), free(pos);
  bvh_free(&h);
  soup_free(&so);
}

Test(walk_keep, plane_superset_filtered_within_its_motion_is_the_walk_tets) {
  plane_superset_case(4, 1, BVH_PLANE_STRADDLE, 31);
}
Test(walk_keep, plane_superset_filtered_within_its_motion_is_the_walk_triangle_leaves) {
  plane_superset_case(3, 3, BVH_PLANE_INSIDE, 32);
}

/* The plane's motion bound holds for every node of a tree, in both modes: a node that passes
 * for the new plane passes for the kept one with the bound (and rounding) as slack. */
Test(walk_keep, plane_motion_bound_covers_every_node) {
  test_rng r = {33};
  soup so = make_soup(&r, 300, 4, 0.2);
  bvhHost h = soup_bvh(&so, 2);
  const bvhTree A = bvh_host_view(&h);
  const real reach = bvh_tree_reach(A);
  long nodes = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const int mode = trial & 1 ? BVH_PLANE_INSIDE : BVH_PLANE_STRADDLE;
    const vec3 n0 =
        v3_normalize(v3(test_rng_uniform(&r, -1, 1), test_rng_uniform(&r, -1, 1), test_rng_uniform(&r, -1, 1)));
    const real d0 = test_rng_uniform(&r, -0.3, 0.3);
    vec3 n;
    real d;
    nudge_plane(&r, n0, d0, test_rng_uniform(&r, 0, 0.05), test_rng_uniform(&r, 0, 0.02), &n, &d);
    hsKeep k = {{xf_identity()}, 1, 0, 0};
    k.at.plane.n = n0, k.at.plane.d = d0;
    const real moved = hs_keep_plane_motion(&k, n, d, reach);
    const real round = 2 * bvh_plane_round(reach, d0);
    for (int i = 0; i < A.nnode; ++i) {
      const bvhNode *a = A.node + i;
      if (!bvh_plane_test(a->lo, a->hi, n, d, mode)) continue;
      ++nodes;
      cr_assert(bvh_plane_test_slack(a->lo, a->hi, n0, d0, mode, moved + round),
                "trial %d node %d: passes for the new plane but not for the old one with slack %g", trial, i, moved);
    }
  }
  cr_assert_gt(nodes, 1000);
  bvh_free(&h);
  soup_free(&so);
}

/* ---- sims: kept against walked every step ------------------------------------------------- */

static isoSim *balls_sim(isoModel *m, int worlds, int max_cand, int keep) {
  if (!keep) setenv("ISO_WALK_KEEP", "0", 1);
  isoSimDef sd = iso_default_sim_def();
  sd.worlds = worlds;
  sd.backend = ISO_BACKEND_CPU;
  sd.threads = 2;
  sd.capacity.max_candidates = max_cand;
  sd.capacity.max_contacts = 4096;
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_OK, "%s", iso_last_error());
  unsetenv("ISO_WALK_KEEP");
  cr_assert_eq(s->contact->work.keep, keep);
  /* balls over the brick and the ground, falling onto them and rolling off */
  for (int w = 0; w < worlds; ++w) {
    tb_place(s, w, 0, 0.01 * w, 0.0, 0.12);
    tb_place(s, w, 1, 0.05, 0.02 - 0.005 * w, 0.25);
    tb_place(s, w, 2, 0.0, 0.0, 0.031);
  }
  return s;
}

/* Steps both sims `steps` times; every step their candidate lists match exactly. Returns how
 * many (world, pair) steps the kept sim served from a superset. */
static long run_side_by_side(isoSim *kept, isoSim *walked, int steps) {
  const hydroWork *K = &kept->contact->work, *Wk = &walked->contact->work;
  const int np = kept->contact->dev.npair, nw = iso_sim_world_count(kept);
  long served = 0;
  for (int t = 0; t < steps; ++t) {
    cr_assert_eq(iso_sim_step(kept), ISO_OK, "%s", iso_last_error());
    cr_assert_eq(iso_sim_step(walked), ISO_OK, "%s", iso_last_error());
    for (int w = 0; w < nw; ++w) {
      cr_assert_eq(K->cand_total[w], Wk->cand_total[w], "step %d world %d", t, w);
      cr_assert_eq(K->cand_needed[w], Wk->cand_needed[w], "step %d world %d", t, w);
      for (int k = 0; k < 2; ++k)
        cr_assert(memcmp(hs_cand(K, w, k), hs_cand(Wk, w, k), sizeof(int) * K->cand_total[w]) == 0,
                  "step %d world %d: other candidates", t, w);
      for (int p = 0; p < np; ++p) served += hs_keep_get(hs_cand(K, w, 2), p).age > 0;
    }
  }
  return served;
}

static void assert_same_state(isoSim *a, isoSim *b) {
  const int nw = iso_sim_world_count(a);
  double x[2][4 * 21], y[2][4 * 21]; /* three free bodies: 21 q and 18 v per world */
  cr_assert_leq(nw, 4);
  for (int k = 0; k < 2; ++k) {
    const isoStateField f = k ? ISO_STATE_V : ISO_STATE_Q;
    cr_assert_eq(iso_sim_get_state(a, f, iso_worlds_all(), x[k]), ISO_OK, "%s", iso_last_error());
    cr_assert_eq(iso_sim_get_state(b, f, iso_worlds_all(), y[k]), ISO_OK, "%s", iso_last_error());
    cr_assert(memcmp(x[k], y[k], sizeof(double) * (size_t)nw * (k ? 18 : 21)) == 0, "the %s differ", k ? "v" : "q");
  }
}

Test(walk_keep, kept_walks_give_the_walks_candidates_every_step) {
  isoModel *m = tb_balls_and_brick();
  isoSim *kept = balls_sim(m, 4, 1 << 14, 1), *walked = balls_sim(m, 4, 1 << 14, 0);
  const long served = run_side_by_side(kept, walked, 400);
  assert_same_state(kept, walked);
  cr_assert_gt(served, 100, "the kept path must be taken (%ld pair-steps)", served);
  /* a reset keeps what was kept, which depends on the meshes and poses alone: the next steps
   * from the reset states still match */
  cr_assert_eq(iso_sim_reset(kept, iso_worlds_all()), ISO_OK);
  cr_assert_eq(iso_sim_reset(walked, iso_worlds_all()), ISO_OK);
  run_side_by_side(kept, walked, 50);
  assert_same_state(kept, walked);
  iso_sim_destroy(kept), iso_sim_destroy(walked);
  iso_model_destroy(m);
}

/* Rigid meshes on a compliant floor (triangles against a compliant half-space: the other kind
 * of half-space pair): a sphere and a brick dropped, tilted, spinning, onto it. */
static isoModel *rigid_on_soft_floor(void) {
  isoModel *m = NULL;
  iso_model_create(NULL, &m);
  for (int i = 0; i < 2; ++i) {
    isoBodyDef b = iso_default_body_def();
    b.name = i ? "brick" : "ball";
    iso_model_add_body(m, &b, NULL);
    isoGeometryDef g = iso_default_geometry_def();
    g.name = b.name;
    g.body = i;
    g.shape = i ? ISO_SHAPE_BOX : ISO_SHAPE_SPHERE;
    g.size[0] = i ? 0.12 : 0.05, g.size[1] = 0.08, g.size[2] = 0.06;
    g.compliance = ISO_COMPLIANCE_RIGID;
    g.resolution_hint = 0.025;
    cr_assert_eq(iso_model_add_geometry(m, &g, NULL), ISO_OK, "%s", iso_last_error());
  }
  isoGeometryDef g = iso_default_geometry_def();
  g.name = "soft floor";
  g.shape = ISO_SHAPE_HALFSPACE;
  g.compliance = ISO_COMPLIANCE_COMPLIANT;
  g.hydroelastic_modulus = 1e6;
  g.slab_thickness = 0.1;
  cr_assert_eq(iso_model_add_geometry(m, &g, NULL), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  return m;
}

static isoSim *floor_sim(isoModel *m, int worlds, int keep) {
  if (!keep) setenv("ISO_WALK_KEEP", "0", 1);
  isoSimDef sd = iso_default_sim_def();
  sd.worlds = worlds;
  sd.backend = ISO_BACKEND_CPU;
  sd.threads = 2;
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_OK, "%s", iso_last_error());
  unsetenv("ISO_WALK_KEEP");
  cr_assert_eq(s->contact->work.keep, keep);
  double q[14], v[12];
  for (int w = 0; w < worlds; ++w) {
    cr_assert_eq(iso_sim_get_state(s, ISO_STATE_Q, iso_worlds_one(w), q), ISO_OK);
    /* the ball just above the floor, the brick tilted about x; both spinning about z, the brick
     * sliding */
    const double h = 0.1 + 0.05 * w, c = cos(h), sn = sin(h);
    const double qb[14] = {1, 0, 0, 0, 0, 0, 0.052, c, sn, 0, 0, 0.3, 0, 0.08};
    memcpy(q, qb, sizeof q);
    const double vb[12] = {0, 0, 3, 0, 0, 0, 0, 0, 2 + w, 0.3, 0, 0};
    memcpy(v, vb, sizeof v);
    cr_assert_eq(iso_sim_set_state(s, ISO_STATE_Q, iso_worlds_one(w), q), ISO_OK);
    cr_assert_eq(iso_sim_set_state(s, ISO_STATE_V, iso_worlds_one(w), v), ISO_OK);
  }
  return s;
}

Test(walk_keep, kept_walks_on_a_compliant_floor_give_the_walks_candidates) {
  isoModel *m = rigid_on_soft_floor();
  cr_assert_eq(iso_model_geometry_count(m), 3);
  isoSim *kept = floor_sim(m, 3, 1), *walked = floor_sim(m, 3, 0);
  const long served = run_side_by_side(kept, walked, 400);
  cr_assert_gt(served, 100, "the kept path must be taken (%ld pair-steps)", served);
  cr_assert_gt(kept->contact->work.cand_total[0], 0, "the bodies must end on the floor");
  double x[2][3 * 14];
  for (int k = 0; k < 2; ++k)
    cr_assert_eq(iso_sim_get_state(k ? walked : kept, ISO_STATE_Q, iso_worlds_all(), x[k]), ISO_OK);
  cr_assert(memcmp(x[0], x[1], sizeof x[0]) == 0, "the poses differ");
  iso_sim_destroy(kept), iso_sim_destroy(walked);
  iso_model_destroy(m);
}

/* Capacities too small for the supersets (the largest candidate count of the run, found first):
 * pairs whose superset does not fit are walked every step, with the same results. */
Test(walk_keep, supersets_that_do_not_fit_are_walked) {
  isoModel *m = tb_balls_and_brick();
  isoSim *probe = balls_sim(m, 4, 1 << 14, 0);
  int most = 0;
  for (int t = 0; t < 300; ++t) {
    cr_assert_eq(iso_sim_step(probe), ISO_OK);
    for (int w = 0; w < 4; ++w)
      if (probe->contact->work.cand_total[w] > most) most = probe->contact->work.cand_total[w];
  }
  iso_sim_destroy(probe);
  cr_assert_gt(most, 10);
  isoSim *kept = balls_sim(m, 4, most, 1), *walked = balls_sim(m, 4, most, 0);
  run_side_by_side(kept, walked, 300);
  assert_same_state(kept, walked);
  iso_sim_destroy(kept), iso_sim_destroy(walked);
  iso_model_destroy(m);
}
