/* The Newton Hessian of free-body contacts summed per pair of cliques (kernels/sap/hessian_rigid.h):
 *  - a run of random contacts between two free bodies (either order of the cliques in v, or one
 *    side the world) gives the per-constraint assembly's H (sap_cj_add_hessian of the dense
 *    blocks) to rounding, and writes nothing above H's diagonal or outside the two cliques;
 *  - in the solver, worlds whose contacts come in runs on the same cliques (and runs broken by
 *    a contact on other cliques) assemble the dense reference H = A + Σ JᵀGJ;
 *  - a constraint that is not a free-body point on both sides never takes the path;
 *  - a run with a jointed body's side (a dense block R_WCᵀ[−[p]× | I]·J_b) summed and flushed
 *    through the body's spatial Jacobian J_b gives the per-constraint H too. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "kernels/sap/solve.h"
#include "support/sap_problem.h"
#include "support/rng.h"
#include "support/sap_random.h"
#include "support/support.h"

/* A free body at 0, a 3-DoF point mass at 6, a free body at 9: nv = 15. */
static const sapClique k_cl[3] = {{6, 0, 0, 0}, {3, 6, 36, 0}, {6, 9, 45, 0}};
#define NV 15

static void rand_spd3(test_rng *r, double *G) {
  double M[9];
  for (int i = 0; i < 9; ++i) M[i] = test_rng_uniform(r, -1, 1);
  for (int i = 0; i < 3; ++i) /* MᵀM, mirrored so that G is bitwise symmetric, as a law's is */
    for (int k = 0; k <= i; ++k)
      G[3 * i + k] = G[3 * k + i] = M[i] * M[k] + M[3 + i] * M[3 + k] + M[6 + i] * M[6 + k];
}

/* Hs (a run's sums flushed) against Hg (the per-constraint assembly), nv × nv column-major, the
 * run on cliques c0, c1 of cl: nothing above the diagonal or outside the two cliques' blocks, and
 * each entry within 1e-14 of the largest. Each entry is a sum over the run's contacts of products
 * of O(1) numbers (r ≤ 0.6 m, |G| ≤ 3, a spatial Jacobian's entries ≤ 1), taken in another order:
 * 1e-14 of the largest entry is ~50 ulps. Returns that largest entry. */
static double run_compare(const double *Hs, const double *Hg, int nv, const sapClique *cl, int c0, int c1) {
  double hmax = 0, err = 0;
  for (int col = 0; col < nv; ++col)
    for (int row = 0; row < nv; ++row) {
      const double hs = Hs[col * nv + row], hg = Hg[col * nv + row];
      int in_r = 0, in_c = 0;
      for (int q = 0; q < 2; ++q) {
        const int cq = q ? c1 : c0;
        if (cq < 0) continue;
        in_r |= row >= cl[cq].v0 && row < cl[cq].v0 + cl[cq].nv;
        in_c |= col >= cl[cq].v0 && col < cl[cq].v0 + cl[cq].nv;
      }
      if (row < col || !in_r || !in_c)
        cr_assert(hs == 0, "cliques %d, %d: H[%d][%d] = %g written outside the lower blocks", c0, c1, row, col, hs);
      hmax = fmax(hmax, fabs(hg));
      err = fmax(err, fabs(hs - hg));
    }
  cr_assert_gt(hmax, 0.1, "cliques %d, %d: the run adds something", c0, c1);
  cr_assert_leq(err, 1e-14 * hmax, "cliques %d, %d: the sums differ from the per-constraint H by %g (max %g)", c0, c1,
                err, hmax);
  return hmax;
}

/* A run of n contacts on cliques (c0, c1) into Hs through the sums and into Hg one constraint at
 * a time through dense blocks; returns the largest |entry| of Hg after checking the two. */
