#define _DEFAULT_SOURCE
/* Contact surfaces over batches: determinism across threads, worlds independent of their batch,
 * per-world overflow, the triangle representation, VTK output. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/sim/sim_internal.h"
#include "host/step/contact_internal.h"
#include "isobar/isobar.h"
#include "support/scene_builders.h"
#include "support/support.h"

static isoSim *sim(const isoModel *m, int worlds, int threads, int max_cand, isoSurfaceRepresentation rep) {
  isoSimDef sd = iso_default_sim_def();
  sd.worlds = worlds;
  sd.backend = ISO_BACKEND_CPU;
  sd.threads = threads;
  sd.capacity.max_candidates = max_cand;
  sd.capacity.max_contacts = 4096; /* a fanned polygon counts as several faces */
  sd.contact.surface_representation = rep;
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_OK, "%s", iso_last_error());
  return s;
}

/* The same sim on the CUDA backend (polygons). */
static isoSim *cuda_sim(const isoModel *m, int worlds, int max_cand) {
  isoSimDef sd = iso_default_sim_def();
  sd.worlds = worlds;
  sd.backend = ISO_BACKEND_CUDA;
  sd.capacity.max_candidates = max_cand;
  sd.capacity.max_contacts = 4096;
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_OK, "%s", iso_last_error());
  return s;
}

static void world_state(int w, double q[21]) {
  test_rng r = {1000 + (uint64_t)w};
  for (int b = 0; b < 3; ++b) {
    double *x = q + 7 * b;
    double ax = test_rng_uniform(&r, -1, 1), ay = test_rng_uniform(&r, -1, 1), az = test_rng_uniform(&r, -1, 1);
    double an = sqrt(ax * ax + ay * ay + az * az), th = test_rng_uniform(&r, 0, 3);
    x[0] = cos(th / 2), x[1] = sin(th / 2) * ax / an, x[2] = sin(th / 2) * ay / an, x[3] = sin(th / 2) * az / an;
    x[4] = 0.07 * b + test_rng_uniform(&r, -0.01, 0.01);
    x[5] = test_rng_uniform(&r, -0.01, 0.01);
    x[6] = test_rng_uniform(&r, 0.02, 0.05);
  }
}

static void place_all(isoSim *s, int first_world) {
  for (int w = 0; w < iso_sim_world_count(s); ++w) {
    double q[21];
    world_state(first_world + w, q);
    cr_assert_eq(iso_sim_set_state(s, ISO_STATE_Q, iso_worlds_one(w), q), ISO_OK);
  }
}

static int faces(const isoSim *s, int w, isoContactFace **out) {
  int n = 0;
  cr_assert_eq(iso_sim_contact_face_count(s, w, &n), ISO_OK, "%s", iso_last_error());
  *out = calloc((size_t)n + 1, sizeof **out);
  cr_assert_eq(iso_sim_get_contact_faces(s, w, *out, n, &n), ISO_OK);
  return n;
}

Test(contact_batch, threads_are_bitwise_identical_and_worlds_independent) {
  isoModel *m = tb_balls_and_brick();
  const int N = 24;
  isoSim *a = sim(m, N, 1, 1 << 14, ISO_SURFACE_POLYGON), *b = sim(m, N, 2, 1 << 14, ISO_SURFACE_POLYGON);
  place_all(a, 0);
  place_all(b, 0);
  iso_sim_update_contact(a);
  iso_sim_update_contact(b);
  int total = 0;
  for (int w = 0; w < N; ++w) {
    isoContactFace *fa, *fb;
    int na = faces(a, w, &fa), nb = faces(b, w, &fb);
    cr_assert_eq(na, nb, "world %d", w);
    cr_assert(memcmp(fa, fb, sizeof *fa * (size_t)na) == 0, "world %d differs between 1 and 2 threads", w);
    total += na;
    free(fa), free(fb);
  }
  cr_assert_gt(total, N, "the scene must actually touch (%d faces)", total);
  /* world 17 alone */
  isoSim *one = sim(m, 1, 1, 1 << 14, ISO_SURFACE_POLYGON);
  place_all(one, 17);
  iso_sim_update_contact(one);
  isoContactFace *f1, *f17;
  int n1 = faces(one, 0, &f1), n17 = faces(a, 17, &f17);
  cr_assert_eq(n1, n17);
  cr_assert(memcmp(f1, f17, sizeof *f1 * (size_t)n1) == 0, "world 17 alone differs from world 17 in the batch");
  free(f1), free(f17);
  iso_sim_destroy(a), iso_sim_destroy(b), iso_sim_destroy(one);
  iso_model_destroy(m);
}

