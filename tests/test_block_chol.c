/* The block-sparse Cholesky on one ordering per mesh: the pattern (host/assets/fem_pattern.c)
 * against a dense symbolic elimination, the schedule's slots, the fill of the ordering, and the
 * numeric factor and solve (kernels/linalg/block_chol.h) against the dense Cholesky
 * (kernels/linalg/cholesky.h) on random SPD matrices over grid and random tet meshes. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host/assets/fem_pattern.h"
#include "kernels/linalg/block_chol.h"
#include "kernels/linalg/block_chol3.h"
#include "kernels/linalg/cholesky.h"
#include "kernels/linalg/schur.h"
#include "support/bchol_scalar.h"
#include "support/chol_meshes.h"
#include "support/support.h"

/* One mesh with its pattern, random values (chol_meshes.h) and the dense T. */
typedef struct {
  int nvert, ntet, *tet;
  femPattern p;
  bcholView v;
  double *Lv, *T;
} meshCase;

static void case_make(meshCase *c, int *tet, int nvert, int ntet, femOrdering ord, uint64_t seed) {
  memset(c, 0, sizeof *c);
  c->tet = tet, c->nvert = nvert, c->ntet = ntet;
  cr_assert_eq(fem_pattern_build(nvert, ntet, tet, ord, &c->p), ISO_OK);
  c->v = bchol_pattern_view(&c->p, c->p.data);
  c->Lv = malloc(sizeof(double) * 9 * (size_t)c->p.nslot);
  c->T = malloc(sizeof(double) * 9 * (size_t)nvert * (size_t)nvert);
  test_rng r = {seed};
  fem_random_values(&r, &c->p, tet, 1.0, c->Lv, c->T);
}

static void case_free(meshCase *c) {
  fem_pattern_free(&c->p);
  free(c->tet);
  free(c->Lv);
  free(c->T);
}

static void grid_case(meshCase *c, int nx, int ny, int nz, femOrdering ord, uint64_t seed) {
  int nv, nt;
  int *tet = fem_grid_mesh(nx, ny, nz, &nv, &nt);
  case_make(c, tet, nv, nt, ord, seed);
}

static void soup_case(meshCase *c, int nvert, int ntet, femOrdering ord, uint64_t seed) {
  test_rng r = {seed ^ 0x5eedull};
  case_make(c, fem_soup_mesh(&r, nvert, ntet), nvert, ntet, ord, seed);
}

/* T's dense symmetric permuted copy P T P^T (positions), 3n x 3n column-major. */
static double *dense_permuted(const meshCase *c) {
  const int n3 = 3 * c->nvert;
  double *A = malloc(sizeof(double) * (size_t)n3 * n3);
  for (int j = 0; j < n3; ++j)
    for (int i = 0; i < n3; ++i) {
      int vi = c->v.perm[i / 3], vj = c->v.perm[j / 3];
      A[i + (size_t)j * n3] = c->T[(3 * vi + i % 3) + (size_t)(3 * vj + j % 3) * n3];
    }
  return A;
}

/* The factor solves T x = b and agrees with the dense Cholesky of the same T.
 * Tolerances: Cholesky is backward stable, ||T x - b|| <= c k eps ||T|| ||x|| with k the
 * longest dot product (a few hundred terms here): 1e-13 relative leaves a factor ~10 over
 * k eps. Both solutions then differ by at most ~kappa(T) times that, with kappa(T) <=
 * ||T||_inf / sigma (sigma = 1; <= 20 on these meshes, asserted <= 1e3): 1e-13 kappa, at most
 * 1e-10. (Measured: backward errors ~1e-16, differences ~2e-15.) */
