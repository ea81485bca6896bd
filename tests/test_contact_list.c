/* The per-world contact list (kernels/contact/list.h): its records are the polygons the
 * narrow-phase functions find when called directly, in candidate order; the GPU's two passes
 * write the same list as the CPU's serial pass; the list does not depend on the thread count;
 * overflow reports the capacity needed; point contacts follow the faces. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host/step/contact_internal.h"
#include "host/step/sap_internal.h"
#include "host/sim/sim_internal.h"
#include "isobar/isobar.h"
#include "support/scene_builders.h"
#include "support/support.h"

static isoSim *sim(const isoModel *m, int worlds, int threads, int max_contacts, isoSurfaceRepresentation rep) {
  isoSimDef sd = iso_default_sim_def();
  sd.worlds = worlds;
  sd.backend = ISO_BACKEND_CPU;
  sd.threads = threads;
  sd.capacity.max_candidates = 1 << 14;
  sd.capacity.max_contacts = max_contacts;
  sd.contact.surface_representation = rep;
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_OK, "%s", iso_last_error());
  return s;
}

/* World w's bodies, overlapping each other and the ground, from a generator seeded by w. */
static void place(isoSim *s, int w) {
  test_rng r = {2000 + (uint64_t)w};
  double q[21];
  for (int b = 0; b < 3; ++b) {
    double *x = q + 7 * b;
    double ax = test_rng_uniform(&r, -1, 1), ay = test_rng_uniform(&r, -1, 1), az = test_rng_uniform(&r, -1, 1);
    double an = sqrt(ax * ax + ay * ay + az * az), th = test_rng_uniform(&r, 0, 3);
    x[0] = cos(th / 2), x[1] = sin(th / 2) * ax / an, x[2] = sin(th / 2) * ay / an, x[3] = sin(th / 2) * az / an;
    x[4] = 0.07 * b + test_rng_uniform(&r, -0.01, 0.01);
    x[5] = test_rng_uniform(&r, -0.01, 0.01);
    x[6] = test_rng_uniform(&r, 0.02, 0.05);
  }
  cr_assert_eq(iso_sim_set_state(s, ISO_STATE_Q, iso_worlds_one(w), q), ISO_OK);
}

static int asset_elements(const simContact *c, int a) {
  return (a + 1 < c->nasset ? c->host.asset_elem0[a + 1] : c->host_nelem) - c->host.asset_elem0[a];
}

/* The polygon of (pair p, ea, eb) in world w, computed directly. */
static int direct_face(const isoSim *s, int w, int p, int ea, int eb, hydroFace *f) {
  const simContact *c = s->contact;
  const hydroDev *H = &c->host;
  const int m = H->pair_m[p], n = H->pair_n[p];
  const xform *X = c->work.X_WG + (long)w * H->ngeom;
  wfield E = s->param[ISO_PARAM_GEOM_MODULUS].f;
  return hs_face_compute(H, p, ea, eb, X[m], X[n], *wf_at(E, w, m, 1), *wf_at(E, w, n, 1), f);
}

