/* Deformable bodies touching half-spaces through the solver (kernels/fem/contact.h): the
 * participating vertices' Schur complement in SAP, a body coming to rest on a floor with its
 * weight carried by the contacts, held vertices on a floor, and the batch's determinism across
 * worlds, threads and backends. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "isobar/isobar.h"
#include "support/fem_meshes.h"
#include "support/support.h"

#define DT 1e-3
#define G 9.81

/* A deformable box of side L (n³ cells), its lowest face `sink` below a floor through the
 * origin (the half-space z <= 0). */
static isoModel *box_on_floor(double L, int n, double sink, double E) {
  isoModelDef md = iso_default_model_def();
  md.time_step = DT;
  isoModel *m = NULL;
  cr_assert_eq(iso_model_create(&md, &m), ISO_OK);
  femMesh b;
  cr_assert_eq(fem_mesh_box(&b, L, L, L, n, n, n), 0);
  isoDeformableDef d = iso_default_deformable_def();
  d.name = "box";
  d.nvert = b.nvert, d.ntet = b.ntet, d.vertices = b.X, d.tets = b.tet;
  d.position[0] = d.position[1] = -L / 2;
  d.position[2] = -sink;
  d.youngs_modulus = E;
  d.stiffness_damping = 0.01;
  cr_assert_eq(iso_model_add_deformable(m, &d, NULL), ISO_OK, "%s", iso_last_error());
  fem_mesh_free(&b);
  isoGeometryDef g = iso_default_geometry_def();
  g.name = "floor";
  g.shape = ISO_SHAPE_HALFSPACE;
  g.compliance = ISO_COMPLIANCE_RIGID;
  cr_assert_eq(iso_model_add_geometry(m, &g, NULL), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
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

/* The body's momentum with its consistent mass (each tet's ρV/4 on each of its vertices' mean
 * velocity times 4: Σ_e ρV_e/4 Σ_a v_a), and its mass. */
static double momentum_z(const isoModel *m, const double *v, double *mass) {
  int nv = 0, nt = 0;
  cr_assert_eq(iso_model_deformable_size(m, 0, &nv, &nt, NULL), ISO_OK);
  double *X = (double *)malloc(sizeof(double) * 3 * (size_t)nv);
  int *tet = (int *)malloc(sizeof(int) * 4 * (size_t)nt);
  cr_assert_eq(iso_model_deformable_mesh(m, 0, X, tet, NULL, NULL), ISO_OK);
  isoDeformableDef d;
  cr_assert_eq(iso_model_get_deformable(m, 0, &d), ISO_OK);
  double p = 0, M = 0;
  for (int e = 0; e < nt; ++e) {
    const double *a = X + 3 * tet[4 * e], *b = X + 3 * tet[4 * e + 1], *c = X + 3 * tet[4 * e + 2],
                 *q = X + 3 * tet[4 * e + 3];
    double u[3], w[3], z[3];
    for (int k = 0; k < 3; ++k) u[k] = b[k] - a[k], w[k] = c[k] - a[k], z[k] = q[k] - a[k];
    const double V = ((u[1] * w[2] - u[2] * w[1]) * z[0] + (u[2] * w[0] - u[0] * w[2]) * z[1] +
                      (u[0] * w[1] - u[1] * w[0]) * z[2]) / 6;
    const double me = d.mass_density * V / 4;
    M += 4 * me;
    for (int k = 0; k < 4; ++k) p += me * v[3 * tet[4 * e + k] + 2];
  }
  free(X), free(tet);
  *mass = M;
  return p;
}

/* A soft box dropped 1 mm into a floor comes to rest on it: the contacts then carry its weight
 * (the change of momentum over the last 100 steps is the contact impulse minus the weight's,
 * so at rest the contact impulse is m·g·t), and its bottom face sits at the mean depth where
 * the pressure C·depth carries the weight (k = A·C per polygon, C = 1e8 Pa/m: the area-weighted
 * mean depth of the polygons' centroids is ρgL/C). Tolerances: the box is at rest to 1e-4 of the
 * impulse after 400 steps of its Rayleigh-damped bounce; the mean depth to 1% (what is left of
 * the bounce at rest, and the lagged contact model's δt·v_n term, are far smaller). */
Test(fem_contact, box_rests_on_a_floor_carrying_its_weight) {
  const double L = 0.1;
  isoModel *m = box_on_floor(L, 2, 1e-3, 1e6);
  isoSim *s = make(m, 1, 1, ISO_BACKEND_CPU);
  run(s, 400);
  const int n3 = iso_sim_state_width(s, ISO_STATE_VERTEX_VELOCITY);
  double *v = (double *)malloc(sizeof(double) * (size_t)n3), *x = (double *)malloc(sizeof(double) * (size_t)n3);
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_VERTEX_VELOCITY, iso_worlds_all(), v), ISO_OK);
  double mass = 0;
  const double p0 = momentum_z(m, v, &mass);
  run(s, 100);
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_VERTEX_VELOCITY, iso_worlds_all(), v), ISO_OK);
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_VERTEX_POSITION, iso_worlds_all(), x), ISO_OK);
  const double p1 = momentum_z(m, v, &mass);
  const double weight_impulse = mass * G * 100 * DT, contact_impulse = (p1 - p0) + weight_impulse;
  cr_expect(fabs(contact_impulse - weight_impulse) < 1e-4 * weight_impulse, "contact impulse %g, weight's %g",
            contact_impulse, weight_impulse);
  /* the bottom face's triangles (equal areas): their centroids' mean depth carries the weight */
  int nv = 0, ntri = 0;
  cr_assert_eq(iso_model_deformable_size(m, 0, &nv, NULL, &ntri), ISO_OK);
  double *rest = (double *)malloc(sizeof(double) * 3 * (size_t)nv);
  int *tri = (int *)malloc(sizeof(int) * 3 * (size_t)ntri);
  cr_assert_eq(iso_model_deformable_mesh(m, 0, rest, NULL, tri, NULL), ISO_OK);
  double sum = 0;
  int nbottom = 0;
  for (int t = 0; t < ntri; ++t) {
    const int *f = tri + 3 * t;
    if (rest[3 * f[0] + 2] > -1e-3 + 1e-12 || rest[3 * f[1] + 2] > -1e-3 + 1e-12 || rest[3 * f[2] + 2] > -1e-3 + 1e-12)
      continue;
    sum += -(x[3 * f[0] + 2] + x[3 * f[1] + 2] + x[3 * f[2] + 2]) / 3;
    ++nbottom;
  }
  cr_assert_eq(nbottom, 8, "a 2×2 face has 8 triangles");
  const double depth = 1500 * G * L / 1e8;
  cr_expect(fabs(sum / nbottom - depth) < 0.01 * depth, "mean depth %g, the weight's %g", sum / nbottom, depth);
  free(rest), free(tri);
  uint32_t st;
  cr_assert_eq(iso_sim_get_status(s, iso_worlds_all(), &st), ISO_OK);
  cr_expect_eq(st, 0u);
  free(v), free(x);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* World alone equals world in batch, 1 and 2 threads the same bits, the emulated device too:
 * each world is one item at every stage, its contacts in a fixed order. */