static void check_solve(meshCase *c, uint64_t seed) {
  const int n3 = 3 * c->nvert;
  double *L = malloc(sizeof(double) * 9 * (size_t)c->p.nslot);
  memcpy(L, c->Lv, sizeof(double) * 9 * (size_t)c->p.nslot);
  cr_assert_eq(bchol_factor(&c->v, L), 0);
  double *b = malloc(sizeof(double) * n3), *x = malloc(sizeof(double) * n3), *xd = malloc(sizeof(double) * n3);
  double *work = malloc(sizeof(double) * n3), *A = malloc(sizeof(double) * (size_t)n3 * n3);
  test_rng r = {seed};
  for (int i = 0; i < n3; ++i) b[i] = x[i] = xd[i] = test_rng_uniform(&r, -1, 1);
  bchol_solve(&c->v, L, x, work);
  memcpy(A, c->T, sizeof(double) * (size_t)n3 * n3);
  cr_assert_eq(chol_factor(n3, A), 0);
  chol_solve(n3, A, xd);
  double tn = fem_norm_inf(n3, c->T), xn = 0, res = 0, diff = 0;
  cr_assert_leq(tn / 1.0, 1e3, "kappa bound %g too large for the tolerances", tn);
  for (int i = 0; i < n3; ++i) xn = fmax(xn, fabs(x[i]));
  for (int i = 0; i < n3; ++i) {
    double s = -b[i];
    for (int j = 0; j < n3; ++j) s += c->T[i + (size_t)j * n3] * x[j];
    res = fmax(res, fabs(s));
    diff = fmax(diff, fabs(x[i] - xd[i]));
  }
  cr_assert_leq(res / (tn * xn), 1e-13, "backward error %g", res / (tn * xn));
  cr_assert_leq(diff / xn, 1e-13 * tn, "differs from the dense solution by %g", diff / xn);
  free(L), free(b), free(x), free(xd), free(work), free(A);
}

Test(block_chol, solve_matches_dense_on_grids) {
  const int dims[3][3] = {{1, 1, 1}, {3, 3, 3}, {5, 4, 3}};
  for (int t = 0; t < 3; ++t)
    for (int ord = 0; ord < 2; ++ord) {
      meshCase c;
      grid_case(&c, dims[t][0], dims[t][1], dims[t][2], (femOrdering)ord, 11 + t);
      check_solve(&c, 100 + t);
      case_free(&c);
    }
}

Test(block_chol, solve_matches_dense_on_tet_soups) {
  /* sparse soups leave vertices in no tet (a diagonal block only) and disconnected parts */
  const int sizes[4][2] = {{4, 1}, {30, 12}, {60, 40}, {90, 160}};
  for (int t = 0; t < 4; ++t) {
    meshCase c;
    soup_case(&c, sizes[t][0], sizes[t][1], FEM_ORDER_MIN_DEGREE, 21 + t);
    check_solve(&c, 200 + t);
    case_free(&c);
  }
}

/* Assembly through the tet slots writes exactly T's lower blocks: every slot of L equals the
 * dense T's block at its (permuted) place, fill slots zero, both bit for bit (the same sums in
 * the same order). */
Test(block_chol, tet_slots_assemble_t) {
  meshCase c;
  soup_case(&c, 40, 50, FEM_ORDER_MIN_DEGREE, 3);
  const int n3 = 3 * c.nvert;
  int nonzero = 0;
  for (int j = 0; j < c.nvert; ++j)
    for (int s = c.v.col_ptr[j]; s < c.v.col_ptr[j + 1]; ++s) {
      int vi = c.v.perm[c.v.row[s]], vj = c.v.perm[j];
      for (int x = 0; x < 3; ++x)
        for (int y = 0; y < 3; ++y) {
          double want = c.T[(3 * vi + x) + (size_t)(3 * vj + y) * n3];
          cr_assert_eq(c.Lv[9 * s + 3 * x + y], want, "slot %d (%d, %d) entry %d %d", s, c.v.row[s], j, x, y);
          nonzero += want != 0;
        }
    }
  cr_assert_gt(nonzero, 0);
  case_free(&c);
}

/* L's pattern is exactly the dense symbolic elimination of the permuted graph; the elimination
 * tree is each column's first off-diagonal row; the schedule's pairs and targets are exactly
 * the updates L_ij -= L_ik L_jk^T that elimination implies, each at the slot of its row. */
