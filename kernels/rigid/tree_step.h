/* The trees of a world in the step: poses (stage 1), free motion and the cliques of the SAP
 * problem (stage 6), positions from velocities (stage 8). The same code on CPU and GPU.
 *
 * A world's bodies form trees (host/model/model_tree.c): a tree that is one free body is stepped
 * by the free-body code (kernels/rigid/free_body.h), operation for operation as before joints
 * existed, so free-body scenes keep their bits; any other tree by the tree algorithms
 * (kernels/rigid/tree.h). Each tree with DoFs is one clique: its DoFs v[v0, v0 + nt) and a dense
 * nt × nt block of A,
 *   A = M(q0) + diag(reflected rotor inertia) + dt·diag(joint damping)    (reference §5.1)
 * and its free-motion velocities solve
 *   A (v* − v0) = dt (τ_u − C(q0, v0) + τ_g(q0) − D v0)
 * i.e. the damping force is taken at the new velocity (implicit, as Drake's SAP driver treats
 * joint damping), every other force at the start of the step. τ_u: the efforts of actuators
 * without PD gains, clamped to their limits (PD actuators apply theirs through their SAP
 * constraint). Cliques are numbered in tree order, skipping trees without DoFs (bodies welded to
 * the world). */
#ifndef ISO_KERNELS_RIGID_TREE_STEP_H
#define ISO_KERNELS_RIGID_TREE_STEP_H

#include "kernels/core.h"
#include "kernels/linalg/cholesky.h"
#include "kernels/rigid/free_body.h"
#include "kernels/rigid/tree.h"
#include "kernels/rigid/tree_fast.h"
#include "kernels/sap/problem.h"

/* The model's trees as the step reads them (compiled model arrays, backend memory) and the
 * per-world arrays they use. */
typedef struct treeSet {
  treeModel T;               /* joints, mass properties, T.order */
  int ntree, nv, max_nt;     /* trees, DoFs per world, the largest tree's DoFs */
  int jointed;               /* 0: every tree is one free body (body b is tree b and clique b,
                                at q 7·b and v 6·b), which the loops below take straight */
  const int *tree_body0;     /* (ntree + 1) into T.order */
  const int *tree_v0;        /* (ntree + 1) */
  const int *tree_free;      /* (ntree) */
  const int *tree_clique;    /* (ntree) its clique, −1 without DoFs */
  const int *tree_a0;        /* (ntree) its block's offset in a world's A */
  const int *body_tree;      /* (nbody) */
  wfield damping;            /* (nv) N m s/rad or N s/m */
  wfield reflected;          /* (nv) kg m² */
  int nact;
  const int *act_dof;        /* (nact) */
  wfield effort_limit;       /* (nact) */
  wfield gains;              /* (nact, 2) kp, kd */
  const real *effort;        /* (nworld, nact) the caller's efforts this step; NULL: none */
  svec *S;                   /* (nworld, nv) motion axes at the step's start (free trees: unused) */
  real *work;                /* (nworld, work) scratch */
  long work_stride;          /* reals per world: tree_work_reals */
} treeSet;

/* Scratch reals a world's jointed trees need in free motion: the factor of A (nt²), τ (nt), the
 * RNEA's velocities, accelerations and forces (3 svecs per body) and the bodies' inertias and
 * composites (2 sinertias per body), for the largest tree. */
static inline ISO_HD long tree_work_reals(int max_nt, int max_bodies) {
  return (long)max_nt * max_nt + max_nt +
         (long)max_bodies * (3 * (long)(sizeof(svec) / sizeof(real)) + 2 * (long)(sizeof(sinertia) / sizeof(real)));
}

/* Tree k's body range in T.order and DoFs. */
static inline ISO_HD void tree_range(const treeSet *S, int k, int *b0, int *b1, int *v0, int *nt) {
  *b0 = S->tree_body0[k];
  *b1 = S->tree_body0[k + 1];
  *v0 = S->tree_v0[k];
  *nt = S->tree_v0[k + 1] - S->tree_v0[k];
}

/* Stage 1: the poses of tree k's bodies in one world (q: the world's). */
static inline ISO_HD void tree_set_pose(const treeSet *S, int k, const real *q, xform *X_WB) {
  int b0, b1, v0, nt;
  tree_range(S, k, &b0, &b1, &v0, &nt);
  if (S->tree_free[k]) {
    const int b = S->T.order[b0];
    const real *qb = q + S->T.q0[b];
    X_WB[b] = xf_make(quat_make(qb[0], qb[1], qb[2], qb[3]), v3(qb[4], qb[5], qb[6]));
    return;
  }
  tree_forward_kinematics(&S->T, b0, b1, q, X_WB);
}

/* Actuator a's effort in world w clamped to its limit. */
static inline ISO_HD real tree_clamped_effort(const treeSet *S, int w, int a) {
  const real e = *wf_at(S->effort_limit, w, a, 1);
  const real u = S->effort ? S->effort[(long)w * S->nact + a] : (real)0;
  return u > e ? e : u < -e ? -e : u;
}

/* 1 when actuator a is a PD controller in world w (its effort goes through its constraint). */
static inline ISO_HD int tree_is_pd(const treeSet *S, int w, int a) {
  const real *g = wf_at(S->gains, w, a, 2);
  return g[0] > 0 || g[1] > 0;
}

/* The generalized efforts of actuators without PD gains in world w, added to tau (indexed by
 * DoF − v_begin, DoFs [v_begin, v_begin + nt)). */
