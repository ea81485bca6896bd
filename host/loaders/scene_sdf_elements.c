/* Scene files: the SDFormat elements that need no frame graph, read for scene_sdf.c: <pose>
 * (kept relative to the frame it names; the graph resolves it later), <inertial> (with
 * SDFormat's defaults) and <collision> with its <geometry>, <surface> friction,
 * drake:proximity_properties and isobar:tactile_pads (scene_pad.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "host/base/error.h"
#include "host/loaders/scene_pad.h"
#include "host/loaders/scene_props.h"
#include "host/loaders/scene_report.h"
#include "host/loaders/scene_sdf.h"

static isoStatus nomem(void) { return iso_fail(ISO_ERR_NOMEM, "scene: out of memory"); }

/* Read a <pose>: "x y z roll pitch yaw" (radians, or degrees with degrees="true"), or with
 * rotation_format="quat_xyzw" "x y z qx qy qz qw". */
isoStatus scene_sdf_pose(sceneCtx *c, const sceneFile *f, xmlNode *n, scenePose *out) {
  static const char *const attrs[] = {"relative_to", "degrees", "rotation_format", "frame", NULL};
  isoStatus st;
  /* <pose frame=...> is SDFormat 1.5's way to say relative_to, with other semantics; Drake
   * rejects it too rather than guess. An empty one means nothing. */
  char *frame = scene_attr(&c->mem, n, "frame");
  if (frame && frame[0])
    return scene_fail(f, n, ISO_ERR_UNSUPPORTED, "the 'frame' attribute (SDFormat 1.5) is not supported; use relative_to");
  if ((st = scene_check(c, f, n, NULL, attrs)) != ISO_OK) return st;
  out->file = f;
  out->node = n;
  out->X = xf_identity();
  out->rel_to = scene_attr(&c->mem, n, "relative_to");
  if (out->rel_to && !out->rel_to[0]) out->rel_to = NULL;
  int degrees = 0;
  char *deg = scene_attr(&c->mem, n, "degrees");
  if (deg && (st = scene_bool(f, n, "degrees", deg, &degrees)) != ISO_OK) return st;
  char *fmt = scene_attr(&c->mem, n, "rotation_format");
  int quat_xyzw = 0;
  if (fmt && strcmp(fmt, "quat_xyzw") == 0) quat_xyzw = 1;
  else if (fmt && strcmp(fmt, "euler_rpy") != 0)
    return scene_fail(f, n, ISO_ERR_PARSE, "rotation_format '%s' is neither euler_rpy nor quat_xyzw", fmt);
  char *text = scene_text(&c->mem, n);
  if (!text) return nomem();
  if (!text[0]) return ISO_OK; /* an empty pose is the identity */
  double v[7];
  if ((st = scene_numbers(f, n, "pose", text, quat_xyzw ? 7 : 6, v)) != ISO_OK) return st;
  if (quat_xyzw) {
    quat q = quat_make(v[6], v[3], v[4], v[5]);
    if (!(quat_norm(q) > 1e-12)) return scene_fail(f, n, ISO_ERR_INVALID, "the quaternion is zero");
    out->X = xf_make(quat_normalize(q), v3(v[0], v[1], v[2]));
  } else {
    double k = degrees ? 3.14159265358979323846 / 180.0 : 1.0;
    out->X = xf_make(scene_rpy(k * v[3], k * v[4], k * v[5]), v3(v[0], v[1], v[2]));
  }
  return ISO_OK;
}