Test(fem_contact, batch_threads_and_backends_agree) {
  isoModel *m = box_on_floor(0.1, 2, 2e-3, 1e6);
  isoSim *a = make(m, 3, 1, ISO_BACKEND_CPU), *b = make(m, 3, 2, ISO_BACKEND_CPU), *one = make(m, 1, 1, ISO_BACKEND_CPU);
  for (int w = 0; w < 3; ++w) {
    double mat[5] = {1e6 * (1 + w), 0.3 + 0.05 * w, 1000 + 200 * w, 0, 0.01};
    cr_assert_eq(iso_sim_set_param(a, ISO_PARAM_DEFORMABLE_MATERIAL, 0, iso_worlds_one(w), mat), ISO_OK);
    cr_assert_eq(iso_sim_set_param(b, ISO_PARAM_DEFORMABLE_MATERIAL, 0, iso_worlds_one(w), mat), ISO_OK);
    if (w == 2) cr_assert_eq(iso_sim_set_param(one, ISO_PARAM_DEFORMABLE_MATERIAL, 0, iso_worlds_one(0), mat), ISO_OK);
  }
  run(a, 80), run(b, 80), run(one, 80);
  const int n3 = iso_sim_state_width(a, ISO_STATE_VERTEX_POSITION);
  double *xa = (double *)malloc(sizeof(double) * 3 * (size_t)n3), *xb = (double *)malloc(sizeof(double) * 3 * (size_t)n3);
  double *x1 = (double *)malloc(sizeof(double) * (size_t)n3);
  cr_assert_eq(iso_sim_get_state(a, ISO_STATE_VERTEX_POSITION, iso_worlds_all(), xa), ISO_OK);
  cr_assert_eq(iso_sim_get_state(b, ISO_STATE_VERTEX_POSITION, iso_worlds_all(), xb), ISO_OK);
  cr_assert_eq(iso_sim_get_state(one, ISO_STATE_VERTEX_POSITION, iso_worlds_all(), x1), ISO_OK);
  cr_expect(test_same_bits(xa, xb, 3 * n3), "1 and 2 threads differ");
  cr_expect(test_same_bits(x1, xa + 2L * n3, n3), "world 2 alone differs from world 2 in the batch");
  char why[256];
  if (test_cuda_device(why, sizeof why) && test_cuda_emulated()) {
    isoSim *g = make(m, 3, 1, ISO_BACKEND_CUDA);
    for (int w = 0; w < 3; ++w) {
      double mat[5] = {1e6 * (1 + w), 0.3 + 0.05 * w, 1000 + 200 * w, 0, 0.01};
      cr_assert_eq(iso_sim_set_param(g, ISO_PARAM_DEFORMABLE_MATERIAL, 0, iso_worlds_one(w), mat), ISO_OK);
    }
    run(g, 80);
    double *xg = (double *)malloc(sizeof(double) * 3 * (size_t)n3);
    cr_assert_eq(iso_sim_get_state(g, ISO_STATE_VERTEX_POSITION, iso_worlds_all(), xg), ISO_OK);
    cr_expect(test_same_bits(xa, xg, 3 * n3), "the emulated device differs");
    free(xg);
    iso_sim_destroy(g);
  }
  free(xa), free(xb), free(x1);
  iso_sim_destroy(a), iso_sim_destroy(b), iso_sim_destroy(one);
  iso_model_destroy(m);
}

