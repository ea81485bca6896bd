/* Welding deformable vertices to rigid bodies (iso_model_weld_deformable): which vertices a shape
 * posed on the body catches at rest, and the body point each is held at. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/model/model_internal.h"
#include "kernels/math/transform.h"

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
  for (int j = 0; j < m->njoint; ++j)
    if (m->joint[j].child == rigid)
      return iso_fail(ISO_ERR_UNSUPPORTED, "deformable '%s': welding to body '%s', which joint '%s' moves, is not "
                      "supported yet (a free body or the world)", b->def.name, m->body[rigid].name, m->joint[j].name);
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
  /* X_WG: the shape in the world with the body at its initial pose */
  xform X_BG = xf_make(quat_make(quaternion[0] / qn, quaternion[1] / qn, quaternion[2] / qn, quaternion[3] / qn),
                       v3(position[0], position[1], position[2]));
  xform X_WB = xf_identity();
  if (rigid != ISO_WORLD_BODY) {
    const isoFreeBodyState *x = &m->body_state[rigid];
    X_WB = xf_make(quat_make(x->quaternion[0], x->quaternion[1], x->quaternion[2], x->quaternion[3]),
                   v3(x->position[0], x->position[1], x->position[2]));
  }
  const xform X_WG = xf_mul(X_WB, X_BG);
  int n = 0;
  for (int v = 0; v < b->nvert; ++v) {
    const vec3 p = v3(b->rest[3 * v], b->rest[3 * v + 1], b->rest[3 * v + 2]);
    n += inside(shape, size, xf_inv_point(X_WG, p));
  }
  if (n == 0)
    return iso_fail(ISO_ERR_INVALID, "deformable '%s': the weld shape (a %s at (%g, %g, %g) on its body) holds no "
                    "vertex", b->def.name, iso_shape_name((isoShape)shape), position[0], position[1], position[2]);
  if (count) *count = n;
  if (rigid == ISO_WORLD_BODY) { /* held where they are: a Dirichlet condition, exact */
    for (int v = 0; v < b->nvert; ++v)
      if (inside(shape, size, xf_inv_point(X_WG, v3(b->rest[3 * v], b->rest[3 * v + 1], b->rest[3 * v + 2]))))
        b->held[v] = 1;
    return ISO_OK;
  }
  if (b->nweld + n > b->weld_cap) {
    const int cap = 2 * (b->nweld + n);
    int *wv = (int *)realloc(b->weld_vert, sizeof(int) * (size_t)cap);
    if (wv) b->weld_vert = wv;
    int *wb = (int *)realloc(b->weld_body, sizeof(int) * (size_t)cap);
    if (wb) b->weld_body = wb;
    real *wp = (real *)realloc(b->weld_p, sizeof(real) * 3 * (size_t)cap);
    if (wp) b->weld_p = wp;
    if (!wv || !wb || !wp) return iso_fail(ISO_ERR_NOMEM, "%s: out of memory", fn);
    b->weld_cap = cap;
  }
  for (int v = 0; v < b->nvert; ++v) {
    const vec3 p = v3(b->rest[3 * v], b->rest[3 * v + 1], b->rest[3 * v + 2]);
    if (!inside(shape, size, xf_inv_point(X_WG, p))) continue;
    const vec3 pB = xf_inv_point(X_WB, p);
    b->weld_vert[b->nweld] = v, b->weld_body[b->nweld] = rigid;
    b->weld_p[3 * b->nweld] = pB.x, b->weld_p[3 * b->nweld + 1] = pB.y, b->weld_p[3 * b->nweld + 2] = pB.z;
    b->nweld++;
  }
  return ISO_OK;
}

isoStatus iso_model_deformable_weld_count(const isoModel *m, int id, int *count) {
  const char *fn = "iso_model_deformable_weld_count";
  CHECK_NULL(m, fn);
  CHECK_NULL(count, fn);
  if (id < 0 || id >= m->deformables.n)
    return iso_fail(ISO_ERR_NOT_FOUND, "%s: deformable body index %d is out of range [0, %d)", fn, id, m->deformables.n);
  *count = m->deformables.body[id].nweld;
  return ISO_OK;
}