isoStatus scene_sdf_inertial(sceneCtx *c, const sceneFile *f, xmlNode *n, int link) {
  static const char *const elems[] = {"mass", "pose", "inertia", NULL};
  static const char *const inertia_elems[] = {"ixx", "iyy", "izz", "ixy", "ixz", "iyz", NULL};
  isoStatus st;
  if ((st = scene_check(c, f, n, elems, NULL)) != ISO_OK) return st;
  /* SDFormat's defaults (the specification's inertial.sdf): mass 1, identity inertia. */
  double mass = 1.0, I[6] = {1, 1, 1, 0, 0, 0};
  scenePose pose = {xf_identity(), NULL, f, n};
  for (xmlNode *k = n->children; k; k = k->next) {
    if (scene_is(k, "mass")) {
      if ((st = scene_check(c, f, k, NULL, NULL)) != ISO_OK) return st;
      if ((st = scene_text_numbers(&c->mem, f, k, 1, &mass)) != ISO_OK) return st;
      if (mass < 0) return scene_fail(f, k, ISO_ERR_INVALID, "mass %g must be >= 0", mass);
    } else if (scene_is(k, "pose")) {
      if ((st = scene_sdf_pose(c, f, k, &pose)) != ISO_OK) return st;
      if (pose.rel_to && strcmp(pose.rel_to, "__model__") != 0)
        return scene_fail(f, k, ISO_ERR_UNSUPPORTED, "an inertial pose is relative to its link; relative_to is not supported here");
    } else if (scene_is(k, "inertia")) {
      if ((st = scene_check(c, f, k, inertia_elems, NULL)) != ISO_OK) return st;
      for (int i = 0; i < 6; ++i) {
        xmlNode *e = scene_child(k, inertia_elems[i]);
        if (!e) continue;
        if ((st = scene_check(c, f, e, NULL, NULL)) != ISO_OK) return st;
        if ((st = scene_text_numbers(&c->mem, f, e, 1, &I[i])) != ISO_OK) return st;
      }
    }
  }
  sceneLink *l = &c->links[link];
  l->inertial_line = scene_line(n);
  l->mass = mass;
  l->com[0] = pose.X.p.x;
  l->com[1] = pose.X.p.y;
  l->com[2] = pose.X.p.z;
  /* The inertia is given in the inertial frame's axes; the link needs it in its own. Leave an
   * unrotated one untouched, bit for bit. */
  quat q = pose.X.q;
  if (q.w == 1 && q.x == 0 && q.y == 0 && q.z == 0) memcpy(l->inertia, I, sizeof I);
  else scene_rotate_inertia(q, I, l->inertia);
  return ISO_OK;
}

/* Rotation taking +z to unit vector n: the shortest one (about z × n); a half-turn about x
 * when n = -z. Which rotation about n is chosen does not matter for a half-space. */
static quat z_to(vec3 n) {
  double c = n.z;
  if (c > 1 - 1e-15) return quat_identity();
  if (c < -1 + 1e-15) return quat_make(0, 1, 0, 0);
  vec3 axis = v3(-n.y, n.x, 0);
  return quat_from_axis_angle(axis, acos(c));
}

