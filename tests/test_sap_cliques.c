/* The SAP problem in cliques (kernels/sap/problem.h) on hand-built problems whose cliques have
 * different sizes: free bodies (6 DoFs, SAP_BLOCK_RIGID_POINT blocks) beside point masses
 * (3 DoFs, SAP_BLOCK_POINT_MASS blocks), a mix no scene makes yet, so that nothing in the solver
 * can lean on a clique being 6 wide. Checked:
 *  - the Newton system the solver assembles from clique blocks, against one built densely here
 *    from the harness's own contact velocities: H = A + Σ JᵀGJ and the right-hand side −∇ℓ;
 *    a constraint between two cliques couples their blocks of H, one between a clique and the
 *    world touches only its clique's diagonal block;
 *  - random mixed problems (all three contact models) solve to optimality, with the checks of
 *    the free-body solver tests (tests/support/sap_random.h), and the per-world solve gives
 *    bitwise the batched one. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "kernels/sap/solve.h"
#include "support/sap_problem.h"
#include "support/sap_random.h"
#include "support/support.h"

#define DT 0.01

/* Free body, point mass, free body, point mass: offsets 0, 6, 9, 15 in v. */
static const int mixed[4] = {6, 3, 6, 3};

/* Contacts of every kind of coupling: with the world on either side, free body – point mass,
 * point mass – point mass, free body – free body. */
static const int mixed_pairs[8][2] = {{-1, 0}, {-1, 1}, {0, 1}, {1, 3}, {2, 3}, {3, -1}, {0, 2}, {-1, 2}};

/* One world of cliques of `sizes`, contacts `pairs`, prepared as stage 5 prepares it, and the
 * solver's first Newton system assembled (sap_newton_begin). */
static void first_system(sapProblem *P, int ncl, const int *sizes, const int (*pairs)[2], int npair, int model,
                         uint64_t seed) {
  test_rng r = {seed};
  sapp_init_cliques(P, 1, ncl, sizes, npair, DT);
  sapr_world(P, 0, model, &r, pairs, npair);
  sapp_prepare(P);
  sap_newton_begin(&P->B, 0);
  cr_assert(!P->stats[0].done, "a random warm start is not optimal: the system must be assembled");
}

/* The assembled H and −∇ℓ agree with the dense ones to rounding: each entry is a sum of a few
 * dozen products, ≤ 1e-13 of the largest entry (1e-12 allowed); G comes from the same law at
 * contact velocities that differ by rounding, and the laws are smooth away from region
 * boundaries, which random velocities do not sit on. H is assembled column-major, its lower
 * triangle only (all the Cholesky reads): the strict upper triangle stays zero. */
Test(sap_cliques, hessian_and_gradient_are_dense_sums_over_clique_blocks) {
  for (int model = 0; model < 3; ++model) {
    sapProblem P;
    first_system(&P, 4, mixed, mixed_pairs, 8, model, 40 + (uint64_t)model);
    const int nv = P.nv;
    double Hd[64 * 64], g[64], scale = 0, gscale = 0;
    sapp_dense_hessian(&P, Hd);
    for (int i = 0; i < nv * nv; ++i) scale = fmax(scale, fabs(Hd[i]));
    const double *H = P.chol.A; /* column-major: H[nv·col + row] */
    for (int a = 0; a < nv; ++a)
      for (int b = 0; b < nv; ++b) {
        if (b > a) {
          cr_assert_eq(H[nv * b + a], 0.0, "model %d: H[%d][%d] above the diagonal was written", model, a, b);
          continue;
        }
        cr_assert_leq(fabs(H[nv * b + a] - Hd[nv * a + b]), 1e-12 * scale, "model %d: H[%d][%d] = %.17g, dense %.17g",
                      model, a, b, H[nv * b + a], Hd[nv * a + b]);
        cr_assert_leq(fabs(Hd[nv * b + a] - Hd[nv * a + b]), 1e-12 * scale, "dense H not symmetric at %d, %d", a, b);
      }
    sapp_cost_grad(&P, 0, P.v, g, NULL);
    for (int i = 0; i < nv; ++i) gscale = fmax(gscale, fabs(g[i]));
    for (int i = 0; i < nv; ++i)
      cr_assert_leq(fabs(P.chol.B[i] + g[i]), 1e-12 * gscale, "model %d: rhs[%d] = %.17g, −∇ℓ = %.17g", model, i,
                    P.chol.B[i], -g[i]);
    sapp_free(&P);
  }
}