Test(contact_list, records_are_the_polygons_of_the_candidates_in_order) {
  isoModel *m = tb_balls_and_brick();
  for (int rep = 0; rep < 2; ++rep) {
    isoSim *s = sim(m, 4, 1, 4096, rep);
    for (int w = 0; w < 4; ++w) place(s, w);
    cr_assert_eq(iso_sim_update_contact(s), ISO_OK, "%s", iso_last_error());
    const simContact *c = s->contact;
    const hydroDev *H = &c->host;
    const hydroWork *W = &c->work;
    for (int w = 0; w < 4; ++w) {
      /* expected: every candidate of every pair, in pair order, through the narrow phase */
      int nf = 0;
      for (int p = 0; p < H->npair; ++p) {
        const int off = W->pair_off[(long)w * H->npair + p], cnt = W->pair_count[(long)w * H->npair + p];
        for (int k = off; k < off + cnt; ++k) {
          hydroFace f;
          if (!direct_face(s, w, p, hs_cand(W, w, 0)[k], hs_cand(W, w, 1)[k], &f)) continue;
          const int parts = rep ? f.nvert : 1;
          for (int t = 0; t < parts; ++t, ++nf) {
            contactRec e;
            memset(&e, 0, sizeof e);
            hs_face_record(H, &f, p, rep ? t : CONTACT_PART_POLYGON, &e);
            cr_assert_lt(nf, W->face_count[w], "world %d: fewer records than polygons", w);
            const contactRec *got = W->list + (long)w * W->max_list + nf;
            cr_assert_eq(memcmp(&e.point, &got->point, sizeof(vec3)), 0, "world %d record %d: point", w, nf);
            cr_assert_eq(memcmp(&e.normal, &got->normal, sizeof(vec3)), 0, "world %d record %d: normal", w, nf);
            cr_assert(e.area == got->area && e.p0 == got->p0 && e.gM == got->gM && e.gN == got->gN);
            cr_assert(e.pair == got->pair && e.geom_m == got->geom_m && e.geom_n == got->geom_n);
            cr_assert(e.elem_m == got->elem_m && e.elem_n == got->elem_n && e.part == got->part);
          }
        }
      }
      cr_assert_eq(nf, W->face_count[w], "world %d: %d polygons, %d records", w, nf, W->face_count[w]);
      cr_assert_gt(nf, 0, "world %d touches", w);
      if (rep) continue;
      /* and the candidates miss none: every element pair of every pair, exhaustively */
      int found = 0;
      for (int p = 0; p < H->npair; ++p) {
        const int km = H->pair_kind[p];
        const int na = km == HS_PAIR_RS ? 1 : asset_elements(c, H->geom_asset[H->pair_m[p]]);
        const int nb = km == HS_PAIR_HC ? 1 : asset_elements(c, H->geom_asset[H->pair_n[p]]);
        for (int a = 0; a < na; ++a)
          for (int b = 0; b < nb; ++b) {
            hydroFace f;
            const int ea = km == HS_PAIR_RS ? -1 : a, eb = km == HS_PAIR_HC ? -1 : b;
            if (!direct_face(s, w, p, ea, eb, &f)) continue;
            int hits = 0;
            for (int i = 0; i < W->face_count[w]; ++i) {
              const contactRec *r = W->list + (long)w * W->max_list + i;
              hits += r->pair == p && r->elem_m == ea && r->elem_n == eb;
            }
            cr_assert_eq(hits, 1, "world %d pair %d elements %d, %d: %d records", w, p, ea, eb, hits);
            found++;
          }
      }
      cr_assert_eq(found, W->face_count[w], "world %d", w);
    }
    iso_sim_destroy(s);
  }
  iso_model_destroy(m);
}

Test(contact_list, two_passes_per_candidate_write_the_serial_list) {
  isoModel *m = tb_balls_and_brick();
  for (int rep = 0; rep < 2; ++rep) {
    for (int cap = 0; cap < 2; ++cap) { /* roomy, and too small for some worlds */
      const int worlds = 6;
      isoSim *s = sim(m, worlds, 2, cap ? 12 : 4096, rep);
      for (int w = 0; w < worlds; ++w) place(s, w);
      cr_assert_eq(iso_sim_update_contact(s), ISO_OK, "%s", iso_last_error());
      const hydroDev *H = &s->contact->dev;
      const hydroWork *W = &s->contact->work;
      const size_t bytes = sizeof(contactRec) * (size_t)W->max_list * worlds;
      contactRec *serial = (contactRec *)malloc(bytes);
      int counts[6], needed[6];
      uint32_t status[6];
      memcpy(serial, W->list, bytes);
      for (int w = 0; w < worlds; ++w) {
        counts[w] = W->face_count[w], needed[w] = W->face_needed[w], status[w] = s->status[w];
        s->status[w] &= ~(uint32_t)(ISO_WORLD_OVERFLOW | ISO_WORLD_FROZEN); /* as before the narrow phase */
      }
      memset(W->list, 0, bytes);
      for (int w = 0; w < worlds; ++w)
        for (int k = 0; k < W->max_cand; ++k) hs_narrow_count_item(H, W, w, k);
      for (int w = 0; w < worlds; ++w) hs_list_scan_item(W, w, s->status);
      for (int w = 0; w < worlds; ++w)
        for (int k = 0; k < W->max_cand; ++k) hs_narrow_emit_item(H, W, w, k);
      int overflowed = 0;
      for (int w = 0; w < worlds; ++w) {
        cr_assert_eq(W->face_count[w], counts[w], "world %d", w);
        cr_assert_eq(W->face_needed[w], needed[w], "world %d", w);
        cr_assert_eq(s->status[w], status[w], "world %d", w);
        overflowed += (status[w] & ISO_WORLD_OVERFLOW) != 0;
        const size_t n = sizeof(contactRec) * (size_t)counts[w];
        cr_assert_eq(memcmp(W->list + (long)w * W->max_list, serial + (long)w * W->max_list, n), 0, "world %d", w);
      }
      cr_assert_eq(overflowed > 0, cap == 1, "the small capacity overflows some worlds, the large none");
      free(serial);
      iso_sim_destroy(s);
    }
  }
  iso_model_destroy(m);
}

