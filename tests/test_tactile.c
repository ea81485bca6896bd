/* Tactile pads (include/isobar/tactile.h, kernels/tactile/taxels.h): arguments checked at the
 * door, a resting box's weight and centre of pressure, shear in the pad frame, point contact on
 * the nearest taxel, and the samples' bits across threads, batches and backends.
 *
 * The scene: a compliant hydroelastic box "pad" 0.2 × 0.2 × 0.05 m anchored to the world with
 * its top face at z = 0, and a rigid 0.1 m cube of 1 kg resting on it (or a point-contact
 * sphere). The pad frame sits on the top face, so the grid's taxels lie on it, x and y as the
 * world's unless the pad is turned. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "isobar/isobar.h"
#include "support/support.h"

#define G 9.81
#define MASS 1.0
#define L 0.1     /* the cube's edge, m */
#define S 0.0025  /* taxel spacing, m */
#define N 64      /* taxels per side: the grid spans ±78.75 mm, wider than any patch below */

typedef struct scene {
  double x, y;          /* where the cube (or sphere) starts, m */
  double gravity[3];    /* m/s² */
  double pad_yaw;       /* the pad frame turned about z, rad */
  int sphere;           /* a point-contact sphere instead of the cube */
  double height;        /* the cube's height (a plate when below L), m */
  int jointed;          /* the cube slides on a vertical prismatic joint instead of being free */
  int pad_on_cube;      /* the pad on the cube's bottom face (facing down) instead of the pad's top */
  int soft_cube;        /* the cube compliant too (the surface then depends on both moduli) */
  isoSurfaceRepresentation rep;
} scene;

static scene default_scene(void) {
  scene c;
  memset(&c, 0, sizeof c);
  c.gravity[2] = -G;
  c.height = L;
  return c;
}

static isoModel *build(const scene *c) {
  isoModelDef md = iso_default_model_def();
  for (int k = 0; k < 3; ++k) md.gravity[k] = c->gravity[k];
  isoModel *m = NULL;
  cr_assert_eq(iso_model_create(&md, &m), ISO_OK, "%s", iso_last_error());
  isoGeometryDef g = iso_default_geometry_def();
  g.name = "pad";
  g.shape = ISO_SHAPE_BOX;
  g.size[0] = g.size[1] = 0.2, g.size[2] = 0.05;
  g.position[2] = -0.025;
  g.compliance = ISO_COMPLIANCE_COMPLIANT;
  int pad_geom = -1;
  cr_assert_eq(iso_model_add_geometry(m, &g, &pad_geom), ISO_OK, "%s", iso_last_error());
  isoBodyDef bd = iso_default_body_def();
  bd.mass = MASS;
  const double r = 0.02;
  const double h = c->height;
  for (int k = 0; k < 3; ++k) bd.inertia[k] = c->sphere ? 0.4 * MASS * r * r : MASS * (L * L + (k < 2 ? h * h : L * L)) / 12;
  int body = -1;
  cr_assert_eq(iso_model_add_body(m, &bd, &body), ISO_OK, "%s", iso_last_error());
  isoGeometryDef b = iso_default_geometry_def();
  b.body = body;
  if (c->sphere) { /* no hydroelastic properties: point contact with the pad */
    b.shape = ISO_SHAPE_SPHERE, b.size[0] = r;
  } else {
    b.shape = ISO_SHAPE_BOX, b.size[0] = b.size[1] = L, b.size[2] = h;
    b.compliance = c->soft_cube ? ISO_COMPLIANCE_COMPLIANT : ISO_COMPLIANCE_RIGID;
  }
  int cube_geom = -1;
  cr_assert_eq(iso_model_add_geometry(m, &b, &cube_geom), ISO_OK, "%s", iso_last_error());
  if (c->jointed) { /* q = 0 puts the body where a free one would start */
    isoJointDef j = iso_default_joint_def();
    j.type = ISO_JOINT_PRISMATIC, j.child = body;
    j.parent_position[0] = c->x, j.parent_position[1] = c->y, j.parent_position[2] = h / 2;
    cr_assert_eq(iso_model_add_joint(m, &j, NULL), ISO_OK, "%s", iso_last_error());
  } else {
    isoFreeBodyState st = iso_default_free_body_state();
    st.position[0] = c->x, st.position[1] = c->y, st.position[2] = c->sphere ? r : h / 2;
    cr_assert_eq(iso_model_set_initial_state(m, body, &st), ISO_OK, "%s", iso_last_error());
  }
  isoTactilePadDef p = iso_default_tactile_pad_def();
  p.geometry = pad_geom;
  if (c->pad_on_cube) { /* on the bottom face, turned half a turn about x: +z points down, out */
    p.geometry = cube_geom;
    p.position[2] = -h / 2;
    p.quaternion[0] = 0, p.quaternion[1] = 1;
  }
  p.rows = p.cols = N;
  p.spacing = S;
  if (!c->pad_on_cube) p.quaternion[0] = cos(c->pad_yaw / 2), p.quaternion[3] = sin(c->pad_yaw / 2);
  int index = -1;
  cr_assert_eq(iso_model_add_tactile_pad(m, &p, &index), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(index, 0);
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  return m;
}

static isoSim *make(const isoModel *m, const scene *c, int worlds, int threads, isoBackendKind backend) {
  isoSimDef sd = iso_default_sim_def();
  sd.worlds = worlds, sd.threads = threads, sd.backend = backend;
  sd.contact.surface_representation = c->rep;
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_OK, "%s", iso_last_error());
  return s;
}