/* Which blocks a constraint fills: a free body (clique 0) and a point mass (clique 1) with
 * contacts against the world only leave H's coupling block (6 × 3) exactly zero; one contact
 * between them fills it (the A blocks are diagonal to the clique, so only the constraint can). */
Test(sap_cliques, only_a_constraint_between_two_cliques_couples_them) {
  static const int sizes[2] = {6, 3};
  static const int world_only[3][2] = {{-1, 0}, {1, -1}, {-1, 1}};
  static const int coupled[3][2] = {{-1, 0}, {1, -1}, {0, 1}};
  for (int k = 0; k < 2; ++k) {
    sapProblem P;
    first_system(&P, 2, sizes, k ? coupled : world_only, 3, SAP_MODEL_CONVEX, 7);
    const int nv = P.nv;
    double coupling = 0, diag = 0;
    for (int a = 0; a < 6; ++a) { /* the coupling block below the diagonal: rows 6-8, columns 0-5 */
      for (int b = 6; b < 9; ++b) coupling += fabs(P.chol.A[nv * a + b]);
      diag += fabs(P.chol.A[nv * a + a]);
    }
    if (k) cr_assert_gt(coupling, 1e-6 * diag, "a constraint between cliques 0 and 1 must couple them");
    else cr_assert_eq(coupling, 0.0, "constraints with the world coupled two cliques");
    sapp_free(&P);
  }
}

/* Four random worlds of mixed cliques per model, solved together, each optimal. */
static void mixed_optimality(int model, uint64_t seed) {
  sapProblem P;
  test_rng r = {seed};
  sapp_init_cliques(&P, 4, 4, mixed, 8, DT);
  for (int w = 0; w < P.nworld; ++w) sapr_world(&P, w, model, &r, mixed_pairs, 8);
  sapp_solve(&P);
  sapr_check_optimal(&P, model, &r);
  sapp_free(&P);
}

Test(sap_cliques, mixed_sizes_convex_is_optimal) { mixed_optimality(SAP_MODEL_CONVEX, 501); }
Test(sap_cliques, mixed_sizes_lagged_is_optimal) { mixed_optimality(SAP_MODEL_LAGGED, 502); }
Test(sap_cliques, mixed_sizes_similar_is_optimal) { mixed_optimality(SAP_MODEL_SIMILAR, 503); }

/* The per-world solve (sap_solve_world, what the GPU runs; with a workspace, what the CPU runs)
 * gives bitwise the batched path's velocities and statistics on mixed cliques too. */
Test(sap_cliques, per_world_solve_is_bitwise_the_batched_one) {
  for (int model = 0; model < 3; ++model) {
    sapProblem P, Q, R;
    test_rng r = {600 + (uint64_t)model}, r2 = {600 + (uint64_t)model}, r3 = {600 + (uint64_t)model};
    sapp_init_cliques(&P, 3, 4, mixed, 8, DT);
    sapp_init_cliques(&Q, 3, 4, mixed, 8, DT);
    sapp_init_cliques(&R, 3, 4, mixed, 8, DT);
    for (int w = 0; w < 3; ++w)
      sapr_world(&P, w, model, &r, mixed_pairs, 8), sapr_world(&Q, w, model, &r2, mixed_pairs, 8);
    for (int w = 0; w < 3; ++w) sapr_world(&R, w, model, &r3, mixed_pairs, 8);
    sapp_solve(&P);
    sapp_prepare(&Q);
    for (int w = 0; w < 3; ++w) sap_solve_world(&Q.B, w);
    /* R: with a workspace (the CPU backend's per-thread one), the same bits */
    sapp_prepare(&R);
    R.B.work = calloc(8, sizeof(sapWorkCon));
    for (int w = 0; w < 3; ++w) sap_solve_world(&R.B, w);
    free(R.B.work);
    const sapProblem *S[2] = {&Q, &R};
    for (int k = 0; k < 2; ++k) {
      cr_assert_eq(memcmp(P.v, S[k]->v, sizeof(double) * (size_t)(3 * P.nv)), 0, "velocities differ (model %d, %s)",
                   model, k ? "workspace" : "none");
      for (int w = 0; w < 3; ++w) {
        cr_assert(P.stats[w].converged && P.stats[w].iterations > 0, "model %d world %d", model, w);
        cr_assert_eq(P.stats[w].iterations, S[k]->stats[w].iterations, "model %d world %d", model, w);
        cr_assert_eq(P.stats[w].ls_iterations, S[k]->stats[w].ls_iterations, "model %d world %d", model, w);
        cr_assert_eq(memcmp(&P.stats[w].cost, &S[k]->stats[w].cost, sizeof(double)), 0, "model %d world %d", model, w);
      }
    }
    sapp_free(&P);
    sapp_free(&Q);
    sapp_free(&R);
  }
}