/* The whole list and the constraints of every world after a few steps. */
static void run(const isoModel *m, int threads, int rep, contactRec **list, int **count, sapCon **con, int **ncon,
                size_t *list_bytes, size_t *con_bytes) {
  const int worlds = 8;
  isoSim *s = sim(m, worlds, threads, 4096, rep);
  for (int w = 0; w < worlds; ++w) place(s, w);
  for (int k = 0; k < 3; ++k) cr_assert_eq(iso_sim_step(s), ISO_OK, "%s", iso_last_error());
  const hydroWork *W = &s->contact->work;
  const simSap *p = s->sap;
  *list = (contactRec *)calloc((size_t)W->max_list * worlds, sizeof(contactRec));
  *count = (int *)calloc(worlds, sizeof(int));
  *con = (sapCon *)calloc((size_t)p->batch.max_con * worlds, sizeof(sapCon));
  *ncon = (int *)calloc(worlds, sizeof(int));
  for (int w = 0; w < worlds; ++w) {
    (*count)[w] = W->list_count[w];
    memcpy(*list + (long)w * W->max_list, W->list + (long)w * W->max_list, sizeof(contactRec) * (size_t)(*count)[w]);
    (*ncon)[w] = p->batch.ncon[w];
    memcpy(*con + (long)w * p->batch.max_con, p->batch.con + (long)w * p->batch.max_con, sizeof(sapCon) * (size_t)(*ncon)[w]);
  }
  *list_bytes = sizeof(contactRec) * (size_t)W->max_list * worlds;
  *con_bytes = sizeof(sapCon) * (size_t)p->batch.max_con * worlds;
  iso_sim_destroy(s);
}

Test(contact_list, one_and_two_threads_give_the_same_list_and_constraints) {
  isoModel *m = tb_balls_and_brick();
  for (int rep = 0; rep < 2; ++rep) {
    contactRec *l1, *l2;
    sapCon *c1, *c2;
    int *n1, *n2, *k1, *k2;
    size_t lb, cb;
    run(m, 1, rep, &l1, &n1, &c1, &k1, &lb, &cb);
    run(m, 2, rep, &l2, &n2, &c2, &k2, &lb, &cb);
    int total = 0;
    /* calloc'd copies of whole records: padding compares equal too */
    for (int w = 0; w < 8; ++w) {
      cr_assert_eq(n1[w], n2[w], "world %d", w);
      cr_assert_eq(k1[w], k2[w], "world %d", w);
      total += n1[w];
    }
    cr_assert_gt(total, 0);
    cr_assert_eq(memcmp(l1, l2, lb), 0, "lists differ"); /* contactRec has no padding */
    for (size_t i = 0; i < cb / sizeof(sapCon); ++i) { /* sapCon has: compare its fields */
      const sapCon *a = c1 + i, *b = c2 + i;
      cr_assert(a->kind == b->kind && a->rows == b->rows && a->contact == b->contact, "constraint %zu", i);
      for (int q = 0; q < 2; ++q)
        cr_assert(a->clique[q] == b->clique[q] && a->block[q] == b->block[q], "constraint %zu", i);
      cr_assert_eq(memcmp(&a->data, &b->data, sizeof a->data), 0, "constraint %zu", i);
    }
    free(l1), free(l2), free(n1), free(n2), free(c1), free(c2), free(k1), free(k2);
  }
  iso_model_destroy(m);
}

