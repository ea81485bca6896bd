/* Welding deformable vertices to rigid bodies (iso_model_weld_deformable): which vertices a shape
 * posed on the body catches at rest, and the body point each is held at.
 *
 * A shape on the world holds its vertices at the call. A shape on a rigid body is kept as asked
 * and its vertices are chosen at compile (model_deformable_weld_resolve), with the body at its
 * initial pose: a free body's isoFreeBodyState, or for a body a joint moves, the pose its
 * joints' initial positions give — known only once every joint is added, which may come after
 * the weld. The step then holds each vertex at its body point whatever moves the body (the
 * weld's rigid side goes through the body's tree, kernels/fem/contact.h). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/model/model_internal.h"
#include "kernels/math/transform.h"
#include "kernels/rigid/tree.h"

/* Whether p (in the shape's frame) lies inside or on the shape, to a relative 1e-12 of its size
 * (a vertex exactly on a face, as a grid's are, is caught whatever the rounding). */
static int inside(int shape, const double *size, vec3 p) {
  const double eps = 1e-12 * (fabs(size[0]) + fabs(size[1]) + fabs(size[2]));
  switch (shape) {
    case ISO_SHAPE_BOX:
      return fabs(p.x) <= size[0] / 2 + eps && fabs(p.y) <= size[1] / 2 + eps && fabs(p.z) <= size[2] / 2 + eps;
    case ISO_SHAPE_SPHERE:
      return v3_norm(p) <= size[0] + eps;
    case ISO_SHAPE_CYLINDER:
      return sqrt(p.x * p.x + p.y * p.y) <= size[0] + eps && fabs(p.z) <= size[1] / 2 + eps;
    case ISO_SHAPE_CAPSULE: {
      const double z = fmax(-size[1] / 2, fmin(size[1] / 2, p.z));
      return v3_norm(v3(p.x, p.y, p.z - z)) <= size[0] + eps;
    }
    case ISO_SHAPE_ELLIPSOID:
      return (p.x / size[0]) * (p.x / size[0]) + (p.y / size[1]) * (p.y / size[1]) +
                 (p.z / size[2]) * (p.z / size[2]) <= 1 + 1e-12;
  }
  return 0;
}

/* X_WB of rigid body b at the model's initial state as the model stands: a free body's
 * isoFreeBodyState; a jointed one's from its joint's initial position and its parent's pose,
 * composed as stage 1's forward kinematics composes it (tree_forward_kinematics), so the weld
 * points sit where the first step puts the body. Parents have smaller indices, so the recursion
 * ends; a joint is found by its child (one per child, iso_model_add_joint checks it). */
static xform initial_pose(const isoModel *m, int b) {
  int j = -1;
  for (int k = 0; k < m->njoint && j < 0; ++k)
    if (m->joint[k].child == b) j = k;
  if (j < 0) {
    const isoFreeBodyState *x = &m->body_state[b];
    return xf_make(quat_make(x->quaternion[0], x->quaternion[1], x->quaternion[2], x->quaternion[3]),
                   v3(x->position[0], x->position[1], x->position[2]));
  }
  const isoJointDef *d = &m->joint[j];
  const double *pq = d->parent_quaternion, *cq = d->child_quaternion;
  const xform X_PF = xf_make(quat_make(pq[0], pq[1], pq[2], pq[3]),
                             v3(d->parent_position[0], d->parent_position[1], d->parent_position[2]));
  const xform X_BM = xf_make(quat_make(cq[0], cq[1], cq[2], cq[3]),
                             v3(d->child_position[0], d->child_position[1], d->child_position[2]));
  const xform X_WF = d->parent < 0 ? X_PF : xf_mul(initial_pose(m, d->parent), X_PF);
  const xform X_FM = tree_joint_pose((int)d->type, v3(d->axis[0], d->axis[1], d->axis[2]), m->joint_q[j]);
  return xf_mul(xf_mul(X_WF, X_FM), xf_inv(X_BM));
}

