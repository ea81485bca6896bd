/* The Schur complement on participating vertices from the mesh's one factor
 * (kernels/linalg/schur.h): S against a dense C - B^T D^-1 B formed by permuting the dense T
 * and factoring D densely; S symmetric positive definite; E^T Z S = I; and the expansion of
 * dv_p to every DoF against the dense dv_n = -D^-1 B dv_p, both by Z and by one solve. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host/assets/fem_pattern.h"
#include "kernels/linalg/block_chol.h"
#include "kernels/linalg/cholesky.h"
#include "kernels/linalg/schur.h"
#include "support/chol_meshes.h"
#include "support/support.h"

/* A factored mesh: pattern, L and the dense T (chol_meshes.h). */
typedef struct {
  int nvert, ntet, *tet;
  femPattern p;
  bcholView v;
  double *L, *T;
  double kappa; /* ||T||_inf / sigma >= kappa(T) */
} factored;

static void factored_make(factored *f, int *tet, int nvert, int ntet, uint64_t seed) {
  memset(f, 0, sizeof *f);
  f->tet = tet, f->nvert = nvert, f->ntet = ntet;
  cr_assert_eq(fem_pattern_build(nvert, ntet, tet, FEM_ORDER_MIN_DEGREE, &f->p), ISO_OK);
  f->v = bchol_pattern_view(&f->p, f->p.data);
  f->L = malloc(sizeof(double) * 9 * (size_t)f->p.nslot);
  f->T = malloc(sizeof(double) * 9 * (size_t)nvert * nvert);
  test_rng r = {seed};
  fem_random_values(&r, &f->p, tet, 1.0, f->L, f->T);
  f->kappa = fem_norm_inf(3 * nvert, f->T);
  cr_assert_leq(f->kappa, 1e3, "kappa bound %g too large for the tolerances", f->kappa);
  cr_assert_eq(bchol_factor(&f->v, f->L), 0);
}

static void factored_free(factored *f) {
  fem_pattern_free(&f->p);
  free(f->tet), free(f->L), free(f->T);
}

/* m distinct random vertices in random order (a shuffled prefix of a permutation). */
static void random_set(test_rng *r, int n, int m, int *pvert) {
  int *all = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; ++i) all[i] = i;
  for (int i = n - 1; i > 0; --i) {
    int j = (int)(test_rng_u64(r) % (uint64_t)(i + 1)), t = all[i];
    all[i] = all[j], all[j] = t;
  }
  memcpy(pvert, all, sizeof(int) * (size_t)m);
  free(all);
}

/* The dense reference: DoF lists nd (non-participating, ascending) and the participating DoFs
 * in pvert's order; S_ref = C - B^T D^-1 B, and K = D^-1 B (nd x M) for dv_n = -K dv_p. */
typedef struct {
  int nd, M, *dn, *dp;
  double *S, *K;
} denseRef;

static void dense_ref(const factored *f, int m, const int *pvert, denseRef *d) {
  const int n3 = 3 * f->nvert, M = 3 * m;
  unsigned char *in = calloc((size_t)f->nvert, 1);
  for (int a = 0; a < m; ++a) in[pvert[a]] = 1;
  d->M = M, d->nd = n3 - M;
  d->dn = malloc(sizeof(int) * (size_t)(n3 + 1)), d->dp = malloc(sizeof(int) * (size_t)(M + 1));
  int w = 0;
  for (int i = 0; i < n3; ++i)
    if (!in[i / 3]) d->dn[w++] = i;
  for (int q = 0; q < M; ++q) d->dp[q] = 3 * pvert[q / 3] + q % 3;
  const int nd = d->nd;
  double *D = malloc(sizeof(double) * ((size_t)nd * nd + 1));
  d->K = malloc(sizeof(double) * ((size_t)nd * M + 1));
  d->S = malloc(sizeof(double) * ((size_t)M * M + 1));
#define TT(i, j) f->T[(i) + (size_t)(j) * n3]
  for (int j = 0; j < nd; ++j)
    for (int i = 0; i < nd; ++i) D[i + (size_t)j * nd] = TT(d->dn[i], d->dn[j]);
  for (int q = 0; q < M; ++q)
    for (int i = 0; i < nd; ++i) d->K[i + (size_t)q * nd] = TT(d->dn[i], d->dp[q]);
  cr_assert_eq(chol_factor(nd, D), 0);
  for (int q = 0; q < M; ++q) chol_solve(nd, D, d->K + (size_t)q * nd);
  for (int b = 0; b < M; ++b)
    for (int a = 0; a < M; ++a) {
      double s = TT(d->dp[a], d->dp[b]);
      for (int i = 0; i < nd; ++i) s -= TT(d->dn[i], d->dp[a]) * d->K[i + (size_t)b * nd];
      d->S[a + (size_t)b * M] = s;
    }
#undef TT
  free(D);
  free(in);
}

