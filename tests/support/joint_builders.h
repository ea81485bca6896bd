/* Jointed scenes shared by the joint tests, benchmarks and examples: pendulums built through the
 * public API. */
#ifndef ISO_TESTS_JOINT_BUILDERS_H
#define ISO_TESTS_JOINT_BUILDERS_H

#include "isobar/isobar.h"

/* A pendulum link: a solid sphere of mass m and radius r whose centre is l below its joint
 * (COM at (0, 0, −l) in the body frame, whose origin is the joint). */
typedef struct jbLink {
  double mass, radius, length;
} jbLink;

/* Add a body for link L and a revolute joint about y from `parent` (−1: the world) at
 * (px, py, pz) in the parent's frame; returns the joint. Rotational inertia about the pivot:
 * jb_link_pivot_inertia. */
int jb_add_link(isoModel *m, const char *name, int parent, double px, double py, double pz, const jbLink *L,
                double damping);
/* I_yy about the joint: 2/5 m r² + m l². */
double jb_link_pivot_inertia(const jbLink *L);
/* A CPU sim of a compiled model. */
isoSim *jb_sim(const isoModel *m, int worlds, int threads);
/* The angle and rate of the revolute joint `joint` of world w. */
void jb_joint_state(const isoSim *s, const isoModel *m, int w, int joint, double *q, double *v);
/* Set the angle and rate of joint `joint` in world w. */
void jb_set_joint(isoSim *s, const isoModel *m, int w, int joint, double q, double v);

#endif