static double run_matches(test_rng *r, int c0, int c1, int n) {
  double Hs[NV * NV] = {0}, Hg[NV * NV] = {0};
  sapCon c;
  memset(&c, 0, sizeof c);
  c.kind = SAP_CON_CONTACT, c.rows = 3;
  c.clique[0] = c0, c.clique[1] = c1;
  c.block[0] = c.block[1] = SAP_BLOCK_RIGID_POINT;
  cr_assert(sap_con_rigid_pair(&c, k_cl), "cliques %d, %d: free bodies or the world take the path", c0, c1);
  sapRigidSum sum;
  sap_rigid_sum_begin(&sum, &c);
  for (int k = 0; k < n; ++k) {
    const vec3 nz = v3_normalize(v3(test_rng_uniform(r, -1, 1), test_rng_uniform(r, -1, 1), test_rng_uniform(r, -1, 1)));
    const vec3 p = v3(test_rng_uniform(r, -.3, .3), test_rng_uniform(r, -.3, .3), test_rng_uniform(r, -.3, .3));
    const vec3 o[2] = {v3(0.1, -0.2, 0.05), v3(-0.15, 0.1, 0.2)};
    double G[9];
    rand_spd3(r, G);
    const sapJac j = sap_jac_make(&c, p, nz, o);
    sap_rigid_sum_add(&sum, k_cl, &j.R_WC, G, j.r);
    sap_con_add_hessian(&j, k_cl, G, NV, Hg);
  }
  sap_rigid_sum_flush(&sum, k_cl, NV, Hs);
  return run_compare(Hs, Hg, NV, k_cl, c0, c1);
}

Test(sap_hessian_rigid, a_run_gives_the_per_constraint_hessian) {
  test_rng r = {2024};
  const int pairs[6][2] = {{0, 2}, {2, 0}, {-1, 0}, {2, -1}, {0, -1}, {-1, 2}};
  for (int t = 0; t < 6; ++t)
    for (int n = 1; n <= 40; n += 13) run_matches(&r, pairs[t][0], pairs[t][1], n);
}

/* A point mass's block (SAP_BLOCK_POINT_MASS), a dense or gather block, one clique on both sides
 * or a constraint of other rows keep the per-constraint path. */
Test(sap_hessian_rigid, only_free_body_points_take_the_path) {
  sapCon c;
  memset(&c, 0, sizeof c);
  c.kind = SAP_CON_CONTACT, c.rows = 3, c.block[0] = c.block[1] = SAP_BLOCK_RIGID_POINT;
  c.clique[0] = 0, c.clique[1] = 2;
  cr_assert(sap_con_rigid_pair(&c, k_cl));
  c.clique[1] = 1, c.block[1] = SAP_BLOCK_POINT_MASS; /* the point mass */
  cr_assert(!sap_con_rigid_pair(&c, k_cl));
  c.clique[1] = 2, c.block[1] = SAP_BLOCK_DENSE;
  cr_assert(!sap_con_rigid_pair(&c, k_cl));
  c.block[1] = SAP_BLOCK_GATHER;
  cr_assert(!sap_con_rigid_pair(&c, k_cl));
  c.block[1] = SAP_BLOCK_RIGID_POINT, c.clique[1] = 0; /* one clique on both sides */
  cr_assert(!sap_con_rigid_pair(&c, k_cl));
  c.clique[1] = 2, c.rows = 1;
  cr_assert(!sap_con_rigid_pair(&c, k_cl));
}

/* A free body at 0, a jointed tree of 4 DoFs at 6 (dense blocks; its origin is the world's), a
 * free body at 10: nv = 16. */
static const sapClique k_tcl[3] = {{6, 0, 0, 0}, {4, 6, 36, 0}, {6, 10, 52, 0}};
#define TNV 16
#define TNT 4

/* As run_matches with clique 1 a jointed tree: its side's block, formed from a random spatial
 * Jacobian J_b (6 × 4) as tree_point_jacobian's rows would be, goes through the dense assembly one
 * constraint at a time, and through the sums and sap_body_sum_flush with J_b. */