/* How many of b's rest vertices lie inside shape s with its body at X_WB; with `out` (b itself,
 * its welds already grown to fit), also appends each to its welds at its body point. */
static int catch_vertices(const modelDeformable *b, const modelWeldShape *s, xform X_WB, modelDeformable *out) {
  const xform X_WG = xf_mul(X_WB, s->X_BG);
  int n = 0;
  for (int v = 0; v < b->nvert; ++v) {
    const vec3 p = v3(b->rest[3 * v], b->rest[3 * v + 1], b->rest[3 * v + 2]);
    if (!inside(s->shape, s->size, xf_inv_point(X_WG, p))) continue;
    ++n;
    if (!out) continue;
    const vec3 pB = xf_inv_point(X_WB, p);
    const int k = out->nweld++;
    out->weld_vert[k] = v, out->weld_body[k] = s->rigid;
    out->weld_p[3 * k] = pB.x, out->weld_p[3 * k + 1] = pB.y, out->weld_p[3 * k + 2] = pB.z;
  }
  return n;
}

/* Room for `need` welds in b. */
static int reserve_welds(modelDeformable *b, int need) {
  if (need <= b->weld_cap) return 1;
  int *wv = (int *)realloc(b->weld_vert, sizeof(int) * (size_t)need);
  if (wv) b->weld_vert = wv;
  int *wb = (int *)realloc(b->weld_body, sizeof(int) * (size_t)need);
  if (wb) b->weld_body = wb;
  real *wp = (real *)realloc(b->weld_p, sizeof(real) * 3 * (size_t)need);
  if (wp) b->weld_p = wp;
  if (!wv || !wb || !wp) return 0;
  b->weld_cap = need;
  return 1;
}

isoStatus iso_model_weld_deformable(isoModel *m, int body, int rigid, int shape, const double size[3],
                                    const double position[3], const double quaternion[4], int *count) {
  const char *fn = "iso_model_weld_deformable";
  CHECK_NULL(m, fn);
  CHECK_NULL(size, fn);
  CHECK_NULL(position, fn);
  CHECK_NULL(quaternion, fn);
  if (m->compiled) return iso_fail(ISO_ERR_STATE, "%s: the model is compiled and read-only", fn);
  if (body < 0 || body >= m->deformables.n)
    return iso_fail(ISO_ERR_NOT_FOUND, "%s: deformable body index %d is out of range [0, %d)", fn, body,
                    m->deformables.n);
  modelDeformable *b = &m->deformables.body[body];
  if (rigid != ISO_WORLD_BODY && (rigid < 0 || rigid >= m->nbody))
    return iso_fail(ISO_ERR_NOT_FOUND, "deformable '%s': rigid body index %d is out of range [0, %d)", b->def.name,
                    rigid, m->nbody);
  if (shape != ISO_SHAPE_BOX && shape != ISO_SHAPE_SPHERE && shape != ISO_SHAPE_CYLINDER &&
      shape != ISO_SHAPE_CAPSULE && shape != ISO_SHAPE_ELLIPSOID)
    return iso_fail(ISO_ERR_INVALID, "deformable '%s': a weld shape is a box, sphere, cylinder, capsule or ellipsoid "
                    "(got shape %d)", b->def.name, shape);
  const double qn = sqrt(quaternion[0] * quaternion[0] + quaternion[1] * quaternion[1] +
                         quaternion[2] * quaternion[2] + quaternion[3] * quaternion[3]);
  for (int k = 0; k < 3; ++k)
    if (!isfinite(size[k]) || size[k] < 0 || !isfinite(position[k]) || !isfinite(quaternion[k + 1]))
      return iso_fail(ISO_ERR_INVALID, "deformable '%s': the weld shape's sizes and pose must be finite and sizes >= 0",
                      b->def.name);
  if (!(qn > 1e-12) || !isfinite(qn))
    return iso_fail(ISO_ERR_INVALID, "deformable '%s': the weld shape's quaternion is zero or not finite", b->def.name);
  modelWeldShape s;
  memset(&s, 0, sizeof s);
  s.rigid = rigid, s.shape = shape;
  for (int k = 0; k < 3; ++k) s.size[k] = size[k];
  s.X_BG = xf_make(quat_make(quaternion[0] / qn, quaternion[1] / qn, quaternion[2] / qn, quaternion[3] / qn),
                   v3(position[0], position[1], position[2]));
  if (rigid == ISO_WORLD_BODY) { /* held where they are: a Dirichlet condition, exact */
    const xform X_WG = s.X_BG;
    int n = 0;
    for (int v = 0; v < b->nvert; ++v)
      if (inside(shape, size, xf_inv_point(X_WG, v3(b->rest[3 * v], b->rest[3 * v + 1], b->rest[3 * v + 2]))))
        b->held[v] = 1, ++n;
    if (n == 0)
      return iso_fail(ISO_ERR_INVALID, "deformable '%s': the weld shape (a %s at (%g, %g, %g) in the world) holds no "
                      "vertex", b->def.name, iso_shape_name((isoShape)shape), position[0], position[1], position[2]);
    if (count) *count = n;
    return ISO_OK;
  }
  if (b->nshape == b->shape_cap) {
    const int cap = 2 * b->shape_cap + 4;
    modelWeldShape *ws = (modelWeldShape *)realloc(b->shape, sizeof *ws * (size_t)cap);
    if (!ws) return iso_fail(ISO_ERR_NOMEM, "%s: out of memory", fn);
    b->shape = ws, b->shape_cap = cap;
  }
  b->shape[b->nshape++] = s;
  if (count) *count = catch_vertices(b, &s, initial_pose(m, rigid), NULL);
  return ISO_OK;
}

