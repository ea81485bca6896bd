/* The mass matrix and inverse dynamics of a tree with each body's spatial inertia formed once:
 * what the step runs (kernels/rigid/tree_step.h). kernels/rigid/tree.h holds the plain versions,
 * which form a body's inertia wherever they need it and sum every composite from the bodies out
 * (no scratch, so they serve as the reference the tests hold these to). Here a caller's scratch
 * keeps the bodies' inertias about their origins in W, and the composites are accumulated once,
 * leaves to root (each child's composite shifted to its parent's origin), so the mass matrix is
 * O(n·depth) instead of O(n²·depth) and no inertia is formed twice in a step. The sums are the
 * same quantities in another order: the two agree to rounding. */
#ifndef ISO_KERNELS_RIGID_TREE_FAST_H
#define ISO_KERNELS_RIGID_TREE_FAST_H

#include "kernels/rigid/tree.h"

/* Body inertias about their origins in W of the tree's bodies: I[i − b0] for position i. */
static inline ISO_HD void tree_body_inertias(const treeModel *T, int world, int b0, int b1, const xform *X_WB,
                                             sinertia *I) {
  for (int i = b0; i < b1; ++i) {
    const int b = tree_at(T, i);
    I[i - b0] = tree_body_inertia(T, world, b, X_WB[b]);
  }
}

/* CRBA with the bodies' inertias I (tree_body_inertias) and scratch Ic (b1 − b0 sinertias):
 * the same M as tree_mass_matrix to rounding. */
static inline ISO_HD void tree_mass_matrix_cached(const treeModel *T, int b0, int b1, int v_begin, const xform *X_WB,
                                                  const svec *S, const sinertia *I, sinertia *Ic,
                                                  real *M /* (nt, nt) row-major */) {
  const int nt = tree_nv(T, b0, b1);
  for (int i = 0; i < nt * nt; ++i) M[i] = (real)0;
  for (int i = b0; i < b1; ++i) Ic[i - b0] = I[i - b0];
  for (int i = b1 - 1; i >= b0; --i) { /* leaves first: a body's composite is complete here */
    const int b = tree_at(T, i), p = T->parent[b];
    if (p >= 0) {
      sinertia *P = &Ic[tree_pos(T, p) - b0];
      *P = tree_si_add(*P, si_shift(Ic[i - b0], v3_sub(X_WB[p].p, X_WB[b].p)));
    }
  }
  for (int i = b0; i < b1; ++i) {
    const int b = tree_at(T, i);
    const int nv = tree_joint_nv(T->type[b]), kb = T->v0[b] - v_begin;
    for (int ii = 0; ii < nv; ++ii) {
      const int ki = kb + ii;
      const svec Fi = si_mul(Ic[i - b0], S[ki]);
      for (int jj = 0; jj <= ii; ++jj) {
        const real m = sv_dot(S[kb + jj], Fi);
        M[nt * ki + kb + jj] = m;
        M[nt * (kb + jj) + ki] = m;
      }
      for (int a = T->parent[b]; a >= 0; a = T->parent[a]) {
        const int na = tree_joint_nv(T->type[a]), ka = T->v0[a] - v_begin;
        const svec Fa = sv_shift_force(Fi, v3_sub(X_WB[a].p, X_WB[b].p));
        for (int jj = 0; jj < na; ++jj) {
          const real m = sv_dot(S[ka + jj], Fa);
          M[nt * ki + ka + jj] = m;
          M[nt * (ka + jj) + ki] = m;
        }
      }
    }
  }
}

/* RNEA with the bodies' inertias I: tree_inverse_dynamics's τ, the inertias not re-formed. */
static inline ISO_HD void tree_inverse_dynamics_cached(const treeModel *T, int world, int b0, int b1, int v_begin,
                                                       const xform *X_WB, const svec *S, const sinertia *I,
                                                       const real *v, const real *vdot, svec *scratch /* (3, n) */,
                                                       real *tau /* (nt) */) {
  const int nb = b1 - b0;
  svec *V = scratch, *A = scratch + nb, *F = scratch + 2 * nb;
  const real *gp = wf_at(T->gravity, world, 0, 3);
  const vec3 g = v3(gp[0], gp[1], gp[2]);
  for (int pb = b0; pb < b1; ++pb) {
    const int b = tree_at(T, pb), p = T->parent[b], i = pb - b0;
    const svec Vrel = tree_joint_velocity(T, b, v_begin, S, v);
    svec Vp = sv_zero(), Ap = sv_zero();
    vec3 r = v3_zero();
    if (p >= 0) {
      Vp = V[tree_pos(T, p) - b0];
      Ap = A[tree_pos(T, p) - b0];
      r = v3_sub(X_WB[b].p, X_WB[p].p);
    }
    const vec3 d = v3_sub(X_WB[b].p, xf_point(X_WB[b], T->X_BM[b].p));
    V[i] = sv_add(sv_shift(Vp, r), Vrel);
    A[i] = sv_add(sv_shift(Ap, r), tree_accel_bias(Vp.w, r, Vrel, d));
    if (vdot) A[i] = sv_add(A[i], tree_joint_velocity(T, b, v_begin, S, vdot));
    const sinertia Mb = I[i];
    const vec3 mg = v3_scale(g, Mb.m);
    const svec Gf = sv_make(v3_cross(Mb.c, mg), mg);
    F[i] = sv_sub(sv_add(si_mul(Mb, A[i]), si_gyro_bias(Mb, V[i].w)), Gf);
  }
  for (int pb = b1 - 1; pb >= b0; --pb) {
    const int b = tree_at(T, pb), p = T->parent[b], i = pb - b0;
    const int nv = tree_joint_nv(T->type[b]), k0 = T->v0[b] - v_begin;
    for (int k = 0; k < nv; ++k) tau[k0 + k] = sv_dot(S[k0 + k], F[i]);
    if (p >= 0) {
      svec *Fp = &F[tree_pos(T, p) - b0];
      *Fp = sv_add(*Fp, sv_shift_force(F[i], v3_sub(X_WB[p].p, X_WB[b].p)));
    }
  }
}

#endif