/* What cannot touch yet is refused by name; capacities are checked. */
Test(fem_contact, unsupported_contact_is_refused) {
  isoModel *m = box_on_floor(0.1, 1, 0, 1e6);
  isoSimDef sd = iso_default_sim_def();
  sd.capacity.max_participating = -1;
  isoSim *s = NULL;
  cr_expect_eq(iso_sim_create(m, &sd, &s), ISO_ERR_INVALID);
  iso_model_destroy(m);
  isoModel *k = NULL;
  cr_assert_eq(iso_model_create(NULL, &k), ISO_OK);
  femMesh b;
  cr_assert_eq(fem_mesh_box(&b, 0.1, 0.1, 0.1, 1, 1, 1), 0);
  isoDeformableDef d = iso_default_deformable_def();
  d.nvert = b.nvert, d.ntet = b.ntet, d.vertices = b.X, d.tets = b.tet;
  cr_assert_eq(iso_model_add_deformable(k, &d, NULL), ISO_OK);
  isoBodyDef bd = iso_default_body_def();
  cr_assert_eq(iso_model_add_body(k, &bd, NULL), ISO_OK);
  isoGeometryDef g = iso_default_geometry_def();
  g.name = "point";
  g.body = 0;
  g.size[0] = 0; /* a point: it has no compliant pressure field to sample */
  cr_assert_eq(iso_model_add_geometry(k, &g, NULL), ISO_OK);
  cr_assert_eq(iso_model_compile(k), ISO_OK);
  cr_expect_eq(iso_sim_create(k, NULL, &s), ISO_ERR_UNSUPPORTED);
  cr_expect(strstr(iso_last_error(), "sphere geometry 'point'") != NULL, "%s", iso_last_error());
  fem_mesh_free(&b);
  iso_model_destroy(k);
}

/* A symmetric soft ball resting on a floor: a rigid box (its compliant pressure field sampled on
 * the ball's surface, reference §6.4) or a half-space. The contacts carry its weight (as for the
 * box above: the momentum change over the last 100 steps is the contact impulse minus the
 * weight's). On the half-space its resting shape keeps the mesh's mirror symmetries in x and y
 * and its x ↔ y symmetry: the ball is mirror-symmetric to the bit at rest, each step's sums are
 * not (their order follows the vertices, not the mirror), so round-off and the solver's
 * relative tolerance part the halves by far less than 1e-9 m against the ~1e-3 m the ball
 * squashes, the bound checked. On the box the symmetry is the box mesh's, not the ball's: its
 * tets (Drake's medial-axis box) meet at the top face's centre in a fan that is not mirror
 * symmetric, every surface triangle there is cut into pieces that differ from its mirror
 * image's, and each piece pushes at its own centroid — the same total force, but a centre of
 * pressure 3e-5 m off the axis, which slowly rolls the ball (Drake, with the same mesh and the
 * same one point per polygon, does the same). So there the weight is checked, and the depth. */
