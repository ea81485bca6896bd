/* Kinematic trees (kernels/rigid/tree.h) against finite differences, Newton's laws for whole
 * subtrees, closed forms and the free body of free_body.h.
 *
 * The random trees sit behind a one-body floating "prefix" tree in their world (b0 = 1,
 * v_begin = 6, q0 from 7), so every offset of the API is exercised. Finite differences move q
 * along q̇ = N(q) v with tree_integrate(±h) (quaternions renormalised: the curve h ↦ q(h) is
 * smooth with derivative N(q) v at 0, so central differences are second order in h). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "kernels/linalg/cholesky.h"
#include "kernels/rigid/free_body.h"
#include "kernels/rigid/tree.h"
#include "support/math_check.h"
#include "support/rng.h"
#include "support/support.h"

#include "support/tree_random.h"

/* ---- 1. the mass matrix and inverse dynamics ----------------------------------------------- */

Test(rigid_tree, mass_matrix_symmetric_positive_definite) {
  testTree t;
  double q[MAXQ], v[MAXV], w[MAXV], M[MAXV * MAXV];
  for (int cs = 0; cs < NCASE; ++cs) {
    const char *name = setup(1, cs, &t, q, v, w);
    mass_matrix(&t, q, M);
    int n = t.nt;
    /* each value is written to both halves: exactly symmetric */
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) cr_assert_eq(M[n * i + j], M[n * j + i], "%s: M not symmetric", name);
    cr_assert_eq(chol_factor(n, M), 0, "%s: M not positive definite", name);
  }
}

Test(rigid_tree, mass_matrix_is_the_jacobian_of_inverse_dynamics) {
  testTree t;
  double q[MAXQ], v[MAXV], w[MAXV], M[MAXV * MAXV], tau0[MAXV], tau1[MAXV], e[MAXV];
  svec scratch[3 * MAXB];
  for (int cs = 0; cs < NCASE; ++cs) {
    const char *name = setup(2, cs, &t, q, v, w);
    int n = t.nt;
    mass_matrix(&t, q, M);
    rnea(&t, q, v, NULL, tau0, scratch);
    double scale = max_abs(tau0, n) + max_abs(M, n * n);
    for (int k = 0; k < n; ++k) {
      memset(e, 0, sizeof e);
      e[t.v_begin + k] = 1;
      rnea(&t, q, v, e, tau1, scratch);
      /* tau is affine in v̇ exactly; the difference of two evaluations of sums of O(10) terms
       * of size ≤ scale rounds to ~10 ε·scale: allow 1e-14·scale (≈ 45 ε) */
      for (int i = 0; i < n; ++i)
        cr_assert_float_eq(tau1[i] - tau0[i], M[n * i + k], 1e-14 * scale, "%s: M[%d][%d] %.17g vs %.17g",
                           name, i, k, M[n * i + k], tau1[i] - tau0[i]);
    }
  }
}

Test(rigid_tree, static_inverse_dynamics_is_M_times_a) {
  testTree t;
  double q[MAXQ], v[MAXV], a[MAXV], M[MAXV * MAXV], tau[MAXV], zero[MAXV] = {0};
  svec scratch[3 * MAXB];
  for (int cs = 0; cs < NCASE; ++cs) {
    const char *name = setup(3, cs, &t, q, v, a);
    int n = t.nt;
    t.gravity[0] = t.gravity[1] = t.gravity[2] = 0;
    mass_matrix(&t, q, M);
    rnea(&t, q, zero, a, tau, scratch);
    for (int i = 0; i < n; ++i) {
      double Ma = 0;
      for (int k = 0; k < n; ++k) Ma += M[n * i + k] * a[t.v_begin + k];
      /* both sides are the same sums in another order: rounding, 1e-14 (≈ 45 ε) of their size */
      cr_assert_float_eq(tau[i], Ma, 1e-14 * (1 + max_abs(M, n * n) * max_abs(a, t.nv)),
                         "%s: DoF %d: %.17g vs %.17g", name, i, tau[i], Ma);
    }
  }
}

/* ---- 2. kinematics against finite differences ------------------------------------------- */