static void run(isoSim *s, int steps) {
  for (int i = 0; i < steps; ++i) cr_assert_eq(iso_sim_step(s), ISO_OK, "step %d: %s", i, iso_last_error());
}

/* Taxel k's place on the pad (pad frame), m. */
static double taxel_x(int k) { return ((k % N) - (N - 1) / 2.0) * S; }
static double taxel_y(int k) { return ((k / N) - (N - 1) / 2.0) * S; }

/* What the pad of world w sensed: total force (pad frame), the pressures' integral Σ p·s², the
 * centre of pressure Σ p·x / Σ p (pad frame) and the taxels pressed. */
typedef struct sensed {
  double f[3], load, cop[2];
  int pressed;
} sensed;

static sensed sense(const isoSim *s, int w) {
  double *f = (double *)malloc(sizeof(double) * 3 * N * N), *p = (double *)malloc(sizeof(double) * N * N);
  cr_assert_eq(iso_sim_get_taxel_forces(s, 0, iso_worlds_one(w), f), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_sim_get_taxel_pressures(s, 0, iso_worlds_one(w), p), ISO_OK, "%s", iso_last_error());
  sensed o;
  memset(&o, 0, sizeof o);
  double sp = 0;
  for (int k = 0; k < N * N; ++k) {
    for (int i = 0; i < 3; ++i) o.f[i] += f[3 * k + i];
    /* the pressure is the normal stress −f_z/s², so p·s² gives −f_z back to rounding */
    cr_assert(fabs(p[k] * S * S + f[3 * k + 2]) <= 1e-12 * fabs(f[3 * k + 2]), "taxel %d", k);
    o.load += p[k] * S * S;
    sp += p[k];
    o.cop[0] += p[k] * taxel_x(k), o.cop[1] += p[k] * taxel_y(k);
    o.pressed += p[k] != 0;
  }
  if (sp != 0) o.cop[0] /= sp, o.cop[1] /= sp;
  free(f), free(p);
  return o;
}

/* At rest the contact force balances the weight: over a step the body's velocity changes by
 * less than 1e-7 m/s (checked), so the forces differ from m·g by less than m·1e-7/δt = 1e-4 N
 * — the dynamics' share of every force tolerance below. */
#define REST_TOL 1e-4

/* Step world w's sim once more and check that the body's velocity is steady (and the world
 * clean): the samples then are those of a body in equilibrium. */
static void assert_at_rest(isoSim *s, int w) {
  const int nw = iso_sim_world_count(s);
  double *v0 = (double *)malloc(sizeof(double) * 6 * (size_t)nw), *v1 = (double *)malloc(sizeof(double) * 6 * (size_t)nw);
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_V, iso_worlds_all(), v0), ISO_OK);
  run(s, 1);
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_V, iso_worlds_all(), v1), ISO_OK);
  for (int k = 3; k < 6; ++k)
    cr_assert(fabs(v1[6 * w + k] - v0[6 * w + k]) < 1e-7, "world %d: v[%d] %g → %g, not steady", w, k, v0[6 * w + k],
              v1[6 * w + k]);
  free(v0), free(v1);
  uint32_t st = 0;
  cr_assert_eq(iso_sim_get_status(s, iso_worlds_one(w), &st), ISO_OK);
  cr_assert_eq(st, 0u, "world %d status %#x", w, st);
}