static void ball_on_floor(int box) {
  isoModelDef md = iso_default_model_def();
  md.time_step = DT;
  isoModel *m = NULL;
  cr_assert_eq(iso_model_create(&md, &m), ISO_OK);
  femMesh b;
  const double R = 0.05;
  cr_assert_eq(fem_mesh_ball_symmetric(&b, R, 2), 0);
  isoDeformableDef d = iso_default_deformable_def();
  d.name = "ball";
  d.nvert = b.nvert, d.ntet = b.ntet, d.vertices = b.X, d.tets = b.tet;
  d.position[2] = R - 2e-4; /* just touching */
  d.youngs_modulus = 2e5, d.poissons_ratio = 0.4, d.mass_density = 1000;
  d.mass_damping = 20; /* settles within the run */
  cr_assert_eq(iso_model_add_deformable(m, &d, NULL), ISO_OK, "%s", iso_last_error());
  isoGeometryDef g = iso_default_geometry_def();
  g.name = "table";
  g.shape = box ? ISO_SHAPE_BOX : ISO_SHAPE_HALFSPACE;
  g.size[0] = g.size[1] = 0.4, g.size[2] = 0.1;
  g.position[2] = box ? -0.05 : 0; /* the top face at z = 0 */
  g.compliance = ISO_COMPLIANCE_RIGID;
  cr_assert_eq(iso_model_add_geometry(m, &g, NULL), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  isoSim *s = make(m, 1, 1, ISO_BACKEND_CPU);
  run(s, 600);
  const int n3 = iso_sim_state_width(s, ISO_STATE_VERTEX_VELOCITY), nv = n3 / 3;
  double *v = (double *)malloc(sizeof(double) * (size_t)n3), *x = (double *)malloc(sizeof(double) * (size_t)n3);
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_VERTEX_VELOCITY, iso_worlds_all(), v), ISO_OK);
  double mass = 0;
  const double p0 = momentum_z(m, v, &mass);
  run(s, 100);
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_VERTEX_VELOCITY, iso_worlds_all(), v), ISO_OK);
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_VERTEX_POSITION, iso_worlds_all(), x), ISO_OK);
  const double weight_impulse = mass * G * 100 * DT, contact_impulse = (momentum_z(m, v, &mass) - p0) + weight_impulse;
  cr_expect(fabs(contact_impulse - weight_impulse) < 1e-3 * weight_impulse, "contact impulse %g, weight's %g",
            contact_impulse, weight_impulse);
  double zmin = INFINITY, squash = 0;
  for (int i = 0; i < nv; ++i) zmin = fmin(zmin, x[3 * i + 2]);
  /* the mirror images of every vertex in the rest mesh, and of its displacement */
  double worst = 0;
  for (int i = 0; i < nv; ++i) {
    const double *Xi = b.X + 3 * i;
    for (int mirror = 0; mirror < 3; ++mirror) {
      double want[3] = {Xi[0], Xi[1], Xi[2]};
      if (mirror == 0) want[0] = -want[0];
      else if (mirror == 1) want[1] = -want[1];
      else want[0] = Xi[1], want[1] = Xi[0];
      int j = -1;
      for (int k = 0; k < nv && j < 0; ++k)
        if (fabs(b.X[3 * k] - want[0]) + fabs(b.X[3 * k + 1] - want[1]) + fabs(b.X[3 * k + 2] - want[2]) < 1e-12) j = k;
      cr_assert_geq(j, 0, "vertex %d has no mirror image %d", i, mirror);
      double xi[3] = {x[3 * i], x[3 * i + 1], x[3 * i + 2]}, xj[3] = {x[3 * j], x[3 * j + 1], x[3 * j + 2]};
      if (mirror == 0) xj[0] = -xj[0];
      else if (mirror == 1) xj[1] = -xj[1];
      else {
        const double t = xj[0];
        xj[0] = xj[1], xj[1] = t;
      }
      for (int a = 0; a < 3; ++a) worst = fmax(worst, fabs(xi[a] - xj[a]));
    }
  }
  for (int i = 0; i < nv; ++i) squash = fmax(squash, fabs(x[3 * i + 2] - (b.X[3 * i + 2] + R - 2e-4)));
  if (!box) cr_expect_lt(worst, 1e-9, "the resting shape is asymmetric by %g m (squashed by %g m)", worst, squash);
  cr_expect_gt(squash, 1e-4, "the ball hardly squashed (%g m): the check of symmetry would be empty", squash);
  cr_expect(zmin < 0 && zmin > -2e-3, "the ball's lowest point at %g m", zmin);
  free(v), free(x);
  fem_mesh_free(&b);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

Test(fem_contact, ball_rests_on_a_half_space_symmetric_carrying_its_weight) { ball_on_floor(0); }
Test(fem_contact, ball_rests_on_a_box_carrying_its_weight) { ball_on_floor(1); }

/* A soft ball on a free rigid box on a floor: the ball's contacts push the box down as hard as
 * they hold the ball up (the rigid side's block of each deformable contact), so at rest the
 * floor carries both weights: the crate's contact wrench, which sums its rigid contacts (the
 * floor's), is (m_crate + m_ball)·g upward, to 1e-3 (what is left of the settling after 800
 * steps). */
