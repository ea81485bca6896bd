/* Block-sparse Cholesky of a deformable body's tangent matrix T (3n x 3n, SPD, 3x3 blocks, one
 * block row and column per mesh vertex): the numeric factorization and the solve, following a
 * pattern computed once per mesh (host/assets/fem_pattern.c) and shared by every world.
 *
 * Ordering. T is factored as P T P^T = L L^T with one fill-reducing vertex permutation per mesh
 * (perm[k] = the vertex at position k). It never depends on the world or on which vertices are
 * in contact; the Schur complement on those (kernels/linalg/schur.h) works on this one factor.
 *
 * Storage. L's blocks ("slots") in block compressed-sparse-column order over the permuted
 * positions: column j holds slots col_ptr[j] .. col_ptr[j+1]-1, the diagonal first, then the
 * rows below it ascending (row[s] is a slot's block row). The values are one array of nslot x 9
 * reals, each 3x3 block row-major. Assembly writes T's lower blocks into the same array (the
 * slots of T are a subset of L's; fill slots start at zero), the diagonal blocks in full; the
 * factorization then overwrites it with L (diagonal blocks lower triangular, their strict upper
 * part set to zero).
 *
 * Schedule. Left-looking: block column j first receives every update L_ij -= L_ik L_jk^T from
 * the earlier columns k with L_jk != 0, then is factored (a 3x3 Cholesky of its diagonal and a
 * triangular solve of each block below). The updates from column k are a "pair" (k, j): the
 * sources are slots src_begin .. src_end-1 of column k (the rows i >= j; the first is row j
 * itself, the slot of L_jk, so the first update is the diagonal one), and the target of the
 * t-th source is slot tgt[tgt_begin + t] of column j, the slot of the same row. Pairs of column
 * j are pair_ptr[j] .. pair_ptr[j+1]-1, in ascending k. The kernel follows these lists without
 * searching; the order of every sum is fixed by them, so results are bitwise reproducible.
 *
 * Elimination tree. parent[j] is the first off-diagonal row of column j (-1 for a root). The
 * solution of L y = e with e nonzero only in block k is nonzero only on the path from k to its
 * root, which the Schur complement uses to skip zero work.
 */
#ifndef ISO_KERNELS_LINALG_BLOCK_CHOL_H
#define ISO_KERNELS_LINALG_BLOCK_CHOL_H

#include "kernels/core.h"

#if ISO_AVX2
#include <immintrin.h>
#endif

/* The pattern of one mesh's factor as a kernel reads it: flat int arrays in one memory space
 * (host or device), no pointers between them, only offsets. */
typedef struct bcholView {
  int n;               /* block columns: the mesh's vertices */
  int nslot;           /* 3x3 blocks of L, the diagonal included */
  const int *perm;     /* (n) the vertex at each position of the ordering */
  const int *iperm;    /* (n) the position of each vertex */
  const int *parent;   /* (n) elimination tree over positions, -1 at a root */
  const int *col_ptr;  /* (n + 1) first slot of each block column */
  const int *row;      /* (nslot) block row (position) of each slot */
  const int *pair_ptr; /* (n + 1) first update pair into each block column */
  const int *pair;     /* (npair, 3) src_begin, src_end, tgt_begin of each pair */
  const int *tgt;      /* (ntgt) target slot of each update */
} bcholView;

/* A mesh's whole pattern as plain data (built by host/assets/fem_pattern.c): counts, and every
 * array in one int block at the offsets below, so a backend copies it in one transfer and views
 * it from either memory space with bchol_pattern_view. */
typedef struct bcholPattern {
  int nvert, ntet;
  int nblock_T;        /* lower blocks of T, the diagonal included: nvert + edges of the graph */
  int nslot;           /* lower blocks of L, the diagonal included (fill = nslot - nblock_T) */
  int npair;           /* update pairs (k, j): the off-diagonal blocks of L */
  int ntgt;            /* 3x3 block updates L_ij -= L_ik L_jk^T of the factorization */
  int height;          /* blocks on the longest path of the elimination tree */
  double flops_factor; /* floating-point operations of one numeric factorization */
  double flops_solve;  /* of one solve (forward and back) */
  /* offsets into data of each array of bcholView */
  int off_perm, off_iperm, off_parent, off_col_ptr, off_row, off_pair_ptr, off_pair, off_tgt;
  int off_tet_slot; /* (ntet, 16): 2 slot + transposed per tet block (host/assets/fem_pattern.h) */
  int ndata;        /* ints in data */
  int *data;        /* (ndata) every array above, one allocation */
} bcholPattern;