Test(rigid_tree, point_jacobian_is_the_point_velocity) {
  testTree t;
  double q[MAXQ], v[MAXV], w[MAXV], qp[MAXQ], qm[MAXQ], J[3 * MAXV];
  for (int cs = 0; cs < NCASE; ++cs) {
    const char *name = setup(4, cs, &t, q, v, w);
    xform X[MAXB], Xp[MAXB], Xm[MAXB];
    svec S[MAXV];
    svec Sd[MAXV]; /* the axes at the displaced q, unused */
    kin(&t, q, X, S);
    nudge(&t, q, v, FD_H, qp), nudge(&t, q, v, -FD_H, qm);
    kin(&t, qp, Xp, Sd), kin(&t, qm, Xm, Sd);
    test_rng r = {77};
    mat3 R = quat_to_m3(rand_quat(&r));
    for (int b = t.b0; b < t.b1; ++b) {
      vec3 p_B = rand_v3(&r, -0.5, 0.5);
      vec3 p_W = xf_point(X[b], p_B);
      tree_point_jacobian(&t.T, t.b0, t.b1, t.v_begin, X, S, b, p_W, R, -1.0, J);
      vec3 fd = v3_scale(v3_sub(xf_point(Xp[b], p_B), xf_point(Xm[b], p_B)), 0.5 / FD_H);
      vec3 ref = v3_scale(m3_tmulv(R, fd), -1.0), Jv = v3_zero();
      for (int i = 0; i < 3; ++i) {
        double s = 0;
        for (int k = 0; k < t.nt; ++k) s += J[t.nt * i + k] * v[t.v_begin + k];
        Jv = v3_set(Jv, i, s);
      }
      cr_assert_lt(v3_maxdiff(Jv, ref), FD_TOL * (1 + v3_max_abs(ref)), "%s: body %d: %g", name, b,
                   v3_maxdiff(Jv, ref));
      /* columns of DoFs off the body's path are exactly zero */
      for (int c = t.b0; c < t.b1; ++c) {
        if (tree_is_ancestor(&t.T, c, b)) continue;
        for (int k = 0; k < tree_joint_nv(t.type[c]); ++k)
          for (int i = 0; i < 3; ++i) cr_assert_eq(J[t.nt * i + t.v0[c] - t.v_begin + k], 0.0);
      }
    }
  }
}

/* The body's spatial Jacobian (tree_body_jacobian) carries the point Jacobian: [−[p]× | I]·J, put
 * in frame R with the sign s, is tree_point_jacobian's block for every point p of every body
 * (random points up to 2 m from the origin, so that the origin reference is exercised away from
 * the body); each entry is a few products of O(1) numbers, so 1e-14 absolute is tens of ulps.
 * The angular rows are the body's angular velocity (tree_body_velocities), exactly the sum of
 * its path's axes. */
Test(rigid_tree, body_jacobian_gives_every_point_jacobian) {
  testTree t;
  double q[MAXQ], v[MAXV], w[MAXV], J[3 * MAXV], JB[6 * MAXV];
  for (int cs = 0; cs < NCASE; ++cs) {
    const char *name = setup(4, cs, &t, q, v, w);
    xform X[MAXB];
    svec S[MAXV], V[MAXB];
    kin(&t, q, X, S);
    body_velocities(&t, q, v, X, V);
    test_rng r = {78};
    for (int b = t.b0; b < t.b1; ++b) {
      tree_body_jacobian(&t.T, t.b0, t.b1, t.v_begin, X, S, b, JB);
      vec3 om = v3_zero();
      for (int i = 0; i < 3; ++i) {
        double x = 0;
        for (int k = 0; k < t.nt; ++k) x += JB[t.nt * i + k] * v[t.v_begin + k];
        om = v3_set(om, i, x);
      }
      cr_assert_lt(v3_maxdiff(om, V[b].w), 1e-13 * (1 + v3_max_abs(V[b].w)), "%s: body %d: angular rows", name, b);
      for (int rep = 0; rep < 4; ++rep) {
        const mat3 R = quat_to_m3(rand_quat(&r));
        const vec3 p = rand_v3(&r, -2, 2);
        const double s = rep % 2 ? 1.0 : -1.0;
        tree_point_jacobian(&t.T, t.b0, t.b1, t.v_begin, X, S, b, p, R, s, J);
        for (int k = 0; k < t.nt; ++k) {
          const vec3 wk = v3(JB[k], JB[t.nt + k], JB[2 * t.nt + k]);
          const vec3 vk = v3(JB[3 * t.nt + k], JB[4 * t.nt + k], JB[5 * t.nt + k]);
          const vec3 vp = v3_add(vk, v3_cross(wk, p)); /* [−[p]× | I]·column k */
          for (int i = 0; i < 3; ++i)
            cr_assert_lt(fabs(J[t.nt * i + k] - s * v3_dot(m3_col(R, i), vp)), 1e-14 * (1 + v3_max_abs(vp)),
                         "%s: body %d, DoF %d, row %d", name, b, k, i);
        }
      }
    }
  }
}