isoStatus scene_sdf_geometry(sceneCtx *c, const sceneFile *f, xmlNode *n, isoGeometryDef *g, xform *X_GC,
                             int *empty) {
  static const char *const shapes[] = {"box",  "sphere", "cylinder", "capsule",         "ellipsoid",
                                       "plane", "mesh",  "empty",    "drake:ellipsoid", NULL};
  static const char *const unsupported[] = {"cone", "heightmap", "polyline", "image", NULL};
  isoStatus st;
  *X_GC = xf_identity();
  *empty = 0;
  xmlNode *shape = NULL;
  for (xmlNode *k = n->children; k; k = k->next) {
    if (k->type != XML_ELEMENT_NODE) continue;
    char qb[128];
    const char *qn = scene_qname(k, qb, (int)sizeof qb);
    int known = 0;
    for (int i = 0; shapes[i]; ++i) known |= strcmp(qn, shapes[i]) == 0;
    for (int i = 0; unsupported[i]; ++i)
      if (strcmp(qn, unsupported[i]) == 0)
        return scene_fail(f, k, ISO_ERR_UNSUPPORTED, "the geometry <%s> is not supported by isobar", qn);
    if (!known) return scene_fail(f, k, ISO_ERR_PARSE, "unknown geometry <%s>", qn);
    if (shape) {
      if ((st = scene_ignore(c, f, k, "a <geometry> holds one shape; the first one is used")) != ISO_OK) return st;
      continue;
    }
    shape = k;
  }
  if ((st = scene_check(c, f, n, shapes, NULL)) != ISO_OK) return st;
  if (!shape) return scene_fail(f, n, ISO_ERR_PARSE, "has no shape (box, sphere, cylinder, capsule, ellipsoid, plane or mesh)");

  /* Size entries a shape does not use keep the API default, so a file and API calls that set
   * only what the shape uses build equal models. */
  double v[3];
  if (scene_is(shape, "empty")) {
    *empty = 1;
    return scene_check(c, f, shape, NULL, NULL);
  } else if (scene_is(shape, "box") || scene_is(shape, "ellipsoid")) {
    int box = scene_is(shape, "box");
    static const char *const be[] = {"size", NULL}, *const ee[] = {"radii", NULL};
    if ((st = scene_check(c, f, shape, box ? be : ee, NULL)) != ISO_OK) return st;
    xmlNode *e = scene_child(shape, box ? "size" : "radii");
    if (!e) return scene_fail(f, shape, ISO_ERR_PARSE, "needs <%s>", box ? "size" : "radii");
    if ((st = scene_text_numbers(&c->mem, f, e, 3, v)) != ISO_OK) return st;
    g->shape = box ? ISO_SHAPE_BOX : ISO_SHAPE_ELLIPSOID;
    memcpy(g->size, v, sizeof v);
  } else if (scene_is(shape, "drake:ellipsoid")) {
    /* Drake's own form, kept by its SDFormat parser: semi-axes <a>, <b>, <c>. */
    static const char *const de[] = {"a", "b", "c", NULL};
    if ((st = scene_check(c, f, shape, de, NULL)) != ISO_OK) return st;
    for (int i = 0; i < 3; ++i) {
      xmlNode *e = scene_child(shape, de[i]);
      if (!e) return scene_fail(f, shape, ISO_ERR_PARSE, "needs <a>, <b> and <c>");
      if ((st = scene_text_numbers(&c->mem, f, e, 1, &g->size[i])) != ISO_OK) return st;
    }
    g->shape = ISO_SHAPE_ELLIPSOID;
  } else if (scene_is(shape, "sphere")) {
    static const char *const se[] = {"radius", NULL};
    if ((st = scene_check(c, f, shape, se, NULL)) != ISO_OK) return st;
    xmlNode *e = scene_child(shape, "radius");
    if (!e) return scene_fail(f, shape, ISO_ERR_PARSE, "needs <radius>");
    if ((st = scene_text_numbers(&c->mem, f, e, 1, v)) != ISO_OK) return st;
    g->shape = ISO_SHAPE_SPHERE;
    g->size[0] = v[0];
  } else if (scene_is(shape, "cylinder") || scene_is(shape, "capsule")) {
    static const char *const ce[] = {"radius", "length", NULL};
    if ((st = scene_check(c, f, shape, ce, NULL)) != ISO_OK) return st;
    xmlNode *r = scene_child(shape, "radius"), *l = scene_child(shape, "length");
    if (!r || !l) return scene_fail(f, shape, ISO_ERR_PARSE, "needs <radius> and <length>");
    if ((st = scene_text_numbers(&c->mem, f, r, 1, &v[0])) != ISO_OK) return st;
    if ((st = scene_text_numbers(&c->mem, f, l, 1, &v[1])) != ISO_OK) return st;
    g->shape = scene_is(shape, "cylinder") ? ISO_SHAPE_CYLINDER : ISO_SHAPE_CAPSULE;
    g->size[0] = v[0];
    g->size[1] = v[1];
  } else if (scene_is(shape, "plane")) {
    /* <size> bounds a visual plane; a collision plane is a half-space, as in Drake. */
    static const char *const pe[] = {"normal", "size", NULL};
    if ((st = scene_check(c, f, shape, pe, NULL)) != ISO_OK) return st;
    double nrm[3] = {0, 0, 1};
    xmlNode *e = scene_child(shape, "normal");
    if (e && (st = scene_text_numbers(&c->mem, f, e, 3, nrm)) != ISO_OK) return st;
    vec3 nv = v3(nrm[0], nrm[1], nrm[2]);
    if (!(v3_norm(nv) > 1e-12)) return scene_fail(f, e, ISO_ERR_INVALID, "the plane normal is zero");
    g->shape = ISO_SHAPE_HALFSPACE;
    X_GC->q = z_to(v3_scale(nv, 1.0 / v3_norm(nv)));
  } else { /* mesh */
    static const char *const me[] = {"uri", "scale", "drake:declare_convex", NULL};
    if ((st = scene_check(c, f, shape, me, NULL)) != ISO_OK) return st;
    xmlNode *u = scene_child(shape, "uri");
    if (!u) return scene_fail(f, shape, ISO_ERR_PARSE, "needs <uri>");
    if ((st = scene_check(c, f, u, NULL, NULL)) != ISO_OK) return st;
    char *uri = scene_text(&c->mem, u), *path = NULL;
    if (!uri) return nomem();
    if ((st = scene_resolve_uri(&c->mem, &c->packages, f, u, uri, &path)) != ISO_OK) return st;
    xmlNode *convex = scene_child(shape, "drake:declare_convex");
    if (convex && (st = scene_check(c, f, convex, NULL, NULL)) != ISO_OK) return st;
    if (!scene_has_ext(path, ".obj") && !scene_has_ext(path, ".vtk") && !scene_has_ext(path, ".gltf") &&
        !scene_has_ext(path, ".glb"))
      return scene_fail(f, u, ISO_ERR_UNSUPPORTED, "mesh '%s': only .obj, .gltf, .glb and .vtk files are supported", path);
    if (convex && scene_has_ext(path, ".vtk"))
      return scene_fail(f, convex, ISO_ERR_UNSUPPORTED, "a convex mesh must be an .obj, .gltf or .glb file (got '%s')", path);
    g->shape = convex ? ISO_SHAPE_CONVEX : ISO_SHAPE_MESH;
    g->mesh_file = path;
    xmlNode *s = scene_child(shape, "scale");
    if (s) {
      if ((st = scene_check(c, f, s, NULL, NULL)) != ISO_OK) return st;
      if ((st = scene_text_numbers(&c->mem, f, s, 3, g->mesh_scale)) != ISO_OK) return st;
    }
  }
  return ISO_OK;
}

