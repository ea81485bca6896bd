/* Internal: recording the state of every world and body to a CSV file (isobar run --record).
 *
 * One header line, then one row per (step, world, body), worlds in order and bodies in order
 * within each step, rigid bodies first, then deformable bodies (a deformable body's row holds
 * the mean of its vertex positions and velocities, quaternion (1, 0, 0, 0), angular velocity
 * 0):
 *   step,time,world,body,px,py,pz,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz
 * p is the body origin and q = R_WB (w, x, y, z); v is the origin's velocity and w the angular
 * velocity, both in the world frame (note the order: the sim's v is [w, v], the file's is
 * linear first, as people read it). Numbers are written with %.17g, so every double reads back
 * exactly; a body name holding a comma, a quote or a line break is quoted as RFC 4180 says. */
#ifndef ISO_HOST_RECORD_CSV_H
#define ISO_HOST_RECORD_CSV_H

#include <stdio.h>

#include "host/output/out_file.h"
#include "isobar/model.h"
#include "isobar/sim.h"

#define RECORD_CSV_HEADER "step,time,world,body,px,py,pz,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz"

/* Write the rows of one step. X and V are laid out as iso_sim_get_body_poses and
 * iso_sim_get_body_velocities write them (per world nbody·7 values px py pz qw qx qy qz, and
 * nbody·6 values wx wy wz vx vy vz), time has one value per world, names one per body. Returns 0
 * on success, -1 when the stream reports an error. */
int record_csv_rows(FILE *f, long long step, int nworld, int nbody, const char *const *names, const double *time,
                    const double *X, const double *V);

/* Write `s` as one CSV field: as it is, or quoted as RFC 4180 says when it holds a comma, a quote
 * or a line break. 0 on success, -1 on a stream error. */
int record_csv_field(FILE *f, const char *s);

/* A recorder bound to one file and one sim, with its own buffers. */
typedef struct recordCsv {
  outFile out;        /* the temporary the rows go to, renamed over the path at close */
  char *path;         /* as given, for messages */
  int nworld, nbody, ndef, nrow; /* rows per world: nbody rigid, then ndef deformable */
  const char **names; /* (nrow) the model's body names (owned by the model) */
  int *def_nvert;     /* (ndef) vertices of each deformable body */
  double *X, *V, *t;  /* rows' poses (nworld·nrow·7), velocities (nworld·nrow·6), time (nworld) */
  double *B, *W;      /* rigid poses (nworld·nbody·7) and velocities (nworld·nbody·6) */
  double *xd, *vd;    /* vertex positions and velocities (nworld · 3 · vertices) */
} recordCsv;

/* Start `path` (a temporary beside it until record_csv_close, host/output/out_file.h), write
 * the header and size the buffers for `sim` (of model `model`, which must outlive the
 * recorder). ISO_ERR_IO names the file when it cannot be created. */
isoStatus record_csv_open(recordCsv *r, const char *path, const isoModel *model, const isoSim *sim);

/* Append the rows of the sim's current state as step `step`: every body's pose and velocity
 * from iso_sim_get_body_poses and iso_sim_get_body_velocities (for a free body, its state). */
isoStatus record_csv_write(recordCsv *r, long long step, const isoSim *sim);

/* Flush, close and rename the recording over `path` (also harmless after a failure; r may be
 * zeroed). ISO_ERR_IO when anything written was lost, and then `path` is left as it was. */
isoStatus record_csv_close(recordCsv *r);

/* Drop the recording: the temporary is removed and `path` left as it was (r may be zeroed). */
void record_csv_abort(recordCsv *r);

#endif
