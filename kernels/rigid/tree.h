/* Kinematic trees of rigid bodies joined by joints: forward kinematics, body velocities, point
 * Jacobians, the mass matrix (composite rigid bodies), inverse dynamics (recursive Newton–Euler)
 * and the position update. One world's one tree per call, the same code on CPU and GPU.
 *
 * Conventions are Drake's (MultibodyPlant's mobilizers), so scenes compare 1:1:
 *  - The bodies of a model are in topological order, parent[b] < b, parent −1 = the world. Body
 *    b has exactly one (inboard) joint, from frame F fixed on the parent (pose X_PF in the
 *    parent's body frame, or in W when the parent is the world) to frame M fixed on b (pose
 *    X_BM in b's frame), with X_FM = identity at q = 0. Hence X_WB = X_WP · X_PF · X_FM(q) ·
 *    X_BM⁻¹.
 *  - Joints (nq, nv):   FIXED (0, 0)      X_FM = I: a weld left unmerged.
 *                       REVOLUTE (1, 1)   rotation by q about the unit axis a (in F; equal in M
 *                                         at q = 0); v = q̇.
 *                       PRISMATIC (1, 1)  translation q·a along the unit axis a in F; v = q̇.
 *                       BALL (4, 3)       q = (w, x, y, z) of R_FM; v = w_FM expressed in F.
 *                       FLOATING (7, 6)   q = [qw qx qy qz px py pz] = (R_FM, p_FMo in F);
 *                                         v = [w_FM in F; v_FMo in F] (Drake's
 *                                         QuaternionFloatingJoint). With F = W and M = B it is
 *                                         exactly the free body of free_body.h.
 *  - q and v are one world's generalized positions and velocities; b's joint sits at
 *    q[q0[b] ..] and v[v0[b] ..]. A tree is a range of positions [b0, b1) of the tree order
 *    (treeModel.order: bodies tree by tree, parents first; NULL: the body indices themselves)
 *    whose parents are −1 or inside the tree, and whose DoFs are the contiguous
 *    range [v_begin, v_begin + nt); per-tree vectors and matrices are indexed by DoF − v_begin,
 *    matrices nt × nt row-major.
 *
 * Every spatial quantity is expressed in the world frame W and taken at a body origin Bo, not at
 * the centre of mass and not in body frames: that is how contact Jacobians and the free body's
 * blocks are written (free_body.h), and it keeps one frame throughout. In particular the motion
 * axes S: column k is the spatial velocity [w; v_Bo] in W that unit velocity of DoF k gives the
 * DoF's child body B relative to its parent P, taken at Bo. Then V_WB = V_WP shifted to Bo +
 * Σ_k S_k v_k (sv_shift: the parent's rigid velocity field evaluated at Bo).
 *
 * Accelerations are classical (d/dt in W of w and of v_Bo), as in spatial.h, not Featherstone's
 * body-fixed ones. Differentiating the composition above (derivation at tree_accel_bias) gives
 * A_WB = [α_P; a_Po + α_P × r] + S v̇ + c_B, with a velocity-product term c_B that holds the
 * centripetal and Coriolis terms of the parent's rotation and of the joint's own motion.
 * Newton–Euler about Bo in W is then F_B = M_B A_WB + si_gyro_bias(M_B, w_B) (spatial.h), with
 * M_B the spatial inertia about Bo in W.
 *
 * Mass properties come per world through world-stride fields exactly as rigidParams
 * (free_body.h): mass (nbody), com (nbody, 3, body frame), inertia (nbody, 6: Ixx Iyy Izz Ixy
 * Ixz Iyz about the COM in the body frame), gravity (3). */
#ifndef ISO_KERNELS_RIGID_TREE_H
#define ISO_KERNELS_RIGID_TREE_H

#include "kernels/core.h"
#include "kernels/math/mat3.h"
#include "kernels/math/quat.h"
#include "kernels/math/spatial.h"
#include "kernels/math/transform.h"
#include "kernels/math/vec3.h"
#include "kernels/rigid/free_body.h"
#include "kernels/world_field.h"