static void tree_run_matches(test_rng *r, int c0, int c1, int n) {
  double Hs[TNV * TNV] = {0}, Hg[TNV * TNV] = {0}, Jb[6 * TNT], Jd[2][3 * TNT];
  for (int i = 0; i < 6 * TNT; ++i) Jb[i] = test_rng_uniform(r, -1, 1);
  sapCon c;
  memset(&c, 0, sizeof c);
  c.kind = SAP_CON_CONTACT, c.rows = 3;
  c.clique[0] = c0, c.clique[1] = c1;
  int body[2];
  for (int q = 0; q < 2; ++q) {
    const int cq = q ? c1 : c0;
    c.block[q] = cq == 1 ? SAP_BLOCK_DENSE : SAP_BLOCK_RIGID_POINT;
    body[q] = cq == 1 ? 3 : -1;
  }
  cr_assert(sap_con_body_pair(&c, k_tcl, body), "cliques %d, %d: a jointed side with its body takes the path", c0, c1);
  cr_assert(!sap_con_rigid_pair(&c, k_tcl));
  sapRigidSum sum;
  sap_rigid_sum_begin(&sum, &c);
  for (int k = 0; k < n; ++k) {
    const vec3 nz = v3_normalize(rand_v3(r, -1, 1));
    const vec3 p = rand_v3(r, -.3, .3);
    const vec3 o[2] = {c0 == 1 ? v3_zero() : v3(0.1, -0.2, 0.05), c1 == 1 ? v3_zero() : v3(-0.15, 0.1, 0.2)};
    double G[9];
    rand_spd3(r, G);
    sapJac j = sap_jac_make(&c, p, nz, o);
    for (int q = 0; q < 2; ++q) {
      if (c.block[q] != SAP_BLOCK_DENSE) continue;
      const double s = q ? 1.0 : -1.0;
      for (int b = 0; b < TNT; ++b) {
        const vec3 w = v3(Jb[b], Jb[TNT + b], Jb[2 * TNT + b]);
        const vec3 vo = v3(Jb[3 * TNT + b], Jb[4 * TNT + b], Jb[5 * TNT + b]);
        const vec3 vp = v3_add(vo, v3_cross(w, p)); /* the point's velocity per unit DoF b */
        for (int i = 0; i < 3; ++i) Jd[q][TNT * i + b] = s * v3_dot(m3_col(j.R_WC, i), vp);
      }
      j.Jd[q] = Jd[q];
    }
    sap_rigid_sum_add(&sum, k_tcl, &j.R_WC, G, j.r);
    sap_con_add_hessian(&j, k_tcl, G, TNV, Hg);
  }
  const double *J[2] = {c0 == 1 ? Jb : (const double *)0, c1 == 1 ? Jb : (const double *)0};
  sap_body_sum_flush(&sum, k_tcl, J, TNV, Hs);
  run_compare(Hs, Hg, TNV, k_tcl, c0, c1);
}

Test(sap_hessian_rigid, a_jointed_run_gives_the_per_constraint_hessian) {
  test_rng r = {2025};
  const int pairs[6][2] = {{0, 1}, {1, 0}, {1, 2}, {2, 1}, {-1, 1}, {1, -1}};
  for (int t = 0; t < 6; ++t)
    for (int n = 1; n <= 40; n += 13) tree_run_matches(&r, pairs[t][0], pairs[t][1], n);
}

/* A jointed side takes the path only with its body known; same-clique contacts, other kinds and
 * a point mass never do. */
Test(sap_hessian_rigid, only_known_jointed_bodies_take_the_tree_path) {
  sapCon c;
  memset(&c, 0, sizeof c);
  c.kind = SAP_CON_CONTACT, c.rows = 3, c.block[0] = SAP_BLOCK_RIGID_POINT, c.block[1] = SAP_BLOCK_DENSE;
  c.clique[0] = 0, c.clique[1] = 1;
  int body[2] = {-1, 2};
  cr_assert(sap_con_body_pair(&c, k_tcl, body));
  cr_assert(!sap_con_body_pair(&c, k_tcl, (const int *)0), "no bodies kept (a model without joints)");
  body[1] = -1;
  cr_assert(!sap_con_body_pair(&c, k_tcl, body), "a dense block without its body (two bodies of one tree)");
  body[1] = 2;
  c.clique[0] = 1;
  cr_assert(!sap_con_body_pair(&c, k_tcl, body), "one clique on both sides");
  c.clique[0] = 0, c.kind = SAP_CON_PD;
  cr_assert(!sap_con_body_pair(&c, k_tcl, body), "a joint constraint");
  c.kind = SAP_CON_CONTACT, c.block[0] = SAP_BLOCK_POINT_MASS;
  cr_assert(!sap_con_body_pair(&c, k_tcl, body), "a point mass's block");
  c.block[0] = c.block[1] = SAP_BLOCK_RIGID_POINT, c.clique[1] = 2;
  cr_assert(!sap_con_body_pair(&c, k_tcl, body), "free bodies alone are sap_con_rigid_pair's");
}

