/* The order of the stages of a step, and their timers; nothing else (host/step/step.h).
 *
 * One pipeline for every model: a model in which nothing can touch runs the same stages, with
 * empty lists and no constraint (the solve then is v = v*). Every stage is a sequence of
 * kernel-table launches on the backend's stream: the GPU path never waits for the host inside
 * a step. */
#define _POSIX_C_SOURCE 200809L
#include "host/step/step.h"

#include "host/step/contact_internal.h"
#include "host/step/sap_internal.h"

#include <time.h>

#include "isobar/sim.h"

const char *const step_stage_names[STEP_NSTAGE] = {
    "kinematics", "collide",    "points",      "fem elements", "fem factor",
    "fem contact", "fem schur", "constraints", "solve",        "integrate",
    "contact forces", "tactile"};

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Charge the time since *t to stage k and restart the clock, when the step is timed and the
 * stage has work in this model. A clock read costs 25-35 ns; twelve of them were a third of a
 * pendulum's step, and the five of a step without contact still a seventh. A stage without work
 * returns at once and is not read: its few nanoseconds go to the next stage that is, and it
 * keeps 0 s. */
static void lap(const stepCtx *c, int k, double *t, int has_work) {
  if (!c->stage_s || !has_work) return;
  double n = now_s();
  c->stage_s[k] += n - *t;
  *t = n;
}

rigidParams step_rigid_params(const stepCtx *c) {
  rigidParams P;
  P.nbody = c->nbody;
  P.dt = c->dt;
  P.gravity = c->param[ISO_PARAM_GRAVITY];
  P.mass = c->param[ISO_PARAM_BODY_MASS];
  P.com = c->param[ISO_PARAM_BODY_COM];
  P.inertia = c->param[ISO_PARAM_BODY_INERTIA];
  return P;
}

treeSet step_tree_set(const stepCtx *c) {
  const modelView *m = c->md;
  treeSet S;
  treeModel *T = &S.T;
  T->nbody = c->nbody;
  T->parent = m->body_parent, T->type = m->body_jtype;
  T->q0 = m->body_q0, T->v0 = m->body_v0;
  T->X_PF = m->body_X_PF, T->X_BM = m->body_X_BM;
  T->axis = m->body_axis;
  T->mass = c->param[ISO_PARAM_BODY_MASS];
  T->com = c->param[ISO_PARAM_BODY_COM];
  T->inertia = c->param[ISO_PARAM_BODY_INERTIA];
  T->gravity = c->param[ISO_PARAM_GRAVITY];
  T->order = m->tree_order, T->pos = m->tree_pos;
  S.ntree = m->z.ntree, S.nv = c->nv, S.max_nt = m->z.max_nt, S.jointed = m->z.jointed;
  S.tree_body0 = m->tree_body0, S.tree_v0 = m->tree_v0, S.tree_free = m->tree_free;
  S.tree_clique = m->tree_clique, S.tree_a0 = m->tree_a0, S.body_tree = m->body_tree;
  S.damping = c->param[ISO_PARAM_DOF_DAMPING];
  S.reflected = c->param[ISO_PARAM_DOF_REFLECTED_INERTIA];
  S.nact = m->z.nact;
  S.act_dof = m->act_dof;
  S.effort_limit = c->param[ISO_PARAM_ACTUATOR_EFFORT_LIMIT];
  S.gains = c->param[ISO_PARAM_ACTUATOR_GAINS];
  S.effort = c->effort;
  S.S = c->S;
  S.work = c->tree_work;
  S.work_stride = tree_work_reals(m->z.max_nt, m->z.max_tree_bodies);
  return S;
}

isoStatus step_collide_only(const stepCtx *c) {
  if (!c->contact || !c->X_WG) return ISO_OK; /* nothing in the model can touch */
  isoStatus st = step_kinematics(c);
  if (st == ISO_OK) st = step_collide(c);
  return st;
}

isoStatus step_run(const stepCtx *c) {
  /* which stages have work in this model: the same tests the stages return early on, read
   * conservatively (in doubt, timed) */
  const int contact = c->contact && c->X_WG;
  const int hydro = contact && c->contact->dev.npair > 0;
  const int points = c->sap && c->sap->npoint > 0 && c->X_WG;
  const int fem = c->md->z.ndef > 0;
  const int wrench = c->body_wrench && c->sap && c->sap->enabled;
  double t = c->stage_s ? now_s() : 0;
  isoStatus st = step_kinematics(c);
  lap(c, STEP_KINEMATICS, &t, 1);
  if (st == ISO_OK) st = step_collide(c);
  lap(c, STEP_COLLIDE, &t, hydro);
  if (st == ISO_OK) st = step_points(c);
  lap(c, STEP_POINTS, &t, points);
  if (st == ISO_OK) st = step_fem_elements(c);
  lap(c, STEP_FEM_ELEMENTS, &t, fem);
  if (st == ISO_OK) st = step_fem_factor(c);
  lap(c, STEP_FEM_FACTOR, &t, fem);
  if (st == ISO_OK) st = step_fem_contact(c);
  lap(c, STEP_FEM_CONTACT, &t, fem);
  if (st == ISO_OK) st = step_fem_schur(c);
  lap(c, STEP_FEM_SCHUR, &t, fem);
  if (st == ISO_OK) st = step_constraints(c);
  lap(c, STEP_CONSTRAINTS, &t, 1);
  if (st == ISO_OK) st = step_solve(c);
  lap(c, STEP_SOLVE, &t, 1);
  if (st == ISO_OK) st = step_integrate(c);
  lap(c, STEP_INTEGRATE, &t, 1);
  if (st == ISO_OK) st = step_wrench(c);
  lap(c, STEP_WRENCH, &t, wrench);
  if (st == ISO_OK) st = step_tactile(c);
  lap(c, STEP_TACTILE, &t, step_tactile_runs(c));
  return st;
}
