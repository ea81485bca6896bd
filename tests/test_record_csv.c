/* The CSV recorder (host/output/record_csv.c): the header is exact, and every value written reads back
 * bit for bit through an independent reader (%.17g round-trips doubles); names with commas and
 * quotes survive; a recorder bound to a sim writes each world and body of each step. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/output/record_csv.h"
#include "isobar/isobar.h"
#include "isobar/scenes.h"
#include "support/support.h"

#define NCOL 17

/* One parsed row: step, time, world, body name, 13 numbers. */
typedef struct row {
  long long step;
  double time;
  int world;
  char body[128];
  double x[13];
} row;

/* Split one CSV line (RFC 4180 quoting) into fields; returns the count. */
static int split(const char *line, char fields[NCOL + 1][128]) {
  int n = 0;
  const char *p = line;
  while (n <= NCOL) {
    char *out = fields[n];
    size_t k = 0;
    if (*p == '"') {
      ++p;
      while (*p && !(*p == '"' && p[1] != '"')) {
        if (*p == '"') ++p; /* a doubled quote */
        if (k < 127) out[k++] = *p;
        ++p;
      }
      if (*p == '"') ++p;
    } else {
      while (*p && *p != ',' && *p != '\n') {
        if (k < 127) out[k++] = *p;
        ++p;
      }
    }
    out[k] = '\0';
    ++n;
    if (*p != ',') break;
    ++p;
  }
  return n;
}

static double num(const char *s) {
  char *end = NULL;
  double v = strtod(s, &end);
  cr_assert(end != s && *end == '\0', "'%s' is not a number", s);
  return v;
}

/* Read the file back: checks the header, returns the rows. */
static row *read_csv(FILE *f, int *nrow) {
  char line[4096], fields[NCOL + 1][128];
  rewind(f);
  cr_assert(fgets(line, sizeof line, f) != NULL);
  cr_assert_str_eq(line, "step,time,world,body,px,py,pz,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz\n");
  int cap = 16, n = 0;
  row *rows = (row *)malloc(sizeof(row) * (size_t)cap);
  while (fgets(line, sizeof line, f)) {
    cr_assert_eq(split(line, fields), NCOL, "'%s'", line);
    if (n == cap) rows = (row *)realloc(rows, sizeof(row) * (size_t)(cap *= 2));
    row *r = &rows[n++];
    r->step = (long long)num(fields[0]);
    r->time = num(fields[1]);
    r->world = (int)num(fields[2]);
    snprintf(r->body, sizeof r->body, "%s", fields[3]);
    for (int k = 0; k < 13; ++k) r->x[k] = num(fields[4 + k]);
  }
  *nrow = n;
  return rows;
}

/* Bit-for-bit equality (so -0 and 0 differ). */
static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

Test(record_csv, header_is_exact) {
  cr_assert_str_eq(RECORD_CSV_HEADER, "step,time,world,body,px,py,pz,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz");
}

Test(record_csv, rows_round_trip_bit_for_bit) {
  enum { NW = 3, NB = 2 };
  const char *names[NB] = {"arm::link", "odd, \"quoted\" name"};
  double t[NW], q[NW * NB * 7], v[NW * NB * 6];
  test_rng rng = {42};
  for (int i = 0; i < NW; ++i) t[i] = test_rng_uniform(&rng, 0, 10);
  for (int i = 0; i < NW * NB * 7; ++i) q[i] = test_rng_uniform(&rng, -1, 1) * pow(10, test_rng_uniform(&rng, -300, 300));
  for (int i = 0; i < NW * NB * 6; ++i) v[i] = test_rng_uniform(&rng, -50, 50);
  /* Values that print badly with fewer digits, and the edges. */
  q[0] = 0.1, q[1] = -0.0, q[2] = 4.9406564584124654e-324, q[3] = 1.7976931348623157e308, v[0] = 1.0 / 3.0;
  FILE *f = tmpfile();
  cr_assert(f != NULL);
  fputs(RECORD_CSV_HEADER "\n", f);
  cr_assert_eq(record_csv_rows(f, 7, NW, NB, names, t, q, v), 0);
  int n;
  row *rows = read_csv(f, &n);
  cr_assert_eq(n, NW * NB, "one row per world and body");
  for (int w = 0; w < NW; ++w)
    for (int b = 0; b < NB; ++b) {
      const row *r = &rows[w * NB + b];
      cr_assert_eq(r->step, 7);
      cr_assert_eq(r->world, w, "worlds in order, bodies within");
      cr_assert_str_eq(r->body, names[b]);
      cr_assert(same_bits(r->time, t[w]));
      const double *qb = q + (w * NB + b) * 7, *vb = v + (w * NB + b) * 6;
      /* The file holds p, q, v, w; the poses are [p, q] and the velocities [w, v]. */
      const double want[13] = {qb[0], qb[1], qb[2], qb[3], qb[4], qb[5], qb[6], vb[3], vb[4], vb[5], vb[0], vb[1], vb[2]};
      for (int k = 0; k < 13; ++k) cr_assert(same_bits(r->x[k], want[k]), "world %d body %d column %d: %.17g vs %.17g", w, b, k, r->x[k], want[k]);
    }
  free(rows);
  fclose(f);
}

