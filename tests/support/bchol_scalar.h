/* The block Cholesky's factor and solves as plain scalar loops (each update C -= A Bᵀ and each
 * y_i -= L_ij y_j one 3-term sum per entry, in slot order): what a GPU thread computes, and what
 * the CPU's paired lanes (ISO_PAIRS, kernels/core.h) must reproduce bit for bit
 * (tests/test_block_chol.c, tests/test_block_chol_scalar.c). Header-only (static inline). */
#ifndef ISO_TESTS_BCHOL_SCALAR_H
#define ISO_TESTS_BCHOL_SCALAR_H

#include <criterion/criterion.h>

#include "kernels/linalg/block_chol.h"

static inline void factor_scalar(const bcholView *v, double *Lv) {
  for (int j = 0; j < v->n; ++j) {
    for (int p = v->pair_ptr[j]; p < v->pair_ptr[j + 1]; ++p) {
      const int sb = v->pair[3 * p], se = v->pair[3 * p + 1];
      const int *t = v->tgt + v->pair[3 * p + 2];
      for (int s = sb; s < se; ++s) bchol_sub_abt(Lv + 9 * t[s - sb], Lv + 9 * s, Lv + 9 * sb);
    }
    double *D = Lv + 9 * v->col_ptr[j];
    cr_assert_eq(bchol_chol3(D), 0);
    const double inv[3] = {1 / D[0], 1 / D[4], 1 / D[8]};
    for (int s = v->col_ptr[j] + 1; s < v->col_ptr[j + 1]; ++s) bchol_trsm3(D, inv, Lv + 9 * s);
  }
}

static inline void lower_scalar(const bcholView *v, const double *Lv, double *y) {
  for (int j = 0; j < v->n; ++j) {
    double *yj = y + 3 * j;
    bchol_diag_lower(Lv + 9 * v->col_ptr[j], yj);
    for (int s = v->col_ptr[j] + 1; s < v->col_ptr[j + 1]; ++s) {
      const double *B = Lv + 9 * s;
      double *yi = y + 3 * v->row[s];
      for (int r = 0; r < 3; ++r) yi[r] -= B[3 * r] * yj[0] + B[3 * r + 1] * yj[1] + B[3 * r + 2] * yj[2];
    }
  }
}

static inline void upper_scalar(const bcholView *v, const double *Lv, double *y) {
  for (int j = v->n - 1; j >= 0; --j) {
    double *yj = y + 3 * j;
    for (int s = v->col_ptr[j] + 1; s < v->col_ptr[j + 1]; ++s) {
      const double *B = Lv + 9 * s;
      const double *xi = y + 3 * v->row[s];
      for (int c = 0; c < 3; ++c) yj[c] -= B[c] * xi[0] + B[3 + c] * xi[1] + B[6 + c] * xi[2];
    }
    bchol_diag_upper(Lv + 9 * v->col_ptr[j], yj);
  }
}

#endif