/* Angular velocity in W from a quaternion's central difference: w = 2 vec(q̇ ⊗ q*). */
static vec3 fd_omega(quat qp, quat qm, quat q, double h) {
  quat dq = quat_make((qp.w - qm.w) / (2 * h), (qp.x - qm.x) / (2 * h), (qp.y - qm.y) / (2 * h),
                      (qp.z - qm.z) / (2 * h));
  return v3_scale(quat_vec(quat_mul(dq, quat_conj(q))), 2.0);
}

Test(rigid_tree, body_velocities_are_the_derivative_of_the_poses) {
  testTree t;
  double q[MAXQ], v[MAXV], w[MAXV], qp[MAXQ], qm[MAXQ];
  for (int cs = 0; cs < NCASE; ++cs) {
    const char *name = setup(5, cs, &t, q, v, w);
    xform X[MAXB], Xp[MAXB], Xm[MAXB];
    svec S[MAXV], V[MAXB];
    body_velocities(&t, q, v, X, V);
    nudge(&t, q, v, FD_H, qp), nudge(&t, q, v, -FD_H, qm);
    kin(&t, qp, Xp, S), kin(&t, qm, Xm, S);
    for (int b = t.b0; b < t.b1; ++b) {
      svec ref = sv_make(fd_omega(Xp[b].q, Xm[b].q, X[b].q, FD_H),
                         v3_scale(v3_sub(Xp[b].p, Xm[b].p), 0.5 / FD_H));
      cr_assert_lt(sv_maxdiff(V[b], ref), FD_TOL * (1 + sv_max_abs(ref)), "%s: body %d: %g", name, b,
                   sv_maxdiff(V[b], ref));
    }
  }
}

Test(rigid_tree, kinetic_energy_is_half_vMv) {
  testTree t;
  double q[MAXQ], v[MAXV], w[MAXV], M[MAXV * MAXV];
  for (int cs = 0; cs < NCASE; ++cs) {
    const char *name = setup(6, cs, &t, q, v, w);
    xform X[MAXB];
    svec V[MAXB];
    int n = t.nt;
    mass_matrix(&t, q, M);
    body_velocities(&t, q, v, X, V);
    double vMv = 0;
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < n; ++k) vMv += v[t.v_begin + i] * M[n * i + k] * v[t.v_begin + k];
    double E = tree_kinetic_energy(&t.T, 0, t.b0, t.b1, X, V);
    /* the same energy summed two ways: rounding only, 1e-14 relative (≈ 45 ε) */
    cr_assert_float_eq(E, 0.5 * vMv, 1e-14 * E, "%s: %.17g vs %.17g", name, E, 0.5 * vMv);
  }
}

/* ---- 3. velocity-product terms ------------------------------------------------------------ */

/* vᵀ C(q, v) v = ½ vᵀ Ṁ v: the skew-symmetry of Ṁ − 2C along v, which holds for any
 * Christoffel-consistent C; Ṁ by central differences of M along q̇ = N(q) v. */
