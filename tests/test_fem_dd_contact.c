/* Deformable–deformable contact detection (kernels/fem/dd_contact.h) on two box meshes.
 *
 * The scene: A is the unit cube [0,1]³ (4³ cells), B the half cube [0.25,0.75]² × [1−δ, 1.5−δ]
 * (4³ cells of 0.125) resting δ deep in A's top. Under B's inner cells (x, y in [0.375, 0.625])
 * both fields are exact there: A's top layer has values 0 at z = 1 and −0.25 at z = 0.75, so
 * f_A = −(1 − z); B's bottom layer 0 at z = 1 − δ and −0.125 at z = 1.125 − δ, so
 * f_B = −(z − (1 − δ)). The equal-SDF surface there is the plane z = 1 − δ/2 with φ = −δ/2 and
 * normal −z (out of B, into A, which lies below). Near B's sides the true surface rises to A's
 * top along B's walls (where B's lateral distance is the smaller), so the polygons there tilt
 * and their total area exceeds B's footprint; the tests bound that part instead of equating it. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host/model/model_internal.h"
#include "isobar/isobar.h"
#include "kernels/fem/dd_contact.h"
#include "support/fem_meshes.h"
#include "support/rng.h"
#include "support/support.h"

#define DELTA 0.1

typedef struct ddScene {
  isoModel *m;
  modelView v;
  int nworld, max_con, max_pair, tet_cap;
  double *x;          /* (nworld, ndv3) */
  femDDContact *con;  /* (nworld, max_con) */
  int *ncon, *need, *pair_need, *cand;
  double *box;
  long *pair;
  femDDArgs a;
} ddScene;

/* Box [0,L]³ of n³ cells placed at p, as a deformable body. */
static void add_box(isoModel *m, const char *name, double L, int n, const double p[3]) {
  femMesh b;
  cr_assert_eq(fem_mesh_box(&b, L, L, L, n, n, n), 0);
  isoDeformableDef d = iso_default_deformable_def();
  d.name = name;
  d.vertices = b.X, d.nvert = b.nvert, d.tets = b.tet, d.ntet = b.ntet;
  memcpy(d.position, p, 3 * sizeof(double));
  cr_assert_eq(iso_model_add_deformable(m, &d, NULL), ISO_OK, "%s", iso_last_error());
  fem_mesh_free(&b);
}

/* The two boxes (B first when swap), nworld worlds at rest, lists of max_con and max_pair. */
static ddScene scene(int swap, int n_a, int n_b, int nworld, int max_con, int max_pair) {
  ddScene s;
  memset(&s, 0, sizeof s);
  cr_assert_eq(iso_model_create(NULL, &s.m), ISO_OK);
  const double pa[3] = {0, 0, 0}, pb[3] = {0.25, 0.25, 1 - DELTA};
  if (swap) add_box(s.m, "B", 0.5, n_b, pb);
  add_box(s.m, "A", 1.0, n_a, pa);
  if (!swap) add_box(s.m, "B", 0.5, n_b, pb);
  cr_assert_eq(iso_model_compile(s.m), ISO_OK, "%s", iso_last_error());
  model_view_bind(&s.m->flat, s.m->flat.arena.base, &s.v);
  const modelView *v = &s.v;
  s.nworld = nworld, s.max_con = max_con, s.max_pair = max_pair;
  for (int d = 0; d < v->z.ndef; ++d)
    if (v->def_tet0[d + 1] - v->def_tet0[d] > s.tet_cap) s.tet_cap = v->def_tet0[d + 1] - v->def_tet0[d];
  const long ndv3 = 3 * v->z.ndvert;
  s.x = (double *)malloc(sizeof(double) * (size_t)(ndv3 * nworld));
  for (int w = 0; w < nworld; ++w) memcpy(s.x + w * ndv3, v->def_rest, sizeof(double) * (size_t)ndv3);
  s.con = (femDDContact *)calloc((size_t)(max_con * nworld), sizeof(femDDContact));
  s.ncon = (int *)calloc((size_t)nworld, sizeof(int));
  s.need = (int *)calloc((size_t)nworld, sizeof(int));
  s.pair_need = (int *)calloc((size_t)nworld, sizeof(int));
  s.box = (double *)calloc((size_t)(fem_dd_box_stride(v->z.ndef, s.tet_cap) * nworld), sizeof(double));
  s.cand = (int *)calloc((size_t)(fem_dd_cand_stride(s.tet_cap) * nworld), sizeof(int));
  s.pair = (long *)calloc((size_t)(fem_dd_pair_stride(max_pair) * nworld), sizeof(long));
  cr_assert(s.x && s.con && s.ncon && s.need && s.pair_need && s.box && s.cand && s.pair);
  femDDArgs *a = &s.a;
  a->ndef = v->z.ndef, a->vert0 = v->def_vert0, a->tet0 = v->def_tet0, a->tet = v->def_tet, a->sdf = v->def_sdf;
  a->ndv3 = ndv3, a->xd = s.x, a->max_con = max_con, a->con = s.con;
  a->ncon = s.ncon, a->need = s.need, a->pair_need = s.pair_need;
  a->tet_cap = s.tet_cap, a->max_pair = max_pair, a->box = s.box, a->cand = s.cand, a->pair = s.pair;
  return s;
}