Test(record_csv, recorder_writes_every_world_body_and_step) {
  isoModel *m = NULL;
  cr_assert_eq(iso_scene_tumbling_model(2, 1e-3, &m), ISO_OK);
  isoSimDef sd = iso_default_sim_def();
  sd.worlds = 4;
  sd.backend = ISO_BACKEND_CPU;
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_OK, "%s", iso_last_error());
  cr_assert_eq(iso_scene_tumbling_init(s), ISO_OK);
  char path[512];
  test_tmp_template(path, sizeof path, "isobar_record_");
  int fd = mkstemp(path);
  cr_assert(fd >= 0);
  close(fd);
  recordCsv rec;
  cr_assert_eq(record_csv_open(&rec, path, m, s), ISO_OK, "%s", iso_last_error());
  double q_last[4 * 2 * 7], v_last[4 * 2 * 6], t_last[4];
  for (int step = 0; step <= 3; ++step) {
    if (step > 0) cr_assert_eq(iso_sim_step(s), ISO_OK);
    cr_assert_eq(record_csv_write(&rec, step, s), ISO_OK, "%s", iso_last_error());
  }
  cr_assert_eq(record_csv_close(&rec), ISO_OK);
  iso_sim_get_state(s, ISO_STATE_Q, iso_worlds_all(), q_last);
  iso_sim_get_state(s, ISO_STATE_V, iso_worlds_all(), v_last);
  iso_sim_get_state(s, ISO_STATE_TIME, iso_worlds_all(), t_last);
  FILE *f = fopen(path, "r");
  cr_assert(f != NULL);
  int n;
  row *rows = read_csv(f, &n);
  fclose(f);
  unlink(path);
  cr_assert_eq(n, 4 * 4 * 2, "steps 0..3 × 4 worlds × 2 bodies");
  for (int i = 0; i < 8; ++i) {
    const row *r = &rows[3 * 8 + i];
    int w = i / 2, b = i % 2;
    cr_assert_eq(r->step, 3);
    cr_assert_eq(r->world, w);
    cr_assert_str_eq(r->body, b == 0 ? "body0" : "body1");
    cr_assert(same_bits(r->time, t_last[w]), "time %.17g", r->time);
    const double *qb = q_last + (w * 2 + b) * 7, *vb = v_last + (w * 2 + b) * 6;
    cr_assert(same_bits(r->x[0], qb[4]) && same_bits(r->x[3], qb[0]) && same_bits(r->x[7], vb[3]) && same_bits(r->x[10], vb[0]));
  }
  cr_assert_eq(rows[0].step, 0);
  cr_assert_eq(rows[0].time, 0.0, "step 0 is the initial state");
  free(rows);
  iso_sim_destroy(s);
  iso_model_destroy(m);
}

Test(record_csv, open_failure_names_the_file) {
  isoModel *m = NULL;
  cr_assert_eq(iso_scene_tumbling_model(1, 1e-3, &m), ISO_OK);
  isoSimDef sd = iso_default_sim_def();
  sd.backend = ISO_BACKEND_CPU;
  isoSim *s = NULL;
  cr_assert_eq(iso_sim_create(m, &sd, &s), ISO_OK);
  recordCsv rec;
  cr_assert_eq(record_csv_open(&rec, "/nonexistent-isobar-dir/out.csv", m, s), ISO_ERR_IO);
  cr_assert(strstr(iso_last_error(), "/nonexistent-isobar-dir/out.csv") != NULL, "%s", iso_last_error());
  cr_assert_eq(record_csv_close(&rec), ISO_OK, "closing a failed recorder is harmless");
  iso_sim_destroy(s);
  iso_model_destroy(m);
}
