#include "joint_builders.h"

#include <criterion/criterion.h>
#include <stdlib.h>

#include "support/support.h"

double jb_link_pivot_inertia(const jbLink *L) {
  return 0.4 * L->mass * L->radius * L->radius + L->mass * L->length * L->length;
}

int jb_add_link(isoModel *m, const char *name, int parent, double px, double py, double pz, const jbLink *L,
                double damping) {
  isoBodyDef b = iso_default_body_def();
  b.name = name;
  b.mass = L->mass;
  b.com[2] = -L->length;
  const double I = 0.4 * L->mass * L->radius * L->radius;
  b.inertia[0] = b.inertia[1] = b.inertia[2] = I;
  int body = -1;
  cr_assert_eq(iso_model_add_body(m, &b, &body), ISO_OK, "%s", iso_last_error());
  isoJointDef j = iso_default_joint_def();
  j.name = name;
  j.parent = parent;
  j.child = body;
  j.parent_position[0] = px, j.parent_position[1] = py, j.parent_position[2] = pz;
  j.axis[0] = 0, j.axis[1] = 1, j.axis[2] = 0;
  j.damping = damping;
  int joint = -1;
  cr_assert_eq(iso_model_add_joint(m, &j, &joint), ISO_OK, "%s", iso_last_error());
  return joint;
}

isoSim *jb_sim(const isoModel *m, int worlds, int threads) { return test_sim(m, worlds, ISO_BACKEND_CPU, threads); }

void jb_joint_state(const isoSim *s, const isoModel *m, int w, int joint, double *q, double *v) {
  isoSlice qs, vs;
  cr_assert_eq(iso_model_joint_slice(m, joint, &qs, &vs), ISO_OK);
  double *Q = (double *)malloc(sizeof(double) * (size_t)iso_sim_state_width(s, ISO_STATE_Q));
  double *V = (double *)malloc(sizeof(double) * (size_t)iso_sim_state_width(s, ISO_STATE_V));
  cr_assert(Q && V);
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_Q, iso_worlds_one(w), Q), ISO_OK);
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_V, iso_worlds_one(w), V), ISO_OK);
  *q = Q[qs.start];
  *v = V[vs.start];
  free(Q);
  free(V);
}

void jb_set_joint(isoSim *s, const isoModel *m, int w, int joint, double q, double v) {
  isoSlice qs, vs;
  cr_assert_eq(iso_model_joint_slice(m, joint, &qs, &vs), ISO_OK);
  double *Q = (double *)malloc(sizeof(double) * (size_t)iso_sim_state_width(s, ISO_STATE_Q));
  double *V = (double *)malloc(sizeof(double) * (size_t)iso_sim_state_width(s, ISO_STATE_V));
  cr_assert(Q && V);
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_Q, iso_worlds_one(w), Q), ISO_OK);
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_V, iso_worlds_one(w), V), ISO_OK);
  Q[qs.start] = q;
  V[vs.start] = v;
  cr_assert_eq(iso_sim_set_state(s, ISO_STATE_Q, iso_worlds_one(w), Q), ISO_OK);
  cr_assert_eq(iso_sim_set_state(s, ISO_STATE_V, iso_worlds_one(w), V), ISO_OK);
  free(Q);
  free(V);
}