/* The kernel view of a pattern whose data block sits at `data` (p->data, or a device copy). */
static inline ISO_HD bcholView bchol_pattern_view(const bcholPattern *p, const int *data) {
  bcholView v;
  v.n = p->nvert;
  v.nslot = p->nslot;
  v.perm = data + p->off_perm;
  v.iperm = data + p->off_iperm;
  v.parent = data + p->off_parent;
  v.col_ptr = data + p->off_col_ptr;
  v.row = data + p->off_row;
  v.pair_ptr = data + p->off_pair_ptr;
  v.pair = data + p->off_pair;
  v.tgt = data + p->off_tgt;
  return v;
}

/* C -= A B^T for 3x3 row-major blocks; C is neither A nor B. */
static inline ISO_HD ISO_INLINE void bchol_sub_abt(real *ISO_RESTRICT C, const real *ISO_RESTRICT A,
                                                   const real *ISO_RESTRICT B) {
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      C[3 * r + c] -= A[3 * r + 0] * B[3 * c + 0] + A[3 * r + 1] * B[3 * c + 1] + A[3 * r + 2] * B[3 * c + 2];
}

/* Two of bchol_sub_abt's updates with the same B at once, C0 -= A0 B^T and C1 -= A1 B^T (A1 the
 * block after A0), one in each lane of an isoPair (kernels/core.h): the scalar routine's bits
 * with half its floating-point instructions. Where ISO_PAIRS is 0 the scalar loop does every
 * update. */
#if ISO_PAIRS
static inline ISO_INLINE void bchol_sub_abt2(real *C0, real *C1, const real *ISO_RESTRICT A0,
                                             const real *ISO_RESTRICT B) {
  const real *A1 = A0 + 9;
  for (int r = 0; r < 3; ++r) {
    const isoPair a0 = {A0[3 * r], A1[3 * r]}, a1 = {A0[3 * r + 1], A1[3 * r + 1]},
                    a2 = {A0[3 * r + 2], A1[3 * r + 2]};
    for (int c = 0; c < 3; ++c) {
      isoPair x = {C0[3 * r + c], C1[3 * r + c]};
      x -= a0 * B[3 * c + 0] + a1 * B[3 * c + 1] + a2 * B[3 * c + 2];
      C0[3 * r + c] = x[0];
      C1[3 * r + c] = x[1];
    }
  }
}
#endif

/* Factor a symmetric 3x3 block (row-major, lower part read) in place into its lower Cholesky
 * factor, the strict upper part zeroed. Returns 0, or 1 when a pivot is not positive (NaN
 * included: !(d > 0)). */
static inline ISO_HD ISO_INLINE int bchol_chol3(real *ISO_RESTRICT D) {
  real d0 = D[0];
  if (!(d0 > (real)0)) return 1;
  real l00 = sqrt(d0);
  real l10 = D[3] / l00, l20 = D[6] / l00;
  real d1 = D[4] - l10 * l10;
  if (!(d1 > (real)0)) return 1;
  real l11 = sqrt(d1);
  real l21 = (D[7] - l20 * l10) / l11;
  real d2 = D[8] - l20 * l20 - l21 * l21;
  if (!(d2 > (real)0)) return 1;
  real l22 = sqrt(d2);
  D[0] = l00, D[1] = 0, D[2] = 0;
  D[3] = l10, D[4] = l11, D[5] = 0;
  D[6] = l20, D[7] = l21, D[8] = l22;
  return 0;
}

/* X = A L^-T in place on A (3x3 row-major), L a factored diagonal block and inv its diagonal's
 * reciprocals: each row x of X solves L x^T = a^T by forward substitution, multiplying by the
 * reciprocals as LAPACK's dpotf2 scales a column by 1/l_jj (a division per entry is most of the
 * off-diagonal blocks' time). */