static void dense_ref_free(denseRef *d) { free(d->dn), free(d->dp), free(d->S), free(d->K); }

/* Everything about one participating set. Tolerances, relative to the largest entry compared:
 * S's eigenvalues lie in T's [lambda_min, lambda_max], so ||S|| <= ||T|| and kappa(S) <=
 * kappa(T) <= kappa (chol_meshes.h). Both routes are backward stable to ~k eps (k: the longest
 * sum, a few hundred terms); the inverse W^-1 and the dense D^-1 each amplify that by at most
 * kappa, and the difference of two such results by about kappa^2 against ||S||: 1e-13 kappa^2
 * (<= 4e-11 on these meshes; measured ~1e-15). The identities E^T Z S = I and the expansion
 * involve one inverse: 1e-13 kappa. */
static void check_set(const factored *f, int m, const int *pvert, uint64_t seed) {
  const int n3 = 3 * f->nvert, M = 3 * m;
  double *Z = malloc(sizeof(double) * ((size_t)n3 * M + 1)), *S = malloc(sizeof(double) * ((size_t)M * M + 1));
  double *work = malloc(sizeof(double) * (size_t)(bchol_schur_work_size(f->nvert, m) + 1));
  cr_assert_eq(bchol_schur(&f->v, f->L, m, pvert, 1, Z, S, work), 0);
  denseRef d;
  dense_ref(f, m, pvert, &d);
  const double k1 = 1e-13 * f->kappa, k2 = 1e-13 * f->kappa * f->kappa;
  double smax = 0, serr = 0;
  for (int i = 0; i < M * M; ++i) smax = fmax(smax, fabs(d.S[i]));
  for (int i = 0; i < M * M; ++i) serr = fmax(serr, fabs(S[i] - d.S[i]));
  cr_assert_leq(serr, k2 * smax, "m %d: S differs from C - B^T D^-1 B by %g of %g", m, serr, smax);
  for (int b = 0; b < M; ++b) /* exactly symmetric: one sum per pair, mirrored */
    for (int a = 0; a < M; ++a) cr_assert_eq(S[a + (size_t)b * M], S[b + (size_t)a * M]);
  double *Sc = malloc(sizeof(double) * ((size_t)M * M + 1));
  memcpy(Sc, S, sizeof(double) * (size_t)M * M);
  cr_assert_eq(chol_factor(M, Sc), 0, "S is not positive definite");
  double ierr = 0; /* E^T Z S = I */
  for (int b = 0; b < M; ++b)
    for (int a = 0; a < M; ++a) {
      double s = 0;
      for (int q = 0; q < M; ++q) s += Z[d.dp[a] + (size_t)q * n3] * S[q + (size_t)b * M];
      ierr = fmax(ierr, fabs(s - (a == b)));
    }
  cr_assert_leq(ierr, k1, "m %d: E^T Z S - I reaches %g", m, ierr);
  /* the expansion: p rows are dv_p, the others -D^-1 B dv_p, by Z and by one solve */
  test_rng r = {seed};
  double *dvp = malloc(sizeof(double) * (size_t)(M + 1)), *dv = malloc(sizeof(double) * (size_t)n3);
  double *dv2 = malloc(sizeof(double) * (size_t)n3), *tmp = malloc(sizeof(double) * (size_t)(n3 + M + 1));
  for (int q = 0; q < M; ++q) dvp[q] = test_rng_uniform(&r, -1, 1);
  bchol_schur_expand(f->nvert, m, Z, S, dvp, dv, tmp);
  bchol_schur_expand_solve(&f->v, f->L, m, pvert, S, dvp, dv2, tmp);
  double err = 0;
  for (int q = 0; q < M; ++q) {
    err = fmax(err, fabs(dv[d.dp[q]] - dvp[q]));
    err = fmax(err, fabs(dv2[d.dp[q]] - dvp[q]));
  }
  for (int i = 0; i < d.nd; ++i) {
    double want = 0;
    for (int q = 0; q < M; ++q) want -= d.K[i + (size_t)q * d.nd] * dvp[q];
    err = fmax(err, fabs(dv[d.dn[i]] - want));
    err = fmax(err, fabs(dv2[d.dn[i]] - want));
  }
  cr_assert_leq(err, k1, "m %d: the expansion misses the dense route by %g", m, err);
  /* without Z the same S, bit for bit (the back solves only follow it) */
  double *S2 = malloc(sizeof(double) * ((size_t)M * M + 1));
  cr_assert_eq(bchol_schur(&f->v, f->L, m, pvert, 0, Z, S2, work), 0);
  cr_assert(test_same_bits(S, S2, M * M));
  dense_ref_free(&d);
  free(Z), free(S), free(S2), free(Sc), free(work), free(dvp), free(dv), free(dv2), free(tmp);
}