Test(tactile, bad_arguments_are_rejected_at_the_door) {
  isoModel *m = NULL;
  cr_assert_eq(iso_model_create(NULL, &m), ISO_OK);
  isoGeometryDef g = iso_default_geometry_def();
  cr_assert_eq(iso_model_add_geometry(m, &g, NULL), ISO_OK);
  isoTactilePadDef d = iso_default_tactile_pad_def();
  cr_expect_eq(d.rows, 1);
  cr_expect_eq(d.cols, 1);
  cr_expect_eq(d.spacing, 0.005);
  cr_expect_eq(d.quaternion[0], 1.0);
  cr_expect_eq(iso_model_add_tactile_pad(NULL, &d, NULL), ISO_ERR_NULL);
  cr_expect_eq(iso_model_add_tactile_pad(m, NULL, NULL), ISO_ERR_NULL);
  isoTactilePadDef bad[12];
  for (int i = 0; i < 12; ++i) bad[i] = d;
  bad[0].geometry = -1, bad[1].geometry = 1, bad[2].rows = 0, bad[3].cols = -2;
  bad[4].rows = bad[4].cols = 257; /* 66049 > ISO_MAX_TAXELS_PER_PAD */
  bad[5].spacing = 0, bad[6].spacing = -1e-3, bad[7].spacing = NAN, bad[8].spacing = INFINITY;
  bad[9].position[1] = NAN;
  bad[10].quaternion[0] = 0;
  bad[11].quaternion[2] = INFINITY;
  for (int i = 0; i < 12; ++i) {
    cr_expect_eq(iso_model_add_tactile_pad(m, bad + i, NULL), ISO_ERR_INVALID, "case %d accepted", i);
    cr_expect(strstr(iso_last_error(), "tactile pad 0") != NULL, "case %d: '%s' names no pad", i, iso_last_error());
  }
  cr_expect_eq(iso_model_tactile_pad_count(m), 0, "a rejected pad left the model changed");
  /* the model's total is bounded too: 16 full pads fill ISO_MAX_TAXELS, a 17th is refused */
  isoTactilePadDef big = d;
  big.rows = big.cols = 256;
  for (int i = 0; i < ISO_MAX_TAXELS / (256 * 256); ++i) cr_assert_eq(iso_model_add_tactile_pad(m, &big, NULL), ISO_OK);
  cr_expect_eq(iso_model_add_tactile_pad(m, &d, NULL), ISO_ERR_INVALID);
  isoModel *m2 = NULL;
  cr_assert_eq(iso_model_create(NULL, &m2), ISO_OK);
  cr_assert_eq(iso_model_add_geometry(m2, &g, NULL), ISO_OK);
  isoTactilePadDef q = d;
  q.rows = 3, q.cols = 5, q.spacing = 0.002, q.quaternion[0] = 2; /* stored normalised */
  int index = -1;
  cr_assert_eq(iso_model_add_tactile_pad(m2, &q, &index), ISO_OK, "%s", iso_last_error());
  cr_expect_eq(index, 0);
  cr_expect_eq(iso_model_tactile_pad_count(m2), 1);
  cr_expect_eq(iso_model_tactile_pad_count(NULL), 0);
  isoTactilePadDef back;
  cr_assert_eq(iso_model_get_tactile_pad(m2, 0, &back), ISO_OK);
  cr_expect_eq(back.rows, 3);
  cr_expect_eq(back.cols, 5);
  cr_expect_eq(back.quaternion[0], 1.0);
  cr_expect_eq(iso_model_get_tactile_pad(m2, 1, &back), ISO_ERR_NOT_FOUND);
  cr_expect_eq(iso_model_get_tactile_pad(m2, 0, NULL), ISO_ERR_NULL);
  cr_assert_eq(iso_model_compile(m2), ISO_OK, "%s", iso_last_error());
  cr_expect_eq(iso_model_add_tactile_pad(m2, &d, NULL), ISO_ERR_STATE, "a compiled model took a pad");

  /* the sim's queries */
  isoSimDef sd = iso_default_sim_def();
  sd.worlds = 2, sd.backend = ISO_BACKEND_CPU;
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m2, &sd, &s), ISO_OK, "%s", iso_last_error());
  cr_expect_eq(iso_sim_tactile_count(s), 1);
  cr_expect_eq(iso_sim_tactile_count(NULL), 0);
  cr_expect_eq(iso_sim_taxel_total(s), 15);
  cr_expect_eq(iso_sim_taxel_total(NULL), 0);
  int off = -1, count = -1;
  cr_expect_eq(iso_sim_taxel_offset(s, 0, &off, &count), ISO_OK);
  cr_expect_eq(off, 0);
  cr_expect_eq(count, 15);
  cr_expect_eq(iso_sim_taxel_offset(s, 1, &off, &count), ISO_ERR_NOT_FOUND);
  cr_expect_eq(iso_sim_taxel_offset(s, -1, NULL, NULL), ISO_ERR_NOT_FOUND);
  cr_expect_eq(iso_sim_taxel_offset(NULL, 0, NULL, NULL), ISO_ERR_NULL);
  double out[2 * 45];
  cr_expect_eq(iso_sim_get_taxel_forces(s, 0, iso_worlds_one(2), out), ISO_ERR_INVALID, "world 2 of 2 was read");
  cr_expect_eq(iso_sim_get_taxel_forces(s, 1, iso_worlds_all(), out), ISO_ERR_NOT_FOUND);
  cr_expect_eq(iso_sim_get_taxel_forces(s, 0, iso_worlds_all(), NULL), ISO_ERR_NULL);
  cr_expect_eq(iso_sim_get_taxel_pressures(NULL, 0, iso_worlds_all(), out), ISO_ERR_NULL);
  cr_expect_eq(iso_sim_get_taxel_pressures(s, 0, iso_worlds_one(-1), out), ISO_ERR_INVALID);
  const double *bf = NULL, *bp = NULL;
  cr_expect_eq(iso_sim_taxel_buffers(NULL, &bf, &bp), ISO_ERR_NULL);
  cr_expect_eq(iso_sim_taxel_buffers(s, &bf, &bp), ISO_OK);
  cr_expect(bf != NULL && bp != NULL);
  /* nothing can touch here (one geometry, on the world): the samples stay zero after a step */
  run(s, 2);
  cr_assert_eq(iso_sim_get_taxel_forces(s, 0, iso_worlds_all(), out), ISO_OK);
  for (int k = 0; k < 2 * 45; ++k) cr_expect_eq(out[k], 0.0);
  iso_sim_destroy(s);
  iso_model_destroy(m), iso_model_destroy(m2);
}