static void check_symbolic(const meshCase *c) {
  const int n = c->nvert;
  const bcholView *v = &c->v;
  unsigned char *F = calloc((size_t)n * n, 1); /* F[i + j n], i >= j */
  for (int e = 0; e < c->ntet; ++e)
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b) {
        int pa = v->iperm[c->tet[4 * e + a]], pb = v->iperm[c->tet[4 * e + b]];
        if (pa >= pb) F[pa + (size_t)pb * n] = 1;
      }
  long long nupd = 0;
  for (int k = 0; k < n; ++k) {
    F[k + (size_t)k * n] = 1;
    for (int j = k + 1; j < n; ++j)
      if (F[j + (size_t)k * n])
        for (int i = j; i < n; ++i)
          if (F[i + (size_t)k * n]) {
            F[i + (size_t)j * n] = 1;
            ++nupd;
          }
  }
  int nslot = 0;
  for (int j = 0; j < n; ++j) {
    int s = v->col_ptr[j], first_below = -1;
    cr_assert_eq(v->row[s], j, "column %d: the diagonal first", j);
    for (int i = j; i < n; ++i)
      if (F[i + (size_t)j * n]) {
        cr_assert_lt(s, v->col_ptr[j + 1], "column %d misses row %d", j, i);
        cr_assert_eq(v->row[s], i, "column %d: row %d where %d is due", j, v->row[s], i);
        if (i > j && first_below < 0) first_below = i;
        ++s, ++nslot;
      }
    cr_assert_eq(s, v->col_ptr[j + 1], "column %d has rows elimination does not make", j);
    cr_assert_eq(v->parent[j], first_below, "parent of %d", j);
  }
  cr_assert_eq(nslot, c->p.nslot);
  cr_assert_eq(nupd, c->p.ntgt, "updates: %lld by elimination, %d scheduled", nupd, c->p.ntgt);
  for (int j = 0; j < n; ++j) {
    int prev_k = -1;
    for (int q = v->pair_ptr[j]; q < v->pair_ptr[j + 1]; ++q) {
      int sb = v->pair[3 * q], se = v->pair[3 * q + 1], tb = v->pair[3 * q + 2], k = 0;
      while (v->col_ptr[k + 1] <= sb) ++k;
      cr_assert(k > prev_k && k < j, "pairs of column %d: k ascending and below j", j);
      prev_k = k;
      cr_assert(sb > v->col_ptr[k] && v->row[sb] == j && se == v->col_ptr[k + 1], "pair (%d, %d) sources", k, j);
      for (int s = sb; s < se; ++s) {
        int t = v->tgt[tb + s - sb];
        cr_assert(t >= v->col_ptr[j] && t < v->col_ptr[j + 1], "target of (%d, %d) outside column %d", k, j, j);
        cr_assert_eq(v->row[t], v->row[s], "target row");
      }
    }
  }
  free(F);
}

Test(block_chol, pattern_matches_dense_symbolic_elimination) {
  meshCase c;
  for (int ord = 0; ord < 2; ++ord) {
    grid_case(&c, 3, 3, 2, (femOrdering)ord, 1);
    check_symbolic(&c);
    case_free(&c);
    soup_case(&c, 70, 60, (femOrdering)ord, 2);
    check_symbolic(&c);
    case_free(&c);
  }
}

/* Minimum degree strictly reduces L's blocks and the factor's work against the natural order
 * on a 6 x 6 x 6 grid of cubes (343 vertices). */
Test(block_chol, min_degree_reduces_fill_on_a_grid) {
  int nv, nt;
  int *tet = fem_grid_mesh(6, 6, 6, &nv, &nt);
  femPattern md, nat;
  cr_assert_eq(fem_pattern_build(nv, nt, tet, FEM_ORDER_MIN_DEGREE, &md), ISO_OK);
  cr_assert_eq(fem_pattern_build(nv, nt, tet, FEM_ORDER_NATURAL, &nat), ISO_OK);
  cr_assert_eq(md.nblock_T, nat.nblock_T);
  cr_log_info("6x6x6 grid, %d vertices: T %d blocks; L %d (min degree) vs %d (natural); factor %.3g vs %.3g flops",
              nv, md.nblock_T, md.nslot, nat.nslot, md.flops_factor, nat.flops_factor);
  cr_assert_lt(md.nslot, nat.nslot);
  cr_assert_lt(md.flops_factor, nat.flops_factor);
  fem_pattern_free(&md);
  fem_pattern_free(&nat);
  free(tet);
}

