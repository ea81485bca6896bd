/* Internal: recording every joint DoF of every world to a CSV file (isobar run --record-joints).
 *
 * One header line, then one row per (step, world, joint DoF), worlds in order and within a
 * world the joints in model order, their DoFs in order:
 *   step,time,world,joint,q,v,effort
 * joint is the model's joint name (the loaders scope it, "model::joint"). Revolute and prismatic
 * joints have one row: q the angle (rad) or displacement (m), v its rate. Ball and floating
 * joints have one row per velocity DoF, named with the DoF's index, "shoulder[0]" ..
 * "shoulder[2]" (ball) or ".. [5]" (floating), in the order of the joint's v: for the rotational
 * DoFs q is the component of the rotation vector (axis times angle, rad, angle in [0, π]) of R_FM
 * expressed in F and v the component of the angular velocity in F; for a floating joint's
 * translational DoFs [3] .. [5], q is the component of p_FM (m) and v of its rate. effort is the
 * effort the joint's actuator applied in the last step (ISO_STATE_ACTUATION; 0 at step 0), or 0
 * for a DoF without an actuator. Fixed joints have no DoFs and no rows. Numbers are %.17g, names
 * quoted as RFC 4180 says. The file is written through host/output/out_file.h. */
#ifndef ISO_HOST_RECORD_JOINTS_H
#define ISO_HOST_RECORD_JOINTS_H

#include "host/output/out_file.h"
#include "isobar/model.h"
#include "isobar/sim.h"

#define RECORD_JOINTS_HEADER "step,time,world,joint,q,v,effort"

/* The q column of DoF k of a joint of type `type` (isoJointType) whose positions are qj: the
 * coordinate itself (revolute, prismatic), a rotation-vector component (k < 3 of ball and
 * floating joints) or a position component (k >= 3 of a floating joint). */
double record_joint_q(int type, const double *qj, int k);

/* One row of each world: a joint DoF. */
typedef struct recordJointRow {
  char *name;  /* "joint" or "joint[k]" */
  int type;    /* isoJointType */
  int q0, v;   /* the joint's first position and this DoF's velocity, in a world's q and v */
  int k;       /* the DoF's index within the joint */
  int act;     /* the actuator driving it, or -1 */
} recordJointRow;

typedef struct recordJoints {
  outFile out;
  char *path;
  int nworld, nq, nv, nact, nrow;
  recordJointRow *rows;
  double *q, *v, *u, *t; /* (nworld·nq), (nworld·nv), (nworld·nact), (nworld) */
} recordJoints;

/* Start `path` (a temporary until record_joints_close), write the header and list the rows of
 * `model`'s joints. ISO_ERR_IO names the file when it cannot be created. */
isoStatus record_joints_open(recordJoints *r, const char *path, const isoModel *model, const isoSim *sim);

/* Append the rows of the sim's current state as step `step`. */
isoStatus record_joints_write(recordJoints *r, long long step, const isoSim *sim);

/* Flush, close and rename over `path` (harmless on a zeroed or failed recorder). */
isoStatus record_joints_close(recordJoints *r);

/* Drop the recording: the temporary is removed, `path` left as it was. */
void record_joints_abort(recordJoints *r);

#endif