static inline ISO_HD ISO_INLINE void bchol_trsm3(const real *ISO_RESTRICT L, const real inv[3], real *ISO_RESTRICT A) {
  for (int r = 0; r < 3; ++r) {
    real *a = A + 3 * r;
    real x0 = a[0] * inv[0];
    real x1 = (a[1] - L[3] * x0) * inv[1];
    real x2 = (a[2] - L[6] * x0 - L[7] * x1) * inv[2];
    a[0] = x0, a[1] = x1, a[2] = x2;
  }
}

/* Block column j, its updates received: its diagonal block factored and the blocks below solved
 * against it. Returns 1 when the pivot is not positive, else 0. */
static inline ISO_HD ISO_INLINE int bchol_finish_column(const bcholView *v, real *ISO_RESTRICT Lv, int j) {
  const int d = v->col_ptr[j], e = v->col_ptr[j + 1];
  real *D = Lv + 9 * (long long)d;
  if (bchol_chol3(D)) return 1;
  const real inv[3] = {(real)1 / D[0], (real)1 / D[4], (real)1 / D[8]};
  for (int s = d + 1; s < e; ++s) bchol_trsm3(D, inv, Lv + 9 * (long long)s);
  return 0;
}

/* bchol_factor (below) on the portable loops: pairs of lanes on a CPU, scalar on a GPU. */
static inline ISO_HD int bchol_factor_portable(const bcholView *v, real *ISO_RESTRICT Lv) {
  for (int j = 0; j < v->n; ++j) {
    for (int p = v->pair_ptr[j]; p < v->pair_ptr[j + 1]; ++p) {
      const int sb = v->pair[3 * p], se = v->pair[3 * p + 1];
      const int *t = v->tgt + v->pair[3 * p + 2];
      const real *Ljk = Lv + 9 * (long long)sb;
      int s = sb;
#if ISO_PAIRS
      for (; s + 1 < se; s += 2)
        bchol_sub_abt2(Lv + 9 * (long long)t[s - sb], Lv + 9 * (long long)t[s + 1 - sb], Lv + 9 * (long long)s, Ljk);
#endif
      for (; s < se; ++s) bchol_sub_abt(Lv + 9 * (long long)t[s - sb], Lv + 9 * (long long)s, Ljk);
    }
    if (bchol_finish_column(v, Lv, j)) return j + 1;
  }
  return 0;
}

#if ISO_AVX2
/* C -= A Bᵀ with the three entries of a row of C in the lanes of one register: bt_m holds
 * (B[0][m], B[1][m], B[2][m], 0), so lane c of row r forms (a_r0 B_c0 + a_r1 B_c1) + a_r2 B_c2
 * and subtracts it, the scalar routine's operations in its order. Rows 0 and 1 are loaded and
 * stored four wide; their fourth lane carries the next row's first entry (minus products with
 * 0), which the next row's store then writes with its own value (every row is loaded before any
 * is stored). Row 2 is two lanes and one scalar, so nothing past the block is touched; b2m is
 * lane 2 of bt_m, for that scalar. The solves on three sides (block_chol3.h) use it too, with
 * bt_m a row of the sides' block (lanes = sides). */
static inline ISO_AVX2_FN void bchol_sub_abt_avx2(real *ISO_RESTRICT C, const real *ISO_RESTRICT A, real b20, real b21,
                                                  real b22, __m256d bt0, __m256d bt1, __m256d bt2) {
  const __m128d c0 = _mm256_castpd256_pd128(bt0), c1 = _mm256_castpd256_pd128(bt1),
                c2 = _mm256_castpd256_pd128(bt2);
  __m256d x0 = _mm256_loadu_pd(C), x1 = _mm256_loadu_pd(C + 3);
  __m128d x2 = _mm_loadu_pd(C + 6);
  real x22 = C[8];
  x0 = _mm256_sub_pd(x0, _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(_mm256_broadcast_sd(A + 0), bt0),
                                                     _mm256_mul_pd(_mm256_broadcast_sd(A + 1), bt1)),
                                       _mm256_mul_pd(_mm256_broadcast_sd(A + 2), bt2)));
  x1 = _mm256_sub_pd(x1, _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(_mm256_broadcast_sd(A + 3), bt0),
                                                     _mm256_mul_pd(_mm256_broadcast_sd(A + 4), bt1)),
                                       _mm256_mul_pd(_mm256_broadcast_sd(A + 5), bt2)));
  x2 = _mm_sub_pd(x2, _mm_add_pd(_mm_add_pd(_mm_mul_pd(_mm_set1_pd(A[6]), c0), _mm_mul_pd(_mm_set1_pd(A[7]), c1)),
                                 _mm_mul_pd(_mm_set1_pd(A[8]), c2)));
  x22 -= A[6] * b20 + A[7] * b21 + A[8] * b22;
  _mm256_storeu_pd(C, x0);
  _mm256_storeu_pd(C + 3, x1);
  _mm_storeu_pd(C + 6, x2);
  C[8] = x22;
}

