/* Free rigid bodies: one world's step, the same code on CPU and GPU.
 *
 * Generalized coordinates follow Drake's quaternion floating joint so scenes compare 1:1:
 * per body q = [qw qx qy qz  px py pz] (orientation R_WB, body origin p_WBo) and
 * v = [wx wy wz  vx vy vz] (angular velocity of B and velocity of Bo, both in the world frame).
 *
 * The step is the semi-implicit scheme SAP uses (reference §5.1, §5.8): free-motion velocities
 * v* = v0 + dt·M(q0)⁻¹(τ(q0) − C(q0, v0)), with gravity and the gyroscopic term evaluated
 * explicitly at the start of the step; without contact v_next = v*; then
 * q_next = q0 + dt·N(q0)·v_next, with the quaternion renormalised (Drake leaves that open,
 * reference §9; a unit quaternion is what every later stage assumes).
 *
 * The per-world mass parameters come through world-stride fields, so randomised masses cost
 * nothing extra. A world whose new state is not finite is flagged ISO_WORLD_NONFINITE |
 * ISO_WORLD_FROZEN and its time is not advanced; its state stays as that step left it, so the
 * offending values can be inspected. Frozen worlds are skipped until reset. */
#ifndef ISO_KERNELS_RIGID_FREE_BODY_H
#define ISO_KERNELS_RIGID_FREE_BODY_H

#include <stdint.h>

#include "isobar/world_status.h"
#include "kernels/core.h"
#include "kernels/math/mat3.h"
#include "kernels/math/quat.h"
#include "kernels/math/spatial.h"
#include "kernels/math/transform.h"
#include "kernels/math/vec3.h"
#include "kernels/world_field.h"

#define RIGID_NQ 7 /* per free body */
#define RIGID_NV 6
#define RIGID_POINT_JAC_LEN (3 * RIGID_NV) /* reals of rigid_point_jacobian's block */

typedef struct rigidParams {
  int nbody;
  real dt;
  wfield gravity; /* (3) m/s² */
  wfield mass;    /* (nbody) kg */
  wfield com;     /* (nbody, 3) centre of mass in the body frame, m */
  wfield inertia; /* (nbody, 6) about the COM in the body frame: Ixx Iyy Izz Ixy Ixz Iyz, kg m² */
} rigidParams;

/* Free-motion acceleration of one body: [α; a_Bo] = M⁻¹(τ − C) for gravity alone.
 * Solved about the centre of mass, where the 6x6 spatial inertia is block diagonal: Euler's
 * equation I_cm·α = −ω × I_cm·ω (gravity acts at the COM, so it has no moment there) and
 * a_cm = g; then the origin's acceleration by rigid kinematics, a_Bo = a_cm − α×c − ω×(ω×c).
 * This is exactly M⁻¹(τ − C) for the spatial inertia about Bo, at a fraction of the cost. */
static inline ISO_HD void rigid_free_accel(quat q_WB, vec3 w, vec3 g, vec3 com_B, const real *I6,
                                           vec3 *alpha, vec3 *a_o) {
  mat3 R = quat_to_m3(q_WB);
  mat3 I_cm = m3_congruence(R, m3_sym6(I6[0], I6[1], I6[2], I6[3], I6[4], I6[5]));
  mat3 I_inv;
  if (!m3_inverse(I_cm, &I_inv)) I_inv = m3_zero(); /* validated away; keep kernels total */
  vec3 gyro = v3_cross(w, m3_mulv(I_cm, w));
  vec3 al = v3_neg(m3_mulv(I_inv, gyro));
  vec3 c = m3_mulv(R, com_B);
  vec3 a = v3_sub(v3_sub(g, v3_cross(al, c)), v3_cross(w, v3_cross(w, c)));
  *alpha = al;
  *a_o = a;
}

static inline ISO_HD int rigid_state_finite(const real *q, const real *v, int nq, int nv) {
  int ok = 1;
  for (int i = 0; i < nq; ++i) ok &= isfinite(q[i]) ? 1 : 0;
  for (int i = 0; i < nv; ++i) ok &= isfinite(v[i]) ? 1 : 0;
  return ok;
}

/* q_next = q + dt·N(q)·v for one body, quaternion renormalised. */
static inline ISO_HD void rigid_integrate_body(real *qb, const real *vb, real dt) {
  quat r = quat_make(qb[0], qb[1], qb[2], qb[3]);
  quat rn = quat_normalize(quat_integrate_world(r, v3(vb[0], vb[1], vb[2]), dt));
  qb[0] = rn.w, qb[1] = rn.x, qb[2] = rn.y, qb[3] = rn.z;
  qb[4] += dt * vb[3], qb[5] += dt * vb[4], qb[6] += dt * vb[5];
}

