/* Deformable bodies in a sim (host/step/step_deformable.c, kernels/fem/world.h): the batched
 * state, reset, per-world materials, determinism across worlds, threads and backends, and the
 * VTK export. No contact with them yet: these check the motion of a body alone. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "isobar/isobar.h"
#include "kernels/fem/dense.h"
#include "support/fem_meshes.h"
#include "support/support.h"

#define DT 1e-3

/* A box of nx×ny×nz cells (6 tets each) of size L, as a deformable body of `model`. */
static int add_box(isoModel *m, const char *name, double Lx, double Ly, double Lz, int nx, int ny, int nz, double beta) {
  femMesh b;
  cr_assert_eq(fem_mesh_box(&b, Lx, Ly, Lz, nx, ny, nz), 0);
  isoDeformableDef d = iso_default_deformable_def();
  d.name = name;
  d.nvert = b.nvert, d.ntet = b.ntet, d.vertices = b.X, d.tets = b.tet;
  d.stiffness_damping = beta;
  int id = -1;
  cr_assert_eq(iso_model_add_deformable(m, &d, &id), ISO_OK, "%s", iso_last_error());
  fem_mesh_free(&b);
  return id;
}

static isoModel *model_with(double Lx, int nx, int wall, double beta) {
  isoModelDef md = iso_default_model_def();
  md.time_step = DT;
  isoModel *m = NULL;
  cr_assert_eq(iso_model_create(&md, &m), ISO_OK);
  int id = add_box(m, "beam", Lx, 0.05, 0.05, nx, 1, 1, beta);
  if (wall) {
    const double p[3] = {1e-6, 0, 0}, n[3] = {1, 0, 0};
    int held = 0;
    cr_assert_eq(iso_model_deformable_wall(m, id, p, n, &held), ISO_OK, "%s", iso_last_error());
    cr_assert_eq(held, 4, "the x = 0 face of a 1×1 section has 4 vertices, %d held", held);
  }
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  return m;
}

static void run(isoSim *s, int steps) {
  for (int i = 0; i < steps; ++i) cr_assert_eq(iso_sim_step(s), ISO_OK, "%s", iso_last_error());
}

static double *get(const isoSim *s, isoStateField f, isoWorlds w, int nworld) {
  int n = iso_sim_state_width(s, f);
  double *x = (double *)malloc(sizeof(double) * (size_t)n * (size_t)nworld);
  cr_assert_eq(iso_sim_get_state(s, f, w, x), ISO_OK, "%s", iso_last_error());
  return x;
}

/* Free fall without a held vertex is a rigid translation: elastic forces vanish on a translated
 * rest shape and the consistent mass carries gravity uniformly, so every vertex follows
 * v = g·t and, with Newmark's midpoint positions, x = X + ½·g·t² exactly in exact arithmetic.
 * What is left is the solve's round-off: T is dominated by ½δt·K (E = 1e8 Pa against a tiny
 * mass/δt), so a uniform solution is found to about cond(T)·ε ≈ 1e-10 of its size; over 200
 * steps of ~1e-5 m displacement that is far below 1e-9 m, the bound checked. */