/* C -= A Bᵀ with the block's nine entries as they lie in memory, in lanes (00, 01, 02, 10) and
 * (11, 12, 20, 21) and the scalar 22: each lane forms (a_r0 B_c0 + a_r1 B_c1) + a_r2 B_c2 and
 * subtracts it, the scalar routine's operations in its order. The B lanes of product m are the
 * pair's constants bm0 = (B_0m, B_1m, B_2m, B_0m) and bm1 = (B_1m, B_2m, B_0m, B_1m); A's come
 * from four entries read at A + m and A + 3 + m and permuted. Against bchol_sub_abt_avx2 (rows
 * in lanes, the fourth wasted) a third fewer floating-point operations, and the stores do not
 * overlap: a block updated again soon after (the diagonal block at the head of every pair) is
 * read back from the stores whole. */
static inline ISO_AVX2_FN void bchol_sub_abt9_avx2(real *ISO_RESTRICT C, const real *ISO_RESTRICT A, const __m256d b0[2],
                                                   const __m256d b1[2], const __m256d b2[2], real b20, real b21,
                                                   real b22) {
  __m256d x0 = _mm256_loadu_pd(C), x1 = _mm256_loadu_pd(C + 4);
  real x22 = C[8];
  const __m256d a00 = _mm256_permute4x64_pd(_mm256_loadu_pd(A), 0xC0), /* lanes 0,0,0,3 */
      a01 = _mm256_permute4x64_pd(_mm256_loadu_pd(A + 1), 0xC0),
      a02 = _mm256_permute4x64_pd(_mm256_loadu_pd(A + 2), 0xC0),
      a10 = _mm256_permute4x64_pd(_mm256_loadu_pd(A + 3), 0xF0), /* lanes 0,0,3,3 */
      a11 = _mm256_permute4x64_pd(_mm256_loadu_pd(A + 4), 0xF0),
      a12 = _mm256_permute4x64_pd(_mm256_loadu_pd(A + 5), 0xF0);
  x0 = _mm256_sub_pd(x0, _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(a00, b0[0]), _mm256_mul_pd(a01, b1[0])),
                                       _mm256_mul_pd(a02, b2[0])));
  x1 = _mm256_sub_pd(x1, _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(a10, b0[1]), _mm256_mul_pd(a11, b1[1])),
                                       _mm256_mul_pd(a12, b2[1])));
  x22 -= A[6] * b20 + A[7] * b21 + A[8] * b22;
  _mm256_storeu_pd(C, x0);
  _mm256_storeu_pd(C + 4, x1);
  C[8] = x22;
}

/* bchol_factor with every block update four lanes wide (bchol_sub_abt9_avx2): the portable
 * loops' bits (tests/test_block_chol.c), for a CPU with AVX2 only. */
