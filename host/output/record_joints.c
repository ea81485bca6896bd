/* Recording joint states to CSV (host/output/record_joints.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/output/record_csv.h"
#include "host/output/record_joints.h"
#include "isobar/joint.h"

double record_joint_q(int type, const double *qj, int k) {
  if (type == ISO_JOINT_REVOLUTE || type == ISO_JOINT_PRISMATIC) return k == 0 ? qj[0] : 0;
  if (type != ISO_JOINT_BALL && type != ISO_JOINT_FLOATING) return 0;
  if (k >= 3) return type == ISO_JOINT_FLOATING && k < 6 ? qj[4 + k - 3] : 0;
  /* the rotation vector of (w, x, y, z): the shorter rotation, angle = 2 atan2(|xyz|, |w|) */
  double w = qj[0], x = qj[1], y = qj[2], z = qj[3];
  if (w < 0) w = -w, x = -x, y = -y, z = -z;
  const double s = sqrt(x * x + y * y + z * z);
  const double n = sqrt(w * w + s * s);
  /* angle / s, with its limit 2 / |q| for a vanishing rotation */
  const double f = s > 1e-12 * n ? 2 * atan2(s, w) / s : (n > 0 ? 2 / n : 0);
  return f * (k == 0 ? x : k == 1 ? y : z);
}

static void free_all(recordJoints *r) {
  for (int i = 0; i < r->nrow; ++i) free(r->rows[i].name);
  free(r->rows);
  free(r->q);
  free(r->v);
  free(r->u);
  free(r->t);
  free(r->path);
  memset(r, 0, sizeof *r);
}

/* The rows of the model's joints; r->rows sized for nv rows. */
static isoStatus list_rows(recordJoints *r, const isoModel *m) {
  const int nj = iso_model_joint_count(m), na = iso_model_actuator_count(m);
  for (int j = 0; j < nj; ++j) {
    isoJointDef jd;
    isoSlice qs, vs;
    isoStatus st = iso_model_get_joint(m, j, &jd);
    if (st == ISO_OK) st = iso_model_joint_slice(m, j, &qs, &vs);
    if (st != ISO_OK) return st;
    int act = -1;
    for (int a = 0; a < na && act < 0; ++a) {
      isoActuatorDef ad;
      if (iso_model_get_actuator(m, a, &ad) == ISO_OK && ad.joint == j) act = a;
    }
    for (int k = 0; k < vs.count; ++k) {
      if (r->nrow >= r->nv) return iso_fail(ISO_ERR_STATE, "record: more joint DoFs than velocities");
      recordJointRow *row = &r->rows[r->nrow];
      size_t len = strlen(jd.name) + 16;
      row->name = (char *)malloc(len);
      if (!row->name) return iso_fail(ISO_ERR_NOMEM, "record: out of memory");
      if (vs.count == 1) snprintf(row->name, len, "%s", jd.name);
      else snprintf(row->name, len, "%s[%d]", jd.name, k);
      row->type = (int)jd.type, row->q0 = qs.start, row->v = vs.start + k, row->k = k, row->act = act;
      r->nrow++;
    }
  }
  return ISO_OK;
}

isoStatus record_joints_open(recordJoints *r, const char *path, const isoModel *model, const isoSim *sim) {
  memset(r, 0, sizeof *r);
  r->nworld = iso_sim_world_count(sim);
  r->nq = iso_sim_state_width(sim, ISO_STATE_Q);
  r->nv = iso_sim_state_width(sim, ISO_STATE_V);
  r->nact = iso_sim_state_width(sim, ISO_STATE_ACTUATION);
  const size_t nw = (size_t)r->nworld;
  r->rows = (recordJointRow *)calloc((size_t)r->nv + 1, sizeof *r->rows);
  r->q = (double *)malloc((nw * (size_t)r->nq + 1) * sizeof(double));
  r->v = (double *)malloc((nw * (size_t)r->nv + 1) * sizeof(double));
  r->u = (double *)malloc((nw * (size_t)r->nact + 1) * sizeof(double));
  r->t = (double *)malloc((nw + 1) * sizeof(double));
  r->path = (char *)malloc(strlen(path) + 1);
  if (!r->rows || !r->q || !r->v || !r->u || !r->t || !r->path) {
    free_all(r);
    return iso_fail(ISO_ERR_NOMEM, "record: out of memory for %zu worlds", nw);
  }
  strcpy(r->path, path);
  isoStatus st = list_rows(r, model);
  if (st != ISO_OK) {
    free_all(r);
    return st;
  }
  if ((st = out_open(&r->out, path)) != ISO_OK) {
    char why[1024];
    snprintf(why, sizeof why, "%s", iso_last_error());
    free_all(r);
    return iso_fail(st, "cannot create '%s': %s", path, why);
  }
  if (fputs(RECORD_JOINTS_HEADER "\n", r->out.f) < 0) return iso_fail(ISO_ERR_IO, "cannot write '%s'", path);
  return ISO_OK;
}

isoStatus record_joints_write(recordJoints *r, long long step, const isoSim *sim) {
  isoWorlds all = iso_worlds_all();
  isoStatus st = iso_sim_get_state(sim, ISO_STATE_Q, all, r->q);
  if (st == ISO_OK) st = iso_sim_get_state(sim, ISO_STATE_V, all, r->v);
  if (st == ISO_OK && r->nact > 0) st = iso_sim_get_state(sim, ISO_STATE_ACTUATION, all, r->u);
  if (st == ISO_OK) st = iso_sim_get_state(sim, ISO_STATE_TIME, all, r->t);
  if (st != ISO_OK) return st;
  FILE *f = r->out.f;
  for (int w = 0; w < r->nworld; ++w) {
    const double *q = r->q + (size_t)w * (size_t)r->nq, *v = r->v + (size_t)w * (size_t)r->nv;
    const double *u = r->u + (size_t)w * (size_t)r->nact;
    for (int i = 0; i < r->nrow; ++i) {
      const recordJointRow *row = &r->rows[i];
      if (fprintf(f, "%lld,%.17g,%d,", step, r->t[w], w) < 0 || record_csv_field(f, row->name) < 0 ||
          fprintf(f, ",%.17g,%.17g,%.17g\n", record_joint_q(row->type, q + row->q0, row->k), v[row->v],
                  row->act >= 0 ? u[row->act] : 0.0) < 0)
        return iso_fail(ISO_ERR_IO, "cannot write '%s': %s", r->path, strerror(errno));
    }
  }
  return ISO_OK;
}

isoStatus record_joints_close(recordJoints *r) {
  isoStatus st = ISO_OK;
  if (r->out.f) st = out_commit(&r->out);
  free_all(r);
  return st;
}

void record_joints_abort(recordJoints *r) {
  out_abort(&r->out);
  free_all(r);
}