Test(rigid_tree, coriolis_power_is_half_v_Mdot_v) {
  testTree t;
  double q[MAXQ], v[MAXV], w[MAXV], qp[MAXQ], qm[MAXQ], Mp[MAXV * MAXV], Mm[MAXV * MAXV], Cv[MAXV];
  svec scratch[3 * MAXB];
  for (int cs = 0; cs < NCASE; ++cs) {
    const char *name = setup(7, cs, &t, q, v, w);
    int n = t.nt;
    const double *vt = v + t.v_begin;
    t.gravity[0] = t.gravity[1] = t.gravity[2] = 0;
    rnea(&t, q, v, NULL, Cv, scratch);
    nudge(&t, q, v, FD_H, qp), nudge(&t, q, v, -FD_H, qm);
    mass_matrix(&t, qp, Mp), mass_matrix(&t, qm, Mm);
    double vCv = 0, vMdv = 0, size = 0;
    for (int i = 0; i < n; ++i) {
      vCv += vt[i] * Cv[i];
      size += fabs(vt[i] * Cv[i]);
      for (int k = 0; k < n; ++k) vMdv += vt[i] * (Mp[n * i + k] - Mm[n * i + k]) / (2 * FD_H) * vt[k];
    }
    cr_assert_float_eq(vCv, 0.5 * vMdv, FD_TOL * (1 + size), "%s: %.12g vs %.12g", name, vCv, 0.5 * vMdv);
  }
}

/* Free motion conserves T + U: along (q, v) → (q + h N v, v + h v̇) with v̇ = M⁻¹(τ_g − C v),
 * the central difference of the energy is O(h²). This checks gravity and C v together. */
static double total_energy(const testTree *t, const double *q, const double *v) {
  xform X[MAXB];
  svec V[MAXB];
  body_velocities(t, q, v, X, V);
  return tree_kinetic_energy(&t->T, 0, t->b0, t->b1, X, V) + tree_potential_energy(&t->T, 0, t->b0, t->b1, X);
}

Test(rigid_tree, free_motion_conserves_energy) {
  testTree t;
  double q[MAXQ], v[MAXV], w[MAXV], vd[MAXV], qp[MAXQ], qm[MAXQ], vp[MAXV], vm[MAXV], tau0[MAXV];
  svec scratch[3 * MAXB];
  for (int cs = 0; cs < NCASE; ++cs) {
    const char *name = setup(8, cs, &t, q, v, w);
    free_accel(&t, q, v, vd);
    nudge(&t, q, v, FD_H, qp), nudge(&t, q, v, -FD_H, qm);
    axpy(&t, v, FD_H, vd, vp), axpy(&t, v, -FD_H, vd, vm);
    double dE = (total_energy(&t, qp, vp) - total_energy(&t, qm, vm)) / (2 * FD_H);
    /* dE/dt = vᵀ(M v̇ + C v − τ_g) = 0 is a cancellation of powers of size Σ |v_i (C v − τ_g)_i|:
     * the tolerance is relative to that */
    rnea(&t, q, v, NULL, tau0, scratch);
    double size = 0;
    for (int i = 0; i < t.nt; ++i) size += fabs(v[t.v_begin + i] * tau0[i]);
    cr_assert_lt(fabs(dE), FD_TOL * (1 + size), "%s: dE/dt = %g (power %g)", name, dE, size);
  }
}

/* The classical accelerations RNEA leaves in its scratch are the time derivatives of the body
 * velocities along (q + h N v, v + h v̇) for a random v̇: this checks every tree_accel_bias
 * term body by body. */