/* A T that is not positive definite is reported at a block column no earlier than the vertex
 * made indefinite (the leading blocks before it are untouched, still SPD), and at the block
 * where the dense Cholesky of the same permuted matrix stops. A NaN is reported too. */
Test(block_chol, not_positive_definite_is_reported) {
  meshCase c;
  grid_case(&c, 3, 2, 2, FEM_ORDER_MIN_DEGREE, 5);
  const int n3 = 3 * c.nvert, vbad = 17;
  const int d = c.v.col_ptr[c.v.iperm[vbad]];
  for (int x = 0; x < 3; ++x) {
    c.Lv[9 * d + 4 * x] -= 1e3;
    c.T[(3 * vbad + x) + (size_t)(3 * vbad + x) * n3] -= 1e3;
  }
  double *L = malloc(sizeof(double) * 9 * (size_t)c.p.nslot);
  memcpy(L, c.Lv, sizeof(double) * 9 * (size_t)c.p.nslot);
  int info = bchol_factor(&c.v, L);
  cr_assert_gt(info, 0);
  cr_assert_geq(info - 1, c.v.iperm[vbad]);
  double *A = dense_permuted(&c);
  int dinfo = chol_factor(n3, A);
  cr_assert_gt(dinfo, 0);
  cr_assert_eq((dinfo - 1) / 3, info - 1, "dense stops at row %d, block at column %d", dinfo - 1, info - 1);
  memcpy(L, c.Lv, sizeof(double) * 9 * (size_t)c.p.nslot);
  L[9 * c.p.nslot - 1] = NAN; /* the last slot */
  for (int x = 0; x < 3; ++x) L[9 * d + 4 * x] += 1e3;
  double *L2 = malloc(sizeof(double) * 9 * (size_t)c.p.nslot);
  memcpy(L2, L, sizeof(double) * 9 * (size_t)c.p.nslot);
  const int nan_info = bchol_factor(&c.v, L);
  cr_assert_gt(nan_info, 0);
  /* every route stops at the same column with the same partial factor, NaN included */
  cr_assert_eq(bchol_factor_portable(&c.v, L2), nan_info);
  cr_assert(memcmp(L, L2, sizeof(double) * 9 * (size_t)c.p.nslot) == 0, "the routes' partial factors differ");
  free(L2);
  free(A);
  free(L);
  case_free(&c);
}

Test(block_chol, bad_meshes_are_refused) {
  femPattern p;
  int bad_index[4] = {0, 1, 2, 9}, repeated[4] = {0, 1, 1, 2};
  cr_assert_eq(fem_pattern_build(4, 1, bad_index, FEM_ORDER_MIN_DEGREE, &p), ISO_ERR_INVALID);
  cr_assert_eq(fem_pattern_build(4, 1, repeated, FEM_ORDER_MIN_DEGREE, &p), ISO_ERR_INVALID);
  cr_assert_eq(fem_pattern_build(-1, 0, NULL, FEM_ORDER_MIN_DEGREE, &p), ISO_ERR_INVALID);
  cr_assert_eq(fem_pattern_build(4, 1, NULL, FEM_ORDER_MIN_DEGREE, &p), ISO_ERR_NULL);
  int ok[4] = {0, 1, 2, 3};
  cr_assert_eq(fem_pattern_build(4, 1, ok, 7, &p), ISO_ERR_INVALID, "an unknown ordering");
  cr_assert_null(p.data);
  /* no tets: a diagonal of 3 blocks, nothing to update */
  cr_assert_eq(fem_pattern_build(3, 0, NULL, FEM_ORDER_MIN_DEGREE, &p), ISO_OK);
  cr_assert_eq(p.nslot, 3);
  cr_assert_eq(p.ntgt, 0);
  fem_pattern_free(&p);
}