/* The values of isoJointType (include/isobar/joint.h), so the compiled model's types are these. */
#define TREE_JOINT_REVOLUTE 0
#define TREE_JOINT_PRISMATIC 1
#define TREE_JOINT_BALL 2
#define TREE_JOINT_FLOATING 3
#define TREE_JOINT_FIXED 4
#define TREE_JOINT_MAX_NQ 7
#define TREE_JOINT_MAX_NV 6

typedef struct treeModel {
  int nbody;
  const int *parent;  /* (nbody) −1 = the world; parent[b] < b */
  const int *type;    /* (nbody) TREE_JOINT_* of b's inboard joint */
  const int *q0, *v0; /* (nbody) the joint's offsets in a world's q and v */
  const xform *X_PF;  /* (nbody) F in the parent's frame (in W when the parent is the world) */
  const xform *X_BM;  /* (nbody) M in b's frame */
  const vec3 *axis;   /* (nbody) unit, in F; read for revolute and prismatic joints only */
  wfield mass;        /* (nbody) kg */
  wfield com;         /* (nbody, 3) centre of mass in the body frame, m */
  wfield inertia;     /* (nbody, 6) about the COM in the body frame, kg m² */
  wfield gravity;     /* (3) m/s² */
  const int *order;   /* (nbody) bodies tree by tree, or NULL: body index order. Ranges [b0, b1)
                         are positions in this order, so a tree's bodies need not have
                         consecutive indices (a model's trees may interleave) */
  const int *pos;     /* (nbody) body b's position in order (NULL with order NULL) */
} treeModel;

/* The body at position i of the tree order, and body b's position. */
static inline ISO_HD int tree_at(const treeModel *T, int i) { return T->order ? T->order[i] : i; }
static inline ISO_HD int tree_pos(const treeModel *T, int b) { return T->pos ? T->pos[b] : b; }

/* Number of generalized positions of a joint type (0 for an unknown type). */
static inline ISO_HD int tree_joint_nq(int type) {
  switch (type) {
  case TREE_JOINT_REVOLUTE:
  case TREE_JOINT_PRISMATIC: return 1;
  case TREE_JOINT_BALL: return 4;
  case TREE_JOINT_FLOATING: return 7;
  default: return 0;
  }
}

/* Number of generalized velocities of a joint type (0 for an unknown type). */
static inline ISO_HD int tree_joint_nv(int type) {
  switch (type) {
  case TREE_JOINT_REVOLUTE:
  case TREE_JOINT_PRISMATIC: return 1;
  case TREE_JOINT_BALL: return 3;
  case TREE_JOINT_FLOATING: return 6;
  default: return 0;
  }
}

/* nt: the number of DoFs of bodies [b0, b1). */
static inline ISO_HD int tree_nv(const treeModel *T, int b0, int b1) {
  int n = 0;
  for (int i = b0; i < b1; ++i) n += tree_joint_nv(T->type[tree_at(T, i)]);
  return n;
}

/* X_FM(q) of one joint; qj = the joint's positions (not read for a fixed joint), a = its axis
 * (read for revolute and prismatic). Quaternions are used as stored: tree_integrate keeps them
 * unit, as the free body's stage 1 does. */
static inline ISO_HD xform tree_joint_pose(int type, vec3 a, const real *qj) {
  switch (type) {
  case TREE_JOINT_REVOLUTE: return xf_make(quat_from_axis_angle(a, qj[0]), v3_zero());
  case TREE_JOINT_PRISMATIC: return xf_make(quat_identity(), v3_scale(a, qj[0]));
  case TREE_JOINT_BALL: return xf_make(quat_make(qj[0], qj[1], qj[2], qj[3]), v3_zero());
  case TREE_JOINT_FLOATING:
    return xf_make(quat_make(qj[0], qj[1], qj[2], qj[3]), v3(qj[4], qj[5], qj[6]));
  default: return xf_identity();
  }
}

/* X_WF of body b's joint, from its parent's pose (X_WB indexed by body, the parent's already
 * computed). */
static inline ISO_HD xform tree_frame_F(const treeModel *T, int b, const xform *X_WB) {
  int p = T->parent[b];
  return p < 0 ? T->X_PF[b] : xf_mul(X_WB[p], T->X_PF[b]);
}

/* The axis of b's joint when it has one (the array may be absent for trees without). */
static inline ISO_HD vec3 tree_axis(const treeModel *T, int b) {
  int t = T->type[b];
  return t == TREE_JOINT_REVOLUTE || t == TREE_JOINT_PRISMATIC ? T->axis[b] : v3_zero();
}