Test(fem_contact, ball_on_a_free_box_weighs_on_the_floor) {
  isoModelDef md = iso_default_model_def();
  md.time_step = DT;
  isoModel *m = NULL;
  cr_assert_eq(iso_model_create(&md, &m), ISO_OK);
  femMesh b;
  const double R = 0.05;
  cr_assert_eq(fem_mesh_ball_symmetric(&b, R, 2), 0);
  isoDeformableDef d = iso_default_deformable_def();
  d.name = "ball";
  d.nvert = b.nvert, d.ntet = b.ntet, d.vertices = b.X, d.tets = b.tet;
  d.position[2] = 0.1 + R - 2e-4;
  d.youngs_modulus = 2e5, d.poissons_ratio = 0.4, d.mass_density = 1000, d.mass_damping = 20;
  cr_assert_eq(iso_model_add_deformable(m, &d, NULL), ISO_OK, "%s", iso_last_error());
  isoBodyDef bd = iso_default_body_def();
  bd.name = "crate";
  bd.mass = 2;
  bd.inertia[0] = bd.inertia[1] = 2 * (0.2 * 0.2 + 0.1 * 0.1) / 12, bd.inertia[2] = 2 * 0.08 / 12;
  int crate = -1;
  cr_assert_eq(iso_model_add_body(m, &bd, &crate), ISO_OK);
  isoFreeBodyState x0 = iso_default_free_body_state();
  x0.position[2] = 0.05;
  cr_assert_eq(iso_model_set_initial_state(m, crate, &x0), ISO_OK);
  isoGeometryDef g = iso_default_geometry_def();
  g.name = "crate";
  g.body = crate;
  g.shape = ISO_SHAPE_BOX;
  g.size[0] = g.size[1] = 0.2, g.size[2] = 0.1;
  g.compliance = ISO_COMPLIANCE_COMPLIANT;
  g.hydroelastic_modulus = 1e7;
  cr_assert_eq(iso_model_add_geometry(m, &g, NULL), ISO_OK, "%s", iso_last_error());
  isoGeometryDef f = iso_default_geometry_def();
  f.name = "floor";
  f.shape = ISO_SHAPE_HALFSPACE;
  f.compliance = ISO_COMPLIANCE_RIGID;
  cr_assert_eq(iso_model_add_geometry(m, &f, NULL), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  isoSim *s = make(m, 1, 1, ISO_BACKEND_CPU);
  run(s, 800);
  const int n3 = iso_sim_state_width(s, ISO_STATE_VERTEX_VELOCITY);
  double *v = (double *)malloc(sizeof(double) * (size_t)n3), mass = 0;
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_VERTEX_VELOCITY, iso_worlds_all(), v), ISO_OK);
  momentum_z(m, v, &mass);
  double w[6];
  cr_assert_eq(iso_sim_get_body_contact_wrench(s, 0, crate, w), ISO_OK, "%s", iso_last_error());
  const double want = (2 + mass) * G;
  /* the wrench sums the crate's rigid contacts: the floor's, carrying both */
  cr_expect(fabs(w[5] - want) < 1e-3 * want, "the floor holds the crate with %g N, want %g N", w[5], want);
  uint32_t st;
  cr_assert_eq(iso_sim_get_status(s, iso_worlds_all(), &st), ISO_OK);
  cr_expect_eq(st, 0u);
  double pose[7];
  cr_assert_eq(iso_sim_get_body_poses(s, iso_worlds_all(), pose), ISO_OK);
  cr_expect(fabs(pose[2] - 0.05) < 1e-3, "the crate sank to %g", pose[2]);
  free(v);
  fem_mesh_free(&b);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* v rotated by the unit quaternion q = (w, x, y, z): v + 2w(u × v) + 2u × (u × v), u = (x, y, z). */