/* ---- blocks of a point on vertices (a deformable contact's barycentric gather blocks) -------- */

/* A gather block of nvert vertices at random slots of a clique of `width` DoFs: coefficients c_k,
 * columns 3·slot + axis, and J = c_k·Rᵀ per vertex (as kernels/fem/detect.h forms it). */
static void vertex_block(test_rng *r, mat3 R, int nvert, int width, double sign, double *coef, int *cols, double *J) {
  for (int k = 0; k < nvert; ++k) {
    coef[k] = sign * test_rng_uniform(r, 0, 1);
    const int slot = (int)test_rng_uniform(r, 0, width / 3 - 1e-9);
    for (int ax = 0; ax < 3; ++ax) {
      cols[3 * k + ax] = 3 * slot + ax;
      for (int i = 0; i < 3; ++i) J[3 * nvert * i + 3 * k + ax] = coef[k] * R.m[ax][i];
    }
  }
}

/* The structured Hessian (sap_cj_add_hessian_vertex: coef·coef·Γ, coef·R·G·J), and the
 * structured J·x and Jᵀ·g, against the
 * general loop on the same blocks with the structure hidden, for the couplings scenes make:
 * two bodies (deformable–deformable), a body against a free rigid body (compact 3 × 6 block),
 * against a tree (a dense block), against the world; also a block against itself (both blocks
 * on one clique). Both are sums of 3–9 products of O(1) numbers, so they agree to 1e-14 of the
 * largest entry, and every entry written is within the lower triangle. */