/* X_WB of bodies [b0, b1) from a world's q, root to leaves (parents first). */
static inline ISO_HD void tree_forward_kinematics(const treeModel *T, int b0, int b1, const real *q,
                                                  xform *X_WB /* (nbody) by body */) {
  for (int i = b0; i < b1; ++i) {
    const int b = tree_at(T, i);
    xform X_FM = tree_joint_pose(T->type[b], tree_axis(T, b), q + T->q0[b]);
    X_WB[b] = xf_mul(xf_mul(tree_frame_F(T, b, X_WB), X_FM), xf_inv(T->X_BM[b]));
  }
}

/* Motion axes of body b's joint: writes nv columns to Sb (in W, at Bo), returns nv. Rotations
 * are about Mo (Mo = Fo for revolute and ball), so an angular column e (in W) moves Bo at
 * e × (p_WBo − p_WMo); translations move every point alike. The axes are fixed in F, so their
 * world directions come from R_WF (for a revolute joint R_FM a = a, so R_WF a = R_WM a). */
static inline ISO_HD int tree_body_axes(const treeModel *T, int b, const xform *X_WB,
                                        svec *Sb /* (nv of b) */) {
  int t = T->type[b];
  mat3 R_WF = quat_to_m3(tree_frame_F(T, b, X_WB).q);
  vec3 d = v3_sub(X_WB[b].p, xf_point(X_WB[b], T->X_BM[b].p)); /* p_WBo − p_WMo */
  if (t == TREE_JOINT_REVOLUTE || t == TREE_JOINT_PRISMATIC) {
    vec3 a = m3_mulv(R_WF, T->axis[b]);
    Sb[0] = t == TREE_JOINT_REVOLUTE ? sv_make(a, v3_cross(a, d)) : sv_make(v3_zero(), a);
    return 1;
  }
  if (t != TREE_JOINT_BALL && t != TREE_JOINT_FLOATING) return 0;
  for (int k = 0; k < 3; ++k) {
    vec3 e = m3_col(R_WF, k);
    Sb[k] = sv_make(e, v3_cross(e, d));
    if (t == TREE_JOINT_FLOATING) Sb[3 + k] = sv_make(v3_zero(), e);
  }
  return t == TREE_JOINT_BALL ? 3 : 6;
}

/* The world-frame motion axes of the DoFs of bodies [b0, b1): S[DoF − v_begin], each the
 * spatial velocity (in W, at the child body's origin) that unit velocity of that DoF gives the
 * child body relative to its parent. */
static inline ISO_HD void tree_motion_axes(const treeModel *T, int b0, int b1, int v_begin,
                                           const xform *X_WB, svec *S /* (nt) */) {
  for (int i = b0; i < b1; ++i) {
    const int b = tree_at(T, i);
    tree_body_axes(T, b, X_WB, S + (T->v0[b] - v_begin));
  }
}

/* The joint's own contribution Σ_k S_k x_k for a world-indexed x (v or v̇). */
static inline ISO_HD svec tree_joint_velocity(const treeModel *T, int b, int v_begin,
                                              const svec *S, const real *x) {
  svec V = sv_zero();
  const svec *Sb = S + (T->v0[b] - v_begin);
  const real *xb = x + T->v0[b];
  int nv = tree_joint_nv(T->type[b]);
  for (int k = 0; k < nv; ++k) V = sv_add(V, sv_scale(Sb[k], xb[k]));
  return V;
}

/* Spatial velocities V_WB (in W, at each Bo) of bodies [b0, b1) from a world's v: the parent's
 * velocity shifted to Bo plus the joint's. */
static inline ISO_HD void tree_body_velocities(const treeModel *T, int b0, int b1, int v_begin,
                                               const xform *X_WB, const svec *S, const real *v,
                                               svec *V_WB /* (nbody) by body */) {
  for (int i = b0; i < b1; ++i) {
    const int b = tree_at(T, i);
    int p = T->parent[b];
    svec Vp = p < 0 ? sv_zero() : sv_shift(V_WB[p], v3_sub(X_WB[b].p, X_WB[p].p));
    V_WB[b] = sv_add(Vp, tree_joint_velocity(T, b, v_begin, S, v));
  }
}