static void rotate(const double *q, const double *v, double *out) {
  const double u[3] = {q[1], q[2], q[3]};
  const double c1[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
  const double c2[3] = {u[1] * c1[2] - u[2] * c1[1], u[2] * c1[0] - u[0] * c1[2], u[0] * c1[1] - u[1] * c1[0]};
  for (int k = 0; k < 3; ++k) out[k] = v[k] + 2 * q[0] * c1[k] + 2 * c2[k];
}

/* A soft beam welded at one end to a free rigid handle that spins about z in zero gravity
 * (iso_model_weld_deformable, Drake's fixed constraint): the welded vertices stay on their
 * points of the handle, and the beam swings round with it. The near-rigid bound: a row that
 * carries an impulse γ in a step sits at the gap g = −2δt·R·γ (v̂ = −g/(2δt), R = β²w/(4π²),
 * w the Delassus estimate), so the gap follows the load. The handle starts spinning while the
 * beam is at rest: the first steps carry the whole spin-up impulse (~I_b·ω/r ≈ 1 N·s), a gap of
 * 2e-5 m that the critically damped rows and the beam's ringing take some 200 steps to shed;
 * then the load is the beam's centripetal pull and the gap stays below 7e-8 m. Checked: below
 * 1e-4 m in the first 200 steps and 1e-7 m after, which a weld that slips fails by far (a body
 * turning 0.4 rad carries a free vertex centimetres away). */
Test(fem_contact, welded_vertices_follow_their_body) {
  isoModelDef md = iso_default_model_def();
  md.time_step = DT;
  md.gravity[2] = 0;
  isoModel *m = NULL;
  cr_assert_eq(iso_model_create(&md, &m), ISO_OK);
  femMesh b;
  cr_assert_eq(fem_mesh_box(&b, 0.3, 0.04, 0.04, 6, 1, 1), 0);
  isoDeformableDef d = iso_default_deformable_def();
  d.name = "beam";
  d.nvert = b.nvert, d.ntet = b.ntet, d.vertices = b.X, d.tets = b.tet;
  d.position[1] = d.position[2] = -0.02;
  d.youngs_modulus = 1e6, d.poissons_ratio = 0.4, d.mass_density = 1000, d.stiffness_damping = 0.01;
  int beam = -1;
  cr_assert_eq(iso_model_add_deformable(m, &d, &beam), ISO_OK, "%s", iso_last_error());
  isoBodyDef hd = iso_default_body_def();
  hd.name = "handle";
  hd.mass = 5;
  hd.inertia[0] = hd.inertia[1] = hd.inertia[2] = 0.01;
  int handle = -1;
  cr_assert_eq(iso_model_add_body(m, &hd, &handle), ISO_OK);
  isoFreeBodyState x0 = iso_default_free_body_state();
  x0.angular_velocity[2] = 2; /* rad/s */
  cr_assert_eq(iso_model_set_initial_state(m, handle, &x0), ISO_OK);
  const double size[3] = {0.02, 0.1, 0.1}, at[3] = {0, 0, 0}, q[4] = {1, 0, 0, 0};
  int welded = 0;
  cr_assert_eq(iso_model_weld_deformable(m, beam, handle, ISO_SHAPE_BOX, size, at, q, &welded), ISO_OK, "%s",
               iso_last_error());
  cr_assert_eq(welded, 4, "the x = 0 face of the beam: 4 vertices, %d welded", welded);
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  isoSim *s = make(m, 1, 1, ISO_BACKEND_CPU);
  const int n3 = iso_sim_state_width(s, ISO_STATE_VERTEX_POSITION), nv = n3 / 3;
  double *x = (double *)malloc(sizeof(double) * (size_t)n3);
  double worst = 0, start = 0, pose[7];
  for (int step = 0; step < 500; ++step) {
    run(s, 1);
    cr_assert_eq(iso_sim_get_state(s, ISO_STATE_VERTEX_POSITION, iso_worlds_all(), x), ISO_OK);
    cr_assert_eq(iso_sim_get_body_poses(s, iso_worlds_all(), pose), ISO_OK);
    /* the handle's frame: its rest frame is the world's, so a welded vertex's body point is its
     * rest position */
    for (int i = 0; i < nv; ++i) {
      if (b.X[3 * i] > 1e-9) continue; /* the welded face, x = 0 */
      const double P[3] = {b.X[3 * i], b.X[3 * i + 1] - 0.02, b.X[3 * i + 2] - 0.02}, want[3] = {0, 0, 0};
      rotate(pose + 3, P, (double *)want);
      for (int k = 0; k < 3; ++k) ((double *)want)[k] += pose[k];
      for (int k = 0; k < 3; ++k) {
        const double gap = fabs(x[3 * i + k] - want[k]);
        if (step < 200) start = fmax(start, gap);
        else worst = fmax(worst, gap);
      }
    }
  }
  cr_expect_lt(start, 1e-4, "the spin-up pulled a welded vertex %g m off its body point", start);
  cr_expect_lt(worst, 1e-7, "a welded vertex left its body point by %g m", worst);
  /* angular momentum about the spin axis is conserved: the handle (I_h = 0.01 kg m², 2 rad/s)
   * shares it with the beam (I_b = m(L²/3 + w²/12) = 0.014464 kg m², exact for the consistent
   * mass of a linear velocity field), so both turn at ω = 2·I_h/(I_h + I_b) and the far end is
   * at ω·t after t = 0.5 s; 5% allows for the beam's bending lag while it is spun up */
  double tip[2] = {0, 0};
  int ntip = 0;
  for (int i = 0; i < nv; ++i)
    if (b.X[3 * i] > 0.3 - 1e-9) tip[0] += x[3 * i], tip[1] += x[3 * i + 1], ++ntip;
  const double angle = atan2(tip[1] / ntip, tip[0] / ntip);
  const double omega = 2 * 0.01 / (0.01 + 0.48 * (0.09 / 3 + 0.0016 / 12));
  cr_expect(fabs(angle - omega * 0.5) < 0.05 * omega * 0.5, "the beam's far end is at %g rad, want %g", angle,
            omega * 0.5);
  uint32_t st;
  cr_assert_eq(iso_sim_get_status(s, iso_worlds_all(), &st), ISO_OK);
  cr_expect_eq(st, 0u);
  free(x);
  fem_mesh_free(&b);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* Two soft boxes stacked on a floor (deformable–deformable contact, kernels/fem/dd_contact.h):
 * the upper one comes to rest on the lower one, not through it. At rest its contacts with the
 * lower box carry its weight: its momentum changes over the last 100 steps by the contact
 * impulse minus its weight's, so the two agree (to 2e-3: the settling left after 400 steps of
 * the mass-damped bounce); its bottom sits on the lower box's top within the equal-distance
 * surface's reach (the two bodies meet where their distance fields are equal: each sinks about
 * half the overlap, under 1 mm here). */