Test(sap_cliques, vertex_blocks_hessian_matches_the_general_one) {
  test_rng r = {77};
  /* two bodies, a free body, a tree */
  const sapClique cl[4] = {{27, 0, 0, 0}, {27, 27, 0, 0}, {6, 54, 0, 0}, {7, 60, 0, 0}};
  const int nv = 67;
  const int cases[5][2] = {{0, 1}, {0, 2}, {0, 3}, {0, -1}, {1, 1}};
  for (int t = 0; t < 5; ++t)
    for (int rep = 0; rep < 20; ++rep) {
      const double ax = test_rng_uniform(&r, -1, 1), ay = test_rng_uniform(&r, -1, 1), az = test_rng_uniform(&r, -1, 1);
      const mat3 R = sap_frame_from_z(v3_normalize(v3(ax, ay, az)));
      double coef[2][4], J[2][36], G[9], M[9];
      int cols[2][12];
      sapConJ j;
      j.rows = 3;
      j.R = R;
      for (int i = 0; i < 9; ++i) M[i] = test_rng_uniform(&r, -1, 1);
      for (int i = 0; i < 3; ++i) /* G = MᵀM: symmetric positive semi-definite, as a law's */
        for (int k = 0; k < 3; ++k) G[3 * i + k] = M[i] * M[k] + M[3 + i] * M[3 + k] + M[6 + i] * M[6 + k];
      for (int q = 0; q < 2; ++q) {
        j.clique[q] = cases[t][q];
        j.J[q] = (const double *)0, j.cols[q] = (const int *)0, j.ncols[q] = 0, j.coef[q] = (const double *)0;
        if (j.clique[q] < 0) continue;
        if (q == 0 || j.clique[q] <= 1) { /* a deformable body's vertex block */
          const int nvert = q == 0 && t == 1 ? 3 : 4;
          vertex_block(&r, R, nvert, cl[j.clique[q]].nv, q ? 1 : -1, coef[q], cols[q], J[q]);
          j.J[q] = J[q], j.cols[q] = cols[q], j.ncols[q] = 3 * nvert, j.coef[q] = coef[q];
        } else { /* a rigid block, general */
          for (int i = 0; i < 3 * cl[j.clique[q]].nv; ++i) J[q][i] = test_rng_uniform(&r, -1, 1);
          j.J[q] = J[q];
        }
      }
      double Hs[67 * 67] = {0}, Hg[67 * 67] = {0};
      sap_cj_add_hessian(&j, cl, G, nv, Hs);
      cr_assert(j.coef[0], "the structured path runs");
      sapConJ g = j;
      g.coef[0] = g.coef[1] = (const double *)0;
      sap_cj_add_hessian(&g, cl, G, nv, Hg);
      double hmax = 0, err = 0;
      for (int c = 0; c < nv; ++c)
        for (int row = 0; row < nv; ++row) {
          const double hs = Hs[c * nv + row], hg = Hg[c * nv + row];
          if (row < c) cr_assert(hs == 0 && hg == 0, "case %d: an entry above the diagonal", t);
          hmax = fmax(hmax, fabs(hg));
          err = fmax(err, fabs(hs - hg));
        }
      cr_assert_gt(hmax, 0, "case %d: the constraint adds something", t);
      cr_assert_leq(err, 1e-14 * hmax, "case %d: structured and general differ by %g (max %g)", t, err, hmax);
      /* J·x and Jᵀ·g (sap_vertex_apply, _t): sums of at most 12 products of O(1) numbers */
      double x[67], gam[3], vs[3], vg[3], os[67] = {0}, og[67] = {0};
      for (int i = 0; i < nv; ++i) x[i] = test_rng_uniform(&r, -1, 1);
      for (int i = 0; i < 3; ++i) gam[i] = test_rng_uniform(&r, -1, 1);
      sap_cj_apply(&j, cl, x, vs);
      sap_cj_apply(&g, cl, x, vg);
      sap_cj_apply_t(&j, cl, gam, -0.7, os);
      sap_cj_apply_t(&g, cl, gam, -0.7, og);
      for (int i = 0; i < 3; ++i)
        cr_assert_leq(fabs(vs[i] - vg[i]), 1e-14 * (1 + fabs(vg[i])), "case %d: J·x row %d: %.17g against %.17g", t, i,
                      vs[i], vg[i]);
      for (int i = 0; i < nv; ++i)
        cr_assert_leq(fabs(os[i] - og[i]), 1e-14 * (1 + fabs(og[i])), "case %d: Jᵀ·g entry %d: %.17g against %.17g", t,
                      i, os[i], og[i]);
    }
}

/* The 3-row path on dense blocks of at most SAP_HESS_SMALL columns (sap_cj_add_hessian_3small: a
 * tree's contact beside a free body's, a tree against itself or the world) gives the general
 * loop's H to the bit: the same sums in the same order, only formed in another loop order. The
 * cliques lie in v in both orders (a tree before and after a free body) and span the sizes the
 * path takes (1 to 12 columns; 3 beside 6, both ways round, are the pairs it compiles with literal
 * sizes); a clique of 13 takes the general loop, which the assembly must still reach. */
