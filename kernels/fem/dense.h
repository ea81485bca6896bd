/* The free motion of one deformable body by a dense solve: the reference path, for the tests
 * and for meshes small enough that a dense 3n×3n factorisation is cheaper than organising a
 * sparse one.
 *
 * One step (newmark.h): held vertices' velocities are zeroed, every element's share of the
 * tangent T and the residual b is added into the dense T (column-major, 3n × 3n, as
 * kernels/linalg/cholesky.h factors it) and b, element after element in index order (a fixed
 * summation order, so the result does not depend on who runs it), the Dirichlet condition is
 * applied to the assembled system, T is factored, T dz = −b solved, and every vertex updated.
 * The model is linear within a step, so this one solve is the exact free motion.
 *
 * Vertex arrays are (nvert, 3) and tets (ntet, 4) of vertex indices; the caller gives all
 * workspace (fem_dense_work_size reals). */
#ifndef ISO_KERNELS_FEM_DENSE_H
#define ISO_KERNELS_FEM_DENSE_H

#include "kernels/core.h"
#include "kernels/fem/newmark.h"
#include "kernels/fem/tet.h"
#include "kernels/linalg/cholesky.h"

/* Reals of workspace fem_dense_step needs for nvert vertices: T (3n × 3n) and b (3n). */
static inline ISO_HD long long fem_dense_work_size(int nvert) {
  long long n3 = 3LL * nvert;
  return n3 * n3 + n3;
}

/* Gather the 12 reals of tet e's nodes from a (nvert, 3) array. */
static inline ISO_HD void fem_gather12(const int *tet, int e, const real *x, real out[12]) {
  int a, i;
  for (a = 0; a < 4; ++a) {
    long long v = tet[4 * e + a];
    for (i = 0; i < 3; ++i) out[3 * a + i] = x[3 * v + i];
  }
}

/* Assemble the Newmark tangent T (3n × 3n column-major, full) and residual b (3n) of the body
 * from q_n and v_n (held vertices' v_n already zeroed), element after element. T and b are
 * overwritten. */
static inline ISO_HD void fem_dense_assemble(int nvert, int ntet, const int *tet,
                                             const femTetRest *rest, const real *q_n,
                                             const real *v_n, real dt, const femMaterial *m,
                                             vec3 g, real *T, real *b) {
  long long n3 = 3LL * nvert, i;
  real qe[12], ve[12], Te[144], be[12];
  int e, a, c, k, l;
  for (i = 0; i < n3 * n3; ++i) T[i] = (real)0;
  for (i = 0; i < n3; ++i) b[i] = (real)0;
  for (e = 0; e < ntet; ++e) {
    fem_gather12(tet, e, q_n, qe);
    fem_gather12(tet, e, v_n, ve);
    fem_newmark_element(&rest[e], qe, ve, dt, m, g, Te, be);
    for (a = 0; a < 4; ++a) {
      long long ra = 3LL * tet[4 * e + a];
      for (k = 0; k < 3; ++k) b[ra + k] += be[3 * a + k];
      for (c = 0; c < 4; ++c) {
        long long rc = 3LL * tet[4 * e + c];
        for (k = 0; k < 3; ++k)
          for (l = 0; l < 3; ++l) T[(rc + l) * n3 + ra + k] += Te[(3 * a + k) * 12 + 3 * c + l];
      }
    }
  }
}

/* The Dirichlet condition (newmark.h) on an assembled T (3n × 3n column-major) and b: for each
 * held vertex (held may be NULL: none), its rows and columns are zeroed except their diagonal
 * entries, and its rows of b are zeroed. */
static inline ISO_HD void fem_dense_dirichlet(int nvert, const unsigned char *held, real *T,
                                              real *b) {
  long long n3 = 3LL * nvert, r, j;
  int v, k;
  if (!held) return;
  for (v = 0; v < nvert; ++v) {
    if (!held[v]) continue;
    for (k = 0; k < 3; ++k) {
      r = 3LL * v + k;
      b[r] = (real)0;
      for (j = 0; j < n3; ++j) {
        if (j == r) continue;
        T[j * n3 + r] = (real)0;
        T[r * n3 + j] = (real)0;
      }
    }
  }
}

/* One free-motion step of one body: from (q_n, v_n) to (q, v), each (nvert, 3); q may alias
 * q_n and v may alias v_n. held (nvert, may be NULL) marks Dirichlet vertices; work holds
 * fem_dense_work_size(nvert) reals. Returns 0, or the Cholesky info (> 0: T was not positive
 * definite, as for a mesh of one free tet, whose rotation about its centroid has neither mass
 * nor stiffness; q and v are then left as the prediction's q_n and zeroed-held v_n). */
static inline ISO_HD int fem_dense_step(int nvert, int ntet, const int *tet,
                                        const femTetRest *rest, const unsigned char *held,
                                        const femMaterial *m, vec3 g, real dt, const real *q_n,
                                        const real *v_n, real *q, real *v, real *work) {
  long long n3 = 3LL * nvert, i;
  real *T = work;
  real *b = work + n3 * n3;
  int info, vx;
  for (vx = 0; vx < nvert; ++vx)
    for (i = 0; i < 3; ++i) v[3LL * vx + i] = (held && held[vx]) ? (real)0 : v_n[3LL * vx + i];
  /* from here v holds the prediction's velocities, and v_n is no longer read */
  fem_dense_assemble(nvert, ntet, tet, rest, q_n, v, dt, m, g, T, b);
  fem_dense_dirichlet(nvert, held, T, b);
  info = chol_factor((int)n3, T);
  if (info != 0) {
    for (i = 0; i < n3; ++i) q[i] = q_n[i];
    return info;
  }
  for (i = 0; i < n3; ++i) b[i] = -b[i];
  chol_solve((int)n3, T, b);
  for (vx = 0; vx < nvert; ++vx)
    fem_newmark_update_vertex(q_n + 3LL * vx, v + 3LL * vx, b + 3LL * vx, dt, q + 3LL * vx,
                              v + 3LL * vx);
  return 0;
}

/* Elastic plus kinetic energy of the body at (q, v), J, for tests: Σ_e V Ψ(F, R) with R the
 * rotation of F itself (the energy the step's lagged R0 approximates), plus ½ vᵀ M v with the
 * consistent mass, which per element is ½ ρV |v̄|², v̄ the mean of its four nodes' velocities. */
static inline ISO_HD real fem_body_energy(int nvert, int ntet, const int *tet,
                                          const femTetRest *rest, const femMaterial *m,
                                          const real *q, const real *v) {
  real qe[12], ve[12], total = (real)0;
  int e, c;
  (void)nvert;
  for (e = 0; e < ntet; ++e) {
    mat3 F;
    real kin = (real)0;
    fem_gather12(tet, e, q, qe);
    fem_gather12(tet, e, v, ve);
    F = fem_tet_F(&rest[e], qe);
    for (c = 0; c < 3; ++c) {
      real mean = (real)0.25 * (ve[c] + ve[3 + c] + ve[6 + c] + ve[9 + c]);
      kin += mean * mean;
    }
    total += rest[e].volume * (fem_corot_psi(F, fem_corot_R0(F), m->mu, m->lambda) +
                               (real)0.5 * m->rho * kin);
  }
  return total;
}

#endif