static inline ISO_AVX2_FN int bchol_factor_avx2(const bcholView *v, real *ISO_RESTRICT Lv) {
  for (int j = 0; j < v->n; ++j) {
    for (int p = v->pair_ptr[j]; p < v->pair_ptr[j + 1]; ++p) {
      const int sb = v->pair[3 * p], se = v->pair[3 * p + 1];
      const int *t = v->tgt + v->pair[3 * p + 2];
      const real *B = Lv + 9 * (long long)sb;
      __m256d b[3][2]; /* product m: lanes (B_0m, B_1m, B_2m, B_0m), (B_1m, B_2m, B_0m, B_1m) */
      for (int m = 0; m < 3; ++m) {
        b[m][0] = _mm256_set_pd(B[m], B[6 + m], B[3 + m], B[m]);
        b[m][1] = _mm256_set_pd(B[3 + m], B[m], B[6 + m], B[3 + m]);
      }
      for (int s = sb; s < se; ++s)
        bchol_sub_abt9_avx2(Lv + 9 * (long long)t[s - sb], Lv + 9 * (long long)s, b[0], b[1], b[2], B[6], B[7], B[8]);
    }
    if (bchol_finish_column(v, Lv, j)) return j + 1;
  }
  return 0;
}
/* bchol_sub_abt9_avx2 eight lanes wide: the entries 00..21 in one register, 22 a scalar. Lane
 * (r, c) forms (a_r0 B_c0 + a_r1 B_c1) + a_r2 B_c2 and subtracts it, the scalar routine's
 * operations in its order; b[m] holds B_cm in lane (r, c), A's entries a_rm come from A and A + 1
 * permuted (nothing read past the block). */
static inline ISO_AVX512_FN void bchol_sub_abt9_avx512(real *ISO_RESTRICT C, const real *ISO_RESTRICT A,
                                                       const __m512d b[3], __m512i i0, __m512i i1, real b20,
                                                       real b21, real b22) {
  const __m512d A0 = _mm512_loadu_pd(A), A1 = _mm512_loadu_pd(A + 1);
  const __m512d a0 = _mm512_permutexvar_pd(i0, A0), a1 = _mm512_permutexvar_pd(i0, A1),
                a2 = _mm512_permutexvar_pd(i1, A1);
  real x22 = C[8];
  const __m512d x = _mm512_sub_pd(
      _mm512_loadu_pd(C),
      _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(a0, b[0]), _mm512_mul_pd(a1, b[1])), _mm512_mul_pd(a2, b[2])));
  x22 -= A[6] * b20 + A[7] * b21 + A[8] * b22;
  _mm512_storeu_pd(C, x);
  C[8] = x22;
}

/* bchol_factor with every block update eight lanes wide (bchol_sub_abt9_avx512): the portable
 * loops' bits (tests/test_block_chol.c), for a CPU with AVX-512F. */
static inline ISO_AVX512_FN int bchol_factor_avx512(const bcholView *v, real *ISO_RESTRICT Lv) {
  const __m512i i0 = _mm512_set_epi64(6, 6, 3, 3, 3, 0, 0, 0), i1 = _mm512_set_epi64(7, 7, 4, 4, 4, 1, 1, 1);
  for (int j = 0; j < v->n; ++j) {
    for (int p = v->pair_ptr[j]; p < v->pair_ptr[j + 1]; ++p) {
      const int sb = v->pair[3 * p], se = v->pair[3 * p + 1];
      const int *t = v->tgt + v->pair[3 * p + 2];
      const real *B = Lv + 9 * (long long)sb;
      __m512d b[3]; /* product m: lane (r, c) holds B_cm */
      for (int m = 0; m < 3; ++m)
        b[m] = _mm512_set_pd(B[3 + m], B[m], B[6 + m], B[3 + m], B[m], B[6 + m], B[3 + m], B[m]);
      for (int s = sb; s < se; ++s)
        bchol_sub_abt9_avx512(Lv + 9 * (long long)t[s - sb], Lv + 9 * (long long)s, b, i0, i1, B[6], B[7], B[8]);
    }
    if (bchol_finish_column(v, Lv, j)) return j + 1;
  }
  return 0;
}
#endif


/* Factor in place: Lv (nslot x 9) holds T's lower blocks on entry (assembled at their slots,
 * fill slots zero) and L on return. Returns 0, or j + 1 when block column j (a position; the
 * vertex is perm[j]) meets a pivot that is not positive: T is not positive definite (or holds
 * a NaN). Columns before j are then finished, the rest partial. Every route gives the same bits:
 * eight lanes where the CPU has AVX-512F, four where it has AVX2, else the portable loops. */