Test(sap_cliques, small_dense_blocks_hessian_is_the_general_loops_to_the_bit) {
  test_rng r = {91};
  const sapClique cl[5] = {{3, 0, 0, 0}, {6, 3, 0, 0}, {12, 9, 0, 0}, {1, 21, 0, 0}, {13, 22, 0, 0}};
  const int nv = 35;
  const int cases[9][2] = {{0, 1}, {1, 0}, {2, 1}, {1, 2}, {0, -1}, {-1, 2}, {0, 0}, {3, 2}, {4, 1}};
  for (int t = 0; t < 9; ++t)
    for (int rep = 0; rep < 20; ++rep) {
      double J[2][3 * 13], G[9], M[9];
      sapConJ j;
      j.rows = 3;
      j.R = m3_identity();
      for (int i = 0; i < 9; ++i) M[i] = test_rng_uniform(&r, -1, 1);
      for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k) G[3 * i + k] = M[i] * M[k] + M[3 + i] * M[3 + k] + M[6 + i] * M[6 + k];
      for (int q = 0; q < 2; ++q) {
        j.clique[q] = cases[t][q];
        j.J[q] = (const double *)0, j.cols[q] = (const int *)0, j.ncols[q] = 0, j.coef[q] = (const double *)0;
        if (j.clique[q] < 0) continue;
        for (int i = 0; i < 3 * cl[j.clique[q]].nv; ++i) J[q][i] = test_rng_uniform(&r, -1, 1);
        j.J[q] = J[q];
      }
      double Hs[35 * 35], Hg[35 * 35];
      for (int i = 0; i < nv * nv; ++i) Hs[i] = Hg[i] = test_rng_uniform(&r, -1, 1); /* H holds A already */
      sap_cj_add_hessian(&j, cl, G, nv, Hs);
      sap_cj_add_hessian_m(&j, 3, cl, G, nv, Hg);
      int changed = 0;
      for (int i = 0; i < nv * nv; ++i) {
        cr_assert(memcmp(&Hs[i], &Hg[i], sizeof(double)) == 0, "case %d: H[%d] %.17g, general loop %.17g", t, i, Hs[i],
                  Hg[i]);
        changed |= Hs[i] != Hg[i];
      }
      double H0[35 * 35] = {0};
      sap_cj_add_hessian(&j, cl, G, nv, H0);
      for (int i = 0; i < nv * nv; ++i) changed |= H0[i] != 0;
      cr_assert(changed, "case %d: the constraint adds something", t);
    }
}

/* sap_con_delassus_W against J diag(A)⁻¹ Jᵀ written out from the blocks sap_block_get gives
 * (a gather block's columns at its clique's columns cols): symmetric to the bit (its lower
 * triangle is mirrored) and equal to 1e-14 of its largest entry (sums of at most 24 products of
 * O(1) numbers, each divided by a diagonal in [0.1, 3]). */
static void check_delassus(const sapJac *j, const sapClique *cl, const double *A, const char *what) {
  double W[9];
  sap_con_delassus_W(j, cl, A, W);
  double wmax = 0, err = 0;
  for (int i = 0; i < 3; ++i)
    for (int k2 = 0; k2 < 3; ++k2) {
      double s = 0;
      for (int q = 0; q < 2; ++q) {
        if (j->clique[q] < 0) continue;
        double scratch[SAP_BLOCK_MAX];
        const double *J = sap_block_get(j, q, scratch);
        const int n = cl[j->clique[q]].nv, nc = j->cols[q] ? j->ncols[q] : n;
        for (int k = 0; k < nc; ++k) {
          const int col = j->cols[q] ? j->cols[q][k] : k;
          s += J[nc * i + k] * J[nc * k2 + k] / A[cl[j->clique[q]].a0 + (n + 1) * col];
        }
      }
      wmax = fmax(wmax, fabs(s));
      err = fmax(err, fabs(W[3 * i + k2] - s));
      cr_assert(W[3 * i + k2] == W[3 * k2 + i], "%s: W is symmetric to the bit", what);
    }
  cr_assert_gt(wmax, 0);
  cr_assert_leq(err, 1e-14 * wmax, "%s: W differs from J diag(A)^-1 J^T by %g (max %g)", what, err, wmax);
}

/* The Delassus estimate of gather blocks (J diag(A)⁻¹ Jᵀ on the blocks' columns). */
Test(sap_cliques, gather_delassus_is_j_diag_a_inverse_jt) {
  test_rng r = {91};
  const sapClique cl[2] = {{27, 0, 0, 0}, {27, 27, 27 * 27, 0}};
  double A[2 * 27 * 27] = {0}, Jb[2][36];
  int cols[2][12];
  for (int c = 0; c < 2; ++c)
    for (int k = 0; k < 27; ++k) A[cl[c].a0 + 28 * k] = test_rng_uniform(&r, 1, 3);
  sapJac j;
  j.rows = 3;
  j.R_WC = m3_identity(), j.r[0] = j.r[1] = v3_zero();
  for (int q = 0; q < 2; ++q) {
    for (int k = 0; k < 12; ++k) cols[q][k] = (int)test_rng_uniform(&r, 0, 27 - 1e-9);
    for (int i = 0; i < 36; ++i) Jb[q][i] = test_rng_uniform(&r, -1, 1);
    j.block[q] = SAP_BLOCK_GATHER, j.clique[q] = q;
    j.Jd[q] = Jb[q], j.cols[q] = cols[q], j.ncols[q] = 12, j.coef[q] = (const double *)0;
  }
  check_delassus(&j, cl, A, "gather");
}

