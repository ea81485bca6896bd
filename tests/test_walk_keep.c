#define _DEFAULT_SOURCE
/* Kept walks (kernels/hydro/walk_keep.h, the superset walk and its filter in
 * kernels/collide/bvh.h): a superset filtered at any pose within its motion gives the walk's
 * candidates exactly, the same pairs in the same order; and a sim whose worlds keep their walks
 * finds the same candidates every step, and ends in the same state to the bit, as one that
 * walks every step, including where the supersets do not fit.
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
    hsKeep k = {X0, mu, S.n, 0};
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
    const hsKeep k = {X0, 1, 0, 0};
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
  hsKeep none = {xf_identity(), 0, 0, 0}, some = {xf_identity(), 1e-3, 10, 3};
  cr_assert_eq(hs_keep_mu(&none, 1, reach), lo);
  cr_assert_eq(hs_keep_mu(&some, NAN, reach), lo);
  cr_assert_eq(hs_keep_mu(&some, INFINITY, reach), hi);
  cr_assert_eq(hs_keep_mu(&some, 0, reach), lo);
  const real mid = 0.5 * (lo + hi);
  cr_assert_eq(hs_keep_mu(&some, mid * 4 / HS_KEEP_STEPS, reach), mid); /* age 3: four steps */
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