Test(contact_batch, overflow_is_per_world_and_reports_the_size_needed) {
  isoModel *m = tb_balls_and_brick();
  const int N = 6;
  isoSim *big = sim(m, N, 2, 1 << 14, ISO_SURFACE_POLYGON);
  place_all(big, 0);
  iso_sim_update_contact(big);
  for (int w = 0; w < N; ++w) {
    int nc, nf;
    iso_sim_get_overflow(big, w, &nc, &nf, NULL);
    cr_assert_eq(nc, 0, "a large capacity does not overflow");
  }
  /* With capacity 1 every world with more than one candidate overflows and reports its count;
   * then pick a capacity between the smallest and largest counts. */
  isoSim *probe = sim(m, N, 1, 1, ISO_SURFACE_POLYGON);
  place_all(probe, 0);
  iso_sim_update_contact(probe);
  int cands[N];
  int lo = 1 << 30, hi = 0;
  for (int w = 0; w < N; ++w) {
    int nf;
    iso_sim_get_overflow(probe, w, &cands[w], &nf, NULL);
    if (cands[w] == 0) cands[w] = 1; /* fitted in 1 */
    lo = cands[w] < lo ? cands[w] : lo;
    hi = cands[w] > hi ? cands[w] : hi;
  }
  cr_assert_lt(lo, hi, "the worlds need different capacities (%d..%d)", lo, hi);
  int small = (lo + hi) / 2;
  isoSim *s = sim(m, N, 2, small, ISO_SURFACE_POLYGON);
  place_all(s, 0);
  iso_sim_update_contact(s);
  uint32_t st[N];
  iso_sim_get_status(s, iso_worlds_all(), st);
  for (int w = 0; w < N; ++w) {
    int nc, nf;
    iso_sim_get_overflow(s, w, &nc, &nf, NULL);
    if (cands[w] > small) {
      cr_assert(st[w] & ISO_WORLD_OVERFLOW, "world %d needs %d > %d", w, cands[w], small);
      cr_assert(st[w] & ISO_WORLD_FROZEN);
      cr_assert_eq(nc, cands[w], "world %d reports the capacity it needed", w);
      int n;
      iso_sim_contact_face_count(s, w, &n);
      cr_assert_eq(n, 0, "an overflowed world keeps no partial list");
    } else {
      cr_assert_eq(st[w], 0u, "world %d fits", w);
      isoContactFace *fa, *fb;
      int na = faces(s, w, &fa), nb = faces(big, w, &fb);
      cr_assert_eq(na, nb);
      cr_assert(memcmp(fa, fb, sizeof *fa * (size_t)na) == 0, "world %d unaffected by the others' overflow", w);
      free(fa), free(fb);
    }
  }
  iso_sim_destroy(s), iso_sim_destroy(big), iso_sim_destroy(probe);
  iso_model_destroy(m);
}