Test(fem_contact, box_rests_on_a_box) {
  isoModelDef md = iso_default_model_def();
  md.time_step = DT;
  isoModel *m = NULL;
  cr_assert_eq(iso_model_create(&md, &m), ISO_OK);
  femMesh b;
  cr_assert_eq(fem_mesh_box(&b, 0.1, 0.1, 0.1, 3, 3, 3), 0);
  for (int k = 0; k < 2; ++k) {
    isoDeformableDef d = iso_default_deformable_def();
    d.name = k ? "upper" : "lower";
    d.nvert = b.nvert, d.ntet = b.ntet, d.vertices = b.X, d.tets = b.tet;
    d.position[0] = d.position[1] = -0.05;
    d.position[2] = k ? 0.1 - 5e-4 : -1e-4;
    d.youngs_modulus = 1e6, d.poissons_ratio = 0.3, d.mass_density = 1000, d.mass_damping = 20;
    cr_assert_eq(iso_model_add_deformable(m, &d, NULL), ISO_OK, "%s", iso_last_error());
  }
  isoGeometryDef g = iso_default_geometry_def();
  g.name = "floor";
  g.shape = ISO_SHAPE_HALFSPACE;
  g.compliance = ISO_COMPLIANCE_RIGID;
  cr_assert_eq(iso_model_add_geometry(m, &g, NULL), ISO_OK);
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  isoSimDef sd = iso_default_sim_def();
  sd.worlds = 1, sd.threads = 1, sd.backend = ISO_BACKEND_CPU;
  sd.capacity.max_participating = b.nvert; /* the floor's face, and two layers at the boxes' meeting */
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_OK, "%s", iso_last_error());
  run(s, 400);
  const int n3 = iso_sim_state_width(s, ISO_STATE_VERTEX_VELOCITY), nv = b.nvert;
  cr_assert_eq(n3, 6 * nv);
  double *v = (double *)malloc(sizeof(double) * (size_t)n3), *x = (double *)malloc(sizeof(double) * (size_t)n3);
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_VERTEX_VELOCITY, iso_worlds_all(), v), ISO_OK);
  /* the upper box's momentum: its element masses are the lower one's (same mesh and density) */
  double pz0 = 0, pz1 = 0, mass = 0;
  for (int i = 0; i < nv; ++i) pz0 += v[3 * (nv + i) + 2];
  run(s, 100);
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_VERTEX_VELOCITY, iso_worlds_all(), v), ISO_OK);
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_VERTEX_POSITION, iso_worlds_all(), x), ISO_OK);
  for (int i = 0; i < nv; ++i) pz1 += v[3 * (nv + i) + 2];
  mass = 1000 * 1e-3;
  /* mean vertex velocity stands for the momentum: the box moves as a whole at rest, and its
     consistent mass gives every vertex of a rigid motion the same weight */
  const double weight_impulse = mass * G * 100 * DT;
  const double contact_impulse = mass * (pz1 - pz0) / nv + weight_impulse;
  cr_expect(fabs(contact_impulse - weight_impulse) < 2e-3 * weight_impulse, "contact impulse %g, weight's %g",
            contact_impulse, weight_impulse);
  double upper_min = INFINITY, lower_max = -INFINITY;
  for (int i = 0; i < nv; ++i) {
    upper_min = fmin(upper_min, x[3 * (nv + i) + 2]);
    lower_max = fmax(lower_max, x[3 * i + 2]);
  }
  cr_expect(upper_min > lower_max - 1e-3 && upper_min < lower_max + 1e-3, "upper box bottom %g, lower box top %g",
            upper_min, lower_max);
  uint32_t st;
  cr_assert_eq(iso_sim_get_status(s, iso_worlds_all(), &st), ISO_OK);
  cr_expect_eq(st, 0u);
  free(v), free(x);
  fem_mesh_free(&b);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* A soft box grasped by two rigid fingers on joints, and lifted: each finger hangs from a lift
 * carriage (prismatic z from the world) by a prismatic x joint, all four PD-driven. The fingers
 * close on the box (their compliant pressure fields sampled on its surface; the fingers'
 * blocks are point Jacobians through their trees), then the carriages rise 3 cm: friction
 * carries the box up with them. Checked: the box leaves the floor (its lowest vertex rises
 * above 1 cm, which only the fingers can do) and stays between them, and no world faults. */