/* A cube at rest on the pad, its patch a 0.1 m square centred under its COM. The patch's edges
 * at ±50 mm lie midway between taxel columns (taxels at odd multiples of s/2), so the taxels'
 * cells tile the patch exactly (N·s² = A: 40 × 40 taxels), and what could separate Σ p·s² from
 * the total force is the variation of the traction between faces times the area of the cells
 * their shared edges cut; a flat face sunk uniformly into a slab whose field is linear in depth
 * has a uniform pressure (to the cube's rest tilt, ~1e-10 rad), so that is round-off. Tolerance:
 * the dynamics' REST_TOL. The centre of pressure: the patch and the grid are symmetric about the
 * COM's vertical, so it is under the COM to round-off; a row of taxels lost or counted twice
 * would move it by s/80 ≈ 31 µm, so 1 µm tells the two apart. Both representations of the
 * surface (polygons, and their centroid fans, whose triangles share more edges) sense the same.
 * The faces on the cube's sides (it sinks 2.5 µm into the pad) face sideways and are not the
 * pad's; they carry < 1e-3 N of the tangential force, which is all the shear there is. */
Test(tactile, resting_box_weighs_its_weight_centred_under_its_com) {
  for (int rep = 0; rep < 2; ++rep) {
    scene c = default_scene();
    c.rep = (isoSurfaceRepresentation)rep;
    isoModel *m = build(&c);
    isoSim *s = make(m, &c, 1, 1, ISO_BACKEND_CPU);
    run(s, 400);
    assert_at_rest(s, 0);
    sensed o = sense(s, 0);
    cr_expect(fabs(o.load - MASS * G) <= REST_TOL, "rep %d: Σ p·s² = %.9g N, weight %.9g N", rep, o.load, MASS * G);
    cr_expect(fabs(o.f[2] + MASS * G) <= REST_TOL, "rep %d: Σ f_z = %.9g N", rep, o.f[2]);
    cr_expect(fabs(o.f[0]) < 1e-3 && fabs(o.f[1]) < 1e-3, "rep %d: shear %g %g N", rep, o.f[0], o.f[1]);
    cr_expect_eq(o.pressed, 1600, "rep %d: %d taxels pressed, the patch covers 40 × 40", rep, o.pressed);
    cr_expect(fabs(o.cop[0]) <= 1e-6 && fabs(o.cop[1]) <= 1e-6, "rep %d: centre of pressure (%g, %g) m", rep,
              o.cop[0], o.cop[1]);
    iso_sim_destroy(s);
    iso_model_destroy(m);
  }
}

