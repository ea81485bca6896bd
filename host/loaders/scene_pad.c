/* Scene files: isobar's tactile pads (include/isobar/tactile.h) declared on a collision, an
 * extension Drake's parsers lack (Drake has no tactile sensor), in SDFormat
 *
 *   <collision name="finger">
 *     ...
 *     <isobar:tactile_pad>                       (zero or more)
 *       <isobar:rows>8</isobar:rows>             taxels along the pad's y
 *       <isobar:cols>4</isobar:cols>             taxels along the pad's x
 *       <isobar:spacing>0.004</isobar:spacing>   between neighbouring taxels, m
 *       <pose>x y z roll pitch yaw</pose>        the pad frame P in the collision frame G
 *     </isobar:tactile_pad>                      (optional, identity; degrees="true" and
 *   </collision>                                  rotation_format as any pose; no relative_to)
 *
 * and in URDF the same, with Drake's URDF way of giving extension values (<isobar:rows
 * value="8"/>, ...) and <origin xyz rpy/> for the pose. rows, cols and spacing are required: a
 * pad with the API's 1 × 1 default is a pad someone forgot to size.
 *
 * +z of P is the pad's normal, out of the geometry. scene_build composes X_LP = X_LG · X_GP
 * and re-expresses it in the body's frame (the world's for an anchored geometry), as
 * iso_model_add_tactile_pad takes it. Here the numbers are only read (rows and cols must be
 * whole); the model checks their values when the pad is added, and scene_build names the pad's
 * line in its message. A misspelt isobar: element in a <collision> or a pad is an error, not a
 * reported line: a pad that silently senses nothing is worse than a load that fails. Drake
 * loads such a file warning "Ignoring unsupported SDFormat element in collision:
 * isobar:tactile_pad" (an error under its strict parsing). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "host/base/error.h"
#include "host/loaders/scene_pad.h"
#include "host/loaders/scene_report.h"
#include "host/loaders/scene_sdf.h"
#include "host/loaders/scene_urdf.h"

/* The one number of element k: its text, or in URDF its `value` attribute. */
static isoStatus read_value(sceneCtx *c, const sceneFile *f, xmlNode *k, int urdf, double *out) {
  static const char *const attrs[] = {"value", NULL};
  isoStatus st;
  if ((st = scene_check(c, f, k, NULL, urdf ? attrs : NULL)) != ISO_OK) return st;
  if (!urdf) return scene_text_numbers(&c->mem, f, k, 1, out);
  int given = 0;
  if ((st = scene_urdf_number(c, f, k, "value", out, &given)) != ISO_OK) return st;
  char qb[128];
  return given ? ISO_OK : scene_fail(f, k, ISO_ERR_PARSE, "<%s> needs a 'value' attribute", scene_qname(k, qb, (int)sizeof qb));
}

/* <isobar:rows> or <isobar:cols>: a whole number (its sign is the model's to check). */
static isoStatus read_count(sceneCtx *c, const sceneFile *f, xmlNode *k, int urdf, int *out) {
  double v;
  isoStatus st = read_value(c, f, k, urdf, &v);
  if (st != ISO_OK) return st;
  char qb[128];
  if (!(v == floor(v) && fabs(v) <= (double)INT_MAX))
    return scene_fail(f, k, ISO_ERR_PARSE, "<%s> %g must be a whole number of taxels", scene_qname(k, qb, (int)sizeof qb), v);
  *out = (int)v;
  return ISO_OK;
}

static isoStatus read_pad(sceneCtx *c, const sceneFile *f, xmlNode *n, int urdf, int geom, xform X_GC) {
  static const char *const sdf_known[] = {"isobar:rows", "isobar:cols", "isobar:spacing", "pose", NULL};
  static const char *const urdf_known[] = {"isobar:rows", "isobar:cols", "isobar:spacing", "origin", NULL};
  const char *const *known = urdf ? urdf_known : sdf_known;
  isoStatus st;
  if ((st = scene_isobar_check(f, n, known)) != ISO_OK) return st;
  if ((st = scene_check(c, f, n, known, NULL)) != ISO_OK) return st;
  scenePad *p;
  if ((st = scene_new_pad(c, &p)) != ISO_OK) return st;
  p->geom = geom;
  p->geom_name = c->geoms[geom].def.name;
  p->file = f;
  p->line = scene_line(n);
  for (int i = 0; i < 3; ++i) {
    xmlNode *k = scene_child(n, known[i]);
    if (!k)
      return scene_fail(f, n, ISO_ERR_PARSE, "needs <isobar:rows>, <isobar:cols> and <isobar:spacing> (<%s> is "
                        "missing)", known[i]);
    if (i == 0) st = read_count(c, f, k, urdf, &p->rows);
    else if (i == 1) st = read_count(c, f, k, urdf, &p->cols);
    else st = read_value(c, f, k, urdf, &p->spacing);
    if (st != ISO_OK) return st;
  }
  xform X_GP = xf_identity();
  xmlNode *pose = scene_child(n, known[3]);
  if (urdf) {
    if ((st = scene_urdf_origin(c, f, pose, &X_GP)) != ISO_OK) return st;
  } else if (pose) {
    scenePose X;
    if ((st = scene_sdf_pose(c, f, pose, &X)) != ISO_OK) return st;
    if (X.rel_to)
      return scene_fail(f, pose, ISO_ERR_UNSUPPORTED, "a tactile pad's pose is in its collision's frame; relative_to "
                        "is not supported here");
    X_GP = X.X;
  }
  /* Only a plane's canonical frame differs from G; leave the others' poses untouched, bit for bit. */
  const int canonical_is_g = X_GC.q.w == 1 && X_GC.q.x == 0 && X_GC.q.y == 0 && X_GC.q.z == 0 &&
                             X_GC.p.x == 0 && X_GC.p.y == 0 && X_GC.p.z == 0;
  p->X_CP = canonical_is_g ? X_GP : xf_mul(xf_inv(X_GC), X_GP);
  return ISO_OK;
}

isoStatus scene_tactile_pads(sceneCtx *c, const sceneFile *f, xmlNode *n, int urdf, int geom, xform X_GC) {
  for (xmlNode *k = n->children; k; k = k->next) {
    if (!scene_is(k, "isobar:tactile_pad")) continue;
    isoStatus st = read_pad(c, f, k, urdf, geom, X_GC);
    if (st != ISO_OK) return st;
  }
  return ISO_OK;
}