Test(contact_list, overflow_reports_the_records_needed) {
  isoModel *m = tb_balls_and_brick();
  for (int rep = 0; rep < 2; ++rep) {
    isoSim *big = sim(m, 3, 1, 4096, rep), *small = NULL;
    for (int w = 0; w < 3; ++w) place(big, w);
    cr_assert_eq(iso_sim_update_contact(big), ISO_OK);
    int need[3];
    for (int w = 0; w < 3; ++w) cr_assert_eq(iso_sim_contact_face_count(big, w, need + w), ISO_OK);
    /* a capacity between the worlds' needs: the largest world overflows, the others keep theirs */
    int lo = need[0] < need[1] ? need[0] : need[1], hi = need[0] < need[1] ? need[1] : need[0];
    lo = lo < need[2] ? lo : need[2];
    hi = hi > need[2] ? hi : need[2];
    cr_assert_lt(lo, hi, "the worlds need different numbers of records");
    small = sim(m, 3, 1, hi - 1, rep);
    for (int w = 0; w < 3; ++w) place(small, w);
    cr_assert_eq(iso_sim_update_contact(small), ISO_OK);
    uint32_t st[3];
    iso_sim_get_status(small, iso_worlds_all(), st);
    for (int w = 0; w < 3; ++w) {
      int n = -1, nc, nf;
      cr_assert_eq(iso_sim_contact_face_count(small, w, &n), ISO_OK);
      cr_assert_eq(iso_sim_get_overflow(small, w, &nc, &nf, NULL), ISO_OK);
      cr_assert_eq(nc, 0, "world %d: the candidates fit", w);
      if (need[w] == hi) {
        cr_assert(st[w] & ISO_WORLD_OVERFLOW, "world %d overflows", w);
        cr_assert_eq(n, 0, "an overflowed world keeps no record");
        cr_assert_eq(nf, hi, "world %d needed %d records, reported %d", w, hi, nf);
      } else {
        cr_assert_eq(st[w], 0u, "world %d is untouched by another's overflow", w);
        cr_assert_eq(n, need[w]);
        cr_assert_eq(nf, 0);
      }
    }
    iso_sim_destroy(big);
    iso_sim_destroy(small);
  }
  iso_model_destroy(m);
}