/* Free motion of body b of world `world` at pose X (from stage 1): v* = v + dt·M⁻¹(τ − C) for its
 * six velocities vb, and (unless Ab is NULL) its block of A = M(q0): the spatial inertia about
 * its origin in the world frame, row-major 6×6 in the [ω, v] order of the generalized
 * velocities. */
static inline ISO_HD void rigid_free_motion_body(int world, const rigidParams *P, int b, xform X, const real *vb,
                                                 real *vs, real *Ab) {
  const real *gp = wf_at(P->gravity, world, 0, 3);
  vec3 g = v3(gp[0], gp[1], gp[2]);
  quat r = X.q; /* the pose stage 1 made of q */
  const real *c = wf_at(P->com, world, b, 3), *I6 = wf_at(P->inertia, world, b, 6);
  vec3 w = v3(vb[0], vb[1], vb[2]), alpha, a_o;
  rigid_free_accel(r, w, g, v3(c[0], c[1], c[2]), I6, &alpha, &a_o);
  vs[0] = vb[0] + P->dt * alpha.x, vs[1] = vb[1] + P->dt * alpha.y, vs[2] = vb[2] + P->dt * alpha.z;
  vs[3] = vb[3] + P->dt * a_o.x, vs[4] = vb[4] + P->dt * a_o.y, vs[5] = vb[5] + P->dt * a_o.z;
  if (!Ab) return; /* nothing can touch: no problem to solve, no A */
  mat3 R = quat_to_m3(r);
  mat3 I_cm = m3_congruence(R, m3_sym6(I6[0], I6[1], I6[2], I6[3], I6[4], I6[5]));
  sinertia M = si_from_com(*wf_at(P->mass, world, b, 1), m3_mulv(R, v3(c[0], c[1], c[2])), I_cm);
  si_to_mat6(M, Ab);
}

/* Free motion of world `world` when every body is free (X_WB: its body poses): body b's
 * velocities at 6·b, its block of A at 36·b (A NULL: none). */
static inline ISO_HD void rigid_free_motion_world(int world, const rigidParams *P, const xform *X_WB, const real *v,
                                                  real *vstar, real *A) {
  for (int b = 0; b < P->nbody; ++b)
    rigid_free_motion_body(world, P, b, X_WB[b], v + RIGID_NV * b, vstar + RIGID_NV * b,
                           A ? A + RIGID_NV * RIGID_NV * b : (real *)0);
}

/* Where body b's unknowns and its block of A lie in a world's arrays (the layout of
 * rigid_free_motion_world): nv DoFs from v0 in v, an nv × nv block at a0 in A; origin: the
 * offset of its origin p_WBo in the world's q. A free body is one clique of the SAP problem. */
static inline ISO_HD void rigid_body_layout(int b, int *nv, int *v0, int *a0, int *origin) {
  *nv = RIGID_NV;
  *v0 = RIGID_NV * b;
  *a0 = RIGID_NV * RIGID_NV * b;
  *origin = RIGID_NQ * b + 4;
}

/* The Jacobian of the velocity of a point of a free body, expressed in frame R: row-major 3×6
 * block s·Rᵀ[−[r]× | I] in the [ω, v] order (r: the point minus the body origin, world frame;
 * s = ±1, the side of the constraint the body is on). For a unit axis c, c·(v + ω × r) =
 * c·v + ω·(r × c), so row i is s·[r × Cᵢ, Cᵢ]. A free body's block of a contact constraint
 * (kernels/sap/problem.h, SAP_BLOCK_RIGID_POINT). */
static inline ISO_HD void rigid_point_jacobian(mat3 R, vec3 r, real s, real *J) {
  for (int i = 0; i < 3; ++i) {
    vec3 c = m3_col(R, i);
    vec3 rc = v3_cross(r, c);
    real *row = J + RIGID_NV * i;
    row[0] = s * rc.x, row[1] = s * rc.y, row[2] = s * rc.z;
    row[3] = s * c.x, row[4] = s * c.y, row[5] = s * c.z;
  }
}

/* Positions from the solved velocities, then the fault checks; time advances. */
static inline ISO_HD void rigid_integrate_world(const rigidParams *P, real *q, const real *v, real *time,
                                                uint32_t *status) {
  if (*status & ISO_WORLD_FROZEN) return;
  int finite = 1;
  for (int b = 0; b < P->nbody; ++b) {
    rigid_integrate_body(q + RIGID_NQ * b, v + RIGID_NV * b, P->dt);
    finite &= rigid_state_finite(q + RIGID_NQ * b, v + RIGID_NV * b, RIGID_NQ, RIGID_NV);
  }
  if (!finite) {
    *status |= ISO_WORLD_NONFINITE | ISO_WORLD_FROZEN;
    return;
  }
  *time += P->dt;
}

#endif
