/* Scene builders shared by the contact-dynamics tests. */
#ifndef ISO_TESTS_SCENE_BUILDERS_H
#define ISO_TESTS_SCENE_BUILDERS_H

#include "isobar/isobar.h"

/* Contact model of a block or ball: hydroelastic (compliant against a rigid ground) or point. */
enum { TB_HYDRO = 0, TB_POINT = 1 };

typedef struct tbBlock {
  double size[3]; /* full lengths, m */
  double mass;    /* kg */
  double E;       /* hydroelastic modulus, Pa */
  double k;       /* point stiffness, N/m */
  double d;       /* Hunt–Crossley dissipation, s/m */
  double mu;      /* friction (static and dynamic) */
} tbBlock;

/* Add a box body with its solid-box inertia and one collision geometry; returns the body. */
int tb_add_block(isoModel *m, const char *name, const tbBlock *b, int model);
/* Add a sphere body (solid-sphere inertia); returns the body. */
int tb_add_ball(isoModel *m, const char *name, double radius, double mass, double E, double k, double d,
                double mu, double hint, int model);
/* The rigid ground half-space z <= 0 with friction mu (point stiffness huge: rigid for point contact). */
int tb_add_ground(isoModel *m, double mu, int model);
/* A CPU sim of `worlds` worlds with `threads` threads. */
isoSim *tb_sim(isoModel *m, int worlds, int threads, isoContactApproximation approximation);
/* Set body `b` of world w at position p, identity orientation, zero velocity. */
void tb_place(isoSim *s, int w, int b, double x, double y, double z);

/* Two compliant balls (radius 5 cm, moduli 1e5 and 2e5 Pa), a rigid 12 × 8 × 6 cm brick and a
 * rigid ground, compiled: compliant–compliant, compliant–rigid mesh and compliant–half-space
 * pairs (the contact-list and contact-batch tests place them per world). */
isoModel *tb_balls_and_brick(void);

#endif