/* Rows of the velocity Jacobian of the point p_W fixed on `body`: J (3 × nt, row-major) =
 * s·Rᵀ·∂v_p/∂v, expressed in frame R (its columns are the axes), s = ±1 the side of a constraint
 * the body is on; columns of DoFs off the path root → body are zero. The role of
 * rigid_point_jacobian (free_body.h) for a tree: DoF k (child body C) moves the point at
 * S_k.v + S_k.w × (p_W − p_WCo), and row i is that dotted with R's column i. */
static inline ISO_HD void tree_point_jacobian(const treeModel *T, int b0, int b1, int v_begin,
                                              const xform *X_WB, const svec *S, int body,
                                              vec3 p_W, mat3 R, real s, real *J /* (3, nt) */) {
  int nt = tree_nv(T, b0, b1);
  for (int i = 0; i < 3 * nt; ++i) J[i] = (real)0;
  for (int c = body; c >= 0; c = T->parent[c]) { /* the path to the root, inside the tree */
    vec3 r = v3_sub(p_W, X_WB[c].p);
    int nv = tree_joint_nv(T->type[c]), k0 = T->v0[c] - v_begin;
    for (int k = 0; k < nv; ++k) {
      vec3 vp = v3_add(S[k0 + k].v, v3_cross(S[k0 + k].w, r));
      for (int i = 0; i < 3; ++i) J[nt * i + k0 + k] = s * v3_dot(m3_col(R, i), vp);
    }
  }
}

/* The spatial velocity Jacobian of `body` (6 × nt, row-major): rows 0–2 its angular velocity,
 * rows 3–5 the velocity of the body's point at the world origin, both in W; columns of DoFs off
 * the path root → body are zero. A point p of the body moves at v = J_v·v + (J_ω·v) × p, so a
 * contact's point Jacobian is [−[p]× | I]·J (tree_point_jacobian's rows, R = I, s = 1): the form
 * in which the Newton Hessian sums a run of one body's contacts before it multiplies by J once
 * (kernels/sap/hessian_rigid.h). The origin is the reference because a jointed tree's clique is
 * measured from it (tree_set_free_motion). */
static inline ISO_HD void tree_body_jacobian(const treeModel *T, int b0, int b1, int v_begin, const xform *X_WB,
                                             const svec *S, int body, real *J /* (6, nt) */) {
  const int nt = tree_nv(T, b0, b1);
  for (int i = 0; i < 6 * nt; ++i) J[i] = (real)0;
  for (int c = body; c >= 0; c = T->parent[c]) {
    const vec3 r = v3_neg(X_WB[c].p); /* the origin from the DoF's child body */
    const int nv = tree_joint_nv(T->type[c]), k0 = T->v0[c] - v_begin;
    for (int k = 0; k < nv; ++k) {
      const vec3 w = S[k0 + k].w, vo = v3_add(S[k0 + k].v, v3_cross(w, r));
      J[k0 + k] = w.x, J[nt + k0 + k] = w.y, J[2 * nt + k0 + k] = w.z;
      J[3 * nt + k0 + k] = vo.x, J[4 * nt + k0 + k] = vo.y, J[5 * nt + k0 + k] = vo.z;
    }
  }
}

/* Body b's spatial inertia about Bo in W, world `world`: as rigid_free_motion_world builds a
 * free body's block (same calls, so a floating tree body's matrix matches it). */
static inline ISO_HD sinertia tree_body_inertia(const treeModel *T, int world, int b, xform X_WB) {
  const real *c = wf_at(T->com, world, b, 3), *I6 = wf_at(T->inertia, world, b, 6);
  mat3 R = quat_to_m3(X_WB.q);
  mat3 I_cm = m3_congruence(R, m3_sym6(I6[0], I6[1], I6[2], I6[3], I6[4], I6[5]));
  return si_from_com(*wf_at(T->mass, world, b, 1), m3_mulv(R, v3(c[0], c[1], c[2])), I_cm);
}

/* Sum of two spatial inertias about the same point in the same frame: masses and rotational
 * inertias add, the centre of mass is the mass-weighted mean (0 when both are massless). */