/* The solver's H against H = A + Σ JᵀGJ formed densely from the harness's own contact velocities
 * (sapp_dense_hessian, tests/support/sap_problem.h): contacts in runs on the same pair of free
 * bodies, a run broken by a contact elsewhere, point-mass contacts between them. */
Test(sap_hessian_rigid, solver_runs_assemble_the_dense_hessian) {
  static const int sizes[3] = {6, 3, 6};
  static const int pairs[12][2] = {{0, 2}, {0, 2}, {0, 2}, {-1, 0}, {-1, 0}, {0, 2}, {1, 2},
                                   {2, 0}, {2, 0}, {2, -1}, {0, 1}, {-1, 2}};
  for (int model = 0; model < 3; ++model)
    for (int ws = 0; ws < 2; ++ws) {
      sapProblem P;
      test_rng r = {900 + (uint64_t)model};
      sapp_init_cliques(&P, 1, 3, sizes, 12, 0.01);
      sapr_world(&P, 0, model, &r, pairs, 12);
      sapp_prepare(&P);
      sapWorkCon work[12];
      if (ws) { /* the CPU's path: the blocks, offsets and G of a workspace */
        sap_work_begin(&P.B, 0, work);
        sap_newton_begin_ws(&P.B, 0, work);
      } else {
        sap_newton_begin(&P.B, 0);
      }
      cr_assert(!P.stats[0].done, "a random warm start is not optimal: the system must be assembled");
      const int nv = P.nv;
      double Hd[15 * 15], scale = 0;
      sapp_dense_hessian(&P, Hd);
      for (int i = 0; i < nv * nv; ++i) scale = fmax(scale, fabs(Hd[i]));
      for (int a = 0; a < nv; ++a)
        for (int b = 0; b <= a; ++b) /* as test_sap_cliques: ≤ 1e-12 of the largest entry */
          cr_assert_leq(fabs(P.chol.A[nv * b + a] - Hd[nv * a + b]), 1e-12 * scale,
                        "model %d, workspace %d: H[%d][%d] = %.17g, dense %.17g", model, ws, a, b,
                        P.chol.A[nv * b + a], Hd[nv * a + b]);
      sapp_free(&P);
    }
}

/* A contact between free bodies (or a free body and the world): its Delassus estimate from the
 * offsets alone (sap_delassus_rigid_norm, the Frobenius norm being blind to the contact frame)
 * against ‖J diag(A)⁻¹ Jᵀ‖_F / 3 from the general blocks (sap_con_delassus_W), random frames,
 * offsets and diagonals: sums of a dozen positive O(1) products, so 1e-14 relative is ~50 ulps. A
 * point-mass block keeps the general path. */
Test(sap_hessian_rigid, delassus_from_the_offsets_is_the_frobenius_norm) {
  test_rng r = {31};
  double A[36 + 9 + 36] = {0};
  const int pairs[4][2] = {{0, 2}, {2, 0}, {-1, 0}, {2, -1}};
  for (int t = 0; t < 200; ++t) {
    for (int k = 0; k < 6; ++k) A[7 * k] = test_rng_uniform(&r, 0.05, 3), A[45 + 7 * k] = test_rng_uniform(&r, 0.05, 3);
    for (int k = 0; k < 3; ++k) A[36 + 4 * k] = test_rng_uniform(&r, 0.05, 3);
    sapCon c;
    memset(&c, 0, sizeof c);
    c.kind = SAP_CON_CONTACT, c.rows = 3;
    c.clique[0] = pairs[t % 4][0], c.clique[1] = pairs[t % 4][1];
    c.block[0] = c.block[1] = SAP_BLOCK_RIGID_POINT;
    const vec3 o[2] = {v3(0.1, 0.2, -0.3), v3(-0.2, 0.05, 0.1)};
    const vec3 p = v3(test_rng_uniform(&r, -.5, .5), test_rng_uniform(&r, -.5, .5), test_rng_uniform(&r, -.5, .5));
    const sapJac j = sap_jac_make(&c, p, v3_normalize(v3(test_rng_uniform(&r, -1, 1), test_rng_uniform(&r, -1, 1), 1)), o);
    const sapClique cl[3] = {{6, 0, 0, 0}, {3, 6, 36, 0}, {6, 9, 45, 0}};
    cr_assert(sap_jac_rigid_points(&j, cl));
    double W[9], f = 0;
    sap_con_delassus_W(&j, cl, A, W);
    for (int i = 0; i < 9; ++i) f += W[i] * W[i];
    const double w = sap_con_delassus(&c, &j, cl, A), ref = sqrt(f) / 3;
    cr_assert_gt(ref, 0);
    cr_assert_leq(fabs(w - ref), 1e-14 * ref, "case %d: %.17g against %.17g", t, w, ref);
    sapJac pm = j;
    pm.block[1] = SAP_BLOCK_POINT_MASS, pm.clique[1] = 1;
    cr_assert(!sap_jac_rigid_points(&pm, cl), "a point-mass block keeps the general path");
  }
}

