/* Random kinematic trees for the tree tests (tests/test_rigid_tree*.c): a shape's tree behind a
 * one-body floating "prefix" tree in its world (b0 = 1, v_begin = 6, q0 from 7), so every
 * offset of the API is exercised, with random frames, axes, masses and states; thin wrappers that
 * run the kernels on world 0. Static functions: each test file gets its own copy. */
#ifndef ISO_TESTS_TREE_RANDOM_H
#define ISO_TESTS_TREE_RANDOM_H

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "kernels/linalg/cholesky.h"
#include "kernels/rigid/free_body.h"
#include "kernels/rigid/tree.h"
#include "support/math_check.h"
#include "support/rng.h"
#include "support/support.h"

#define MAXB 10
#define MAXQ (7 * MAXB)
#define MAXV (6 * MAXB)

/* One world's model: a tree of bodies [b0, b1) with DoFs [v_begin, v_begin + nt). The treeModel
 * points into the struct, so a testTree is never copied. */
typedef struct testTree {
  int nbody, b0, b1, v_begin, nt, nq, nv;
  int parent[MAXB], type[MAXB], q0[MAXB], v0[MAXB];
  xform X_PF[MAXB], X_BM[MAXB];
  vec3 axis[MAXB];
  double mass[MAXB], com[3 * MAXB], inertia[6 * MAXB], gravity[3];
  treeModel T;
} testTree;

typedef struct shape {
  const char *name;
  int n;
  const int *parent, *type;
} shape;

#define REV TREE_JOINT_REVOLUTE
#define PRI TREE_JOINT_PRISMATIC
#define BAL TREE_JOINT_BALL
#define FIX TREE_JOINT_FIXED
#define FLO TREE_JOINT_FLOATING
static const int chain_parent[] = {-1, 0, 1, 2, 3};
static const int chain_type[] = {REV, REV, REV, REV, REV};
/* Breadth-first, not depth-first: body 7 hangs off 3 (a weld) after 4–6, so subtrees are not
 * contiguous ranges. */
static const int branch_parent[] = {-1, 0, 0, 1, 1, 2, 5, 3};
static const int branch_type[] = {REV, PRI, BAL, FIX, REV, BAL, REV, PRI};
static const int float_parent[] = {-1, 0, 0, 1, 2, 0, 3};
static const int float_type[] = {FLO, REV, BAL, PRI, REV, FIX, BAL};

static const shape SHAPES[3] = {
    {"chain of 5 revolute", 5, chain_parent, chain_type},
    {"branching tree", 8, branch_parent, branch_type},
    {"floating base", 7, float_parent, float_type},
};
#define NSEED 4 /* random models and states per shape */

/* A rotational inertia about the COM in the 6-entry layout: principal moments from second
 * moments s_i ∈ [0.01, 0.1) (so the triangle inequality holds), turned by a random rotation. */
static inline void rand_inertia(test_rng *r, double *I6) {
  double s0 = test_rng_uniform(r, 0.01, 0.1), s1 = test_rng_uniform(r, 0.01, 0.1);
  double s2 = test_rng_uniform(r, 0.01, 0.1);
  mat3 R = quat_to_m3(rand_quat(r));
  mat3 I = m3_congruence(R, m3_diag(v3(s1 + s2, s0 + s2, s0 + s1)));
  I6[0] = I.m[0][0], I6[1] = I.m[1][1], I6[2] = I.m[2][2];
  I6[3] = I.m[0][1], I6[4] = I.m[0][2], I6[5] = I.m[1][2];
}

static inline void add_body(testTree *t, int parent, int type, test_rng *r) {
  int b = t->nbody++;
  t->parent[b] = parent, t->type[b] = type;
  t->q0[b] = t->nq, t->v0[b] = t->nv;
  t->nq += tree_joint_nq(type), t->nv += tree_joint_nv(type);
  t->X_PF[b] = xf_make(rand_quat(r), rand_v3(r, -0.5, 0.5));
  t->X_BM[b] = xf_make(rand_quat(r), rand_v3(r, -0.5, 0.5));
  t->axis[b] = rand_unit(r);
  t->mass[b] = test_rng_uniform(r, 0.5, 2.0);
  vec3 c = rand_v3(r, -0.2, 0.2);
  t->com[3 * b] = c.x, t->com[3 * b + 1] = c.y, t->com[3 * b + 2] = c.z;
  rand_inertia(r, t->inertia + 6 * b);
}

static inline void link_model(testTree *t) {
  treeModel *T = &t->T;
  T->nbody = t->nbody;
  T->parent = t->parent, T->type = t->type, T->q0 = t->q0, T->v0 = t->v0;
  T->X_PF = t->X_PF, T->X_BM = t->X_BM, T->axis = t->axis;
  T->mass.data = t->mass, T->com.data = t->com, T->inertia.data = t->inertia;
  T->gravity.data = t->gravity;
  T->mass.wstride = T->com.wstride = T->inertia.wstride = T->gravity.wstride = 0;
}

/* The shape's tree behind a one-body floating tree (body 0), random geometry and masses. */
static inline void build(testTree *t, const shape *s, test_rng *r) {
  memset(t, 0, sizeof *t);
  add_body(t, -1, FLO, r);
  t->b0 = t->nbody, t->v_begin = t->nv;
  for (int i = 0; i < s->n; ++i) add_body(t, s->parent[i] < 0 ? -1 : s->parent[i] + t->b0, s->type[i], r);
  t->b1 = t->nbody, t->nt = t->nv - t->v_begin;
  t->gravity[0] = 0.3, t->gravity[1] = -0.2, t->gravity[2] = -9.81;
  link_model(t);
}