isoStatus model_deformable_weld_resolve(isoModel *m) {
  for (int d = 0; d < m->deformables.n; ++d) {
    modelDeformable *b = &m->deformables.body[d];
    b->nweld = 0;
    for (int i = 0; i < b->nshape; ++i) {
      const modelWeldShape *s = &b->shape[i];
      const xform X_WB = initial_pose(m, s->rigid);
      const int n = catch_vertices(b, s, X_WB, NULL);
      if (n == 0) {
        const vec3 p = s->X_BG.p;
        return iso_fail(ISO_ERR_INVALID, "iso_model_compile: deformable '%s': the weld shape (a %s at (%g, %g, %g) on "
                        "body '%s') holds no vertex with the body at its initial pose", b->def.name,
                        iso_shape_name((isoShape)s->shape), p.x, p.y, p.z, m->body[s->rigid].name);
      }
      if (b->nweld > INT_MAX - n || !reserve_welds(b, b->nweld + n))
        return iso_fail(ISO_ERR_NOMEM, "iso_model_compile: deformable '%s': out of memory for its welds", b->def.name);
      catch_vertices(b, s, X_WB, b);
    }
  }
  return ISO_OK;
}

isoStatus iso_model_deformable_weld_count(const isoModel *m, int id, int *count) {
  const char *fn = "iso_model_deformable_weld_count";
  CHECK_NULL(m, fn);
  CHECK_NULL(count, fn);
  if (id < 0 || id >= m->deformables.n)
    return iso_fail(ISO_ERR_NOT_FOUND, "%s: deformable body index %d is out of range [0, %d)", fn, id, m->deformables.n);
  const modelDeformable *b = &m->deformables.body[id];
  if (m->compiled) {
    *count = b->nweld;
    return ISO_OK;
  }
  *count = 0; /* before compile: the shapes' catch as the model stands */
  for (int i = 0; i < b->nshape; ++i) *count += catch_vertices(b, &b->shape[i], initial_pose(m, b->shape[i].rigid), NULL);
  return ISO_OK;
}
