/* Body poses and spatial velocities from the generalized state (iso_sim_get_body_poses,
 * iso_sim_get_body_velocities in include/isobar/sim.h).
 *
 * The selected worlds' q (and v) are gathered to the host, then the trees are walked there with
 * the same kernels the step runs (tree_set_pose, tree_motion_axes, tree_body_velocities) over the
 * sim's host view of the model, which exists on every backend. A free body's pose and velocity
 * are its q and v as they are (tree_set_pose copies a free body's q), so free-body scenes read
 * back exactly their state. */
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/sim/sim_internal.h"
#include "kernels/rigid/tree_step.h"

/* The trees of the host model view: enough of a treeSet for poses and velocities (no masses,
 * parameters or per-world scratch). */
static treeSet host_tree_set(const isoSim *s) {
  const modelView *m = &s->mh;
  treeSet S;
  memset(&S, 0, sizeof S);
  treeModel *T = &S.T;
  T->nbody = s->nbody;
  T->parent = m->body_parent, T->type = m->body_jtype;
  T->q0 = m->body_q0, T->v0 = m->body_v0;
  T->X_PF = m->body_X_PF, T->X_BM = m->body_X_BM;
  T->axis = m->body_axis;
  T->order = m->tree_order, T->pos = m->tree_pos;
  S.ntree = m->z.ntree, S.nv = s->nv, S.max_nt = m->z.max_nt, S.jointed = m->z.jointed;
  S.tree_body0 = m->tree_body0, S.tree_v0 = m->tree_v0, S.tree_free = m->tree_free;
  S.tree_clique = m->tree_clique, S.tree_a0 = m->tree_a0, S.body_tree = m->body_tree;
  return S;
}

/* One world's poses (nbody xforms) from its q: every tree, parents first. */
static void world_poses(const treeSet *S, const real *q, xform *X_WB) {
  for (int k = 0; k < S->ntree; ++k) tree_set_pose(S, k, q, X_WB);
}

/* One world's body velocities from its poses and v; Sax: (nv) scratch for the motion axes. */
static void world_velocities(const treeSet *S, const xform *X_WB, const real *v, svec *Sax, svec *V_WB) {
  for (int k = 0; k < S->ntree; ++k) {
    int b0, b1, v0, nt;
    tree_range(S, k, &b0, &b1, &v0, &nt);
    if (S->tree_free[k]) { /* the free body's v is [w; v_Bo] in W already */
      const int b = S->T.order[b0];
      const real *vb = v + S->T.v0[b];
      V_WB[b] = sv_make(v3(vb[0], vb[1], vb[2]), v3(vb[3], vb[4], vb[5]));
      continue;
    }
    tree_motion_axes(&S->T, b0, b1, v0, X_WB, Sax + v0);
    tree_body_velocities(&S->T, b0, b1, v0, X_WB, Sax + v0, v, V_WB);
  }
}

/* Gather the selected worlds' q (and v when want_v) and walk them; pose rows of 7 into `poses`
 * or velocity rows of 6 into `vels` (one of them NULL). */
static isoStatus body_query(const isoSim *s, isoWorlds w, const char *fn, double *poses, double *vels) {
  simSel sel;
  isoStatus st = sim_select(s, w, fn, &sel);
  if (st != ISO_OK || sel.n == 0) return st;
  const size_t n = (size_t)sel.n, nb = (size_t)s->nbody, nq = (size_t)s->nq, nv = (size_t)s->nv;
  real *q = (real *)malloc(sizeof(real) * (n * nq + 1));
  real *v = vels ? (real *)malloc(sizeof(real) * (n * nv + 1)) : NULL;
  xform *X = (xform *)malloc(sizeof(xform) * (nb + 1));
  svec *V = vels ? (svec *)malloc(sizeof(svec) * (nb + 1)) : NULL;
  svec *Sax = vels ? (svec *)malloc(sizeof(svec) * (nv + 1)) : NULL;
  if (!q || !X || (vels && (!v || !V || !Sax))) {
    st = iso_fail(ISO_ERR_NOMEM, "%s: out of memory for %zu worlds", fn, n);
    goto done;
  }
  st = sim_gather_rows(s, &sel, s->q, (long)(nq * sizeof(real)), nq * sizeof(real), q);
  if (st == ISO_OK && vels) st = sim_gather_rows(s, &sel, s->v, (long)(nv * sizeof(real)), nv * sizeof(real), v);
  if (st != ISO_OK) goto done;
  const treeSet S = host_tree_set(s);
  for (size_t k = 0; k < n; ++k) {
    const real *qk = q + k * nq;
    world_poses(&S, qk, X);
    if (poses) {
      for (size_t b = 0; b < nb; ++b) {
        double *o = poses + (k * nb + b) * 7;
        o[0] = X[b].p.x, o[1] = X[b].p.y, o[2] = X[b].p.z;
        o[3] = X[b].q.w, o[4] = X[b].q.x, o[5] = X[b].q.y, o[6] = X[b].q.z;
      }
    }
    if (vels) {
      world_velocities(&S, X, v + k * nv, Sax, V);
      for (size_t b = 0; b < nb; ++b) {
        double *o = vels + (k * nb + b) * 6;
        o[0] = V[b].w.x, o[1] = V[b].w.y, o[2] = V[b].w.z;
        o[3] = V[b].v.x, o[4] = V[b].v.y, o[5] = V[b].v.z;
      }
    }
  }
done:
  free(q);
  free(v);
  free(X);
  free(V);
  free(Sax);
  return st;
}

isoStatus iso_sim_get_body_poses(const isoSim *s, isoWorlds w, double *out) {
  const char *fn = "iso_sim_get_body_poses";
  CHECK_NULL(s, fn);
  CHECK_NULL(out, fn);
  return body_query(s, w, fn, out, NULL);
}

isoStatus iso_sim_get_body_velocities(const isoSim *s, isoWorlds w, double *out) {
  const char *fn = "iso_sim_get_body_velocities";
  CHECK_NULL(s, fn);
  CHECK_NULL(out, fn);
  return body_query(s, w, fn, NULL, out);
}