Test(contact_list, point_contacts_follow_the_faces) {
  isoModel *m = NULL;
  iso_model_create(NULL, &m);
  tbBlock b = {{0.1, 0.08, 0.06}, 1.0, 5e5, 1e6, 20, 0.5};
  tb_add_block(m, "box", &b, TB_HYDRO);
  tb_add_ball(m, "ball", 0.04, 0.3, 2e5, 1e5, 10, 0.6, 0.02, TB_POINT);
  tb_add_ground(m, 0.7, TB_HYDRO);
  cr_assert_eq(iso_model_compile(m), ISO_OK, "%s", iso_last_error());
  isoSim *s = tb_sim(m, 2, 1, ISO_CONTACT_LAGGED);
  tb_place(s, 0, 0, 0, 0, 0.029); /* the box sinks 1 mm into the ground */
  tb_place(s, 0, 1, 0.3, 0, 0.039); /* the ball 1 mm */
  tb_place(s, 1, 0, 0, 0, 0.5);   /* world 1: nothing touches */
  tb_place(s, 1, 1, 0.3, 0, 0.5);
  cr_assert_eq(iso_sim_step(s), ISO_OK, "%s", iso_last_error());
  const hydroWork *W = &s->contact->work;
  const int nf = W->face_count[0], nl = W->list_count[0];
  cr_assert_gt(nf, 0);
  cr_assert_eq(nl, nf + 1, "one point contact after %d faces", nf);
  const contactRec *r = W->list + nl - 1;
  cr_assert(contact_is_point(r));
  cr_assert_float_eq(r->p0, 1e-3, 1e-9, "penetration depth %g", r->p0);
  for (int i = 0; i < nf; ++i) cr_assert(!contact_is_point(W->list + i));
  /* the results read the same records */
  int n = 0;
  cr_assert_eq(iso_sim_contact_count(s, 0, &n), ISO_OK);
  isoContactResult *res = (isoContactResult *)calloc((size_t)n, sizeof *res);
  cr_assert_eq(iso_sim_get_contact_results(s, 0, res, n, &n), ISO_OK);
  cr_assert_eq(res[n - 1].kind, ISO_CONSTRAINT_POINT);
  cr_assert_eq(res[n - 1].face, -1);
  cr_assert_eq(memcmp(res[n - 1].point, &r->point, sizeof(vec3)), 0);
  cr_assert_float_eq(res[n - 1].phi0, -r->p0, 0);
  cr_assert_eq(W->list_count[1], 0, "world 1 has no contact");
  /* the batched counts: the per-world queries' faces, and the results' point constraints */
  int faces[2] = {-1, -1}, points[2] = {-1, -1}, npoint = 0, f0 = -1;
  for (int i = 0; i < n; ++i) npoint += res[i].kind == ISO_CONSTRAINT_POINT;
  int ncons[2] = {-1, -1};
  cr_assert_eq(iso_sim_get_contact_counts(s, iso_worlds_all(), faces, points, ncons), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(ncons[0], n, "the constraints iso_sim_contact_count gives");
  cr_assert_eq(ncons[1], 0);
  cr_assert_eq(iso_sim_contact_face_count(s, 0, &f0), ISO_OK);
  cr_assert_eq(faces[0], f0);
  cr_assert_eq(points[0], npoint, "%d point constraints, %d counted", npoint, points[0]);
  cr_assert_eq(faces[1] + points[1], 0, "world 1 touches nothing");
  int order[2] = {1, 0}, p2[2] = {-1, -1};
  cr_assert_eq(iso_sim_get_contact_counts(s, iso_worlds_list(order, 2), NULL, p2, NULL), ISO_OK);
  cr_assert(p2[0] == points[1] && p2[1] == points[0], "a list's order, and faces may be NULL");
  /* surfaces recomputed outside a step replace the records the constraints point into */
  cr_assert_eq(iso_sim_update_contact(s), ISO_OK);
  cr_assert_eq(iso_sim_contact_count(s, 0, &n), ISO_OK);
  cr_assert_eq(n, 0, "no results until the next step");
  cr_assert_eq(iso_sim_get_contact_counts(s, iso_worlds_one(0), NULL, points, ncons), ISO_OK);
  cr_assert_eq(points[0], 0, "no point records until the next step");
  cr_assert_eq(ncons[0], 0, "no constraints until the next step");
  tb_place(s, 0, 1, 0.3, 0, 0.5);
  cr_expect_eq(iso_sim_get_contact_counts(s, iso_worlds_all(), faces, points, NULL), ISO_ERR_STATE,
               "surfaces invalidated by a new state");
  free(res);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

/* The memory the sizes of the buffers give (deterministic, so it can be asserted): the five-box
 * stack at default capacities fits in 100 KiB per world, where a polygon per candidate slot
 * and reporting data per constraint took ~1 MB. */
Test(contact_list, five_box_stack_needs_at_most_100_KiB_per_world) {
  isoModel *m = NULL;
  cr_assert_eq(iso_scene_load(test_source_path("examples/stack_of_five_boxes.sdf"), NULL, &m, NULL), ISO_OK, "%s",
               iso_last_error());
  for (int worlds = 1; worlds <= 64; worlds *= 8) {
    isoSimDef sd = iso_default_sim_def();
    sd.worlds = worlds;
    sd.backend = ISO_BACKEND_CPU;
    isoSim *s = NULL;
    cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_OK, "%s", iso_last_error());
    size_t bytes = 0;
    cr_assert_eq(iso_sim_memory_per_world(s, &bytes), ISO_OK);
    cr_assert_leq(bytes, 100 * 1024, "%zu bytes per world at %d worlds", bytes, worlds);
    /* the contact list and the constraints alone take max_contacts records and constraints */
    cr_assert_geq(bytes, (size_t)iso_sim_capacity(s).max_contacts * (sizeof(contactRec) + sizeof(sapCon)));
    /* a parameter set per world adds its values */
    double mass = 2;
    cr_assert_eq(iso_sim_set_param(s, ISO_PARAM_BODY_MASS, 0, iso_worlds_one(0), &mass), ISO_OK);
    size_t more = 0;
    iso_sim_memory_per_world(s, &more);
    cr_assert_eq(more, bytes + sizeof(double) * (size_t)iso_sim_body_count(s));
    iso_sim_destroy(s);
  }
  iso_model_destroy(m);
}