/* Mark the tree path from position k to its root (stopping at a marked position: the rest of the
 * path is marked already). */
static void mark_path(const bcholView *v, int k, int *mark) {
  for (int j = k; j >= 0 && !mark[j]; j = v->parent[j]) mark[j] = 1;
}

/* The marked positions, descending, into path; returns their count. */
static int list_marked(int n, const int *mark, int *path) {
  int npath = 0;
  for (int j = n - 1; j >= 0; --j)
    if (mark[j]) path[npath++] = j;
  return npath;
}

/* The back solve on the union of some positions' tree paths gives the whole back solve's bits on
 * that union (each x_j there reads only its ancestors), and leaves the other positions alone:
 * random right-hand sides, random sets of 1..8 starting positions, a grid and a tet soup. */
Test(block_chol, upper_solve_on_paths_has_the_whole_solves_bits) {
  meshCase cases[2];
  grid_case(&cases[0], 5, 4, 3, FEM_ORDER_MIN_DEGREE, 31);
  soup_case(&cases[1], 60, 150, FEM_ORDER_MIN_DEGREE, 32);
  test_rng r = {33};
  for (int ci = 0; ci < 2; ++ci) {
    meshCase *c = &cases[ci];
    const int n = c->nvert, n3 = 3 * n;
    cr_assert_eq(bchol_factor(&c->v, c->Lv), 0);
    double *y = malloc(sizeof(double) * n3), *full = malloc(sizeof(double) * n3), *part = malloc(sizeof(double) * n3);
    int *mark = calloc((size_t)n, sizeof(int)), *path = malloc(sizeof(int) * (size_t)n);
    for (int t = 0; t < 20; ++t) {
      memset(mark, 0, sizeof(int) * (size_t)n);
      const int nstart = 1 + t % 8;
      for (int s = 0; s < nstart; ++s) mark_path(&c->v, (int)test_rng_uniform(&r, 0, n - 1e-9), mark);
      const int npath = list_marked(n, mark, path);
      cr_assert_lt(npath, n, "a proper subset of the positions (else the test shows nothing)");
      for (int i = 0; i < n3; ++i) y[i] = test_rng_uniform(&r, -1, 1);
      memcpy(full, y, sizeof(double) * n3);
      memcpy(part, y, sizeof(double) * n3);
      bchol_upper_solve(&c->v, c->Lv, full);
      bchol_upper_solve_on(&c->v, c->Lv, path, npath, part);
      for (int j = 0; j < n; ++j)
        for (int k = 0; k < 3; ++k)
          cr_assert(part[3 * j + k] == (mark[j] ? full[3 * j + k] : y[3 * j + k]), "case %d, position %d", ci, j);
    }
    free(y), free(full), free(part), free(mark), free(path);
    case_free(c);
  }
}

/* The factor and both solves against the scalar loops they stand for (support/bchol_scalar.h: each
 * update C -= A Bᵀ and each y_i -= L_ij y_j as one 3-term sum per entry, in slot order): where
 * the CPU build does two updates at once in a pair of lanes (ISO_PAIRS) the bits must be the
 * scalar ones, which a GPU thread computes. Grids and tet soups, minimum degree and natural. */
