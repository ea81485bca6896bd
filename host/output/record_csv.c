/* Recording states to CSV (host/output/record_csv.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/output/record_csv.h"
#include "isobar/deformable.h"

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

static void *alloc_n(size_t n, size_t size) { return malloc((n + 1) * size); }

isoStatus record_csv_open(recordCsv *r, const char *path, const isoModel *model, const isoSim *sim) {
  memset(r, 0, sizeof *r);
  r->nworld = iso_sim_world_count(sim);
  r->nbody = iso_sim_body_count(sim);
  r->ndef = iso_model_deformable_count(model);
  r->nrow = r->nbody + r->ndef;
  const size_t nw = (size_t)r->nworld, nwr = nw * (size_t)r->nrow, nwb = nw * (size_t)r->nbody;
  const size_t ndv3 = (size_t)iso_sim_state_width(sim, ISO_STATE_VERTEX_POSITION);
  r->names = (const char **)calloc((size_t)r->nrow + 1, sizeof *r->names);
  r->def_nvert = (int *)alloc_n((size_t)r->ndef, sizeof(int));
  r->X = (double *)alloc_n(nwr * 7, sizeof(double));
  r->V = (double *)alloc_n(nwr * 6, sizeof(double));
  r->B = (double *)alloc_n(nwb * 7, sizeof(double));
  r->W = (double *)alloc_n(nwb * 6, sizeof(double));
  r->xd = (double *)alloc_n(nw * ndv3, sizeof(double));
  r->vd = (double *)alloc_n(nw * ndv3, sizeof(double));
  r->t = (double *)alloc_n(nw, sizeof(double));
  r->path = (char *)malloc(strlen(path) + 1);
  if (!r->names || !r->def_nvert || !r->X || !r->V || !r->B || !r->W || !r->xd || !r->vd || !r->t || !r->path) {
    record_csv_close(r);
    return iso_fail(ISO_ERR_NOMEM, "record: out of memory for %zu world-bodies", nwr);
  }
  strcpy(r->path, path);
  isoStatus st = ISO_OK;
  for (int b = 0; b < r->nbody && st == ISO_OK; ++b) {
    isoBodyDef bd;
    st = iso_model_get_body(model, b, &bd);
    r->names[b] = bd.name;
  }
  for (int d = 0; d < r->ndef && st == ISO_OK; ++d) {
    isoDeformableDef dd;
    st = iso_model_get_deformable(model, d, &dd);
    if (st == ISO_OK) st = iso_model_deformable_size(model, d, &r->def_nvert[d], NULL, NULL);
    r->names[r->nbody + d] = dd.name;
  }
  if (st != ISO_OK) {
    record_csv_close(r);
    return st;
  }
  st = out_open(&r->out, path);
  if (st != ISO_OK) {
    char why[1024];
    snprintf(why, sizeof why, "%s", iso_last_error());
    record_csv_abort(r);
    return iso_fail(st, "cannot create '%s': %s", path, why);
  }
  if (fputs(RECORD_CSV_HEADER "\n", r->out.f) < 0) return iso_fail(ISO_ERR_IO, "cannot write '%s'", path);
  return ISO_OK;
}

/* Lay world w's rows out: the rigid bodies' poses and velocities as the sim gave them, then
 * each deformable body's vertex means (summed in vertex order, so the row is reproducible). */
static void gather_rows(recordCsv *r, int w, size_t ndv3) {
  const size_t nb = (size_t)r->nbody, nr = (size_t)r->nrow;
  memcpy(r->X + (size_t)w * nr * 7, r->B + (size_t)w * nb * 7, nb * 7 * sizeof(double));
  memcpy(r->V + (size_t)w * nr * 6, r->W + (size_t)w * nb * 6, nb * 6 * sizeof(double));
  const double *x = r->xd + (size_t)w * ndv3, *v = r->vd + (size_t)w * ndv3;
  for (int d = 0; d < r->ndef; ++d) {
    double *X = r->X + ((size_t)w * nr + nb + (size_t)d) * 7, *V = r->V + ((size_t)w * nr + nb + (size_t)d) * 6;
    const int n = r->def_nvert[d];
    double px[3] = {0, 0, 0}, pv[3] = {0, 0, 0};
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < 3; ++k) px[k] += x[3 * i + k], pv[k] += v[3 * i + k];
    for (int k = 0; k < 3; ++k) X[k] = px[k] / n, V[k] = 0, V[3 + k] = pv[k] / n;
    X[3] = 1, X[4] = X[5] = X[6] = 0;
    x += 3L * n, v += 3L * n;
  }
}

isoStatus record_csv_write(recordCsv *r, long long step, const isoSim *sim) {
  isoWorlds all = iso_worlds_all();
  const size_t ndv3 = (size_t)iso_sim_state_width(sim, ISO_STATE_VERTEX_POSITION);
  isoStatus st = iso_sim_get_body_poses(sim, all, r->B);
  if (st == ISO_OK) st = iso_sim_get_body_velocities(sim, all, r->W);
  if (st == ISO_OK) st = iso_sim_get_state(sim, ISO_STATE_TIME, all, r->t);
  if (st == ISO_OK && ndv3 > 0) st = iso_sim_get_state(sim, ISO_STATE_VERTEX_POSITION, all, r->xd);
  if (st == ISO_OK && ndv3 > 0) st = iso_sim_get_state(sim, ISO_STATE_VERTEX_VELOCITY, all, r->vd);
  if (st != ISO_OK) return st;
  for (int w = 0; w < r->nworld; ++w) gather_rows(r, w, ndv3);
  if (record_csv_rows(r->out.f, step, r->nworld, r->nrow, r->names, r->t, r->X, r->V) != 0)
    return iso_fail(ISO_ERR_IO, "cannot write '%s': %s", r->path, strerror(errno));
  return ISO_OK;
}

static void free_buffers(recordCsv *r) {
  free(r->names);
  free(r->def_nvert);
  free(r->B);
  free(r->W);
  free(r->xd);
  free(r->vd);
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