Test(contact_batch, triangle_representation_fans_each_polygon) {
  isoModel *m = tb_balls_and_brick();
  isoSim *p = sim(m, 3, 1, 1 << 14, ISO_SURFACE_POLYGON), *t = sim(m, 3, 1, 1 << 14, ISO_SURFACE_TRIANGLE);
  place_all(p, 0);
  place_all(t, 0);
  iso_sim_update_contact(p);
  iso_sim_update_contact(t);
  for (int w = 0; w < 3; ++w) {
    isoContactFace *fp, *ft;
    int np = faces(p, w, &fp), nt = faces(t, w, &ft);
    int expect = 0;
    double Ap = 0, At = 0, Fp = 0, Ft = 0;
    for (int k = 0; k < np; ++k) expect += fp[k].nvert, Ap += fp[k].area, Fp += fp[k].area * fp[k].pressure;
    for (int k = 0; k < nt; ++k) {
      cr_assert_eq(ft[k].nvert, 3);
      At += ft[k].area, Ft += ft[k].area * ft[k].pressure;
    }
    cr_assert_eq(nt, expect, "one triangle per polygon edge");
    /* Same surface, same linear field: area and ∫p dA agree to rounding. */
    cr_assert_float_eq(At, Ap, 1e-12 * (Ap + 1e-30));
    cr_assert_float_eq(Ft, Fp, 1e-10 * (fabs(Fp) + 1e-30));
    free(fp), free(ft);
  }
  iso_sim_destroy(p), iso_sim_destroy(t);
  iso_model_destroy(m);
}