static void check_gram(const factored *f, int np, const int *pv);

/* Every vertex, one vertex, none, and random subsets in random orders: bchol_schur's S and its
 * expansion (check_set) and, for a set that is not empty, schur_gram's W (check_gram). */
static void check_mesh(factored *f, uint64_t seed) {
  test_rng r = {seed};
  const int n = f->nvert;
  int *pvert = malloc(sizeof(int) * (size_t)n);
  const int sizes[6] = {n, 1, 0, 2, n / 3, n - 1};
  for (int t = 0; t < 6; ++t) {
    random_set(&r, n, sizes[t], pvert);
    check_set(f, sizes[t], pvert, seed + t);
    if (sizes[t] > 0) check_gram(f, sizes[t], pvert);
  }
  free(pvert);
}

Test(schur, matches_dense_on_a_grid) {
  int nv, nt;
  int *tet = fem_grid_mesh(3, 3, 2, &nv, &nt);
  factored f;
  factored_make(&f, tet, nv, nt, 7);
  check_mesh(&f, 70);
  factored_free(&f);
}

/* check on two random tet soups (25 vertices and 15 tets; 50 and 70), every random choice drawn
 * from seeds derived from seed. */
static void on_soups(void (*check)(factored *, uint64_t), uint64_t seed) {
  const int sizes[2][2] = {{25, 15}, {50, 70}};
  for (int t = 0; t < 2; ++t) {
    test_rng r = {seed + t};
    factored f;
    factored_make(&f, fem_soup_mesh(&r, sizes[t][0], sizes[t][1]), sizes[t][0], sizes[t][1], seed - 82 + t);
    check(&f, seed - 10 + 10 * t);
    factored_free(&f);
  }
}

Test(schur, matches_dense_on_tet_soups) { on_soups(check_mesh, 90); }