Test(rigid_tree, accelerations_are_the_derivative_of_the_velocities) {
  testTree t;
  double q[MAXQ], v[MAXV], vd[MAXV], qp[MAXQ], qm[MAXQ], vp[MAXV], vm[MAXV], tau[MAXV];
  svec scratch[3 * MAXB];
  for (int cs = 0; cs < NCASE; ++cs) {
    const char *name = setup(9, cs, &t, q, v, vd);
    xform X[MAXB];
    svec Vp[MAXB], Vm[MAXB];
    int nb = t.b1 - t.b0;
    rnea(&t, q, v, vd, tau, scratch);
    nudge(&t, q, v, FD_H, qp), nudge(&t, q, v, -FD_H, qm);
    axpy(&t, v, FD_H, vd, vp), axpy(&t, v, -FD_H, vd, vm);
    body_velocities(&t, qp, vp, X, Vp);
    body_velocities(&t, qm, vm, X, Vm);
    for (int b = t.b0; b < t.b1; ++b) {
      svec ref = sv_scale(sv_sub(Vp[b], Vm[b]), 0.5 / FD_H), A = scratch[nb + b - t.b0];
      cr_assert_lt(sv_maxdiff(A, ref), FD_TOL * (1 + sv_max_abs(ref)), "%s: body %d: %g", name, b,
                   sv_maxdiff(A, ref));
    }
  }
}

/* Newton–Euler for every subtree as one system, independent of RNEA's recursion: about the
 * fixed world origin O, d/dt h_O(subtree of b) = the joint's force on b + gravity on the
 * subtree. With ḣ by central differences along (q + h N v, v + h v̇) for a random v̇, the
 * joint force moved to Bo must equal RNEA's (scratch) and S_bᵀ of it RNEA's tau. */
static svec subtree_momentum_O(const testTree *t, int b, const xform *X, const svec *V) {
  svec h = sv_zero();
  for (int d = b; d < t->b1; ++d) {
    if (!tree_is_ancestor(&t->T, b, d)) continue;
    svec hd = si_mul(tree_body_inertia(&t->T, 0, d, X[d]), V[d]);
    h = sv_add(h, sv_shift_force(hd, v3_neg(X[d].p)));
  }
  return h;
}

Test(rigid_tree, joint_forces_balance_subtree_momentum) {
  testTree t;
  double q[MAXQ], v[MAXV], vd[MAXV], qp[MAXQ], qm[MAXQ], vp[MAXV], vm[MAXV], tau[MAXV];
  svec scratch[3 * MAXB];
  for (int cs = 0; cs < NCASE; ++cs) {
    const char *name = setup(10, cs, &t, q, v, vd);
    xform X[MAXB], Xp[MAXB], Xm[MAXB];
    svec S[MAXV], V[MAXB], Vp[MAXB], Vm[MAXB];
    int nb = t.b1 - t.b0;
    vec3 g = v3(t.gravity[0], t.gravity[1], t.gravity[2]);
    rnea(&t, q, v, vd, tau, scratch);
    body_velocities(&t, q, v, X, V);
    kin(&t, q, X, S);
    nudge(&t, q, v, FD_H, qp), nudge(&t, q, v, -FD_H, qm);
    axpy(&t, v, FD_H, vd, vp), axpy(&t, v, -FD_H, vd, vm);
    body_velocities(&t, qp, vp, Xp, Vp);
    body_velocities(&t, qm, vm, Xm, Vm);
    for (int b = t.b0; b < t.b1; ++b) {
      svec hdot = sv_scale(sv_sub(subtree_momentum_O(&t, b, Xp, Vp), subtree_momentum_O(&t, b, Xm, Vm)),
                           0.5 / FD_H);
      svec G = sv_zero(); /* gravity on the subtree about O */
      for (int d = b; d < t.b1; ++d) {
        if (!tree_is_ancestor(&t.T, b, d)) continue;
        vec3 mg = v3_scale(g, t.mass[d]);
        vec3 c = xf_point(X[d], v3(t.com[3 * d], t.com[3 * d + 1], t.com[3 * d + 2]));
        G = sv_add(G, sv_make(v3_cross(c, mg), mg));
      }
      svec F = sv_shift_force(sv_sub(hdot, G), X[b].p); /* moved from O to Bo */
      svec Frnea = scratch[2 * nb + b - t.b0];
      cr_assert_lt(sv_maxdiff(Frnea, F), FD_TOL * (1 + sv_max_abs(F)), "%s: body %d: %g", name, b,
                   sv_maxdiff(Frnea, F));
      for (int k = 0; k < tree_joint_nv(t.type[b]); ++k) {
        int i = t.v0[b] - t.v_begin + k;
        cr_assert_float_eq(tau[i], sv_dot(S[i], F), FD_TOL * (1 + sv_max_abs(F)), "%s: DoF %d", name, i);
      }
    }
  }
}