static inline ISO_HD void tree_add_efforts(const treeSet *S, int w, int v_begin, int nt, real *tau) {
  if (!S->effort) return;
  for (int a = 0; a < S->nact; ++a) {
    const int d = S->act_dof[a] - v_begin;
    if (d < 0 || d >= nt || tree_is_pd(S, w, a)) continue; /* a PD actuator acts through its constraint */
    tau[d] += tree_clamped_effort(S, w, a);
  }
}

/* Stage 6 for one jointed tree k of world w: S, its block of A and v* (v, vstar: the world's). */
static inline ISO_HD int tree_free_motion(const treeSet *S, int w, int k, const xform *X_WB, const real *v,
                                          real *vstar, real *Ab, real dt) {
  int b0, b1, v0, nt;
  tree_range(S, k, &b0, &b1, &v0, &nt);
  svec *Sw = S->S + (long)w * S->nv;
  real *work = S->work + (long)w * S->work_stride;
  real *L = work, *tau = work + (long)S->max_nt * S->max_nt;
  svec *scratch = (svec *)(void *)(tau + S->max_nt);
  sinertia *I = (sinertia *)(void *)(scratch + 3 * (b1 - b0)), *Ic = I + (b1 - b0);
  tree_motion_axes(&S->T, b0, b1, v0, X_WB, Sw + v0);
  tree_body_inertias(&S->T, w, b0, b1, X_WB, I);
  tree_mass_matrix_cached(&S->T, b0, b1, v0, X_WB, Sw + v0, I, Ic, Ab);
  for (int i = 0; i < nt; ++i)
    Ab[(nt + 1) * i] += *wf_at(S->reflected, w, v0 + i, 1) + dt * *wf_at(S->damping, w, v0 + i, 1);
  /* τ = −(C v − τ_g) − D v0 + τ_u */
  tree_inverse_dynamics_cached(&S->T, w, b0, b1, v0, X_WB, Sw + v0, I, v, (const real *)0, scratch, tau);
  for (int i = 0; i < nt; ++i) tau[i] = -tau[i] - *wf_at(S->damping, w, v0 + i, 1) * v[v0 + i];
  tree_add_efforts(S, w, v0, nt, tau);
  for (int i = 0; i < nt * nt; ++i) L[i] = Ab[i]; /* symmetric: row- and column-major alike */
  if (chol_factor(nt, L) != 0) { /* a massless or point-mass link left a direction without inertia */
    for (int i = 0; i < nt; ++i) vstar[v0 + i] = v[v0 + i];
    return 0;
  }
  chol_solve(nt, L, tau);
  for (int i = 0; i < nt; ++i) vstar[v0 + i] = v[v0 + i] + dt * tau[i];
  return 1;
}

/* Stage 6 for world w: v* for every tree, the blocks of A (A NULL: a model of free bodies in which
 * nothing is constrained needs none), the cliques and their origins (a free body's clique is
 * measured from its origin; a jointed tree's blocks are dense and need none). Returns 0 when a
 * tree's A is not positive definite (the caller flags the world). */
static inline ISO_HD int tree_set_free_motion(const treeSet *S, int w, const rigidParams *P, const xform *X_WB,
                                              const real *v, real *vstar, real *A, sapClique *cl, real *origin,
                                              int *ncl) {
  if (!S->jointed) { /* free bodies alone: the layout is fixed, no tree bookkeeping */
    rigid_free_motion_world(w, P, X_WB, v, vstar, A);
    for (int b = 0; b < P->nbody; ++b) {
      cl[b].nv = RIGID_NV, cl[b].v0 = RIGID_NV * b, cl[b].a0 = RIGID_NV * RIGID_NV * b, cl[b].npad = 0;
      origin[3 * b] = X_WB[b].p.x, origin[3 * b + 1] = X_WB[b].p.y, origin[3 * b + 2] = X_WB[b].p.z;
    }
    *ncl = P->nbody;
    return 1;
  }
  int n = 0, spd = 1;
  for (int k = 0; k < S->ntree; ++k) {
    int b0, b1, v0, nt;
    tree_range(S, k, &b0, &b1, &v0, &nt);
    if (nt == 0) continue;
    real *Ab = A ? A + S->tree_a0[k] : (real *)0;
    if (S->tree_free[k]) {
      const int b = S->T.order[b0];
      rigid_free_motion_body(w, P, b, X_WB[b], v + v0, vstar + v0, Ab);
      origin[3 * n] = X_WB[b].p.x, origin[3 * n + 1] = X_WB[b].p.y, origin[3 * n + 2] = X_WB[b].p.z;
    } else {
      spd &= tree_free_motion(S, w, k, X_WB, v, vstar, Ab, P->dt);
      origin[3 * n] = origin[3 * n + 1] = origin[3 * n + 2] = 0;
    }
    cl[n].nv = nt, cl[n].v0 = v0, cl[n].a0 = S->tree_a0[k], cl[n].npad = 0;
    n++;
  }
  *ncl = n;
  return spd;
}

/* Stage 8 for world w: q from the solved v, tree by tree; 0 when the state is not finite. */
static inline ISO_HD int tree_set_integrate(const treeSet *S, real *q, const real *v, int nq, real dt) {
  if (!S->jointed) {
    for (int b = 0; b < S->ntree; ++b) rigid_integrate_body(q + RIGID_NQ * b, v + RIGID_NV * b, dt);
    return rigid_state_finite(q, v, nq, S->nv);
  }
  for (int k = 0; k < S->ntree; ++k) {
    int b0, b1, v0, nt;
    tree_range(S, k, &b0, &b1, &v0, &nt);
    if (S->tree_free[k]) rigid_integrate_body(q + S->T.q0[S->T.order[b0]], v + v0, dt);
    else tree_integrate(&S->T, b0, b1, q, v, dt);
  }
  return rigid_state_finite(q, v, nq, S->nv);
}

#endif