/* With every vertex participating, D is empty and S is T itself in pvert's order. */
Test(schur, all_vertices_give_t) {
  int nv, nt;
  int *tet = fem_grid_mesh(2, 1, 1, &nv, &nt);
  factored f;
  factored_make(&f, tet, nv, nt, 4);
  const int n3 = 3 * nv;
  int *pvert = malloc(sizeof(int) * (size_t)nv);
  test_rng r = {5};
  random_set(&r, nv, nv, pvert);
  double *Z = malloc(sizeof(double) * (size_t)n3 * n3), *S = malloc(sizeof(double) * (size_t)n3 * n3);
  double *work = malloc(sizeof(double) * (size_t)bchol_schur_work_size(nv, nv));
  cr_assert_eq(bchol_schur(&f.v, f.L, nv, pvert, 0, Z, S, work), 0);
  double err = 0, tmax = 0; /* kappa(T) eps-level: T = (T^-1)^-1 through two inverses */
  for (int b = 0; b < n3; ++b)
    for (int a = 0; a < n3; ++a) {
      double t = f.T[(3 * pvert[a / 3] + a % 3) + (size_t)(3 * pvert[b / 3] + b % 3) * n3];
      tmax = fmax(tmax, fabs(t));
      err = fmax(err, fabs(S[a + (size_t)b * n3] - t));
    }
  cr_assert_leq(err, 1e-13 * f.kappa * f.kappa * tmax, "S - T reaches %g", err);
  free(pvert), free(Z), free(S), free(work);
  factored_free(&f);
}

/* No participating vertex: nothing computed, success, and the expansion of nothing is zero. A
 * repeated vertex would make W singular: refused at its first DoF, not a silent wrong S. */
Test(schur, empty_and_repeated_sets) {
  int nv, nt;
  int *tet = fem_grid_mesh(2, 2, 1, &nv, &nt);
  factored f;
  factored_make(&f, tet, nv, nt, 6);
  double dv[3 * 18], work[3 * 18 * 6 * 6], Z[3 * 18 * 6], S[36];
  cr_assert_eq(nv, 18);
  cr_assert_eq(bchol_schur(&f.v, f.L, 0, NULL, 1, NULL, NULL, work), 0);
  for (int i = 0; i < 3 * nv; ++i) dv[i] = 1;
  bchol_schur_expand_solve(&f.v, f.L, 0, NULL, NULL, NULL, dv, work);
  for (int i = 0; i < 3 * nv; ++i) cr_assert_eq(dv[i], 0);
  int twice[2] = {5, 5};
  cr_assert_eq(bchol_schur(&f.v, f.L, 2, twice, 0, Z, S, work), 4);
  factored_free(&f);
}

/* bchol_unfactor gives T back from its factor, in vertex order: what a body whose every vertex
 * is in contact uses as its Schur complement. Each entry is a sum of at most 3n products with
 * |L_ik L_jk| <= sqrt(T_ii T_jj) <= max|T| (Cauchy–Schwarz on the rows of L), so the error is
 * at most ~3n·eps·max|T| (twice that as the bound). */
Test(schur, unfactor_gives_t_back) {
  int nv, nt;
  int *tet = fem_grid_mesh(3, 3, 2, &nv, &nt);
  factored f;
  factored_make(&f, tet, nv, nt, 11);
  const int n3 = 3 * nv;
  double *T = malloc(sizeof(double) * (size_t)n3 * n3);
  bchol_unfactor(&f.v, f.L, T);
  double err = 0, tmax = 0;
  for (int c = 0; c < n3; ++c)
    for (int r = 0; r < n3; ++r) {
      tmax = fmax(tmax, fabs(f.T[r + (size_t)c * n3]));
      if (r >= c) err = fmax(err, fabs(T[r + (size_t)c * n3] - f.T[r + (size_t)c * n3]));
      else cr_assert_eq(T[r + (size_t)c * n3], 0.0, "the strict upper triangle is zero");
    }
  cr_assert_leq(err, 2 * 3 * n3 * 2.220446e-16 * tmax, "LL^T - T reaches %g (max |T| %g)", err, tmax);
  cr_assert_gt(tmax, 0);
  free(T);
  factored_free(&f);
}

/* The lowest common ancestor of positions a and b in the elimination forest, -1 when none. */
static int tree_lca(const bcholView *v, int a, int b) {
  while (a != b && a >= 0 && b >= 0) a < b ? (a = v->parent[a]) : (b = v->parent[b]);
  return a == b ? a : -1;
}