/* The cube set down at x = d: the centre of pressure follows it. At d = 20 mm (8 spacings) the
 * patch's edges still fall midway between taxels, and everything above holds at d. At d values
 * that are not multiples of s, the patch's x edges cut the grid anywhere: a column of 40 taxels
 * (0.1 m × s of patch) can be in or out, so |Σ p·s² − m·g| <= p̄·(0.1 m · s) + REST_TOL with
 * p̄ = m·g / (0.1 m)², and the taxels' mean x lies within s/2 of the patch's centre. */
Test(tactile, offset_box_moves_the_centre_of_pressure) {
  const double d[3] = {0.02, 0.0131, -0.0077};
  for (int i = 0; i < 3; ++i) {
    scene c = default_scene();
    c.x = d[i];
    isoModel *m = build(&c);
    isoSim *s = make(m, &c, 1, 1, ISO_BACKEND_CPU);
    run(s, 400);
    assert_at_rest(s, 0);
    double q[7];
    cr_assert_eq(iso_sim_get_state(s, ISO_STATE_Q, iso_worlds_one(0), q), ISO_OK);
    const double x = q[4]; /* where the cube rests (it does not slide: |x − d| is round-off) */
    cr_expect(fabs(x - d[i]) < 1e-9);
    sensed o = sense(s, 0);
    const int aligned = i == 0;
    const double pbar = MASS * G / (L * L);
    const double tol = aligned ? REST_TOL : pbar * L * S + REST_TOL;
    cr_expect(fabs(o.load - MASS * G) <= tol, "d = %g: Σ p·s² = %.9g N (tolerance %g)", d[i], o.load, tol);
    const double ctol = aligned ? 1e-6 : S / 2;
    cr_expect(fabs(o.cop[0] - x) <= ctol, "d = %g: centre of pressure x = %.9g m", d[i], o.cop[0]);
    cr_expect(fabs(o.cop[1]) <= 1e-6, "d = %g: centre of pressure y = %.9g m", d[i], o.cop[1]);
    iso_sim_destroy(s);
    iso_model_destroy(m);
  }
}

/* Gravity with a horizontal part g_t = (1, 0.5) m/s², held by friction (μ = 0.5 > |g_t|/g): the
 * pad bears the body's weight m·g, pushed along g_t, and reports it in its own frame:
 * f_P = R_WPᵀ·m·g, here with the pad frame turned by 90° about z, so (m·g_y, −m·g_x, m·g_z).
 * Under a steady creep (SAP's regularised friction) the forces still balance gravity. The body
 * is a 1 cm plate, so that the moment of the friction about its COM (at h = 5 mm) tilts the
 * pressure little: moment balance puts the centre of pressure e = h·|g_t|/g = 0.57 mm off, a
 * linear pressure that departs from p̄ by at most p̄·6e/L = 34 Pa at the patch's edges. Each
 * face samples its own uniform traction; the taxels' cells along the edges the faces share (the
 * two diagonals of the patch, 0.28 m, which the grid's rows meet anywhere once the plate has
 * moved) may fall on either side, so the total can be off by 34 Pa × 0.28 m × s = 0.024 N. The
 * plate's side faces inside the pad, which the pad does not sample, carry at most p̄·L·δ per
 * side (pressure rising from 0 to p̄ over the sinking δ = p̄·0.025 m / E = 2.45 µm): 1e-3 N for
 * the four. With REST_TOL, 0.025 N — against components of 0.5, 1 and 9.81 N, whose signs and
 * order the frame decides. */