/* ---- 4. one floating body is the free body ------------------------------------------------- */

Test(rigid_tree, floating_body_is_the_free_body) {
  testTree t;
  memset(&t, 0, sizeof t);
  test_rng r = {11};
  add_body(&t, -1, FLO, &r);
  t.X_PF[0] = t.X_BM[0] = xf_identity();
  t.b0 = 0, t.b1 = 1, t.v_begin = 0, t.nt = 6;
  t.gravity[0] = 0.3, t.gravity[1] = -0.2, t.gravity[2] = -9.81;
  link_model(&t);
  for (int trial = 0; trial < 20; ++trial) {
    double q[7], v[6], w[6];
    rand_state(&t, &r, q, v, w);
    xform X[1];
    svec S[6], scratch[3];
    kin(&t, q, X, S);
    /* the pose is q itself (identity X_PF and X_BM compose exactly) */
    cr_assert(X[0].q.w == q[0] && X[0].q.x == q[1] && X[0].q.y == q[2] && X[0].q.z == q[3]);
    cr_assert(X[0].p.x == q[4] && X[0].p.y == q[5] && X[0].p.z == q[6]);
    /* M is the free body's block of A (rigid_free_motion_world): si_to_mat6 of the inertia about
     * Bo. The tree's entries come from si_mul, the block's from the 6×6 matrix, which group
     * m·(c × v) differently: a few ulps of the largest entry. */
    double M[36], A[36], tau[6];
    tree_mass_matrix(&t.T, 0, 0, 1, 0, X, S, M);
    mat3 R = quat_to_m3(X[0].q);
    const double *I6 = t.inertia;
    mat3 I_cm = m3_congruence(R, m3_sym6(I6[0], I6[1], I6[2], I6[3], I6[4], I6[5]));
    si_to_mat6(si_from_com(t.mass[0], m3_mulv(R, v3(t.com[0], t.com[1], t.com[2])), I_cm), A);
    for (int i = 0; i < 36; ++i) cr_assert_float_eq(M[i], A[i], 1e-15 * max_abs(A, 36), "entry %d", i);
    /* M⁻¹(−bias) with gravity is rigid_free_accel's [α; a_o]: both exact in theory, a Cholesky
     * solve against a solve about the COM in floating point; M's condition number here is
     * ≲ 1e3, so ε·1e3 ≈ 2e-13: 1e-12 relative */
    tree_inverse_dynamics(&t.T, 0, 0, 1, 0, X, S, v, NULL, scratch, tau);
    cr_assert_eq(chol_factor(6, M), 0);
    for (int k = 0; k < 6; ++k) tau[k] = -tau[k];
    chol_solve(6, M, tau);
    vec3 alpha, a_o;
    rigid_free_accel(X[0].q, v3(v[0], v[1], v[2]), v3(t.gravity[0], t.gravity[1], t.gravity[2]),
                     v3(t.com[0], t.com[1], t.com[2]), I6, &alpha, &a_o);
    double ref[6] = {alpha.x, alpha.y, alpha.z, a_o.x, a_o.y, a_o.z};
    for (int k = 0; k < 6; ++k)
      cr_assert_float_eq(tau[k], ref[k], 1e-12 * (1 + max_abs(ref, 6)), "accel %d: %.17g vs %.17g", k, tau[k],
                         ref[k]);
    /* the position update is the free body's, bit for bit */
    double qa[7], qb[7];
    memcpy(qa, q, sizeof q), memcpy(qb, q, sizeof q);
    tree_integrate(&t.T, 0, 1, qa, v, 1e-3);
    rigid_integrate_body(qb, v, 1e-3);
    cr_assert(test_same_bits(qa, qb, 7));
  }
}

/* ---- 5. a simple pendulum ------------------------------------------------------------------ */

