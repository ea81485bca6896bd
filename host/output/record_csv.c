/* Recording states to CSV (host/output/record_csv.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/output/record_csv.h"

int record_csv_field(FILE *f, const char *s) {
  if (!strpbrk(s, ",\"\r\n")) return fputs(s, f) < 0 ? -1 : 0;
  if (fputc('"', f) == EOF) return -1;
  for (; *s; ++s) {
    if (*s == '"' && fputc('"', f) == EOF) return -1;
    if (fputc(*s, f) == EOF) return -1;
  }
  return fputc('"', f) == EOF ? -1 : 0;
}

int record_csv_rows(FILE *f, long long step, int nworld, int nbody, const char *const *names, const double *time,
                    const double *X, const double *V) {
  for (int w = 0; w < nworld; ++w)
    for (int b = 0; b < nbody; ++b) {
      const double *xb = X + ((size_t)w * (size_t)nbody + (size_t)b) * 7;
      const double *vb = V + ((size_t)w * (size_t)nbody + (size_t)b) * 6;
      if (fprintf(f, "%lld,%.17g,%d,", step, time[w], w) < 0 || record_csv_field(f, names[b]) < 0) return -1;
      /* the pose is [p q] as the file's; the velocity is [w v], the file's v, w */
      if (fprintf(f, ",%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", xb[0], xb[1],
                  xb[2], xb[3], xb[4], xb[5], xb[6], vb[3], vb[4], vb[5], vb[0], vb[1], vb[2]) < 0)
        return -1;
    }
  return 0;
}

isoStatus record_csv_open(recordCsv *r, const char *path, const isoModel *model, const isoSim *sim) {
  memset(r, 0, sizeof *r);
  r->nworld = iso_sim_world_count(sim);
  r->nbody = iso_sim_body_count(sim);
  size_t nwb = (size_t)r->nworld * (size_t)r->nbody;
  r->names = (const char **)calloc((size_t)r->nbody + 1, sizeof *r->names);
  r->X = (double *)malloc((nwb * 7 + 1) * sizeof(double));
  r->V = (double *)malloc((nwb * 6 + 1) * sizeof(double));
  r->t = (double *)malloc(((size_t)r->nworld + 1) * sizeof(double));
  r->path = (char *)malloc(strlen(path) + 1);
  if (!r->names || !r->X || !r->V || !r->t || !r->path) {
    record_csv_close(r);
    return iso_fail(ISO_ERR_NOMEM, "record: out of memory for %zu world-bodies", nwb);
  }
  strcpy(r->path, path);
  for (int b = 0; b < r->nbody; ++b) {
    isoBodyDef bd;
    isoStatus st = iso_model_get_body(model, b, &bd);
    if (st != ISO_OK) {
      record_csv_close(r);
      return st;
    }
    r->names[b] = bd.name;
  }
  isoStatus st = out_open(&r->out, path);
  if (st != ISO_OK) {
    char why[1024];
    snprintf(why, sizeof why, "%s", iso_last_error());
    record_csv_abort(r);
    return iso_fail(st, "cannot create '%s': %s", path, why);
  }
  if (fputs(RECORD_CSV_HEADER "\n", r->out.f) < 0) return iso_fail(ISO_ERR_IO, "cannot write '%s'", path);
  return ISO_OK;
}

isoStatus record_csv_write(recordCsv *r, long long step, const isoSim *sim) {
  isoWorlds all = iso_worlds_all();
  isoStatus st = iso_sim_get_body_poses(sim, all, r->X);
  if (st == ISO_OK) st = iso_sim_get_body_velocities(sim, all, r->V);
  if (st == ISO_OK) st = iso_sim_get_state(sim, ISO_STATE_TIME, all, r->t);
  if (st != ISO_OK) return st;
  if (record_csv_rows(r->out.f, step, r->nworld, r->nbody, r->names, r->t, r->X, r->V) != 0)
    return iso_fail(ISO_ERR_IO, "cannot write '%s': %s", r->path, strerror(errno));
  return ISO_OK;
}

static void free_buffers(recordCsv *r) {
  free(r->names);
  free(r->X);
  free(r->V);
  free(r->t);
  free(r->path);
  memset(r, 0, sizeof *r);
}

isoStatus record_csv_close(recordCsv *r) {
  isoStatus st = ISO_OK;
  if (r->out.f) st = out_commit(&r->out); /* its message names the file */
  free_buffers(r);
  return st;
}

void record_csv_abort(recordCsv *r) {
  out_abort(&r->out);
  free_buffers(r);
}
