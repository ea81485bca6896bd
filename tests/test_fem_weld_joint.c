/* Deformable vertices welded to rigid bodies that joints move (iso_model_weld_deformable on a
 * jointed body): compile picks the vertices with the body where its joints' initial positions
 * put it, a joint added after the weld counts as one added before, and the welded vertices then
 * follow the body through its tree (the weld's rigid side, kernels/fem/contact.h), across
 * threads and backends bit for bit.
 *
 * The beam is test_fem_contact.c's welded beam: 0.3 × 0.04 × 0.04 m in 6 × 1 × 1 cells, its
 * x = 0 face centred on the world's origin; a 0.02 × 0.1 × 0.1 slab around that face catches
 * exactly its 4 vertices. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "isobar/isobar.h"
#include "support/fem_meshes.h"
#include "support/support.h"

#define DT 1e-3

static const double SLAB[3] = {0.02, 0.1, 0.1}, IDENTITY[4] = {1, 0, 0, 0};

/* v rotated by the unit quaternion q = (w, x, y, z): v + 2w (u × v) + 2 u × (u × v). */
static void rotate(const double *q, const double *v, double *out) {
  const double u[3] = {q[1], q[2], q[3]};
  const double c1[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
  const double c2[3] = {u[1] * c1[2] - u[2] * c1[1], u[2] * c1[0] - u[0] * c1[2], u[0] * c1[1] - u[1] * c1[0]};
  for (int k = 0; k < 3; ++k) out[k] = v[k] + 2 * q[0] * c1[k] + 2 * c2[k];
}

static isoModel *new_model(void) {
  isoModelDef md = iso_default_model_def();
  md.time_step = DT;
  md.gravity[2] = 0;
  isoModel *m = NULL;
  cr_assert_eq(iso_model_create(&md, &m), ISO_OK);
  return m;
}

/* The beam (see the top), as deformable 0. */
static int add_beam(isoModel *m, femMesh *b) {
  cr_assert_eq(fem_mesh_box(b, 0.3, 0.04, 0.04, 6, 1, 1), 0);
  isoDeformableDef d = iso_default_deformable_def();
  d.name = "beam";
  d.nvert = b->nvert, d.ntet = b->ntet, d.vertices = b->X, d.tets = b->tet;
  d.position[1] = d.position[2] = -0.02;
  d.youngs_modulus = 1e6, d.poissons_ratio = 0.4, d.mass_density = 1000, d.stiffness_damping = 0.01;
  int id = -1;
  cr_assert_eq(iso_model_add_deformable(m, &d, &id), ISO_OK, "%s", iso_last_error());
  return id;
}

/* A 5 kg rigid body named `name` with I = 0.01 kg m² about each axis through its origin. */
static int add_arm(isoModel *m, const char *name) {
  isoBodyDef hd = iso_default_body_def();
  hd.name = name;
  hd.mass = 5;
  hd.inertia[0] = hd.inertia[1] = hd.inertia[2] = 0.01;
  int id = -1;
  cr_assert_eq(iso_model_add_body(m, &hd, &id), ISO_OK, "%s", iso_last_error());
  return id;
}

static void weld(isoModel *m, int beam, int arm, const double at[3], const double q[4], int want) {
  int n = -1;
  cr_assert_eq(iso_model_weld_deformable(m, beam, arm, ISO_SHAPE_BOX, SLAB, at, q, &n), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(n, want, "the slab holds %d vertices as the model stands, want %d", n, want);
}

/* The arm on a revolute joint about z through the origin, turning at 2 rad/s, the beam welded
 * to it by its x = 0 face; the weld added before the joint (weld_first) or after. */
static isoModel *swing_model(int weld_first, femMesh *b) {
  isoModel *m = new_model();
  const int beam = add_beam(m, b), arm = add_arm(m, "arm");
  const double origin[3] = {0, 0, 0};
  if (weld_first) weld(m, beam, arm, origin, IDENTITY, 4);
  isoJointDef j = iso_default_joint_def();
  j.name = "hinge";
  j.parent = -1, j.child = arm;
  int hinge = -1;
  cr_assert_eq(iso_model_add_joint(m, &j, &hinge), ISO_OK, "%s", iso_last_error());
  const double v0 = 2; /* rad/s */
  cr_assert_eq(iso_model_set_joint_state(m, hinge, NULL, &v0), ISO_OK, "%s", iso_last_error());
  if (!weld_first) weld(m, beam, arm, origin, IDENTITY, 4);
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  int n = -1;
  cr_assert_eq(iso_model_deformable_weld_count(m, beam, &n), ISO_OK);
  cr_assert_eq(n, 4, "compile welded %d vertices, want the x = 0 face's 4", n);
  return m;
}

static isoSim *make(const isoModel *m, int worlds, int threads, isoBackendKind backend) {
  isoSimDef sd = iso_default_sim_def();
  sd.worlds = worlds, sd.threads = threads, sd.backend = backend;
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_OK, "%s", iso_last_error());
  return s;
}

static void run(isoSim *s, int steps) {
  for (int i = 0; i < steps; ++i) cr_assert_eq(iso_sim_step(s), ISO_OK, "%s", iso_last_error());
}

/* The swing: the arm turns about the hinge carrying the beam, as the free handle of
 * test_fem_contact.c's "welded_vertices_follow_their_body" does about its centre, and the
 * bounds are that test's, for the same reason: a row carrying an impulse γ in a step sits at
 * the gap 2δt·R·γ (R = β²w/(4π²), w the Delassus estimate); the first steps carry the spin-up
 * impulse (~1 N·s, a gap of ~2e-5 m that takes some 200 steps to shed), then only the beam's
 * centripetal pull (gaps below 7e-8 m). The hinge only removes freedom from the arm, which
 * lowers w and with it the gaps. Checked: below 1e-4 m in the first 200 steps and 1e-7 m after;
 * a weld that slips, or one whose body points were taken from the arm's free-body state instead
 * of its joint, fails by far. Angular momentum about the hinge's axis is conserved exactly here
 * (the hinge's reaction passes through its axis), so the far end turns as the free handle's
 * estimate says: ω = 2·I_h/(I_h + I_b) with I_b = m(L²/3 + w²/12), 5% for the bending lag. The
 * weld added before the joint gives the same bits as after: compile builds both alike. */
Test(fem_weld_joint, welded_vertices_follow_a_swinging_link) {
  femMesh b, b_first;
  isoModel *m = swing_model(0, &b), *m_first = swing_model(1, &b_first);
  isoSim *s = make(m, 1, 1, ISO_BACKEND_CPU), *s_first = make(m_first, 1, 1, ISO_BACKEND_CPU);
  const int n3 = iso_sim_state_width(s, ISO_STATE_VERTEX_POSITION), nv = n3 / 3;
  double *x = (double *)malloc(sizeof(double) * (size_t)n3), *x_first = (double *)malloc(sizeof(double) * (size_t)n3);
  double worst = 0, start = 0, pose[7];
  for (int step = 0; step < 500; ++step) {
    run(s, 1);
    cr_assert_eq(iso_sim_get_state(s, ISO_STATE_VERTEX_POSITION, iso_worlds_all(), x), ISO_OK);
    cr_assert_eq(iso_sim_get_body_poses(s, iso_worlds_all(), pose), ISO_OK);
    for (int i = 0; i < nv; ++i) {
      if (b.X[3 * i] > 1e-9) continue; /* the welded face, x = 0; the arm's rest frame is W */
      const double P[3] = {b.X[3 * i], b.X[3 * i + 1] - 0.02, b.X[3 * i + 2] - 0.02};
      double want[3];
      rotate(pose + 3, P, want);
      for (int k = 0; k < 3; ++k) {
        const double gap = fabs(x[3 * i + k] - (want[k] + pose[k]));
        if (step < 200) start = fmax(start, gap);
        else worst = fmax(worst, gap);
      }
    }
  }
  cr_expect_lt(start, 1e-4, "the spin-up pulled a welded vertex %g m off its body point", start);
  cr_expect_lt(worst, 1e-7, "a welded vertex left its body point by %g m", worst);
  double tip[2] = {0, 0};
  int ntip = 0;
  for (int i = 0; i < nv; ++i)
    if (b.X[3 * i] > 0.3 - 1e-9) tip[0] += x[3 * i], tip[1] += x[3 * i + 1], ++ntip;
  const double angle = atan2(tip[1] / ntip, tip[0] / ntip);
  const double omega = 2 * 0.01 / (0.01 + 0.48 * (0.09 / 3 + 0.0016 / 12));
  cr_expect(fabs(angle - omega * 0.5) < 0.05 * omega * 0.5, "the beam's far end is at %g rad, want %g", angle,
            omega * 0.5);
  run(s_first, 500);
  cr_assert_eq(iso_sim_get_state(s_first, ISO_STATE_VERTEX_POSITION, iso_worlds_all(), x_first), ISO_OK);
  cr_expect(test_same_bits(x, x_first, n3), "the weld added before the joint differs from one added after");
  uint32_t st = 1;
  cr_assert_eq(iso_sim_get_status(s, iso_worlds_all(), &st), ISO_OK);
  cr_expect_eq(st, 0u);
  free(x), free(x_first);
  fem_mesh_free(&b), fem_mesh_free(&b_first);
  iso_sim_destroy(s), iso_sim_destroy(s_first);
  iso_model_destroy(m), iso_model_destroy(m_first);
}

/* A body whose joints put it away from its free-body state: a base on a revolute hinge about z
 * at (0.1, 0.2, 0.3), turned 0.5 rad, and the arm on a prismatic joint along the base's x from
 * (0.05, 0, 0), slid 0.02 m out. The arm then sits at p = (0.1, 0.2, 0.3) + R_z(0.5)(0.07, 0, 0)
 * turned by R_z(0.5), while its free-body state is the identity. The slab is posed on the arm
 * where that pose puts it around the beam's x = 0 face. With gravity off everything starts at
 * rest, so nothing should move: in exact arithmetic the welds start closed. Their gaps are then
 * rounding (~1e-16 m), which the near-rigid rows close at about gap/δt ~ 1e-13 m/s; weld points
 * taken from the free-body state would be some 0.3 m off and throw the vertices at metres per
 * second. Checked: every vertex speed and joint rate below 1e-9 over 50 steps. */
Test(fem_weld_joint, a_jointed_pose_away_from_the_free_state_starts_at_rest) {
  isoModel *m = new_model();
  femMesh b;
  const int beam = add_beam(m, &b), base = add_arm(m, "base"), arm = add_arm(m, "arm");
  const double h = 0.25; /* half the turn, rad */
  const double qz[4] = {cos(h), 0, 0, sin(h)}, qz_inv[4] = {cos(h), 0, 0, -sin(h)};
  /* the slab at the world's origin, in the arm's frame: R⁻¹(0 − p), turned by R⁻¹ */
  double p[3], r[3];
  const double out[3] = {0.07, 0, 0};
  rotate(qz, out, r);
  const double p_arm[3] = {0.1 + r[0], 0.2 + r[1], 0.3 + r[2]}, minus_p[3] = {-p_arm[0], -p_arm[1], -p_arm[2]};
  rotate(qz_inv, minus_p, p);
  weld(m, beam, arm, p, qz_inv, 0); /* as the model stands (no joint yet): nothing */
  isoJointDef j = iso_default_joint_def();
  j.name = "hinge";
  j.parent = -1, j.child = base;
  j.parent_position[0] = 0.1, j.parent_position[1] = 0.2, j.parent_position[2] = 0.3;
  int hinge = -1, slide = -1;
  cr_assert_eq(iso_model_add_joint(m, &j, &hinge), ISO_OK, "%s", iso_last_error());
  j = iso_default_joint_def();
  j.name = "slide";
  j.type = ISO_JOINT_PRISMATIC;
  j.parent = base, j.child = arm;
  j.parent_position[0] = 0.05;
  j.axis[0] = 1, j.axis[2] = 0;
  cr_assert_eq(iso_model_add_joint(m, &j, &slide), ISO_OK, "%s", iso_last_error());
  const double turn = 2 * h, reach = 0.02;
  cr_assert_eq(iso_model_set_joint_state(m, hinge, &turn, NULL), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_model_set_joint_state(m, slide, &reach, NULL), ISO_OK, "%s", iso_last_error());
  int n = -1;
  cr_assert_eq(iso_model_deformable_weld_count(m, beam, &n), ISO_OK);
  cr_assert_eq(n, 4, "with the joints in place the slab holds the x = 0 face (got %d)", n);
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_model_deformable_weld_count(m, beam, &n), ISO_OK);
  cr_assert_eq(n, 4);
  isoSim *s = make(m, 1, 1, ISO_BACKEND_CPU);
  const int n3 = iso_sim_state_width(s, ISO_STATE_VERTEX_VELOCITY), nv = iso_sim_state_width(s, ISO_STATE_V);
  cr_assert_eq(nv, 2);
  double *v = (double *)malloc(sizeof(double) * (size_t)n3), qd[2];
  double worst = 0, worst_joint = 0;
  for (int step = 0; step < 50; ++step) {
    run(s, 1);
    cr_assert_eq(iso_sim_get_state(s, ISO_STATE_VERTEX_VELOCITY, iso_worlds_all(), v), ISO_OK);
    cr_assert_eq(iso_sim_get_state(s, ISO_STATE_V, iso_worlds_all(), qd), ISO_OK);
    for (int i = 0; i < n3; ++i) worst = fmax(worst, fabs(v[i]));
    worst_joint = fmax(worst_joint, fmax(fabs(qd[0]), fabs(qd[1])));
  }
  cr_expect_lt(worst, 1e-9, "a vertex moved at %g m/s", worst);
  cr_expect_lt(worst_joint, 1e-9, "a joint moved at %g", worst_joint);
  free(v);
  fem_mesh_free(&b);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* The shape's vertices are chosen at compile: a slab that holds the face with the arm at its
 * free-body state (the call's count) but nothing once a joint added later lifts the arm 1 m
 * fails the compile, naming the deformable and the body. */
Test(fem_weld_joint, a_shape_the_joint_moves_off_the_beam_fails_the_compile) {
  isoModel *m = new_model();
  femMesh b;
  const int beam = add_beam(m, &b), arm = add_arm(m, "arm");
  const double origin[3] = {0, 0, 0};
  weld(m, beam, arm, origin, IDENTITY, 4);
  isoJointDef j = iso_default_joint_def();
  j.parent = -1, j.child = arm;
  j.parent_position[2] = 1;
  cr_assert_eq(iso_model_add_joint(m, &j, NULL), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_model_compile(m), ISO_ERR_INVALID);
  const char *e = iso_last_error();
  cr_expect(strstr(e, "'beam'") && strstr(e, "'arm'") && strstr(e, "holds no vertex"), "%s", e);
  cr_expect(!iso_model_is_compiled(m));
  fem_mesh_free(&b);
  iso_model_destroy(m);
}

/* Three worlds of the swing, world 1 turning at 1 rad/s instead: 1 and 2 threads give the same
 * bits, and so does the emulated device (each world is one item at every stage, the weld rows
 * in a fixed order after the contacts). */
Test(fem_weld_joint, threads_and_backends_agree) {
  femMesh b;
  isoModel *m = swing_model(0, &b);
  const double slow = 1;
  isoSim *sims[3] = {make(m, 3, 1, ISO_BACKEND_CPU), make(m, 3, 2, ISO_BACKEND_CPU), NULL};
  char why[256];
  if (test_cuda_device(why, sizeof why) && test_cuda_emulated()) sims[2] = make(m, 3, 1, ISO_BACKEND_CUDA);
  const int n3 = iso_sim_state_width(sims[0], ISO_STATE_VERTEX_POSITION);
  double *x[3], q[3][3];
  for (int k = 0; k < 3; ++k) {
    x[k] = (double *)malloc(sizeof(double) * 3 * (size_t)n3);
    if (!sims[k]) continue;
    cr_assert_eq(iso_sim_set_state(sims[k], ISO_STATE_V, iso_worlds_one(1), &slow), ISO_OK, "%s", iso_last_error());
    run(sims[k], 150);
    cr_assert_eq(iso_sim_get_state(sims[k], ISO_STATE_VERTEX_POSITION, iso_worlds_all(), x[k]), ISO_OK);
    cr_assert_eq(iso_sim_get_state(sims[k], ISO_STATE_Q, iso_worlds_all(), q[k]), ISO_OK);
  }
  cr_assert(fabs(q[0][1] - q[0][0]) > 0.05, "world 1 turns slower: %g vs %g rad", q[0][1], q[0][0]);
  cr_expect(test_same_bits(x[0], x[1], 3 * n3) && test_same_bits(q[0], q[1], 3), "1 and 2 threads differ");
  if (sims[2])
    cr_expect(test_same_bits(x[0], x[2], 3 * n3) && test_same_bits(q[0], q[2], 3), "the emulated device differs");
  for (int k = 0; k < 3; ++k) {
    free(x[k]);
    if (sims[k]) iso_sim_destroy(sims[k]);
  }
  fem_mesh_free(&b);
  iso_model_destroy(m);
}