static inline ISO_HD sinertia tree_si_add(sinertia A, sinertia B) {
  real m = A.m + B.m;
  vec3 h = v3_add(v3_scale(A.c, A.m), v3_scale(B.c, B.m));
  return si_make(m, m > (real)0 ? v3_scale(h, (real)1 / m) : v3_zero(), m3_add(A.I, B.I));
}

/* 1 when body a is b or one of b's ancestors (bodies below a cannot be on b's path). */
static inline ISO_HD int tree_is_ancestor(const treeModel *T, int a, int b) {
  while (b > a) b = T->parent[b];
  return b == a;
}

/* The composite inertia of body b (b and every body outboard of it in [b, b1)) about Bo in W.
 * Each outboard body's inertia is shifted once, straight from its own origin to Bo, rather than
 * accumulated leaf → root through intermediate composites: the kernels have no per-body
 * storage to hold composites in (no allocation, no VLAs), and the same sum, O(Σ depth) shifts in
 * all, rounds no worse. Bodies in topological order but not depth-first (subtrees need not be
 * contiguous), hence the ancestry test. */
static inline ISO_HD sinertia tree_composite_inertia(const treeModel *T, int world, int b, int b1,
                                                     const xform *X_WB) {
  sinertia Ic = tree_body_inertia(T, world, b, X_WB[b]);
  for (int i = tree_pos(T, b) + 1; i < b1; ++i) {
    const int d = tree_at(T, i);
    if (!tree_is_ancestor(T, b, d)) continue;
    sinertia Md = tree_body_inertia(T, world, d, X_WB[d]);
    Ic = tree_si_add(Ic, si_shift(Md, v3_sub(X_WB[b].p, X_WB[d].p)));
  }
  return Ic;
}

/* Mass matrix M(q) of the tree by the composite-rigid-body algorithm, world `world`'s masses.
 * For DoF i of body b and DoF j of b or of an ancestor a of b:
 *   M[i][j] = S_jᵀ · F_i,   F_i = I^c_b S_i (the momentum at Bo of b's composite moving along
 *   S_i), moved to Ao as a force (sv_shift_force; power is preserved, so this is S_j's rigid
 *   field evaluated at Bo dotted with F_i). Entries of DoFs on no common path are zero. Each value
 *   is computed once and written to both halves, so M is exactly symmetric. */
static inline ISO_HD void tree_mass_matrix(const treeModel *T, int world, int b0, int b1,
                                           int v_begin, const xform *X_WB, const svec *S,
                                           real *M /* (nt, nt) row-major */) {
  int nt = tree_nv(T, b0, b1);
  for (int i = 0; i < nt * nt; ++i) M[i] = (real)0;
  for (int i = b0; i < b1; ++i) {
    const int b = tree_at(T, i);
    int nv = tree_joint_nv(T->type[b]), kb = T->v0[b] - v_begin;
    if (nv == 0) continue;
    sinertia Ic = tree_composite_inertia(T, world, b, b1, X_WB);
    for (int ii = 0; ii < nv; ++ii) {
      int ki = kb + ii;
      svec Fi = si_mul(Ic, S[ki]);
      for (int jj = 0; jj <= ii; ++jj) { /* b's own joint: the lower triangle of its block */
        real m = sv_dot(S[kb + jj], Fi);
        M[nt * ki + kb + jj] = m;
        M[nt * (kb + jj) + ki] = m;
      }
      for (int a = T->parent[b]; a >= 0; a = T->parent[a]) {
        int na = tree_joint_nv(T->type[a]), ka = T->v0[a] - v_begin;
        svec Fa = sv_shift_force(Fi, v3_sub(X_WB[a].p, X_WB[b].p));
        for (int jj = 0; jj < na; ++jj) {
          real m = sv_dot(S[ka + jj], Fa);
          M[nt * ki + ka + jj] = m;
          M[nt * (ka + jj) + ki] = m;
        }
      }
    }
  }
}