/* W = (T⁻¹)_pp by schur_gram (what a world's deformable clique uses where its Newton storage has
 * room) against the dense T⁻¹'s columns at the participating DoFs: one inverse of T, so the
 * error is ~k·eps·kappa against max|W| (k: a few hundred terms per sum); 1e-13·kappa as the
 * bound, as check_set's. Its diagonal blocks are exactly symmetric (the same products in the
 * same order), and the four-lane path sum gives the portable one's bits on every pair. */
static void check_gram(const factored *f, int np, const int *pv) {
  const int n = f->nvert, n3 = 3 * n, m = 3 * np;
  int *mark = malloc(sizeof(int) * (size_t)(2 * n + 1)), *path = mark + n;
  const int npath = schur_path_union(&f->v, pv, np, mark, path);
  double *store = calloc((size_t)schur_gram_room(n, np, npath) + 1, sizeof(double));
  double *W = malloc(sizeof(double) * ((size_t)m * m + 1));
  schur_gram(&f->v, f->L, np, pv, path, npath, mark, store, W);
  double *T = malloc(sizeof(double) * (size_t)n3 * n3), *col = malloc(sizeof(double) * (size_t)n3);
  memcpy(T, f->T, sizeof(double) * (size_t)n3 * n3);
  cr_assert_eq(chol_factor(n3, T), 0);
  double wmax = 0, err = 0;
  for (int b = 0; b < m; ++b) {
    for (int i = 0; i < n3; ++i) col[i] = 0;
    col[3 * pv[b / 3] + b % 3] = 1;
    chol_solve(n3, T, col);
    for (int a = 3 * (b / 3); a < m; ++a) { /* the lower triangle and the diagonal blocks */
      const double want = col[3 * pv[a / 3] + a % 3];
      wmax = fmax(wmax, fabs(want));
      err = fmax(err, fabs(W[a + (size_t)b * m] - want));
    }
  }
  cr_assert_gt(wmax, 0);
  cr_assert_leq(err, 1e-13 * f->kappa * wmax, "np %d: W misses (T^-1)_pp by %g of %g", np, err, wmax);
  for (int s = 0; s < np; ++s)
    for (int c1 = 0; c1 < 3; ++c1)
      for (int c2 = 0; c2 < 3; ++c2)
        cr_assert_eq(W[3 * s + c1 + (size_t)(3 * s + c2) * m], W[3 * s + c2 + (size_t)(3 * s + c1) * m]);
#if ISO_AVX2
  if (iso_cpu_avx2()) {
    const double *panel = store + 9L * n;
    for (int t = 0; t < np; ++t)
      for (int s = t; s < np; ++s) {
        const int j = tree_lca(&f->v, f->v.iperm[pv[s]], f->v.iperm[pv[t]]);
        if (j < 0) continue;
        double a1[9] = {0}, a2[9] = {0};
        schur_gram_path_portable(&f->v, j, mark, panel + 9L * npath * s, panel + 9L * npath * t, a1);
        schur_gram_path_avx2(&f->v, j, mark, panel + 9L * npath * s, panel + 9L * npath * t, a2);
        cr_assert(test_same_bits(a1, a2, 9), "pair (%d, %d): the lanes' sum differs from the scalar one", s, t);
      }
  }
#endif
  free(mark), free(store), free(W), free(T), free(col);
}

/* Two grids with no vertex in common: a forest of two trees, whose vertices' blocks of W are
 * zero (T⁻¹ couples nothing across), and each tree's blocks as the dense inverse's. */
Test(schur, gram_on_a_forest) {
  int nv, nt;
  int *one = fem_grid_mesh(2, 2, 1, &nv, &nt);
  int *tet = malloc(sizeof(int) * 8 * (size_t)nt);
  for (int i = 0; i < 4 * nt; ++i) tet[i] = one[i], tet[4 * nt + i] = one[i] + nv;
  free(one);
  factored f;
  factored_make(&f, tet, 2 * nv, 2 * nt, 23);
  int roots = 0;
  for (int j = 0; j < f.v.n; ++j) roots += f.v.parent[j] < 0;
  cr_assert_eq(roots, 2, "two components, two trees");
  check_mesh(&f, 230);
  factored_free(&f);
}
