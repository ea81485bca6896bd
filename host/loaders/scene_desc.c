/* Scene files, the load description: the links, collision geometries, joints, actuators and
 * couplers a format parser appends to its sceneCtx, their defaults and names, and the
 * rotations and inertias in which files state poses and mass properties. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/loaders/scene_desc.h"

/* Grow an array of `size`-byte items to hold one more; returns the new item, zeroed. */
static void *grow(void **items, int *n, int *cap, size_t size) {
  if (*n == *cap) {
    int nc = *cap ? 2 * *cap : 16;
    void *p = realloc(*items, (size_t)nc * size);
    if (!p) return NULL;
    *items = p;
    *cap = nc;
  }
  char *item = (char *)*items + (size_t)*n * size;
  memset(item, 0, size);
  ++*n;
  return item;
}

isoStatus scene_new_link(sceneCtx *c, sceneLink **out, int *index) {
  void *items = c->links;
  sceneLink *l = (sceneLink *)grow(&items, &c->nlink, &c->link_cap, sizeof *l);
  c->links = (sceneLink *)items;
  if (!l) return iso_fail(ISO_ERR_NOMEM, "scene: out of memory");
  l->frame = -1;
  l->X_WL = xf_identity();
  if (index) *index = c->nlink - 1;
  *out = l;
  return ISO_OK;
}

isoStatus scene_new_geom(sceneCtx *c, sceneGeom **out) {
  void *items = c->geoms;
  sceneGeom *g = (sceneGeom *)grow(&items, &c->ngeom, &c->geom_cap, sizeof *g);
  c->geoms = (sceneGeom *)items;
  if (!g) return iso_fail(ISO_ERR_NOMEM, "scene: out of memory");
  g->X_LG = xf_identity();
  g->def = scene_default_geometry();
  *out = g;
  return ISO_OK;
}

isoStatus scene_new_pad(sceneCtx *c, scenePad **out) {
  void *items = c->pads;
  scenePad *p = (scenePad *)grow(&items, &c->npad, &c->pad_cap, sizeof *p);
  c->pads = (scenePad *)items;
  if (!p) return iso_fail(ISO_ERR_NOMEM, "scene: out of memory");
  p->X_CP = xf_identity();
  *out = p;
  return ISO_OK;
}

isoStatus scene_new_deformable(sceneCtx *c, sceneDeformable **out) {
  void *items = c->deformables;
  sceneDeformable *d = (sceneDeformable *)grow(&items, &c->ndeformable, &c->deformable_cap, sizeof *d);
  c->deformables = (sceneDeformable *)items;
  if (!d) return iso_fail(ISO_ERR_NOMEM, "scene: out of memory");
  d->def = iso_default_deformable_def();
  /* Drake's parsers' friction when the file gives none (default_friction(): 1.0, 1.0) */
  d->def.mu_static = d->def.mu_dynamic = 1.0;
  d->frame = -1;
  *out = d;
  return ISO_OK;
}

isoStatus scene_new_joint(sceneCtx *c, sceneJoint **out) {
  void *items = c->joints;
  sceneJoint *j = (sceneJoint *)grow(&items, &c->njoint, &c->joint_cap, sizeof *j);
  c->joints = (sceneJoint *)items;
  if (!j) return iso_fail(ISO_ERR_NOMEM, "scene: out of memory");
  *j = scene_default_joint();
  *out = j;
  return ISO_OK;
}

isoStatus scene_new_actuator(sceneCtx *c, sceneActuator **out) {
  void *items = c->actuators;
  sceneActuator *a = (sceneActuator *)grow(&items, &c->nactuator, &c->actuator_cap, sizeof *a);
  c->actuators = (sceneActuator *)items;
  if (!a) return iso_fail(ISO_ERR_NOMEM, "scene: out of memory");
  *a = scene_default_actuator();
  *out = a;
  return ISO_OK;
}