/* The velocity-product part c_B of body B's classical acceleration, so that
 *   A_WB = [α_P; a_Po + α_P × r] + S v̇ + c_B,
 * with P the parent (all zero for the world), r = p_WBo − p_WPo, [w_r; v_r] = Σ S_k v_k the
 * joint's relative velocity at Bo (in W) and d = p_WBo − p_WMo.
 * Derivation, every vector in W. Angular: w_B = w_P + w_r with w_r = R_WF ω_F (ω_F: the joint's
 * angular velocity in F, F fixed on P), so ẇ_r = w_P × w_r + R_WF ω̇_F and
 *   α_B = α_P + w_P × w_r + (S v̇).w.
 * Linear: v_Bo = v_Po + w_P × r + v_r, where v_r = R_WP u is the velocity of Bo relative to P
 * (u: as seen in P). Then ṙ = v_Bo − v_Po = w_P × r + v_r and v̇_r = w_P × v_r + R_WP u̇. Seen
 * in P, B moves as a rigid body with angular velocity w_r about the moving point Mo (Mo fixed at
 * Fo for revolute and ball, sliding along a for prismatic, free for floating), so
 * u = w_r × d + v_Mo and u̇ = ẇ_r × d + w_r × (w_r × d) + a_Mo, where ẇ_r and a_Mo seen in P are
 * the v̇ terms (axes fixed in F). Collecting:
 *   a_Bo = a_Po + α_P × r + w_P × (w_P × r) + 2 w_P × v_r + w_r × (w_r × d) + (S v̇).v.
 * The terms without α_P, a_Po or v̇ make c_B. Prismatic: w_r = 0; fixed: w_r = v_r = 0. */
static inline ISO_HD svec tree_accel_bias(vec3 w_P, vec3 r, svec Vrel, vec3 d) {
  vec3 ang = v3_cross(w_P, Vrel.w);
  vec3 lin = v3_add(v3_cross(w_P, v3_cross(w_P, r)), v3_scale(v3_cross(w_P, Vrel.v), (real)2));
  lin = v3_add(lin, v3_cross(Vrel.w, v3_cross(Vrel.w, d)));
  return sv_make(ang, lin);
}

/* Inverse dynamics by recursive Newton–Euler, world `world`:
 *   tau = M(q) v̇ + C(q, v) v − τ_g(q)   for the tree's DoFs (tau indexed by DoF − v_begin),
 * v and vdot world-indexed like v (vdot NULL: zero), gravity from T->gravity. So with
 * vdot = NULL, −tau is the free-motion force τ_g − C v that M v̇ must balance.
 * Outward pass (root → leaves): V_WB and classical A_WB (tree_accel_bias), then the net force
 * each body needs about Bo in W, F_B = M_B A_WB + si_gyro_bias(M_B, w_B) − G_B, with G_B the
 * gravity wrench m [c × g; g] (c = p_BoScm in W). Inward pass (leaves → root): F_B becomes the
 * force the joint transmits to B's subtree by adding the children's joint forces moved to Bo
 * (sv_shift_force), and tau_k = S_kᵀ F_B (S and F both at Bo: power).
 * scratch: 3·(b1 − b0) svecs, the body at position i at index i − b0 of each third; on return they hold
 * V_WB, A_WB (classical, at Bo, in W) and the joint forces of the bodies, which tests and
 * callers may read. */
