/* Body poses and velocities as a query (iso_sim_get_body_poses, iso_sim_get_body_velocities):
 * free bodies read back exactly their q and v; a pendulum's centre of mass is where the analytic
 * solution puts it, and a double pendulum's body velocities are the time derivatives of its
 * poses (central differences); bad selections are refused. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "isobar/isobar.h"
#include "isobar/scenes.h"
#include "support/joint_builders.h"

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

Test(sim_bodies, free_bodies_are_exactly_their_state) {
  isoModel *m = NULL;
  cr_assert_eq(iso_scene_tumbling_model(3, 1e-3, &m), ISO_OK);
  isoSim *s = jb_sim(m, 4, 1);
  cr_assert_eq(iso_scene_tumbling_init(s), ISO_OK);
  for (int i = 0; i < 5; ++i) cr_assert_eq(iso_sim_step(s), ISO_OK);
  double q[4 * 3 * 7], v[4 * 3 * 6], X[4 * 3 * 7], V[4 * 3 * 6];
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_Q, iso_worlds_all(), q), ISO_OK);
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_V, iso_worlds_all(), v), ISO_OK);
  cr_assert_eq(iso_sim_get_body_poses(s, iso_worlds_all(), X), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_sim_get_body_velocities(s, iso_worlds_all(), V), ISO_OK, "%s", iso_last_error());
  for (int i = 0; i < 4 * 3; ++i) {
    const double *qb = q + 7 * i, *Xb = X + 7 * i;
    const double want[7] = {qb[4], qb[5], qb[6], qb[0], qb[1], qb[2], qb[3]};
    for (int k = 0; k < 7; ++k) cr_assert(same_bits(Xb[k], want[k]), "body-world %d pose %d", i, k);
    for (int k = 0; k < 6; ++k) cr_assert(same_bits(V[6 * i + k], v[6 * i + k]), "body-world %d velocity %d", i, k);
  }
  /* a list selection, in its order */
  const int list[2] = {3, 1};
  double X2[2 * 3 * 7];
  cr_assert_eq(iso_sim_get_body_poses(s, iso_worlds_list(list, 2), X2), ISO_OK);
  cr_assert_eq(memcmp(X2, X + 3 * 3 * 7, sizeof(double) * 21), 0);
  cr_assert_eq(memcmp(X2 + 21, X + 1 * 3 * 7, sizeof(double) * 21), 0);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* COM of body b in the world from a pose row and the body-frame COM. */