/* A world's constraints in a row with the reciprocals of A's diagonal kept between them
 * (sapDiagInv, as stage 5 builds them): each estimate is the one made with nothing kept, to the
 * bit, whatever the order of the cliques: the same clique again on either side, a side that
 * changes clique, the world on one side, a clique met before in the other slot, and every fifth
 * constraint on a point mass (the general blocks' path, which reads the same reciprocals). A
 * reciprocal kept for the wrong clique gives another diagonal's value and fails it. */
Test(sap_hessian_rigid, kept_reciprocals_give_the_same_delassus_bits) {
  test_rng r = {47};
  double A[36 + 9 + 36 + 36] = {0};
  const sapClique cl[4] = {{6, 0, 0, 0}, {3, 6, 36, 0}, {6, 9, 45, 0}, {6, 15, 81, 0}};
  for (int k = 0; k < 6; ++k)
    for (int q = 0; q < 3; ++q) A[(q == 0 ? 0 : q == 1 ? 45 : 81) + 7 * k] = test_rng_uniform(&r, 0.05, 3);
  for (int k = 0; k < 3; ++k) A[36 + 4 * k] = test_rng_uniform(&r, 0.05, 3);
  const int pairs[14][2] = {{0, 2}, {0, 2}, {2, 0}, {2, 0}, {-1, 0}, {0, 3}, {0, 3}, {3, 2},
                            {-1, 3}, {2, -1}, {0, 2}, {3, -1}, {-1, 2}, {2, 3}};
  sapDiagInv kept;
  sap_diag_inv_reset(&kept);
  int differs = 0;
  for (int t = 0; t < 140; ++t) {
    sapCon c;
    memset(&c, 0, sizeof c);
    c.kind = SAP_CON_CONTACT, c.rows = 3;
    c.clique[0] = pairs[t % 14][0], c.clique[1] = pairs[t % 14][1];
    c.block[0] = c.block[1] = SAP_BLOCK_RIGID_POINT;
    const int general = t % 5 == 4; /* a point mass on side 1: the general blocks' path */
    if (general) c.clique[1] = 1, c.block[1] = SAP_BLOCK_POINT_MASS;
    if (general && c.clique[0] < 0) c.clique[0] = 3;
    const vec3 o[2] = {v3(0.1, 0.2, -0.3), v3(-0.2, 0.05, 0.1)};
    const vec3 p = v3(test_rng_uniform(&r, -.5, .5), test_rng_uniform(&r, -.5, .5), test_rng_uniform(&r, -.5, .5));
    const sapJac j = sap_jac_make(&c, p, v3_normalize(v3(test_rng_uniform(&r, -1, 1), 0.3, 1)), o);
    cr_assert_eq(sap_jac_rigid_points(&j, cl), !general);
    const double none = sap_con_delassus(&c, &j, cl, A), with = sap_con_delassus_kept(&c, &j, cl, A, &kept);
    cr_assert(memcmp(&none, &with, sizeof none) == 0, "constraint %d (cliques %d, %d): %.17g kept, %.17g not", t,
              c.clique[0], c.clique[1], with, none);
    /* the test can fail: a side's estimate with another clique's diagonal (what a stale
     * reciprocal would give) differs */
    sapJac other = j;
    const int q = j.clique[0] >= 0 ? 0 : 1;
    other.clique[q] = j.clique[q] == 0 ? 2 : j.clique[q] == 2 ? 3 : 0;
    differs += sap_con_delassus(&c, &other, cl, A) != none;
  }
  cr_assert_eq(differs, 140, "another clique's diagonal must change every estimate: %d of 140 did", differs);
}