static inline ISO_HD int bchol_factor(const bcholView *v, real *ISO_RESTRICT Lv) {
#if ISO_AVX2
  if (iso_cpu_avx512()) return bchol_factor_avx512(v, Lv);
  if (iso_cpu_avx2()) return bchol_factor_avx2(v, Lv);
#endif
  return bchol_factor_portable(v, Lv);
}

/* y_j = L_jj^-1 y_j for the diagonal block (lower, row-major) of column j. */
static inline ISO_HD ISO_INLINE void bchol_diag_lower(const real *ISO_RESTRICT D, real *ISO_RESTRICT y) {
  real y0 = y[0] / D[0];
  real y1 = (y[1] - D[3] * y0) / D[4];
  real y2 = (y[2] - D[6] * y0 - D[7] * y1) / D[8];
  y[0] = y0, y[1] = y1, y[2] = y2;
}

/* y_j = L_jj^-T y_j. */
static inline ISO_HD ISO_INLINE void bchol_diag_upper(const real *ISO_RESTRICT D, real *ISO_RESTRICT y) {
  real y2 = y[2] / D[8];
  real y1 = (y[1] - D[7] * y2) / D[4];
  real y0 = (y[0] - D[3] * y1 - D[6] * y2) / D[0];
  y[0] = y0, y[1] = y1, y[2] = y2;
}

/* The forward step of block column j: y_j = L_jj^-1 y_j, then y_i -= L_ij y_j below it. */
static inline ISO_HD ISO_INLINE void bchol_lower_column(const bcholView *v, const real *ISO_RESTRICT Lv, int j,
                                                        real *ISO_RESTRICT y) {
  const int d = v->col_ptr[j], e = v->col_ptr[j + 1];
  real *yj = y + 3 * j;
  bchol_diag_lower(Lv + 9 * (long long)d, yj);
  int s = d + 1;
#if ISO_PAIRS /* two rows at once, one per lane (bchol_sub_abt2): the same bits */
  for (; s + 1 < e; s += 2) {
    const real *B0 = Lv + 9 * (long long)s, *B1 = B0 + 9;
    real *y0 = y + 3 * v->row[s], *y1 = y + 3 * v->row[s + 1];
    for (int r = 0; r < 3; ++r) {
      const isoPair b0 = {B0[3 * r], B1[3 * r]}, b1 = {B0[3 * r + 1], B1[3 * r + 1]},
                      b2 = {B0[3 * r + 2], B1[3 * r + 2]};
      isoPair x = {y0[r], y1[r]};
      x -= b0 * yj[0] + b1 * yj[1] + b2 * yj[2];
      y0[r] = x[0];
      y1[r] = x[1];
    }
  }
#endif
  for (; s < e; ++s) {
    const real *B = Lv + 9 * (long long)s;
    real *yi = y + 3 * v->row[s];
    for (int r = 0; r < 3; ++r) yi[r] -= B[3 * r] * yj[0] + B[3 * r + 1] * yj[1] + B[3 * r + 2] * yj[2];
  }
}

/* L y = b in place over positions (y: 3n, permuted order). */
static inline ISO_HD void bchol_lower_solve(const bcholView *v, const real *ISO_RESTRICT Lv, real *ISO_RESTRICT y) {
  for (int j = 0; j < v->n; ++j) bchol_lower_column(v, Lv, j, y);
}

/* The back step of block column j: x_j = L_jj^-T (y_j - sum_i L_ij^T x_i), the x_i (rows below
 * j: its ancestors in the elimination tree) already solved. */
static inline ISO_HD ISO_INLINE void bchol_upper_column(const bcholView *v, const real *ISO_RESTRICT Lv, int j,
                                                        real *ISO_RESTRICT y) {
  const int d = v->col_ptr[j], e = v->col_ptr[j + 1];
  real *yj = y + 3 * j;
#if ISO_PAIRS /* components 0 and 1 of y_j in the two lanes, 2 alone: each its own order, the same bits */
  isoPair x01 = {yj[0], yj[1]};
  real x2 = yj[2];
  for (int s = d + 1; s < e; ++s) {
    const real *B = Lv + 9 * (long long)s;
    const real *xi = y + 3 * v->row[s];
    const isoPair b0 = {B[0], B[1]}, b1 = {B[3], B[4]}, b2 = {B[6], B[7]};
    x01 -= b0 * xi[0] + b1 * xi[1] + b2 * xi[2];
    x2 -= B[2] * xi[0] + B[5] * xi[1] + B[8] * xi[2];
  }
  yj[0] = x01[0], yj[1] = x01[1], yj[2] = x2;
#else
  for (int s = d + 1; s < e; ++s) {
    const real *B = Lv + 9 * (long long)s;
    const real *xi = y + 3 * v->row[s];
    for (int c = 0; c < 3; ++c) yj[c] -= B[c] * xi[0] + B[3 + c] * xi[1] + B[6 + c] * xi[2];
  }
#endif
  bchol_diag_upper(Lv + 9 * (long long)d, yj);
}