Test(block_chol, factor_and_solves_have_the_scalar_loops_bits) {
  test_rng r = {41};
  for (int k = 0; k < 4; ++k) {
    meshCase c;
    const femOrdering ord = k % 2 ? FEM_ORDER_NATURAL : FEM_ORDER_MIN_DEGREE;
    if (k < 2) grid_case(&c, 5, 4, 3, ord, 42 + k);
    else soup_case(&c, 80, 200, ord, 42 + k);
    const size_t nL = 9 * (size_t)c.p.nslot, n3 = 3 * (size_t)c.nvert;
    double *L1 = malloc(sizeof(double) * nL), *L2 = malloc(sizeof(double) * nL);
    double *y1 = malloc(sizeof(double) * n3), *y2 = malloc(sizeof(double) * n3);
    memcpy(L1, c.Lv, sizeof(double) * nL);
    memcpy(L2, c.Lv, sizeof(double) * nL);
    cr_assert_eq(bchol_factor_portable(&c.v, L1), 0);
    factor_scalar(&c.v, L2);
    cr_assert(memcmp(L1, L2, sizeof(double) * nL) == 0, "case %d: the factor differs from the scalar loop's", k);
#if ISO_AVX2
    if (iso_cpu_avx2()) { /* the four-lane route, where this CPU has it */
      double *L3 = malloc(sizeof(double) * nL);
      memcpy(L3, c.Lv, sizeof(double) * nL);
      cr_assert_eq(bchol_factor_avx2(&c.v, L3), 0);
      cr_assert(memcmp(L3, L2, sizeof(double) * nL) == 0, "case %d: the AVX2 factor differs from the scalar loop's", k);
      memcpy(L3, c.Lv, sizeof(double) * nL);
      cr_assert_eq(bchol_factor(&c.v, L3), 0);
      cr_assert(memcmp(L3, L2, sizeof(double) * nL) == 0, "case %d: bchol_factor differs", k);
      free(L3);
    } else {
      cr_log_warn("this CPU has no AVX2: the four-lane factor was not run");
    }
    if (iso_cpu_avx512()) { /* the eight-lane route, where this CPU has it */
      double *L3 = malloc(sizeof(double) * nL);
      memcpy(L3, c.Lv, sizeof(double) * nL);
      cr_assert_eq(bchol_factor_avx512(&c.v, L3), 0);
      cr_assert(memcmp(L3, L2, sizeof(double) * nL) == 0, "case %d: the AVX-512 factor differs from the scalar loop's",
                k);
      free(L3);
    } else {
      cr_log_warn("this CPU has no AVX-512F: the eight-lane factor was not run");
    }
#endif
    for (size_t i = 0; i < n3; ++i) y1[i] = y2[i] = test_rng_uniform(&r, -1, 1);
    bchol_lower_solve(&c.v, L1, y1);
    lower_scalar(&c.v, L2, y2);
    cr_assert(memcmp(y1, y2, sizeof(double) * n3) == 0, "case %d: the forward solve differs", k);
    bchol_upper_solve(&c.v, L1, y1);
    upper_scalar(&c.v, L2, y2);
    cr_assert(memcmp(y1, y2, sizeof(double) * n3) == 0, "case %d: the back solve differs", k);
    free(L1), free(L2), free(y1), free(y2);
    case_free(&c);
  }
}

/* A vertex's three Schur columns at once (schur_forward_unit3, bchol_upper_solve_on3) against the
 * three single ones, bit for bit: random vertices and path sets that hold their paths. */