/* Random q (unit quaternions) and v, and a random w (used as v̇ or as an acceleration). */
static inline void rand_state(const testTree *t, test_rng *r, double *q, double *v, double *w) {
  for (int b = 0; b < t->nbody; ++b) {
    double *qb = q + t->q0[b];
    if (t->type[b] == REV) qb[0] = test_rng_uniform(r, -3, 3);
    if (t->type[b] == PRI) qb[0] = test_rng_uniform(r, -0.5, 0.5);
    if (t->type[b] == BAL || t->type[b] == FLO) {
      quat u = rand_quat(r);
      qb[0] = u.w, qb[1] = u.x, qb[2] = u.y, qb[3] = u.z;
    }
    if (t->type[b] == FLO) qb[4] = test_rng_uniform(r, -1, 1), qb[5] = test_rng_uniform(r, -1, 1),
                           qb[6] = test_rng_uniform(r, -1, 1);
  }
  for (int i = 0; i < t->nv; ++i) v[i] = test_rng_uniform(r, -2, 2);
  for (int i = 0; i < t->nv; ++i) w[i] = test_rng_uniform(r, -2, 2);
}

/* ---- thin wrappers: one world (0), the tree [b0, b1) -------------------------------------- */

static inline void kin(const testTree *t, const double *q, xform *X, svec *S) {
  tree_forward_kinematics(&t->T, t->b0, t->b1, q, X);
  tree_motion_axes(&t->T, t->b0, t->b1, t->v_begin, X, S);
}

static inline void mass_matrix(const testTree *t, const double *q, double *M) {
  xform X[MAXB];
  svec S[MAXV];
  kin(t, q, X, S);
  tree_mass_matrix(&t->T, 0, t->b0, t->b1, t->v_begin, X, S, M);
}

/* tau of the tree; scratch (3·MAXB svecs) keeps V, A, F of the bodies. */
static inline void rnea(const testTree *t, const double *q, const double *v, const double *vdot,
                 double *tau, svec *scratch) {
  xform X[MAXB];
  svec S[MAXV];
  kin(t, q, X, S);
  tree_inverse_dynamics(&t->T, 0, t->b0, t->b1, t->v_begin, X, S, v, vdot, scratch, tau);
}

static inline void body_velocities(const testTree *t, const double *q, const double *v, xform *X, svec *V) {
  svec S[MAXV];
  kin(t, q, X, S);
  tree_body_velocities(&t->T, t->b0, t->b1, t->v_begin, X, S, v, V);
}

/* q moved by h along N(q) v. */
static inline void nudge(const testTree *t, const double *q, const double *v, double h, double *out) {
  memcpy(out, q, sizeof(double) * (size_t)t->nq);
  tree_integrate(&t->T, t->b0, t->b1, out, v, h);
}

/* v + h·w over the world's v. */
static inline void axpy(const testTree *t, const double *v, double h, const double *w, double *out) {
  for (int i = 0; i < t->nv; ++i) out[i] = v[i] + h * w[i];
}

/* v̇ = M⁻¹(−tau(v̇ = 0)): the free-motion acceleration of the tree (world-indexed, zero
 * outside the tree). */
static inline void free_accel(const testTree *t, const double *q, const double *v, double *vdot) {
  double M[MAXV * MAXV], tau[MAXV];
  svec scratch[3 * MAXB];
  mass_matrix(t, q, M);
  rnea(t, q, v, NULL, tau, scratch);
  cr_assert_eq(chol_factor(t->nt, M), 0);
  for (int k = 0; k < t->nt; ++k) tau[k] = -tau[k];
  chol_solve(t->nt, M, tau);
  memset(vdot, 0, sizeof(double) * (size_t)t->nv);
  for (int k = 0; k < t->nt; ++k) vdot[t->v_begin + k] = tau[k];
}

static inline double max_abs(const double *x, int n) {
  double m = 0;
  for (int i = 0; i < n; ++i) m = fmax(m, fabs(x[i]));
  return m;
}

static inline double sv_maxdiff(svec a, svec b) { return fmax(v3_maxdiff(a.w, b.w), v3_maxdiff(a.v, b.v)); }
static inline double sv_max_abs(svec a) { return fmax(v3_max_abs(a.w), v3_max_abs(a.v)); }

/* Case c (0 .. NCASE − 1) of a test: shape c / NSEED with its own random model and state;
 * returns the shape's name for messages. */
#define NCASE (3 * NSEED)
static inline const char *setup(uint64_t seed, int c, testTree *t, double *q, double *v, double *w) {
  test_rng r = {seed * 1000u + (uint64_t)c};
  const shape *s = &SHAPES[c / NSEED];
  build(t, s, &r);
  rand_state(t, &r, q, v, w);
  return s->name;
}

/* Central-difference step and the tolerance that goes with it. The truncation error of a
 * central difference is h²/6 times the third derivative; for these models (lengths ≤ 1.5 m,
 * |v| ≤ 2 per DoF, chains of up to 5 joints, so body rates up to ~10 rad/s) that derivative
 * reaches ~2e2 relative to the function, as measured: the worst error was 3.5e-7 at h = 1e-4 and
 * drops 100× at h = 1e-5, to ~4e-9. Rounding adds ε·|f|/h ≈ 1e-9 at h = 1e-5. 1e-7 (relative to
 * 1 + the size of the reference) clears both by 25×, while a missing or wrong velocity-product
 * term is O(1) and fails by orders of magnitude. */
#define FD_H 1e-5
#define FD_TOL 1e-7

#endif