static void scene_free(ddScene *s) {
  free(s->x), free(s->con), free(s->ncon), free(s->need), free(s->pair_need);
  free(s->box), free(s->cand), free(s->pair);
  iso_model_destroy(s->m);
}

/* Vertex k of tet t of body d in world w. */
static vec3 tet_vertex(const ddScene *s, int w, int d, int t, int k) {
  const int vi = s->v.def_vert0[d] + s->v.def_tet[4 * (s->v.def_tet0[d] + t) + k];
  const double *p = s->x + w * 3 * s->v.z.ndvert + 3L * vi;
  return v3(p[0], p[1], p[2]);
}

/* Move body d of world w by dp. */
static void shift_body(ddScene *s, int w, int d, vec3 dp) {
  double *x = s->x + w * 3 * s->v.z.ndvert;
  for (int i = s->v.def_vert0[d]; i < s->v.def_vert0[d + 1]; ++i) x[3 * i] += dp.x, x[3 * i + 1] += dp.y, x[3 * i + 2] += dp.z;
}

static int inner(vec3 c) { return c.x > 0.375 && c.x < 0.625 && c.y > 0.375 && c.y < 0.625; }

/* The mid-plane: inside B's inner cells every polygon lies on z = 1 − δ/2 with φ0 = −δ/2 and
 * normal −z, and together they tile the inner square (area 0.25² = 0.0625). All of these are
 * a plane clipped by tets, so only rounding of the slice and the area sum enters: 1e-12 is
 * ~10⁴ ulp of the unit scene. Everywhere: normals point down into A (n_z < 0); φ0 lies in
 * [−δ/2, 0) (the interpolated field of B is above the true −distance, a convex function, so
 * the surface only rises from the mid-plane); the projected area Σ A·(−n_z) lies between
 * the inner square and B's footprint 0.25 (the tilted rim, and the tets whose four vertices are
 * all on B's surface, which carry no penetration and are skipped). */
Test(fem_dd_contact, boxes_meet_on_the_mid_plane) {
  ddScene s = scene(0, 4, 4, 1, 4096, 1 << 16);
  cr_assert_eq(fem_dd_detect_world(&s.a, 0), 0u);
  cr_assert_gt(s.ncon[0], 0);
  cr_assert_eq(s.ncon[0], s.need[0]);
  double inner_area = 0, projected = 0;
  int ninner = 0;
  for (int i = 0; i < s.ncon[0]; ++i) {
    const femDDContact *r = &s.con[i];
    cr_assert_eq(r->body_a, 0);
    cr_assert_eq(r->body_b, 1);
    cr_expect(r->normal.z < 0, "contact %d: normal (%g, %g, %g)", i, r->normal.x, r->normal.y, r->normal.z);
    cr_expect(r->phi0 < 0 && r->phi0 >= -DELTA / 2 - 1e-12, "contact %d: phi0 %.17g", i, r->phi0);
    cr_expect_eq(r->k, r->area * 1e8);
    projected += r->area * -r->normal.z;
    if (!inner(r->point)) continue;
    ++ninner;
    inner_area += r->area;
    cr_expect(fabs(r->normal.z + 1) < 1e-12 && fabs(r->normal.x) < 1e-12 && fabs(r->normal.y) < 1e-12,
              "inner contact %d: normal (%g, %g, %g)", i, r->normal.x, r->normal.y, r->normal.z);
    cr_expect(fabs(r->phi0 + DELTA / 2) < 1e-12, "inner contact %d: phi0 %.17g", i, r->phi0);
    cr_expect(fabs(r->point.z - (1 - DELTA / 2)) < 1e-12, "inner contact %d: z %.17g", i, r->point.z);
  }
  cr_expect_gt(ninner, 0);
  cr_expect(fabs(inner_area - 0.0625) < 1e-12, "inner area %.17g", inner_area);
  cr_expect(projected >= 0.0625 - 1e-12 && projected <= 0.25 + 1e-12, "projected area %.17g", projected);
  scene_free(&s);
}

/* The centroid's barycentric coordinates rebuild it in both tets (to rounding of a 3×3 inverse
 * on unit-sized tets: 1e-12), sum to 1 and lie in [0, 1] (the centroid of a convex polygon
 * inside both tets is inside both). */