isoStatus scene_new_coupler(sceneCtx *c, sceneCoupler **out) {
  void *items = c->couplers;
  sceneCoupler *k = (sceneCoupler *)grow(&items, &c->ncoupler, &c->coupler_cap, sizeof *k);
  c->couplers = (sceneCoupler *)items;
  if (!k) return iso_fail(ISO_ERR_NOMEM, "scene: out of memory");
  k->gear_ratio = 1;
  *out = k;
  return ISO_OK;
}

sceneJoint scene_default_joint(void) {
  sceneJoint j;
  memset(&j, 0, sizeof j);
  j.type = ISO_JOINT_FIXED;
  j.X_PJ = j.X_CJ = xf_identity();
  j.axis[2] = 1;
  j.lower = -INFINITY;
  j.upper = INFINITY;
  j.velocity = INFINITY;
  return j;
}

sceneActuator scene_default_actuator(void) {
  sceneActuator a;
  memset(&a, 0, sizeof a);
  a.effort = INFINITY;
  a.gear_ratio = 1;
  return a;
}

isoGeometryDef scene_default_geometry(void) {
  isoGeometryDef g = iso_default_geometry_def();
  /* Drake's parsers always give a parsed geometry a friction; with none in the file it is
   * default_friction() = 1.0 / 1.0 (detail_common.h), not the programmatic 0.5. */
  g.mu_static = 1.0;
  g.mu_dynamic = 1.0;
  /* nothing given yet: the legacy point model takes its default material until a tag says
     otherwise (seed 004: "no <drake_compliance> tag → the global defaults") */
  g.legacy_given = 0;
  return g;
}

quat scene_rpy(double roll, double pitch, double yaw) {
  double cr = cos(0.5 * roll), sr = sin(0.5 * roll);
  double cp = cos(0.5 * pitch), sp = sin(0.5 * pitch);
  double cy = cos(0.5 * yaw), sy = sin(0.5 * yaw);
  /* q = q_z(yaw) ⊗ q_y(pitch) ⊗ q_x(roll), multiplied out. */
  return quat_make(cr * cp * cy + sr * sp * sy, sr * cp * cy - cr * sp * sy,
                   cr * sp * cy + sr * cp * sy, cr * cp * sy - sr * sp * cy);
}

void scene_rotate_inertia(quat q_AB, const double *I, double *out) {
  mat3 A = m3_congruence(quat_to_m3(quat_normalize(q_AB)), m3_sym6(I[0], I[1], I[2], I[3], I[4], I[5]));
  out[0] = A.m[0][0];
  out[1] = A.m[1][1];
  out[2] = A.m[2][2];
  /* Symmetrise: the product may differ from its transpose in the last bit. */
  out[3] = 0.5 * (A.m[0][1] + A.m[1][0]);
  out[4] = 0.5 * (A.m[0][2] + A.m[2][0]);
  out[5] = 0.5 * (A.m[1][2] + A.m[2][1]);
}

/* Every name given is remembered (in the load's memory, so the keys outlive the map): an
 * unnamed geometry must not take a name given before it. A given name that repeats is left for
 * the model builder to reject with its file and line. */
char *scene_geometry_name(sceneCtx *c, int link, const char *name, isoShape shape) {
  const char *lname = c->links[link].name;
  if (name && name[0]) {
    char *given = scene_printf(&c->mem, "%s::%s", lname, name);
    if (given && name_map_put(&c->geom_names, 0, given, strlen(given), 0) < 0) return NULL;
    return given;
  }
  const char *shape_name = iso_shape_name(shape);
  for (int k = 0;; ++k) {
    char *cand = k == 0 ? scene_printf(&c->mem, "%s::%s", lname, shape_name)
                        : scene_printf(&c->mem, "%s::%s%d", lname, shape_name, k);
    if (!cand) return NULL;
    if (name_map_get(&c->geom_names, 0, cand, strlen(cand)) >= 0) continue;
    return name_map_put(&c->geom_names, 0, cand, strlen(cand), 0) < 0 ? NULL : cand;
  }
}