/* L^T x = y in place over positions, j descending. */
static inline ISO_HD void bchol_upper_solve(const bcholView *v, const real *ISO_RESTRICT Lv, real *ISO_RESTRICT y) {
  for (int j = v->n - 1; j >= 0; --j) bchol_upper_column(v, Lv, j, y);
}

/* The same solve on the positions cols[0..ncol) alone, descending, a set closed under the tree's
 * parent (every ancestor of a member is one: the union of some tree paths to their roots): x_j
 * for j in it reads only its ancestors, so it gets the whole solve's bits there; the other
 * positions keep y. */
static inline ISO_HD void bchol_upper_solve_on(const bcholView *v, const real *ISO_RESTRICT Lv, const int *cols,
                                               int ncol, real *ISO_RESTRICT y) {
  for (int k = 0; k < ncol; ++k) bchol_upper_column(v, Lv, cols[k], y);
}

/* Solve T x = b in place (b: 3n in the mesh's vertex order, becomes x) with L from bchol_factor
 * (which returned 0). work: 3n reals from the caller. */
static inline ISO_HD void bchol_solve(const bcholView *v, const real *ISO_RESTRICT Lv, real *ISO_RESTRICT b,
                                      real *ISO_RESTRICT work) {
  const int n = v->n;
  for (int k = 0; k < n; ++k) {
    const int a = v->perm[k];
    work[3 * k] = b[3 * a], work[3 * k + 1] = b[3 * a + 1], work[3 * k + 2] = b[3 * a + 2];
  }
  bchol_lower_solve(v, Lv, work);
  bchol_upper_solve(v, Lv, work);
  for (int k = 0; k < n; ++k) {
    const int a = v->perm[k];
    b[3 * a] = work[3 * k], b[3 * a + 1] = work[3 * k + 1], b[3 * a + 2] = work[3 * k + 2];
  }
}

/* T back from its factor: T = Pᵀ(L Lᵀ)P, block (position r, position c) = Σ_k L_rk L_ckᵀ over the
 * slots of each column k, written densely in the mesh's vertex order (3n × 3n, column-major,
 * the lower triangle; the strict upper triangle is zeroed). For a body whose every vertex
 * takes part in contact, T is its Schur complement (nothing to eliminate). Round-off: each
 * entry is a fixed-order sum of at most 3n products of factor entries. */
static inline ISO_HD void bchol_unfactor(const bcholView *v, const real *ISO_RESTRICT Lv, real *ISO_RESTRICT T) {
  const long m = 3L * v->n;
  for (long i = 0; i < m * m; ++i) T[i] = 0;
  for (int k = 0; k < v->n; ++k)
    for (int sa = v->col_ptr[k]; sa < v->col_ptr[k + 1]; ++sa) {
      const real *La = Lv + 9L * sa;
      const int va = v->perm[v->row[sa]];
      for (int sb = v->col_ptr[k]; sb <= sa; ++sb) {
        const real *Lb = Lv + 9L * sb;
        const int vb = v->perm[v->row[sb]];
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) {
            if (sa == sb && j > i) continue; /* a diagonal block's product is symmetric: once */
            const long r = 3L * va + i, c = 3L * vb + j;
            const real t = La[3 * i] * Lb[3 * j] + La[3 * i + 1] * Lb[3 * j + 1] + La[3 * i + 2] * Lb[3 * j + 2];
            if (r >= c) T[c * m + r] += t;
            else T[r * m + c] += t;
          }
      }
    }
}

#endif