Test(fem_dd_contact, barycentric_coordinates_reproduce_the_centroid) {
  ddScene s = scene(0, 4, 4, 1, 4096, 1 << 16);
  cr_assert_eq(fem_dd_detect_world(&s.a, 0), 0u);
  for (int i = 0; i < s.ncon[0]; ++i) {
    const femDDContact *r = &s.con[i];
    for (int side = 0; side < 2; ++side) {
      const real *b = side ? r->bary_b : r->bary_a;
      const int d = side ? r->body_b : r->body_a, t = side ? r->tet_b : r->tet_a;
      vec3 p = v3_zero();
      double sum = 0;
      for (int k = 0; k < 4; ++k) {
        p = v3_axpy(p, b[k], tet_vertex(&s, 0, d, t, k));
        sum += b[k];
        cr_expect(b[k] >= -1e-12 && b[k] <= 1 + 1e-12, "contact %d side %d: b%d = %g", i, side, k, b[k]);
      }
      cr_expect(fabs(sum - 1) < 1e-12);
      cr_expect(v3_norm(v3_sub(p, r->point)) < 1e-12, "contact %d side %d: off by %g", i, side,
                v3_norm(v3_sub(p, r->point)));
    }
  }
  scene_free(&s);
}

/* Apart, nothing: B lifted clear of A (a gap of 0.01), and B moved sideways off A. */
Test(fem_dd_contact, no_contact_when_separated) {
  ddScene s = scene(0, 4, 4, 2, 64, 1 << 16);
  shift_body(&s, 0, 1, v3(0, 0, DELTA + 0.01));
  shift_body(&s, 1, 1, v3(0.8, 0, 0));
  for (int w = 0; w < 2; ++w) {
    cr_expect_eq(fem_dd_detect_world(&s.a, w), 0u);
    cr_expect_eq(s.ncon[w], 0, "world %d", w);
    cr_expect_eq(s.need[w], 0, "world %d", w);
  }
  scene_free(&s);
}

/* Swapping the bodies' order swaps A and B: the same polygons, normals reversed, φ0, area and
 * centroid equal to rounding (the slice is then made in the other tet: 1e-12), coordinates
 * exchanged. */
Test(fem_dd_contact, swapping_the_bodies_flips_the_normals) {
  ddScene s = scene(0, 4, 4, 1, 4096, 1 << 16), t = scene(1, 4, 4, 1, 4096, 1 << 16);
  cr_assert_eq(fem_dd_detect_world(&s.a, 0), 0u);
  cr_assert_eq(fem_dd_detect_world(&t.a, 0), 0u);
  cr_assert_eq(s.ncon[0], t.ncon[0]);
  for (int i = 0; i < s.ncon[0]; ++i) {
    const femDDContact *r = &s.con[i], *q = NULL;
    for (int j = 0; j < t.ncon[0] && !q; ++j)
      if (t.con[j].tet_a == r->tet_b && t.con[j].tet_b == r->tet_a) q = &t.con[j];
    cr_assert(q != NULL, "contact %d (tets %d, %d) has no swapped twin", i, r->tet_a, r->tet_b);
    cr_expect(v3_norm(v3_add(r->normal, q->normal)) < 1e-12, "contact %d", i);
    cr_expect(v3_norm(v3_sub(r->point, q->point)) < 1e-12, "contact %d", i);
    cr_expect(fabs(r->area - q->area) < 1e-12 && fabs(r->phi0 - q->phi0) < 1e-12, "contact %d", i);
    for (int k = 0; k < 4; ++k)
      cr_expect(fabs(r->bary_a[k] - q->bary_b[k]) < 1e-12 && fabs(r->bary_b[k] - q->bary_a[k]) < 1e-12);
  }
  scene_free(&s);
  scene_free(&t);
}

/* The search finds what every tet pair gives: B turned and jiggled (each vertex moved by up to
 * a tenth of its cell, every tet still positive), then the records equal, bit for bit and in
 * (tet_a, tet_b) order, those of all 384 × 384 pairs through fem_dd_tet_pair, skipping the tets
 * whose four values are 0 as the search does. */
