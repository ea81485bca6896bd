/* The step's stages one at a time (host/step/step.h), each output checked against what it must
 * be, and the stages run one by one equal to a whole step bit for bit:
 *  1 kinematics: X_WB is q's pose exactly, X_WG = X_WB·X_BG;
 *  2-4 collision: the contact list's faces are the ones the public query returns (after it) and
 *      point-contact hits exist for the resting point-contact bodies;
 *  5-6 constraints: one constraint per record, free motion v* = v + δt·a (a checked for a body
 *      at rest: gravity alone);
 *  7 solve: every world done, and nothing but v (and the solver's own arrays) changed;
 *  8 integrate: positions advanced by δt·v_next, time by δt. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "host/sim/sim_internal.h"
#include "host/step/contact_internal.h"
#include "host/step/sap_internal.h"
#include "isobar/isobar.h"
#include "isobar/scenes.h"
#include "support/support.h"

#define NW 3

static isoSim *contact_sim(isoModel **m) {
  cr_assert_eq(iso_scene_contact_model(1e-3, m), ISO_OK, "%s", iso_last_error());
  isoSimDef sd = iso_default_sim_def();
  sd.worlds = NW;
  sd.backend = ISO_BACKEND_CPU;
  sd.threads = 1;
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(*m, &sd, &s), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_scene_contact_init(s), ISO_OK, "%s", iso_last_error());
  /* a few steps so that everything is in contact and moving */
  for (int i = 0; i < 30; ++i) cr_assert_eq(iso_sim_step(s), ISO_OK, "%s", iso_last_error());
  return s;
}

Test(step_stages, each_stage_writes_what_it_must_and_together_they_are_a_step) {
  isoModel *m = NULL, *m2 = NULL;
  isoSim *s = contact_sim(&m), *twin = contact_sim(&m2);
  stepCtx c = *sim_step_ctx(s);
  const int nb = c.nbody, ng = c.contact->dev.ngeom;
  double q0[NW * 28], v0[NW * 24], t0[NW];
  memcpy(q0, c.q, sizeof q0), memcpy(v0, c.v, sizeof v0), memcpy(t0, c.time, sizeof t0);

  /* 1: poses */
  cr_assert_eq(step_kinematics(&c), ISO_OK);
  for (int w = 0; w < NW; ++w)
    for (int b = 0; b < nb; ++b) {
      const xform X = c.X_WB[w * nb + b];
      const double *qb = q0 + w * c.nq + 7 * b;
      double got[7] = {X.q.w, X.q.x, X.q.y, X.q.z, X.p.x, X.p.y, X.p.z};
      cr_assert_eq(memcmp(got, qb, sizeof got), 0, "world %d body %d: X_WB is not q's pose", w, b);
    }
  for (int w = 0; w < NW; ++w)
    for (int g = 0; g < ng; ++g) {
      int b = c.contact->host.geom_body[g];
      xform want = b >= 0 ? xf_mul(c.X_WB[w * nb + b], c.contact->host.geom_X_BG[g]) : c.contact->host.geom_X_BG[g];
      cr_assert_eq(memcmp(&want, &c.X_WG[w * ng + g], sizeof want), 0, "world %d geometry %d pose", w, g);
    }

  /* 2-4: the contact list, then point queries */
  cr_assert_eq(step_collide(&c), ISO_OK);
  cr_assert_eq(step_points(&c), ISO_OK);
  for (int w = 0; w < NW; ++w) {
    cr_assert_gt(c.face_count[w], 0, "world %d: the box rests on the ground, so it has faces", w);
    int hits = 0;
    for (int k = 0; k < c.sap->npoint; ++k) hits += c.hits[w * c.sap->npoint + k].valid;
    cr_assert_gt(hits, 0, "world %d: the capsule and brick rest on the ground", w);
  }

  /* 5-6: constraints and free motion */
  cr_assert_eq(step_constraints(&c), ISO_OK);
  for (int w = 0; w < NW; ++w) {
    int hits = 0;
    for (int k = 0; k < c.sap->npoint; ++k) hits += c.hits[w * c.sap->npoint + k].valid;
    /* a constraint per face with positive area and gradients, and one per point hit */
    cr_assert_leq(c.ncon[w], c.face_count[w] + hits);
    cr_assert_geq(c.ncon[w], hits, "world %d: %d constraints for %d point contacts", w, c.ncon[w], hits);
    /* v* − v = δt·a: for the translational part of a body, a = g − α×c − ω×(ω×c); the box's COM
     * is at its origin (c = 0), so its v* differs from v by exactly δt·g */
    const double *vs = c.vstar + w * c.nv, *vv = v0 + w * c.nv;
    cr_assert_float_eq(vs[5] - vv[5], -9.81 * c.dt, 1e-15, "world %d: box v*_z", w);
    cr_assert_float_eq(vs[3] - vv[3], 0.0, 1e-15);
  }

  /* 7: solve: only v changes (of the state) */
  double qs[NW * 28];
  memcpy(qs, c.q, sizeof qs);
  cr_assert_eq(step_solve(&c), ISO_OK);
  cr_assert_eq(memcmp(qs, c.q, sizeof qs), 0, "the solve changed q");
  for (int w = 0; w < NW; ++w) cr_assert(c.stats[w].done, "world %d not done", w);

  /* 8: integrate: p_next = p + δt·v_next for every body origin, time + δt */
  double v1[NW * 24];
  memcpy(v1, c.v, sizeof v1);
  cr_assert_eq(step_integrate(&c), ISO_OK);
  for (int w = 0; w < NW; ++w) {
    cr_assert_eq(c.time[w], t0[w] + c.dt);
    for (int b = 0; b < nb; ++b)
      for (int k = 0; k < 3; ++k) {
        double want = q0[w * c.nq + 7 * b + 4 + k] + c.dt * v1[w * c.nv + 6 * b + 3 + k];
        cr_assert_eq(c.q[w * c.nq + 7 * b + 4 + k], want, "world %d body %d p[%d]", w, b, k);
      }
  }

  /* the stages one by one are the step: the twin stepped once through iso_sim_step */
  cr_assert_eq(iso_sim_step(twin), ISO_OK);
  double qa[NW * 28], qb[NW * 28], va[NW * 24], vb[NW * 24];
  iso_sim_get_state(s, ISO_STATE_Q, iso_worlds_all(), qa), iso_sim_get_state(twin, ISO_STATE_Q, iso_worlds_all(), qb);
  iso_sim_get_state(s, ISO_STATE_V, iso_worlds_all(), va), iso_sim_get_state(twin, ISO_STATE_V, iso_worlds_all(), vb);
  cr_expect_eq(memcmp(qa, qb, sizeof qa), 0, "q differs from a whole step");
  cr_expect_eq(memcmp(va, vb, sizeof va), 0, "v differs from a whole step");
  iso_sim_destroy(s), iso_sim_destroy(twin);
  iso_model_destroy(m), iso_model_destroy(m2);
}