Test(block_chol, three_sides_at_once_have_the_single_solves_bits) {
  meshCase cases[2];
  grid_case(&cases[0], 5, 4, 3, FEM_ORDER_MIN_DEGREE, 51);
  soup_case(&cases[1], 60, 150, FEM_ORDER_MIN_DEGREE, 52);
  test_rng r = {53};
  for (int ci = 0; ci < 2; ++ci) {
    meshCase *c = &cases[ci];
    const int n = c->nvert, n3 = 3 * n;
    cr_assert_eq(bchol_factor(&c->v, c->Lv), 0);
    double *Y = malloc(sizeof(double) * 3 * n3), *y = malloc(sizeof(double) * n3);
    int *mark = calloc((size_t)n, sizeof(int)), *path = malloc(sizeof(int) * (size_t)n);
    for (int t = 0; t < 20; ++t) {
      memset(mark, 0, sizeof(int) * (size_t)n);
      const int k = (int)test_rng_uniform(&r, 0, n - 1e-9);
      mark_path(&c->v, k, mark);
      for (int s = 0; s < t % 4; ++s) mark_path(&c->v, (int)test_rng_uniform(&r, 0, n - 1e-9), mark); /* others' too */
      const int npath = list_marked(n, mark, path);
      /* the portable pair loops, then the four-lane ones where this CPU has AVX2, the eight-lane
       * forward solve where it has AVX-512F, then the dispatched entry points: each against the
       * single solves */
      for (int route = 0; route < 4; ++route) {
        if (route == 0) {
          schur_forward_unit3_portable(&c->v, c->Lv, k, 1, Y);
          bchol_upper_solve_on3_portable(&c->v, c->Lv, path, npath, Y);
        } else if (route == 1) {
#if ISO_AVX2
          if (!iso_cpu_avx2()) continue;
          schur_forward_unit3_avx2(&c->v, c->Lv, k, 1, Y);
          bchol_upper_solve_on3_avx2(&c->v, c->Lv, path, npath, Y);
#else
          continue;
#endif
        } else if (route == 2) { /* eight lanes forward, where this CPU has AVX-512F */
#if ISO_AVX2
          if (!iso_cpu_avx512()) {
            if (t == 0) cr_log_warn("this CPU has no AVX-512F: the eight-lane forward solve was not run");
            continue;
          }
          schur_forward_unit3_avx512(&c->v, c->Lv, k, 1, Y);
          bchol_upper_solve_on3_portable(&c->v, c->Lv, path, npath, Y);
#else
          continue;
#endif
        } else {
          schur_forward_unit3(&c->v, c->Lv, k, Y);
          bchol_upper_solve_on3(&c->v, c->Lv, path, npath, Y);
        }
        for (int axis = 0; axis < 3; ++axis) {
          schur_forward_unit(&c->v, c->Lv, k, axis, y);
          bchol_upper_solve_on(&c->v, c->Lv, path, npath, y);
          for (int i = 0; i < n3; ++i)
            cr_assert(Y[3 * i + axis] == y[i], "route %d, case %d, vertex %d, axis %d, row %d", route, ci, k, axis, i);
        }
      }
      /* the forward solve that clears only k's path (schur_gram's) over stale values: the single
       * forward solves' bits on that path, whatever lies elsewhere */
      for (int i = 0; i < 3 * n3; ++i) Y[i] = 1e300;
      schur_forward_unit3_on(&c->v, c->Lv, k, 0, Y);
      for (int axis = 0; axis < 3; ++axis) {
        schur_forward_unit(&c->v, c->Lv, k, axis, y);
        for (int j = k; j >= 0; j = c->v.parent[j])
          for (int q = 0; q < 3; ++q)
            cr_assert(Y[3 * (3 * j + q) + axis] == y[3 * j + q], "path-only: case %d, vertex %d, axis %d, block %d",
                      ci, k, axis, j);
      }
    }
    free(Y), free(y), free(mark), free(path);
    case_free(c);
  }
}

/* schur_path_union against the definition: position j is listed iff it lies on the whole tree
 * path of some start vertex's position (walked to the root without shortcuts), descending. */
Test(block_chol, path_union_is_the_union_of_the_starts_paths) {
  meshCase c;
  soup_case(&c, 60, 150, FEM_ORDER_MIN_DEGREE, 61);
  test_rng r = {62};
  const int n = c.nvert;
  int *mark = malloc(sizeof(int) * (size_t)n), *path = malloc(sizeof(int) * (size_t)n), pv[8];
  for (int t = 0; t < 30; ++t) {
    const int np = 1 + t % 8;
    for (int s = 0; s < np; ++s) pv[s] = (int)test_rng_uniform(&r, 0, n - 1e-9);
    const int npath = schur_path_union(&c.v, pv, np, mark, path);
    int listed = 0;
    for (int j = n - 1; j >= 0; --j) {
      int on = 0;
      for (int s = 0; s < np && !on; ++s)
        for (int k = c.v.iperm[pv[s]]; k >= 0; k = c.v.parent[k]) on |= k == j;
      if (on) {
        cr_assert_lt(listed, npath);
        cr_assert_eq(path[listed], j, "position %d missing or out of order", j);
        ++listed;
      }
    }
    cr_assert_eq(listed, npath, "extra positions listed");
  }
  free(mark), free(path);
  case_free(&c);
}