Test(rigid_tree, simple_pendulum) {
  testTree t;
  memset(&t, 0, sizeof t);
  test_rng r = {12};
  add_body(&t, -1, REV, &r);
  const double m = 1.5, l = 0.8, Iyy = 0.004, g = 9.81;
  t.X_PF[0] = t.X_BM[0] = xf_identity();
  t.axis[0] = v3(0, 1, 0);
  t.mass[0] = m;
  t.com[0] = 0, t.com[1] = 0, t.com[2] = -l;
  double I6[6] = {0.003, Iyy, 0.002, 0, 0, 0};
  memcpy(t.inertia, I6, sizeof I6);
  t.b0 = 0, t.b1 = 1, t.v_begin = 0, t.nt = 1;
  t.gravity[2] = -g;
  link_model(&t);
  for (int i = 0; i < 12; ++i) {
    double th = -3.0 + 0.5 * i, q[1] = {th}, v[1] = {1.7}, M[1], tau[1];
    xform X[1];
    svec S[1], scratch[3];
    kin(&t, q, X, S);
    tree_mass_matrix(&t.T, 0, 0, 1, 0, X, S, M);
    /* closed forms evaluated with a few roundings each: 1e-14 relative */
    cr_assert_float_eq(M[0], Iyy + m * l * l, 1e-14, "M %.17g", M[0]);
    /* a positive turn about +y carries the bob from −z towards −x, where gravity's moment about
     * +y is −m g l sin θ: it pulls back. tau = −τ_g at rest; C = 0 (M is constant), so the
     * same with any velocity. */
    tree_inverse_dynamics(&t.T, 0, 0, 1, 0, X, S, v, NULL, scratch, tau);
    cr_assert_float_eq(-tau[0], -m * g * l * sin(th), 1e-13, "θ %g: τ_g %.17g", th, -tau[0]);
    cr_assert_float_eq(tree_potential_energy(&t.T, 0, 0, 1, X), -m * g * l * cos(th), 1e-13);
  }
}

/* ---- 6. per-world mass properties ---------------------------------------------------------- */

/* World 1 of a two-world model reads its own masses: its matrix equals that of a one-world model
 * holding world 1's values, bit for bit (same computation on the same numbers). */
Test(rigid_tree, mass_matrix_reads_the_world_s_parameters) {
  static testTree t, u;
  double q[MAXQ], v[MAXV], w[MAXV], M1[MAXV * MAXV], Mu[MAXV * MAXV];
  double mass2[2 * MAXB], com2[6 * MAXB], inertia2[12 * MAXB];
  test_rng r = {13};
  build(&t, &SHAPES[2], &r);
  rand_state(&t, &r, q, v, w);
  build(&u, &SHAPES[2], &r); /* different masses, same joints */
  memcpy(mass2, t.mass, sizeof t.mass), memcpy(mass2 + MAXB, u.mass, sizeof u.mass);
  memcpy(com2, t.com, sizeof t.com), memcpy(com2 + 3 * MAXB, u.com, sizeof u.com);
  memcpy(inertia2, t.inertia, sizeof t.inertia), memcpy(inertia2 + 6 * MAXB, u.inertia, sizeof u.inertia);
  memcpy(u.X_PF, t.X_PF, sizeof t.X_PF), memcpy(u.X_BM, t.X_BM, sizeof t.X_BM);
  memcpy(u.axis, t.axis, sizeof t.axis);
  treeModel T2 = t.T;
  T2.mass.data = mass2, T2.mass.wstride = MAXB;
  T2.com.data = com2, T2.com.wstride = 3 * MAXB;
  T2.inertia.data = inertia2, T2.inertia.wstride = 6 * MAXB;
  xform X[MAXB];
  svec S[MAXV];
  kin(&t, q, X, S);
  tree_mass_matrix(&T2, 1, t.b0, t.b1, t.v_begin, X, S, M1);
  mass_matrix(&u, q, Mu);
  cr_assert(test_same_bits(M1, Mu, t.nt * t.nt));
  tree_mass_matrix(&T2, 0, t.b0, t.b1, t.v_begin, X, S, M1);
  mass_matrix(&t, q, Mu);
  cr_assert(test_same_bits(M1, Mu, t.nt * t.nt));
}