Test(contact_batch, vtk_output_reads_back) {
  isoModel *m = tb_balls_and_brick();
  isoSim *s = sim(m, 2, 1, 1 << 14, ISO_SURFACE_POLYGON);
  place_all(s, 0);
  char path[512];
  test_tmp_template(path, sizeof path, "iso_surf");
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  close(fd);
  cr_assert_eq(iso_sim_write_contact_vtk(s, 0, path), ISO_ERR_STATE, "no surfaces before an update");
  iso_sim_update_contact(s);
  cr_assert_eq(iso_sim_write_contact_vtk(s, 0, path), ISO_OK, "%s", iso_last_error());
  isoContactFace *f;
  int n = faces(s, 0, &f);
  FILE *in = fopen(path, "r");
  cr_assert_not_null(in);
  char line[256];
  int polys = -1, cells = -1, nread = 0, in_scalars = 0;
  double sum = 0;
  while (fgets(line, sizeof line, in)) {
    if (sscanf(line, "POLYGONS %d", &polys) == 1) continue;
    if (sscanf(line, "CELL_DATA %d", &cells) == 1) continue;
    if (strncmp(line, "LOOKUP_TABLE", 12) == 0 && cells >= 0) {
      in_scalars = 1;
      continue;
    }
    if (in_scalars) {
      double p;
      if (sscanf(line, "%lf", &p) == 1) {
        cr_assert_eq(p, f[nread].pressure, "pressure of polygon %d round-trips", nread);
        sum += p;
        nread++;
      }
    }
  }
  fclose(in);
  cr_assert_eq(polys, n);
  cr_assert_eq(cells, n);
  cr_assert_eq(nread, n);
  cr_assert_eq(iso_sim_write_contact_vtk(s, 5, path), ISO_ERR_INVALID);
  cr_assert_eq(iso_sim_write_contact_vtk(s, 0, "/nonexistent/dir/x.vtk"), ISO_ERR_IO);
  char prefix[512];
  test_tmp_template(prefix, sizeof prefix, "iso_mesh");
  fd = mkstemp(prefix);
  close(fd);
  cr_assert_eq(iso_sim_write_meshes_vtk(s, 0, prefix), ISO_OK, "%s", iso_last_error());
  char one[600];
  snprintf(one, sizeof one, "%s_ball1.vtk", prefix);
  cr_assert_eq(access(one, R_OK), 0, "posed mesh %s written", one);
  remove(one);
  snprintf(one, sizeof one, "%s_ball2.vtk", prefix);
  remove(one);
  snprintf(one, sizeof one, "%s_brick.vtk", prefix);
  cr_assert_eq(access(one, R_OK), 0);
  remove(one);
  remove(prefix);
  remove(path);
  free(f);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

Test(contact_batch, cuda_surfaces_match_cpu) {
  test_require_cuda_device();
  const int emulated = test_cuda_emulated();
  isoModel *m = tb_balls_and_brick();
  const int N = 16;
  isoSim *c = sim(m, N, 2, 1 << 14, ISO_SURFACE_POLYGON);
  isoSim *g = cuda_sim(m, N, 1 << 14);
  place_all(c, 0);
  place_all(g, 0);
  iso_sim_update_contact(c);
  cr_assert_eq(iso_sim_update_contact(g), ISO_OK, "%s", iso_last_error());
  for (int w = 0; w < N; ++w) {
    isoContactFace *fc, *fg;
    int nc = faces(c, w, &fc), ng = faces(g, w, &fg);
    cr_assert_eq(nc, ng, "world %d: same faces on both backends", w);
    for (int k = 0; k < nc && emulated; ++k) {
      /* the CPU's item code without contraction: every face, field by field, in the same bits */
      cr_assert(fc[k].geometry_m == fg[k].geometry_m && fc[k].geometry_n == fg[k].geometry_n &&
                    fc[k].element_m == fg[k].element_m && fc[k].element_n == fg[k].element_n &&
                    fc[k].nvert == fg[k].nvert,
                "world %d face %d: other elements", w, k);
      cr_assert(test_same_bits(&fc[k].vert[0][0], &fg[k].vert[0][0], 3 * fc[k].nvert) &&
                    test_same_bits(fc[k].vert_pressure, fg[k].vert_pressure, fc[k].nvert) &&
                    test_same_bits(fc[k].normal, fg[k].normal, 3) && test_same_bits(&fc[k].area, &fg[k].area, 1) &&
                    test_same_bits(fc[k].centroid, fg[k].centroid, 3) &&
                    test_same_bits(&fc[k].pressure, &fg[k].pressure, 1) &&
                    test_same_bits(&fc[k].grad_m, &fg[k].grad_m, 1) && test_same_bits(&fc[k].grad_n, &fg[k].grad_n, 1),
                "world %d face %d: values differ on the emulated device", w, k);
    }
    /* the same kernels; only FMA contraction and libm may differ: a few ulps on areas ~1e-4 */
    for (int k = 0; k < nc && !emulated; ++k) {
      cr_assert_float_eq(fc[k].area, fg[k].area, 1e-12, "world %d face %d", w, k);
      cr_assert_float_eq(fc[k].pressure, fg[k].pressure, 1e-6 * (fabs(fc[k].pressure) + 1), "world %d face %d", w, k);
    }
    free(fc), free(fg);
  }
  iso_sim_destroy(c), iso_sim_destroy(g);
  iso_model_destroy(m);
}

/* The mid phase runs as one walk per world on the CPU and as count, scan and emit per (world,
 * pair) on the GPU: at a capacity some worlds exceed, both flag the same worlds, report the
 * same sizes needed and keep the same faces in the others. */
Test(contact_batch, cuda_overflow_matches_cpu) {
  test_require_cuda_device();
  isoModel *m = tb_balls_and_brick();
  const int N = 8;
  isoSim *probe = sim(m, N, 1, 1, ISO_SURFACE_POLYGON);
  place_all(probe, 0);
  iso_sim_update_contact(probe);
  int lo = 1 << 30, hi = 0;
  for (int w = 0; w < N; ++w) {
    int nc, nf;
    iso_sim_get_overflow(probe, w, &nc, &nf, NULL);
    if (nc > 0 && nc < lo) lo = nc;
    if (nc > hi) hi = nc;
  }
  cr_assert_lt(lo, hi, "the worlds need different capacities (%d..%d)", lo, hi);
  const int small = (lo + hi) / 2;
  isoSim *c = sim(m, N, 2, small, ISO_SURFACE_POLYGON);
  isoSim *g = cuda_sim(m, N, small);
  place_all(c, 0);
  place_all(g, 0);
  iso_sim_update_contact(c);
  cr_assert_eq(iso_sim_update_contact(g), ISO_OK, "%s", iso_last_error());
  uint32_t sc[N], sg[N];
  iso_sim_get_status(c, iso_worlds_all(), sc);
  iso_sim_get_status(g, iso_worlds_all(), sg);
  int flagged = 0;
  for (int w = 0; w < N; ++w) {
    int ncc, nfc, ncg, nfg;
    iso_sim_get_overflow(c, w, &ncc, &nfc, NULL);
    iso_sim_get_overflow(g, w, &ncg, &nfg, NULL);
    cr_assert_eq(sc[w], sg[w], "world %d: status %u on the CPU, %u on CUDA", w, sc[w], sg[w]);
    cr_assert_eq(ncc, ncg, "world %d: candidates needed %d on the CPU, %d on CUDA", w, ncc, ncg);
    flagged += (sc[w] & ISO_WORLD_OVERFLOW) != 0;
    isoContactFace *fc, *fg;
    int nc = faces(c, w, &fc), ng = faces(g, w, &fg);
    cr_assert_eq(nc, ng, "world %d", w);
    for (int k = 0; k < nc; ++k)
      cr_assert(fc[k].element_m == fg[k].element_m && fc[k].element_n == fg[k].element_n, "world %d face %d", w, k);
    free(fc), free(fg);
  }
  cr_assert(flagged > 0 && flagged < N, "some worlds overflow, some fit (%d of %d)", flagged, N);
  iso_sim_destroy(c), iso_sim_destroy(g), iso_sim_destroy(probe);
  iso_model_destroy(m);
}

/* The CPU narrow phase moves a pair's meshes into the world once where that saves work
 * (hs_posed_for) instead of each candidate's elements: the faces are the same to the bit.
 * Two balls (compliant tets: tet–tet, against the rigid brick's triangles and the ground's
 * half-space) in 16 poses, with the pre-posing on and off (its mesh sizes hidden). */
Test(contact_batch, posed_meshes_give_the_same_faces) {
  isoModel *m = tb_balls_and_brick();
  const int N = 16;
  isoSim *a = sim(m, N, 2, 1 << 14, ISO_SURFACE_POLYGON), *b = sim(m, N, 2, 1 << 14, ISO_SURFACE_POLYGON);
  cr_assert_not_null(a->contact->dev.geom_nvert, "the CPU backend knows the meshes' sizes");
  b->contact->dev.geom_nvert = NULL; /* every candidate moves its own elements */
  place_all(a, 0);
  place_all(b, 0);
  cr_assert_eq(iso_sim_update_contact(a), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_sim_update_contact(b), ISO_OK, "%s", iso_last_error());
  /* the whole-mesh route was taken somewhere: a pair whose candidates move at least its mesh */
  const hydroDev *H = &a->contact->dev;
  int taken = 0, total = 0;
  for (int w = 0; w < N; ++w)
    for (int p = 0; p < H->npair; ++p) {
      const int c = a->pair_count[(long)w * H->npair + p], g = H->pair_m[p], n = H->geom_nvert[g];
      taken += n > 0 && n <= HS_POSED_MAX && 4 * c >= n;
    }
  cr_assert_gt(taken, 0, "no pair took the posed meshes");
  for (int w = 0; w < N; ++w) {
    isoContactFace *fa, *fb;
    const int na = faces(a, w, &fa), nb = faces(b, w, &fb);
    cr_assert_eq(na, nb, "world %d: %d faces against %d", w, na, nb);
    total += na;
    for (int k = 0; k < na; ++k) {
      cr_assert(fa[k].geometry_m == fb[k].geometry_m && fa[k].geometry_n == fb[k].geometry_n &&
                    fa[k].element_m == fb[k].element_m && fa[k].element_n == fb[k].element_n &&
                    fa[k].nvert == fb[k].nvert,
                "world %d face %d: other elements", w, k);
      cr_assert(test_same_bits(&fa[k].vert[0][0], &fb[k].vert[0][0], 3 * fa[k].nvert) &&
                    test_same_bits(fa[k].vert_pressure, fb[k].vert_pressure, fa[k].nvert) &&
                    test_same_bits(fa[k].normal, fb[k].normal, 3) && test_same_bits(&fa[k].area, &fb[k].area, 1) &&
                    test_same_bits(fa[k].centroid, fb[k].centroid, 3) &&
                    test_same_bits(&fa[k].pressure, &fb[k].pressure, 1),
                "world %d face %d: values differ", w, k);
    }
    free(fa);
    free(fb);
  }
  cr_assert_gt(total, 100, "only %d faces", total);
  iso_sim_destroy(a);
  iso_sim_destroy(b);
  iso_model_destroy(m);
}