Test(fem_contact, fingers_on_joints_lift_a_soft_box) {
  isoModelDef md = iso_default_model_def();
  md.time_step = DT;
  isoModel *m = NULL;
  cr_assert_eq(iso_model_create(&md, &m), ISO_OK);
  femMesh b;
  const double L = 0.06;
  cr_assert_eq(fem_mesh_box(&b, L, L, L, 2, 2, 2), 0);
  isoDeformableDef d = iso_default_deformable_def();
  d.name = "sponge";
  d.nvert = b.nvert, d.ntet = b.ntet, d.vertices = b.X, d.tets = b.tet;
  d.position[0] = d.position[1] = -L / 2;
  d.position[2] = -1e-5;
  d.youngs_modulus = 1e5, d.poissons_ratio = 0.3, d.mass_density = 500, d.mass_damping = 5;
  d.mu_static = d.mu_dynamic = 1;
  cr_assert_eq(iso_model_add_deformable(m, &d, NULL), ISO_OK, "%s", iso_last_error());
  isoGeometryDef fl = iso_default_geometry_def();
  fl.name = "floor";
  fl.shape = ISO_SHAPE_HALFSPACE;
  fl.compliance = ISO_COMPLIANCE_RIGID;
  fl.mu_static = fl.mu_dynamic = 0.3;
  cr_assert_eq(iso_model_add_geometry(m, &fl, NULL), ISO_OK);
  int act[4];
  for (int side = 0; side < 2; ++side) {
    const double sx = side ? 1 : -1;
    isoBodyDef carriage = iso_default_body_def();
    carriage.name = side ? "carriage_r" : "carriage_l";
    carriage.mass = 0.5;
    int c = -1, f = -1;
    cr_assert_eq(iso_model_add_body(m, &carriage, &c), ISO_OK);
    isoBodyDef finger = iso_default_body_def();
    finger.name = side ? "finger_r" : "finger_l";
    finger.mass = 0.2;
    cr_assert_eq(iso_model_add_body(m, &finger, &f), ISO_OK);
    isoJointDef lift = iso_default_joint_def();
    lift.name = side ? "lift_r" : "lift_l";
    lift.type = ISO_JOINT_PRISMATIC;
    lift.parent = -1, lift.child = c;
    lift.parent_position[2] = L / 2;
    lift.axis[0] = 0, lift.axis[1] = 0, lift.axis[2] = 1;
    int jl = -1, js = -1;
    cr_assert_eq(iso_model_add_joint(m, &lift, &jl), ISO_OK, "%s", iso_last_error());
    isoJointDef squeeze = iso_default_joint_def();
    squeeze.name = side ? "squeeze_r" : "squeeze_l";
    squeeze.type = ISO_JOINT_PRISMATIC;
    squeeze.parent = c, squeeze.child = f;
    squeeze.parent_position[0] = sx * (L / 2 + 0.012); /* a 2 mm gap to the box */
    squeeze.axis[0] = 1, squeeze.axis[1] = 0, squeeze.axis[2] = 0;
    cr_assert_eq(iso_model_add_joint(m, &squeeze, &js), ISO_OK, "%s", iso_last_error());
    isoGeometryDef pad = iso_default_geometry_def();
    pad.name = side ? "pad_r" : "pad_l";
    pad.body = f;
    pad.shape = ISO_SHAPE_BOX;
    pad.size[0] = 0.02, pad.size[1] = 0.04, pad.size[2] = 0.04;
    pad.compliance = ISO_COMPLIANCE_RIGID;
    pad.hydroelastic_modulus = 1e7;
    pad.mu_static = pad.mu_dynamic = 1;
    cr_assert_eq(iso_model_add_geometry(m, &pad, NULL), ISO_OK, "%s", iso_last_error());
    isoActuatorDef a = iso_default_actuator_def();
    a.joint = jl, a.kp = 2000, a.kd = 100;
    cr_assert_eq(iso_model_add_actuator(m, &a, &act[2 * side]), ISO_OK, "%s", iso_last_error());
    a.joint = js, a.kp = 500, a.kd = 20;
    cr_assert_eq(iso_model_add_actuator(m, &a, &act[2 * side + 1]), ISO_OK, "%s", iso_last_error());
  }
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  isoSim *s = make(m, 1, 1, ISO_BACKEND_CPU);
  /* actuators in order: lift_l, squeeze_l, lift_r, squeeze_r; close 6 mm past contact, then lift */
  double target[4] = {0, 0.008, 0, -0.008};
  cr_assert_eq(iso_sim_set_state(s, ISO_STATE_TARGET_POSITION, iso_worlds_all(), target), ISO_OK);
  run(s, 300);
  target[0] = target[2] = 0.03;
  cr_assert_eq(iso_sim_set_state(s, ISO_STATE_TARGET_POSITION, iso_worlds_all(), target), ISO_OK);
  run(s, 500);
  const int n3 = iso_sim_state_width(s, ISO_STATE_VERTEX_POSITION);
  double *x = (double *)malloc(sizeof(double) * (size_t)n3);
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_VERTEX_POSITION, iso_worlds_all(), x), ISO_OK);
  double zmin = INFINITY, xmin = INFINITY, xmax = -INFINITY;
  for (int i = 0; i < n3 / 3; ++i) {
    zmin = fmin(zmin, x[3 * i + 2]);
    xmin = fmin(xmin, x[3 * i]), xmax = fmax(xmax, x[3 * i]);
  }
  cr_expect_gt(zmin, 0.01, "the box's lowest vertex is at %g m: not lifted", zmin);
  cr_expect(xmin > -L / 2 - 0.01 && xmax < L / 2 + 0.01, "the box slipped out: x in [%g, %g]", xmin, xmax);
  uint32_t st;
  cr_assert_eq(iso_sim_get_status(s, iso_worlds_all(), &st), ISO_OK);
  cr_expect_eq(st, 0u);
  free(x);
  fem_mesh_free(&b);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}