/* SDFormat's legacy friction, <surface><friction><ode><mu> (static) and <mu2> (dynamic), each
 * 1.0 when absent (Drake's MakeCoulombFrictionFromSdfCollisionOde). With drake:mu_* given,
 * Drake ignores them with a warning; here they are reported, `friction_given` saying why (as
 * when <drake_compliance> gives the pair). */
static isoStatus read_surface(sceneCtx *c, const sceneFile *f, xmlNode *n, const char *friction_given,
                              isoGeometryDef *g) {
  static const char *const se[] = {"friction", NULL}, *const fe[] = {"ode", NULL}, *const oe[] = {"mu", "mu2", NULL};
  isoStatus st;
  if ((st = scene_check(c, f, n, se, NULL)) != ISO_OK) return st;
  xmlNode *fr = scene_child(n, "friction");
  if (!fr) return ISO_OK;
  if ((st = scene_check(c, f, fr, fe, NULL)) != ISO_OK) return st;
  xmlNode *ode = scene_child(fr, "ode");
  if (!ode) return ISO_OK;
  if ((st = scene_check(c, f, ode, oe, NULL)) != ISO_OK) return st;
  xmlNode *mu = scene_child(ode, "mu"), *mu2 = scene_child(ode, "mu2");
  if (friction_given) { /* why they are not used */
    if (mu && (st = scene_ignore(c, f, mu, friction_given)) != ISO_OK) return st;
    if (mu2 && (st = scene_ignore(c, f, mu2, friction_given)) != ISO_OK) return st;
    return ISO_OK;
  }
  double s = 1.0, d = 1.0;
  if (mu && (st = scene_text_numbers(&c->mem, f, mu, 1, &s)) != ISO_OK) return st;
  if (mu2 && (st = scene_text_numbers(&c->mem, f, mu2, 1, &d)) != ISO_OK) return st;
  if ((st = scene_check_friction(f, ode, s, d)) != ISO_OK) return st;
  g->mu_static = s;
  g->mu_dynamic = d;
  g->legacy_given |= ISO_LEGACY_FRICTION;
  return ISO_OK;
}