Test(sim_deformable, free_fall_is_a_rigid_translation) {
  isoModel *m = model_with(0.1, 2, 0, 0);
  isoSim *s = test_sim(m, 1, ISO_BACKEND_CPU, 1);
  const int steps = 200;
  run(s, steps);
  const double t = steps * DT, g = -9.81;
  double *x = get(s, ISO_STATE_VERTEX_POSITION, iso_worlds_all(), 1);
  double *v = get(s, ISO_STATE_VERTEX_VELOCITY, iso_worlds_all(), 1);
  int nv = 0;
  cr_assert_eq(iso_model_deformable_size(m, 0, &nv, NULL, NULL), ISO_OK);
  double *rest = (double *)malloc(sizeof(double) * 3 * (size_t)nv);
  cr_assert_eq(iso_model_deformable_mesh(m, 0, rest, NULL, NULL, NULL), ISO_OK);
  for (int i = 0; i < nv; ++i) {
    cr_assert_float_eq(x[3 * i + 0], rest[3 * i + 0], 1e-9, "vertex %d x", i);
    cr_assert_float_eq(x[3 * i + 1], rest[3 * i + 1], 1e-9, "vertex %d y", i);
    cr_assert_float_eq(x[3 * i + 2], rest[3 * i + 2] + 0.5 * g * t * t, 1e-9, "vertex %d z", i);
    cr_assert_float_eq(v[3 * i + 2], g * t, 1e-9, "vertex %d vz", i);
    cr_assert_float_eq(v[3 * i + 0], 0, 1e-9, "vertex %d vx", i);
  }
  free(x), free(v), free(rest);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* A cantilever held at x = 0 by a wall: the held vertices never move (to the bit) and the free
 * end goes down, the beam stays finite and unfrozen; a reset restores the rest shape exactly. */
Test(sim_deformable, wall_holds_and_the_beam_sags_then_resets) {
  isoModel *m = model_with(0.4, 8, 1, 0.01);
  isoSim *s = test_sim(m, 2, ISO_BACKEND_CPU, 1);
  int nv = 0;
  cr_assert_eq(iso_model_deformable_size(m, 0, &nv, NULL, NULL), ISO_OK);
  double *rest = (double *)malloc(sizeof(double) * 3 * (size_t)nv);
  unsigned char *held = (unsigned char *)malloc((size_t)nv);
  cr_assert_eq(iso_model_deformable_mesh(m, 0, rest, NULL, NULL, held), ISO_OK);
  run(s, 300);
  double *x = get(s, ISO_STATE_VERTEX_POSITION, iso_worlds_one(1), 1);
  double tip = 0, tip_rest = 0;
  int ntip = 0;
  for (int i = 0; i < nv; ++i) {
    if (held[i])
      for (int k = 0; k < 3; ++k) cr_assert_eq(x[3 * i + k], rest[3 * i + k], "held vertex %d moved", i);
    if (rest[3 * i] > 0.4 - 1e-9) tip += x[3 * i + 2], tip_rest += rest[3 * i + 2], ++ntip;
  }
  cr_assert_eq(ntip, 4);
  cr_expect_lt(tip, tip_rest - 1e-7, "the free end did not go down: %g vs %g", tip / ntip, tip_rest / ntip);
  uint32_t st[2];
  cr_assert_eq(iso_sim_get_status(s, iso_worlds_all(), st), ISO_OK);
  cr_expect_eq(st[0] | st[1], 0u);
  cr_assert_eq(iso_sim_reset(s, iso_worlds_one(1)), ISO_OK);
  double *y = get(s, ISO_STATE_VERTEX_POSITION, iso_worlds_one(1), 1);
  double *v = get(s, ISO_STATE_VERTEX_VELOCITY, iso_worlds_one(1), 1);
  cr_expect(test_same_bits(y, rest, 3 * nv), "a reset restores the rest shape");
  for (int i = 0; i < 3 * nv; ++i) cr_expect_eq(v[i], 0.0);
  free(rest), free(held), free(x), free(y), free(v);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* The material is a per-world parameter: a ten times stiffer beam sags less over the same
 * time (static deflection scales as 1/E; within the first swing the stiffer one has turned
 * back sooner, at a tenth of the amplitude). Bad values are refused naming the field. */
Test(sim_deformable, per_world_material) {
  isoModel *m = model_with(0.4, 8, 1, 0.01);
  isoSim *s = test_sim(m, 2, ISO_BACKEND_CPU, 1);
  cr_assert_eq(iso_param_width(ISO_PARAM_DEFORMABLE_MATERIAL), 5);
  double mat[5];
  cr_assert_eq(iso_sim_get_param(s, ISO_PARAM_DEFORMABLE_MATERIAL, 0, iso_worlds_one(0), mat), ISO_OK);
  cr_expect_eq(mat[0], 1e8);
  cr_expect_eq(mat[1], 0.49);
  cr_expect_eq(mat[2], 1500);
  mat[0] = 1e9;
  cr_assert_eq(iso_sim_set_param(s, ISO_PARAM_DEFORMABLE_MATERIAL, 0, iso_worlds_one(1), mat), ISO_OK, "%s",
               iso_last_error());
  double bad[5] = {1e8, 0.5, 1500, 0, 0};
  cr_expect_eq(iso_sim_set_param(s, ISO_PARAM_DEFORMABLE_MATERIAL, 0, iso_worlds_one(1), bad), ISO_ERR_INVALID);
  cr_expect(strstr(iso_last_error(), "deformable_material") != NULL, "%s", iso_last_error());
  run(s, 100);
  double *x = get(s, ISO_STATE_VERTEX_POSITION, iso_worlds_all(), 2);
  const int w3 = iso_sim_state_width(s, ISO_STATE_VERTEX_POSITION);
  double sag[2] = {0, 0};
  for (int w = 0; w < 2; ++w)
    for (int i = 0; i < w3 / 3; ++i) sag[w] = fmin(sag[w], x[(long)w * w3 + 3 * i + 2] - 0.0);
  cr_expect_lt(fabs(sag[1]), fabs(sag[0]), "stiffer sagged %g, softer %g", sag[1], sag[0]);
  free(x);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

static void vary_worlds(isoSim *s, int nworld) {
  for (int w = 0; w < nworld; ++w) {
    double mat[5] = {1e8 * (1 + 0.3 * w), 0.3 + 0.02 * w, 1000 + 100 * w, 0.1 * w, 0.002 * w};
    cr_assert_eq(iso_sim_set_param(s, ISO_PARAM_DEFORMABLE_MATERIAL, 0, iso_worlds_one(w), mat), ISO_OK, "%s",
                 iso_last_error());
  }
}

/* One world alone equals the same world in a batch, and 1 and 2 threads give the same bits:
 * each world is one item whose sums have a fixed order. */
Test(sim_deformable, batch_and_threads_are_bitwise_identical) {
  isoModel *m = model_with(0.4, 8, 1, 0.01);
  isoSim *a = test_sim(m, 5, ISO_BACKEND_CPU, 1), *b = test_sim(m, 5, ISO_BACKEND_CPU, 2);
  vary_worlds(a, 5), vary_worlds(b, 5);
  run(a, 60), run(b, 60);
  const int n = iso_sim_state_width(a, ISO_STATE_VERTEX_POSITION);
  double *xa = get(a, ISO_STATE_VERTEX_POSITION, iso_worlds_all(), 5);
  double *xb = get(b, ISO_STATE_VERTEX_POSITION, iso_worlds_all(), 5);
  cr_expect(test_same_bits(xa, xb, 5 * n), "1 and 2 threads differ");
  isoSim *one = test_sim(m, 1, ISO_BACKEND_CPU, 1);
  double mat[5];
  cr_assert_eq(iso_sim_get_param(a, ISO_PARAM_DEFORMABLE_MATERIAL, 0, iso_worlds_one(3), mat), ISO_OK);
  cr_assert_eq(iso_sim_set_param(one, ISO_PARAM_DEFORMABLE_MATERIAL, 0, iso_worlds_one(0), mat), ISO_OK);
  run(one, 60);
  double *x1 = get(one, ISO_STATE_VERTEX_POSITION, iso_worlds_all(), 1);
  cr_expect(test_same_bits(x1, xa + 3L * n, n), "world 3 alone differs from world 3 in the batch");
  free(xa), free(xb), free(x1);
  iso_sim_destroy(a), iso_sim_destroy(b), iso_sim_destroy(one);
  iso_model_destroy(m);
}

/* AUTO keeps a model with deformable bodies on the CPU at any batch size, and says why. */
Test(sim_deformable, auto_keeps_deformables_on_the_cpu) {
  isoModel *m = model_with(0.4, 8, 1, 0.01);
  isoSim *s = test_sim(m, ISO_AUTO_CUDA_MIN_WORLDS, ISO_BACKEND_AUTO, 1);
  cr_assert_eq(iso_sim_backend(s), ISO_BACKEND_CPU);
  const char *why = iso_sim_backend_reason(s);
  cr_assert(strstr(why, "auto chose cpu") && strstr(why, "deformable"), "%s", why);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* The CUDA backend runs the same item per world: on the emulated device, the same bits. */
Test(sim_deformable, cuda_matches_cpu) {
  test_require_cuda_device();
  isoModel *m = model_with(0.4, 8, 1, 0.01);
  isoSim *c = test_sim(m, 4, ISO_BACKEND_CPU, 2), *g = test_sim(m, 4, ISO_BACKEND_CUDA, 1);
  vary_worlds(c, 4), vary_worlds(g, 4);
  run(c, 50), run(g, 50);
  const int n = iso_sim_state_width(c, ISO_STATE_VERTEX_POSITION);
  double *xc = get(c, ISO_STATE_VERTEX_POSITION, iso_worlds_all(), 4);
  double *xg = get(g, ISO_STATE_VERTEX_POSITION, iso_worlds_all(), 4);
  if (test_cuda_exact()) cr_expect(test_same_bits(xc, xg, 4 * n), "the CUDA backend differs");
  else /* a module built with FMA contraction: a few ulps per step */
    for (int i = 0; i < 4 * n; ++i) cr_expect_float_eq(xc[i], xg[i], 1e-9, "coordinate %d", i);
  free(xc), free(xg);
  iso_sim_destroy(c), iso_sim_destroy(g);
  iso_model_destroy(m);
}

/* The deformed mesh written as VTK reads back as a deformable whose rest shape is world 0's
 * deformed one, to the bit (%.17g round-trips). Set states are checked before they change. */
Test(sim_deformable, vtk_export_and_checked_states) {
  isoModel *m = model_with(0.4, 8, 1, 0.01);
  isoSim *s = test_sim(m, 2, ISO_BACKEND_CPU, 1);
  run(s, 40);
  char dir[512], path[600];
  test_tmp_template(dir, 512, "iso_deformed");
  cr_assert(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/beam.vtk", dir);
  cr_assert_eq(iso_sim_write_deformed_vtk(s, 0, path), ISO_OK, "%s", iso_last_error());
  cr_expect_eq(iso_sim_write_deformed_vtk(s, 2, path), ISO_ERR_INVALID, "world out of range");
  isoModel *back = NULL;
  cr_assert_eq(iso_model_create(NULL, &back), ISO_OK);
  isoDeformableDef d = iso_default_deformable_def();
  d.mesh_file = path;
  cr_assert_eq(iso_model_add_deformable(back, &d, NULL), ISO_OK, "%s", iso_last_error());
  int nv = 0, nb = 0;
  cr_assert_eq(iso_model_deformable_size(m, 0, &nv, NULL, NULL), ISO_OK);
  cr_assert_eq(iso_model_deformable_size(back, 0, &nb, NULL, NULL), ISO_OK);
  cr_assert_eq(nb, nv);
  double *x = get(s, ISO_STATE_VERTEX_POSITION, iso_worlds_one(0), 1);
  double *r = (double *)malloc(sizeof(double) * 3 * (size_t)nv);
  cr_assert_eq(iso_model_deformable_mesh(back, 0, r, NULL, NULL, NULL), ISO_OK);
  cr_expect(test_same_bits(x, r, 3 * nv), "the file's vertices are world 0's positions");
  x[5] = NAN;
  cr_expect_eq(iso_sim_set_state(s, ISO_STATE_VERTEX_POSITION, iso_worlds_one(0), x), ISO_ERR_INVALID);
  double *y = get(s, ISO_STATE_VERTEX_POSITION, iso_worlds_one(0), 1);
  cr_expect(isfinite(y[5]), "a refused state changed nothing");
  test_tmpdir_remove(dir);
  free(x), free(r), free(y);
  iso_model_destroy(back);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* The sim's step (element blocks scattered into the mesh's block-sparse factor, minimum-degree
 * ordering, per-element Dirichlet condition) is the dense reference step of kernels/fem/dense.h
 * on the same body, to round-off: the same matrix solved two ways. Each step's solve differs by
 * ~cond(T)·ε relative (T is dominated by ½δt·K: cond ≈ 1e6 for this mesh), 1e-10 of a step's
 * ~1e-4 m motion; over 50 steps of a swinging cantilever that stays below 1e-10 m, checked
 * at 1e-9 m. */
Test(sim_deformable, step_equals_the_dense_reference) {
  isoModel *m = model_with(0.4, 8, 1, 0.01);
  isoSim *s = test_sim(m, 1, ISO_BACKEND_CPU, 1);
  int nv = 0, nt = 0;
  cr_assert_eq(iso_model_deformable_size(m, 0, &nv, &nt, NULL), ISO_OK);
  double *q = (double *)malloc(sizeof(double) * 3 * (size_t)nv), *v = (double *)calloc(3 * (size_t)nv, sizeof(double));
  int *tet = (int *)malloc(sizeof(int) * 4 * (size_t)nt);
  unsigned char *held = (unsigned char *)malloc((size_t)nv);
  cr_assert_eq(iso_model_deformable_mesh(m, 0, q, tet, NULL, held), ISO_OK);
  femTetRest *rest = (femTetRest *)malloc(sizeof(femTetRest) * (size_t)nt);
  for (int e = 0; e < nt; ++e) {
    real X[12];
    for (int k = 0; k < 4; ++k)
      for (int c = 0; c < 3; ++c) X[3 * k + c] = q[3 * tet[4 * e + k] + c];
    cr_assert_eq(fem_tet_rest(X, &rest[e]), 0);
  }
  isoDeformableDef d;
  cr_assert_eq(iso_model_get_deformable(m, 0, &d), ISO_OK);
  const femMaterial mat = fem_material(d.youngs_modulus, d.poissons_ratio, d.mass_density, d.mass_damping,
                                       d.stiffness_damping);
  real *work = (real *)malloc(sizeof(real) * (size_t)fem_dense_work_size(nv));
  for (int step = 0; step < 50; ++step) {
    cr_assert_eq(fem_dense_step(nv, nt, tet, rest, held, &mat, v3(0, 0, -9.81), DT, q, v, q, v, work), 0);
    run(s, 1);
  }
  double *x = get(s, ISO_STATE_VERTEX_POSITION, iso_worlds_all(), 1);
  for (int i = 0; i < 3 * nv; ++i) {
    cr_assert_float_eq(x[i], q[i], 1e-9, "coordinate %d: sparse %.17g, dense %.17g", i, x[i], q[i]);

  }
  free(q), free(v), free(tet), free(held), free(rest), free(work), free(x);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}