/* The same for blocks of vertex columns (deformable contacts: vertex u's three columns are
 * coef[u]·R_WCᵀ, at its clique's columns, one vertex held with coef 0), which take the
 * vertex route (Rᵀ·diag(d)·R): four vertices on one side against three on the other. */
Test(sap_cliques, vertex_delassus_is_j_diag_a_inverse_jt) {
  test_rng r = {93};
  const sapClique cl[2] = {{27, 0, 0, 0}, {27, 27, 27 * 27, 0}};
  double A[2 * 27 * 27] = {0}, Jb[2][36], coef[2][4];
  int cols[2][12];
  for (int c = 0; c < 2; ++c)
    for (int k = 0; k < 27; ++k) A[cl[c].a0 + 28 * k] = test_rng_uniform(&r, 0.1, 3);
  sapJac j;
  memset(&j, 0, sizeof j);
  j.rows = 3;
  j.R_WC = quat_to_m3(quat_normalize(quat_make(test_rng_uniform(&r, -1, 1), test_rng_uniform(&r, -1, 1),
                                               test_rng_uniform(&r, -1, 1), test_rng_uniform(&r, -1, 1))));
  const int nvert[2] = {4, 3};
  for (int q = 0; q < 2; ++q) {
    for (int u = 0; u < nvert[q]; ++u) {
      coef[q][u] = u == 1 && q == 0 ? 0 : test_rng_uniform(&r, -1, 1); /* a held vertex: 0 */
      const int v = 3 * (2 * u + q); /* distinct vertices of the clique, 3 columns each */
      for (int i = 0; i < 3; ++i) {
        cols[q][3 * u + i] = v + i;
        for (int a = 0; a < 3; ++a) Jb[q][3 * nvert[q] * a + 3 * u + i] = coef[q][u] * j.R_WC.m[i][a];
      }
    }
    j.block[q] = SAP_BLOCK_GATHER, j.clique[q] = q;
    j.Jd[q] = Jb[q], j.cols[q] = cols[q], j.ncols[q] = 3 * nvert[q], j.coef[q] = coef[q];
  }
  check_delassus(&j, cl, A, "vertex blocks");
}

/* The same for the compact kinds on whole cliques: a rigid point block (6 columns, the 3 × 6
 * case the step unrolls) against the world, and a rigid point block beside a point mass's
 * (3 columns), against J diag(A)⁻¹ Jᵀ written out from the blocks sap_block_get forms. */
Test(sap_cliques, compact_delassus_is_j_diag_a_inverse_jt) {
  test_rng r = {92};
  const sapClique cl[2] = {{6, 0, 0, 0}, {3, 6, 36, 0}};
  double A[36 + 9] = {0};
  for (int k = 0; k < 6; ++k) A[7 * k] = test_rng_uniform(&r, 0.1, 3);
  for (int k = 0; k < 3; ++k) A[36 + 4 * k] = test_rng_uniform(&r, 0.1, 3);
  for (int coupled = 0; coupled < 2; ++coupled) {
    sapJac j;
    memset(&j, 0, sizeof j);
    j.rows = 3;
    const quat q = quat_normalize(quat_make(test_rng_uniform(&r, -1, 1), test_rng_uniform(&r, -1, 1),
                                            test_rng_uniform(&r, -1, 1), test_rng_uniform(&r, -1, 1)));
    j.R_WC = quat_to_m3(q);
    j.r[0] = v3(test_rng_uniform(&r, -1, 1), test_rng_uniform(&r, -1, 1), test_rng_uniform(&r, -1, 1));
    j.block[0] = SAP_BLOCK_RIGID_POINT, j.clique[0] = 0;
    j.block[1] = SAP_BLOCK_POINT_MASS, j.clique[1] = coupled ? 1 : -1;
    check_delassus(&j, cl, A, coupled ? "rigid point and point mass" : "rigid point");
  }
}