isoStatus scene_sdf_collision(sceneCtx *c, const sceneFile *f, xmlNode *n, int scope, int link) {
  static const char *const elems[] = {"pose", "geometry", "surface", "drake:proximity_properties",
                                      "drake_compliance", "isobar:tactile_pad", NULL};
  static const char *const attrs[] = {"name", NULL};
  isoStatus st;
  if ((st = scene_isobar_check(f, n, elems)) != ISO_OK) return st;
  if ((st = scene_check(c, f, n, elems, attrs)) != ISO_OK) return st;
  xmlNode *geom = scene_child(n, "geometry");
  if (!geom) return scene_fail(f, n, ISO_ERR_PARSE, "needs a <geometry>");
  isoGeometryDef g = scene_default_geometry();
  xform X_GC;
  int empty;
  if ((st = scene_sdf_geometry(c, f, geom, &g, &X_GC, &empty)) != ISO_OK) return st;
  xmlNode *pad = scene_child(n, "isobar:tactile_pad");
  if (empty && pad)
    return scene_fail(f, pad, ISO_ERR_INVALID, "a tactile pad senses its collision's contacts, and <empty/> has none");
  if (empty) return ISO_OK; /* <empty/>: nothing to collide with, as in Drake */
  scenePose pose = {xf_identity(), NULL, f, n};
  xmlNode *pn = scene_child(n, "pose");
  if (pn && (st = scene_sdf_pose(c, f, pn, &pose)) != ISO_OK) return st;
  sceneProx given = {NULL, NULL, NULL};
  xmlNode *props = scene_child(n, "drake:proximity_properties");
  if (props && (st = scene_proximity(c, f, props, 0, &g, &given)) != ISO_OK) return st;
  /* seed 004's materials; a friction pair given there wins over <surface>'s ode friction (the
     tag was written for this model; the ode one is SDFormat's generic fallback) */
  xmlNode *comp = scene_child(n, "drake_compliance");
  const unsigned before = g.legacy_given;
  if (comp && (st = scene_drake_compliance(c, f, comp, &given, &g)) != ISO_OK) return st;
  const char *friction_given = given.friction ? "drake:mu_dynamic/mu_static are given; Drake ignores it too"
                               : (g.legacy_given & ~before & ISO_LEGACY_FRICTION)
                                   ? "<drake_compliance> gives this geometry's friction pair"
                                   : NULL;
  xmlNode *surface = scene_child(n, "surface");
  if (surface && (st = read_surface(c, f, surface, friction_given, &g)) != ISO_OK) return st;
  char *name = scene_attr(&c->mem, n, "name");
  sceneGeom *sg;
  if ((st = scene_new_geom(c, &sg)) != ISO_OK) return st;
  sg->link = link;
  sg->def = g;
  sg->def.name = scene_geometry_name(c, link, name, g.shape);
  if (!sg->def.name) return nomem();
  sg->X_LG = xf_mul(pose.X, X_GC); /* X_RC = X_RG X_GC; placed in the link once frames resolve */
  sg->rel_to = pose.rel_to;
  sg->rel_scope = scope;
  sg->file = f;
  sg->line = scene_line(n);
  return scene_tactile_pads(c, f, n, 0, c->ngeom - 1, X_GC);
}