Test(fem_dd_contact, the_search_misses_no_pair) {
  ddScene s = scene(0, 4, 4, 1, 4096, 1 << 16);
  test_rng rng = {12345};
  double *x = s.x;
  for (int i = s.v.def_vert0[1]; i < s.v.def_vert0[2]; ++i) {
    const double px = x[3 * i] - 0.5, pz = x[3 * i + 2];
    const double c = cos(0.2), sn = sin(0.2); /* about y through (0.5, ·, ·) */
    x[3 * i] = 0.5 + c * px + sn * (pz - 1);
    x[3 * i + 2] = 1 - sn * px + c * (pz - 1);
    for (int k = 0; k < 3; ++k) x[3 * i + k] += test_rng_uniform(&rng, -0.0125, 0.0125);
  }
  cr_assert_eq(fem_dd_detect_world(&s.a, 0), 0u);
  cr_assert_gt(s.ncon[0], 10);
  const int ntA = s.v.def_tet0[1], ntB = s.v.def_tet0[2] - ntA;
  int n = 0;
  for (int ta = 0; ta < ntA; ++ta)
    for (int tb = 0; tb < ntB; ++tb) {
      const int *va = s.v.def_tet + 4 * ta, *vb = s.v.def_tet + 4 * (ntA + tb);
      const double *sa = s.v.def_sdf, *sb = s.v.def_sdf + s.v.def_vert0[1];
      if (sa[va[0]] == 0 && sa[va[1]] == 0 && sa[va[2]] == 0 && sa[va[3]] == 0) continue;
      if (sb[vb[0]] == 0 && sb[vb[1]] == 0 && sb[vb[2]] == 0 && sb[vb[3]] == 0) continue;
      femDDTet A, B;
      femDDContact r;
      cr_assert(fem_dd_tet_load(s.x, sa, va, &A) && fem_dd_tet_load(s.x + 3L * s.v.def_vert0[1], sb, vb, &B));
      if (!fem_dd_tet_pair(&A, &B, &r)) continue;
      r.body_a = 0, r.body_b = 1, r.tet_a = ta, r.tet_b = tb;
      cr_assert_lt(n, s.ncon[0], "the search found fewer than all pairs (%d)", s.ncon[0]);
      cr_expect_eq(memcmp(&r, &s.con[n], sizeof r), 0, "record %d (tets %d, %d) vs (%d, %d)", n, ta, tb,
                   s.con[n].tet_a, s.con[n].tet_b);
      ++n;
    }
  cr_expect_eq(n, s.ncon[0]);
  scene_free(&s);
}

/* One world's records depend on its positions alone: worlds 0 and 2 hold the same positions and
 * world 1 others; world 2's records equal world 0's bit for bit, and a second run repeats every
 * byte. */
Test(fem_dd_contact, deterministic_bits) {
  ddScene s = scene(0, 4, 4, 3, 4096, 1 << 16);
  shift_body(&s, 1, 1, v3(0.01, -0.02, -0.03));
  for (int w = 0; w < 3; ++w) cr_assert_eq(fem_dd_detect_world(&s.a, w), 0u);
  cr_assert_eq(s.ncon[0], s.ncon[2]);
  cr_expect_eq(memcmp(s.con, s.con + 2 * s.max_con, sizeof(femDDContact) * (size_t)s.ncon[0]), 0);
  femDDContact *copy = (femDDContact *)malloc(sizeof(femDDContact) * (size_t)(3 * s.max_con));
  int ncopy[3];
  memcpy(copy, s.con, sizeof(femDDContact) * (size_t)(3 * s.max_con));
  memcpy(ncopy, s.ncon, sizeof ncopy);
  for (int w = 2; w >= 0; --w) cr_assert_eq(fem_dd_detect_world(&s.a, w), 0u);
  cr_expect_eq(memcmp(ncopy, s.ncon, sizeof ncopy), 0);
  cr_expect_eq(memcmp(copy, s.con, sizeof(femDDContact) * (size_t)(3 * s.max_con)), 0);
  free(copy);
  scene_free(&s);
}

/* Short lists: with room for 3 records the first 3 are written (those of the full list) and
 * need says how many there are; with room for 5 candidate pairs the overflow is reported with
 * the count needed. Both set ISO_WORLD_OVERFLOW. */
Test(fem_dd_contact, overflow_is_reported_with_the_needed_size) {
  ddScene full = scene(0, 4, 4, 1, 4096, 1 << 16), s = scene(0, 4, 4, 1, 3, 1 << 16), p = scene(0, 4, 4, 1, 4096, 5);
  cr_assert_eq(fem_dd_detect_world(&full.a, 0), 0u);
  cr_assert_eq(fem_dd_detect_world(&s.a, 0), ISO_WORLD_OVERFLOW);
  cr_expect_eq(s.ncon[0], 3);
  cr_expect_eq(s.need[0], full.ncon[0]);
  cr_expect_eq(memcmp(s.con, full.con, 3 * sizeof(femDDContact)), 0);
  cr_assert_eq(fem_dd_detect_world(&p.a, 0), ISO_WORLD_OVERFLOW);
  cr_expect_eq(p.pair_need[0], full.pair_need[0]);
  cr_expect_gt(p.pair_need[0], 5);
  cr_expect_leq(p.ncon[0], 5);
  scene_free(&full);
  scene_free(&s);
  scene_free(&p);
}