Test(tactile, shear_reads_in_the_pad_frame) {
  scene c = default_scene();
  c.gravity[0] = 1.0, c.gravity[1] = 0.5;
  c.pad_yaw = 2 * atan(1.0); /* 90° */
  c.height = 0.01;
  isoModel *m = build(&c);
  isoSim *s = make(m, &c, 1, 1, ISO_BACKEND_CPU);
  run(s, 400);
  assert_at_rest(s, 0);
  sensed o = sense(s, 0);
  const double want[3] = {MASS * 0.5, -MASS * 1.0, -MASS * G};
  const double pbar = MASS * G / (L * L), delta = pbar * 0.025 / 1e7, e = 0.005 * hypot(1.0, 0.5) / G;
  const double tol = pbar * 6 * e / L * (2 * sqrt(2.0) * L) * S + 4 * pbar * L * delta + REST_TOL;
  for (int k = 0; k < 3; ++k)
    cr_expect(fabs(o.f[k] - want[k]) <= tol, "f_P[%d] = %.9g N, want %.9g (tolerance %g)", k, o.f[k], want[k], tol);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* The pad on the cube, facing down, and the cube on a prismatic joint: the pad moves with its
 * body, samples the rigid side of the contact (the cube is geometry N of its faces), and its
 * constraints have dense Jacobian blocks (a jointed tree). The cube pressing on the compliant
 * box gets the box's push back, up in the world, which is −z in a pad frame whose z points
 * down: the same weight, and pressures positive. The pad's y axis is the world's −y (half a
 * turn about x), so a cube offset by (d_x, d_y) would put its centre of pressure at the pad's
 * centre; here the patch and the grid are centred as in the resting test, with its tolerances. */
Test(tactile, pad_on_a_jointed_body_senses_the_push_back) {
  scene c = default_scene();
  c.jointed = 1, c.pad_on_cube = 1;
  isoModel *m = build(&c);
  isoSim *s = make(m, &c, 1, 1, ISO_BACKEND_CPU);
  run(s, 400);
  double v0 = 0, v1 = 0;
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_V, iso_worlds_one(0), &v0), ISO_OK);
  run(s, 1);
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_V, iso_worlds_one(0), &v1), ISO_OK);
  cr_assert(fabs(v1 - v0) < 1e-7, "not at rest: v %g → %g", v0, v1);
  sensed o = sense(s, 0);
  cr_expect(fabs(o.load - MASS * G) <= REST_TOL, "Σ p·s² = %.9g N", o.load);
  cr_expect(fabs(o.f[2] + MASS * G) <= REST_TOL, "Σ f_z = %.9g N", o.f[2]);
  cr_expect_eq(o.pressed, 1600);
  cr_expect(fabs(o.cop[0]) <= 1e-6 && fabs(o.cop[1]) <= 1e-6, "centre of pressure (%g, %g) m", o.cop[0], o.cop[1]);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* A sphere without hydroelastic properties touches the pad at one point: its whole force, the
 * sphere's weight, lands on the taxel nearest that point, and no other taxel is touched. The
 * sphere sits at (11.2, −7.1) mm: taxel column round(11.2/2.5 + 31.5) = 36, row
 * round(−7.1/2.5 + 31.5) = 29. */
