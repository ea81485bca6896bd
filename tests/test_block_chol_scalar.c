/* The block Cholesky's scalar loops, which nvcc compiles for a GPU thread (ISO_PAIRS 0,
 * kernels/core.h), run here on the CPU: the factor and both solves against the loops written out
 * in support/bchol_scalar.h, and the three-sided Schur solves against the single ones, bit for
 * bit. With tests/test_block_chol.c (the CPU's paired lanes against the same written-out loops),
 * a GPU's factor is the CPU's to the bit. */
#define ISO_PAIRS 0

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "host/assets/fem_pattern.h"
#include "kernels/linalg/block_chol.h"
#include "kernels/linalg/block_chol3.h"
#include "kernels/linalg/schur.h"
#include "support/bchol_scalar.h"
#include "support/chol_meshes.h"
#include "support/support.h"

#if ISO_PAIRS
#error "this test runs the scalar loops: kernels/core.h must leave ISO_PAIRS at 0"
#endif

Test(block_chol_scalar, scalar_branches_match_the_written_out_loops) {
  test_rng r = {71};
  for (int k = 0; k < 2; ++k) {
    int nvert, ntet, *tet;
    if (k == 0) tet = fem_grid_mesh(5, 4, 3, &nvert, &ntet);
    else nvert = 80, ntet = 200, tet = fem_soup_mesh(&r, nvert, ntet);
    femPattern p;
    cr_assert_eq(fem_pattern_build(nvert, ntet, tet, FEM_ORDER_MIN_DEGREE, &p), ISO_OK);
    const bcholView v = bchol_pattern_view(&p, p.data);
    const size_t nL = 9 * (size_t)p.nslot, n3 = 3 * (size_t)nvert;
    double *L1 = malloc(sizeof(double) * nL), *L2 = malloc(sizeof(double) * nL);
    double *T = malloc(sizeof(double) * n3 * n3);
    fem_random_values(&r, &p, tet, 1.0, L1, T);
    memcpy(L2, L1, sizeof(double) * nL);
    cr_assert_eq(bchol_factor(&v, L1), 0);
    factor_scalar(&v, L2);
    cr_assert(memcmp(L1, L2, sizeof(double) * nL) == 0, "case %d: the factor", k);
    double *y1 = malloc(sizeof(double) * n3), *y2 = malloc(sizeof(double) * n3);
    double *Y = malloc(sizeof(double) * 3 * n3);
    for (size_t i = 0; i < n3; ++i) y1[i] = y2[i] = test_rng_uniform(&r, -1, 1);
    bchol_lower_solve(&v, L1, y1);
    lower_scalar(&v, L2, y2);
    cr_assert(memcmp(y1, y2, sizeof(double) * n3) == 0, "case %d: the forward solve", k);
    bchol_upper_solve(&v, L1, y1);
    upper_scalar(&v, L2, y2);
    cr_assert(memcmp(y1, y2, sizeof(double) * n3) == 0, "case %d: the back solve", k);
    /* three sides at once against one at a time, on the whole tree (every position listed) */
    int *path = malloc(sizeof(int) * (size_t)nvert);
    for (int j = 0; j < nvert; ++j) path[j] = nvert - 1 - j;
    for (int t = 0; t < 5; ++t) {
      const int pos = (int)test_rng_uniform(&r, 0, nvert - 1e-9);
      schur_forward_unit3(&v, L1, pos, Y);
      bchol_upper_solve_on3(&v, L1, path, nvert, Y);
      for (int axis = 0; axis < 3; ++axis) {
        schur_forward_unit(&v, L1, pos, axis, y1);
        bchol_upper_solve_on(&v, L1, path, nvert, y1);
        for (size_t i = 0; i < n3; ++i) cr_assert(Y[3 * i + axis] == y1[i], "case %d: side %d, row %zu", k, axis, i);
      }
    }
    free(L1), free(L2), free(T), free(y1), free(y2), free(Y), free(path), free(tet);
    fem_pattern_free(&p);
  }
}