static void com_world(const double *X, const double c[3], double out[3]) {
  const double w = X[3], x = X[4], y = X[5], z = X[6];
  const double R[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                       2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                       2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
  for (int i = 0; i < 3; ++i) out[i] = X[i] + R[3 * i] * c[0] + R[3 * i + 1] * c[1] + R[3 * i + 2] * c[2];
}

Test(sim_bodies, pendulum_com_is_analytic) {
  const jbLink L = {2.0, 0.05, 0.7};
  isoModel *m = NULL;
  cr_assert_eq(iso_model_create(NULL, &m), ISO_OK);
  /* a free body first, so the pendulum's state does not start at 0 */
  isoBodyDef fb = iso_default_body_def();
  fb.name = "free";
  cr_assert_eq(iso_model_add_body(m, &fb, NULL), ISO_OK);
  const int j = jb_add_link(m, "arm", -1, 0.1, -0.2, 1.5, &L, 0);
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  isoSim *s = jb_sim(m, 2, 1);
  const double theta[2] = {0.3, -2.1}, rate[2] = {1.5, -0.25};
  for (int w = 0; w < 2; ++w) jb_set_joint(s, m, w, j, theta[w], rate[w]);
  double X[2 * 2 * 7], V[2 * 2 * 6];
  cr_assert_eq(iso_sim_get_body_poses(s, iso_worlds_all(), X), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_sim_get_body_velocities(s, iso_worlds_all(), V), ISO_OK, "%s", iso_last_error());
  const double c[3] = {0, 0, -L.length};
  for (int w = 0; w < 2; ++w) {
    const double *Xa = X + (2 * w + 1) * 7, *Va = V + (2 * w + 1) * 6;
    double p[3];
    com_world(Xa, c, p);
    const double want[3] = {0.1 - L.length * sin(theta[w]), -0.2, 1.5 - L.length * cos(theta[w])};
    for (int i = 0; i < 3; ++i) cr_assert_float_eq(p[i], want[i], 1e-14, "world %d COM %d: %g vs %g", w, i, p[i], want[i]);
    cr_assert_float_eq(Xa[0], 0.1, 1e-15, "the body origin is the pivot");
    cr_assert_float_eq(Xa[2], 1.5, 1e-15);
    const double wv[6] = {0, rate[w], 0, 0, 0, 0};
    for (int i = 0; i < 6; ++i) cr_assert_float_eq(Va[i], wv[i], 1e-14, "world %d velocity %d", w, i);
    /* the free body stays at the origin, at rest */
    for (int i = 0; i < 6; ++i) cr_assert_eq(V[(2 * w) * 6 + i], 0.0);
    cr_assert_eq(X[(2 * w) * 7 + 3], 1.0);
  }
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* Velocities are the derivatives of the poses: a double pendulum's state moved by ±h·v. */
Test(sim_bodies, velocities_match_finite_differences_of_poses) {
  const jbLink L1 = {1.0, 0.05, 0.5}, L2 = {0.7, 0.04, 0.4};
  isoModel *m = NULL;
  cr_assert_eq(iso_model_create(NULL, &m), ISO_OK);
  const int j1 = jb_add_link(m, "upper", -1, 0, 0, 2, &L1, 0);
  const int j2 = jb_add_link(m, "lower", 0, 0, 0, -L1.length, &L2, 0);
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  isoSim *s = jb_sim(m, 3, 1);
  const double q1 = 0.4, q2 = -1.1, v1 = 0.8, v2 = -1.7, h = 1e-6;
  for (int w = 0; w < 3; ++w) {
    const double d = w == 0 ? 0 : w == 1 ? h : -h;
    jb_set_joint(s, m, w, j1, q1 + d * v1, v1);
    jb_set_joint(s, m, w, j2, q2 + d * v2, v2);
  }
  double X[3 * 2 * 7], V[3 * 2 * 6];
  cr_assert_eq(iso_sim_get_body_poses(s, iso_worlds_all(), X), ISO_OK);
  cr_assert_eq(iso_sim_get_body_velocities(s, iso_worlds_all(), V), ISO_OK);
  for (int b = 0; b < 2; ++b) {
    const double *X0 = X + b * 7, *Xp = X + (2 + b) * 7, *Xm = X + (4 + b) * 7, *Vb = V + b * 6;
    for (int i = 0; i < 3; ++i) {
      const double fd = (Xp[i] - Xm[i]) / (2 * h);
      cr_assert_float_eq(Vb[3 + i], fd, 1e-7, "body %d v[%d]: %.10g vs %.10g", b, i, Vb[3 + i], fd);
    }
    /* w = 2 q̇ ⊗ q⁻¹ (vector part), q̇ by central differences */
    double dq[4], w_fd[3];
    for (int k = 0; k < 4; ++k) dq[k] = (Xp[3 + k] - Xm[3 + k]) / (2 * h);
    const double qw = X0[3], qx = -X0[4], qy = -X0[5], qz = -X0[6]; /* the conjugate */
    w_fd[0] = 2 * (dq[0] * qx + dq[1] * qw + dq[2] * qz - dq[3] * qy);
    w_fd[1] = 2 * (dq[0] * qy - dq[1] * qz + dq[2] * qw + dq[3] * qx);
    w_fd[2] = 2 * (dq[0] * qz + dq[1] * qy - dq[2] * qx + dq[3] * qw);
    for (int i = 0; i < 3; ++i)
      cr_assert_float_eq(Vb[i], w_fd[i], 1e-7, "body %d w[%d]: %.10g vs %.10g", b, i, Vb[i], w_fd[i]);
  }
  cr_assert_float_eq(V[1], v1, 1e-14);
  cr_assert_float_eq(V[6 + 1], v1 + v2, 1e-14, "the lower link turns at the sum of the rates");
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

Test(sim_bodies, bad_selections_fail) {
  isoModel *m = NULL;
  cr_assert_eq(iso_scene_tumbling_model(1, 1e-3, &m), ISO_OK);
  isoSim *s = jb_sim(m, 2, 1);
  double out[64];
  cr_assert_neq(iso_sim_get_body_poses(s, iso_worlds_one(2), out), ISO_OK);
  cr_assert_neq(iso_sim_get_body_velocities(s, iso_worlds_one(-1), out), ISO_OK);
  const int list[2] = {0, 7};
  cr_assert_neq(iso_sim_get_body_poses(s, iso_worlds_list(list, 2), out), ISO_OK);
  cr_assert(strstr(iso_last_error(), "iso_sim_get_body_poses") != NULL, "%s", iso_last_error());
  cr_assert_neq(iso_sim_get_body_poses(s, iso_worlds_list(NULL, 2), out), ISO_OK);
  cr_assert_neq(iso_sim_get_body_poses(s, iso_worlds_all(), NULL), ISO_OK);
  cr_assert_neq(iso_sim_get_body_velocities(NULL, iso_worlds_all(), out), ISO_OK);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}