Test(tactile, point_contact_goes_to_the_nearest_taxel) {
  scene c = default_scene();
  c.sphere = 1, c.x = 0.0112, c.y = -0.0071;
  isoModel *m = build(&c);
  isoSim *s = make(m, &c, 1, 1, ISO_BACKEND_CPU);
  run(s, 400);
  assert_at_rest(s, 0);
  double *f = (double *)malloc(sizeof(double) * 3 * N * N);
  cr_assert_eq(iso_sim_get_taxel_forces(s, 0, iso_worlds_one(0), f), ISO_OK);
  const int hit = 29 * N + 36;
  for (int k = 0; k < N * N; ++k) {
    if (k == hit) continue;
    cr_assert(f[3 * k] == 0 && f[3 * k + 1] == 0 && f[3 * k + 2] == 0, "taxel %d touched", k);
  }
  cr_expect(fabs(f[3 * hit + 2] + MASS * G) <= REST_TOL, "taxel %d: f_z = %.9g N", hit, f[3 * hit + 2]);
  cr_expect(fabs(f[3 * hit]) <= REST_TOL && fabs(f[3 * hit + 1]) <= REST_TOL);
  free(f);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* Worlds where the cube starts at different places (0 to 9 mm, off the grid's lines). */
static void spread(isoSim *s) {
  const int nw = iso_sim_world_count(s);
  double *q = (double *)malloc(sizeof(double) * 7 * (size_t)nw);
  cr_assert_eq(iso_sim_get_state(s, ISO_STATE_Q, iso_worlds_all(), q), ISO_OK);
  for (int w = 0; w < nw; ++w) q[7 * w + 4] = 0.0011 * w, q[7 * w + 5] = -0.0007 * w;
  cr_assert_eq(iso_sim_set_state(s, ISO_STATE_Q, iso_worlds_all(), q), ISO_OK, "%s", iso_last_error());
  free(q);
}

static double *all_forces(const isoSim *s) {
  const int nw = iso_sim_world_count(s);
  double *f = (double *)malloc(sizeof(double) * 3 * N * N * (size_t)nw);
  cr_assert_eq(iso_sim_get_taxel_forces(s, 0, iso_worlds_all(), f), ISO_OK, "%s", iso_last_error());
  return f;
}

/* The samples are the same bits on 1 and 2 threads, world 3 alone is world 3 of the batch, the
 * zero-copy buffer is the getter's row, and a reset zeroes the selected worlds' taxels only. */
Test(tactile, samples_are_reproducible_across_threads_and_batches) {
  scene c = default_scene();
  isoModel *m = build(&c);
  isoSim *a = make(m, &c, 4, 1, ISO_BACKEND_CPU), *b = make(m, &c, 4, 2, ISO_BACKEND_CPU);
  isoSim *one = make(m, &c, 1, 1, ISO_BACKEND_CPU);
  spread(a), spread(b);
  double q[28];
  cr_assert_eq(iso_sim_get_state(a, ISO_STATE_Q, iso_worlds_one(3), q), ISO_OK);
  cr_assert_eq(iso_sim_set_state(one, ISO_STATE_Q, iso_worlds_all(), q), ISO_OK);
  run(a, 60), run(b, 60), run(one, 60);
  double *fa = all_forces(a), *fb = all_forces(b), *f1 = all_forces(one);
  cr_expect(test_same_bits(fa, fb, 4 * 3 * N * N), "1 and 2 threads differ");
  cr_expect(test_same_bits(f1, fa + 3L * 3 * N * N, 3 * N * N), "world 3 alone differs from world 3 in the batch");
  for (int w = 0; w < 4; ++w) cr_expect(sense(a, w).pressed > 1000, "world %d: the cube is not on the pad", w);
  const double *bf = NULL, *bp = NULL;
  cr_assert_eq(iso_sim_taxel_buffers(a, &bf, &bp), ISO_OK);
  cr_expect(test_same_bits(bf, fa, 4 * 3 * N * N), "the buffer is not the getter's rows");
  double *p = (double *)malloc(sizeof(double) * 4 * N * N);
  cr_assert_eq(iso_sim_get_taxel_pressures(a, 0, iso_worlds_all(), p), ISO_OK);
  cr_expect(test_same_bits(bp, p, 4 * N * N));
  isoView vf, vp; /* the views (include/isobar/view.h) are the same memory, one row per world */
  cr_assert_eq(iso_sim_view(a, "taxel_force", &vf), ISO_OK);
  cr_assert_eq(iso_sim_view(a, "taxel_pressure", &vp), ISO_OK);
  cr_expect(vf.data == (const void *)bf && vp.data == (const void *)bp);
  cr_expect(vf.shape[0] == 4 && vf.shape[1] == 3 * N * N && vf.strides[0] == 3 * N * N);
  cr_expect(vp.shape[1] == N * N && vp.strides[0] == N * N);
  cr_assert_eq(iso_sim_reset(a, iso_worlds_one(1)), ISO_OK);
  double *fr = all_forces(a);
  for (int k = 0; k < 3 * N * N; ++k) cr_assert_eq(fr[3 * N * N + k], 0.0, "world 1 not reset");
  cr_expect(test_same_bits(fr, fa, 3 * N * N), "world 0 changed by world 1's reset");
  free(fa), free(fb), free(f1), free(fr), free(p);
  iso_sim_destroy(a), iso_sim_destroy(b), iso_sim_destroy(one);
  iso_model_destroy(m);
}

/* Taxels nobody has read are sampled when first read, from what the last step left, and are the
 * bits a sim sampling at every step wrote (its buffers taken at creation): read after the
 * state's velocities were overwritten (the step keeps its own), after a contact update, a reset
 * of another world, a new modulus for the pad (the cube is compliant too, so the moduli place
 * the surface). Both sims get the same calls, so they step on alike. */
static void alter(isoSim *s, int round) {
  if (round == 0) { /* the state's velocities, which the sampling reads, overwritten */
    double v[3 * 6] = {0};
    cr_assert_eq(iso_sim_set_state(s, ISO_STATE_V, iso_worlds_all(), v), ISO_OK, "%s", iso_last_error());
  } else if (round == 1) {
    cr_assert_eq(iso_sim_update_contact(s), ISO_OK, "%s", iso_last_error());
  } else if (round == 2) {
    cr_assert_eq(iso_sim_reset(s, iso_worlds_one(1)), ISO_OK, "%s", iso_last_error());
  } else { /* the pad's modulus doubled in world 2 (the pad is geometry 0) */
    double e = 0;
    cr_assert_eq(iso_sim_get_param(s, ISO_PARAM_GEOM_MODULUS, 0, iso_worlds_one(2), &e), ISO_OK);
    e *= 2;
    cr_assert_eq(iso_sim_set_param(s, ISO_PARAM_GEOM_MODULUS, 0, iso_worlds_one(2), &e), ISO_OK, "%s", iso_last_error());
  }
}

Test(tactile, samples_taken_when_first_read_are_the_steps_own) {
  scene c = default_scene();
  c.soft_cube = 1;
  isoModel *m = build(&c);
  isoSim *each = make(m, &c, 3, 1, ISO_BACKEND_CPU), *later = make(m, &c, 3, 2, ISO_BACKEND_CPU);
  spread(each), spread(later);
  const double *bf = NULL;
  cr_assert_eq(iso_sim_taxel_buffers(each, &bf, NULL), ISO_OK);
  const long n = 3L * N * N;
  for (int round = 0; round < 4; ++round) {
    run(each, round ? 5 : 40), run(later, round ? 5 : 40);
    alter(each, round), alter(later, round);
    double *fl = all_forces(later);
    long pressed = 0;
    for (long k = 0; k < 3 * n; ++k) pressed += fl[k] != 0;
    cr_expect(pressed > 100, "round %d: %ld taxel components nonzero", round, pressed);
    for (int w = 0; w < 3; ++w)
      cr_expect(test_same_bits(fl + w * n, bf + w * n, n), "round %d, world %d: not the step's samples", round, w);
    if (round == 2)
      for (long k = 0; k < n; ++k) cr_assert_eq(fl[n + k], 0.0, "world 1 not reset");
    free(fl);
  }
  iso_sim_destroy(each), iso_sim_destroy(later);
  iso_model_destroy(m);
}

/* The CUDA backend runs the same item per (world, pad): on the emulated device, the same bits
 * after 60 steps. A GPU contracts to FMA, and 60 steps of stick-slip contact amplify that: on an
 * H200 the forces had drifted by up to 2.4e-5 of the largest taxel force. So there the GPU takes
 * the CPU's state and both take one step: the two solves then stop within the solver's relative
 * tolerance (1e-6) of the same optimum, and the bound allows ten times that of the largest force
 * (not yet run on a GPU in this form). */
Test(tactile, cuda_matches_cpu) {
  test_require_cuda_device();
  scene c = default_scene();
  isoModel *m = build(&c);
  isoSim *cpu = make(m, &c, 4, 2, ISO_BACKEND_CPU), *gpu = make(m, &c, 4, 1, ISO_BACKEND_CUDA);
  spread(cpu), spread(gpu);
  run(cpu, 60), run(gpu, 60);
  const int emulated = test_cuda_emulated();
  if (!emulated) {
    static const isoStateField fields[3] = {ISO_STATE_Q, ISO_STATE_V, ISO_STATE_TIME};
    for (int f = 0; f < 3; ++f) {
      const int n = 4 * iso_sim_state_width(cpu, fields[f]);
      double *x = (double *)malloc(sizeof(double) * (size_t)n);
      cr_assert_eq(iso_sim_get_state(cpu, fields[f], iso_worlds_all(), x), ISO_OK);
      cr_assert_eq(iso_sim_set_state(gpu, fields[f], iso_worlds_all(), x), ISO_OK, "%s", iso_last_error());
      free(x);
    }
    run(cpu, 1), run(gpu, 1);
  }
  double *fc = all_forces(cpu), *fg = all_forces(gpu);
  if (emulated) {
    cr_expect(test_same_bits(fc, fg, 4 * 3 * N * N), "the emulated device differs");
  } else {
    double worst = 0, scale = 0;
    int at = 0;
    for (int k = 0; k < 4 * 3 * N * N; ++k) {
      const double d = fabs(fc[k] - fg[k]);
      scale = fmax(scale, fabs(fc[k]));
      if (!(d <= worst)) worst = d, at = k;
    }
    cr_expect(scale > 0, "the pads are pressed: a real comparison");
    cr_expect(worst <= 1e-5 * scale, "worst difference %g at %d (cpu %.17g, cuda %.17g), largest |f| %g", worst, at,
              fc[at], fg[at], scale);
  }
  free(fc), free(fg);
  iso_sim_destroy(cpu), iso_sim_destroy(gpu);
  iso_model_destroy(m);
}