static inline ISO_HD void tree_inverse_dynamics(const treeModel *T, int world, int b0, int b1,
                                                int v_begin, const xform *X_WB, const svec *S,
                                                const real *v, const real *vdot,
                                                svec *scratch /* (3, b1 − b0) */,
                                                real *tau /* (nt) */) {
  int nb = b1 - b0;
  svec *V = scratch, *A = scratch + nb, *F = scratch + 2 * nb;
  const real *gp = wf_at(T->gravity, world, 0, 3);
  vec3 g = v3(gp[0], gp[1], gp[2]);
  for (int pb = b0; pb < b1; ++pb) {
    const int b = tree_at(T, pb), p = T->parent[b], i = pb - b0;
    svec Vrel = tree_joint_velocity(T, b, v_begin, S, v);
    svec Vp = sv_zero(), Ap = sv_zero();
    vec3 r = v3_zero();
    if (p >= 0) {
      Vp = V[tree_pos(T, p) - b0];
      Ap = A[tree_pos(T, p) - b0];
      r = v3_sub(X_WB[b].p, X_WB[p].p);
    }
    vec3 d = v3_sub(X_WB[b].p, xf_point(X_WB[b], T->X_BM[b].p));
    V[i] = sv_add(sv_shift(Vp, r), Vrel);
    /* sv_shift of a classical acceleration gives [α_P; a_Po + α_P × r]; the centripetal
     * w_P × (w_P × r) is in the bias */
    A[i] = sv_add(sv_shift(Ap, r), tree_accel_bias(Vp.w, r, Vrel, d));
    if (vdot) A[i] = sv_add(A[i], tree_joint_velocity(T, b, v_begin, S, vdot));
    sinertia Mb = tree_body_inertia(T, world, b, X_WB[b]);
    vec3 mg = v3_scale(g, Mb.m);
    svec G = sv_make(v3_cross(Mb.c, mg), mg);
    F[i] = sv_sub(sv_add(si_mul(Mb, A[i]), si_gyro_bias(Mb, V[i].w)), G);
  }
  for (int pb = b1 - 1; pb >= b0; --pb) {
    const int b = tree_at(T, pb), p = T->parent[b], i = pb - b0;
    int nv = tree_joint_nv(T->type[b]), k0 = T->v0[b] - v_begin;
    for (int k = 0; k < nv; ++k) tau[k0 + k] = sv_dot(S[k0 + k], F[i]);
    if (p >= 0) F[tree_pos(T, p) - b0] = sv_add(F[tree_pos(T, p) - b0], sv_shift_force(F[i], v3_sub(X_WB[p].p, X_WB[b].p)));
  }
}

/* q ← q + dt·N(q)·v for the joints of bodies [b0, b1) of a world's q and v. Revolute and
 * prismatic: q += dt v. Ball: q̇ = ½ (0, w_F) ⊗ q_FM (w in F, the frame R_FM maps into, just as
 * a free body's w is in W for q_WB), renormalised; floating: rigid_integrate_body itself, so a
 * floating joint steps bit for bit as a free body does. */
static inline ISO_HD void tree_integrate(const treeModel *T, int b0, int b1, real *q,
                                         const real *v, real dt) {
  for (int i = b0; i < b1; ++i) {
    const int b = tree_at(T, i);
    int t = T->type[b];
    real *qj = q + T->q0[b];
    const real *vj = v + T->v0[b];
    if (t == TREE_JOINT_REVOLUTE || t == TREE_JOINT_PRISMATIC) {
      qj[0] += dt * vj[0];
    } else if (t == TREE_JOINT_BALL) {
      quat r = quat_make(qj[0], qj[1], qj[2], qj[3]);
      quat rn = quat_normalize(quat_integrate_world(r, v3(vj[0], vj[1], vj[2]), dt));
      qj[0] = rn.w, qj[1] = rn.x, qj[2] = rn.y, qj[3] = rn.z;
    } else if (t == TREE_JOINT_FLOATING) {
      rigid_integrate_body(qj, vj, dt);
    }
  }
}

/* Kinetic energy Σ_b ½ V_WBᵀ M_B V_WB of bodies [b0, b1) from their velocities (V_WB indexed
 * by body, as tree_body_velocities writes it); equals ½ vᵀ M v. */
static inline ISO_HD real tree_kinetic_energy(const treeModel *T, int world, int b0, int b1,
                                              const xform *X_WB, const svec *V_WB) {
  real E = (real)0;
  for (int i = b0; i < b1; ++i) {
    const int b = tree_at(T, i);
    E += si_kinetic_energy(tree_body_inertia(T, world, b, X_WB[b]), V_WB[b]);
  }
  return E;
}

/* Gravitational potential energy −Σ_b m_b g·p_WScm of bodies [b0, b1) (zero at the world
 * origin), so that −∂/∂q of it is τ_g. */
static inline ISO_HD real tree_potential_energy(const treeModel *T, int world, int b0, int b1,
                                                const xform *X_WB) {
  const real *gp = wf_at(T->gravity, world, 0, 3);
  vec3 g = v3(gp[0], gp[1], gp[2]);
  real U = (real)0;
  for (int i = b0; i < b1; ++i) {
    const int b = tree_at(T, i);
    const real *c = wf_at(T->com, world, b, 3);
    vec3 p = xf_point(X_WB[b], v3(c[0], c[1], c[2]));
    U -= *wf_at(T->mass, world, b, 1) * v3_dot(g, p);
  }
  return U;
}

#endif
