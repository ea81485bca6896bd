/* Scene files: URDF with Drake's extensions (see include/isobar/scene.h), as Drake's URDF parser
 * reads it (multibody/parsing/detail_urdf_parser.cc, detail_urdf_geometry.cc).
 *
 * Links are read first, then joints (scene_urdf_joint.c): a joint may name links declared
 * after it. Every joint gives its child link its pose at q = 0 (parent pose · joint origin);
 * the build merges what fixed joints join and connects the rest with model joints. Mimic
 * elements are read once every joint exists, transmissions last. Root links (no parent joint) sit at the model origin, as
 * Drake's floating bodies do by default. The link named "world" is the world: its collisions
 * are anchored and it carries no mass (Drake warns about an <inertial> there; it is reported). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/loaders/scene_filter.h"
#include "host/loaders/scene_load.h"
#include "host/loaders/scene_pad.h"
#include "host/loaders/scene_props.h"
#include "host/loaders/scene_report.h"
#include "host/loaders/scene_urdf.h"

static isoStatus nomem(void) { return iso_fail(ISO_ERR_NOMEM, "scene: out of memory"); }

/* <origin xyz="..." rpy="..."/>, both optional. */
isoStatus scene_urdf_origin(sceneCtx *c, const sceneFile *f, xmlNode *n, xform *X) {
  static const char *const attrs[] = {"xyz", "rpy", NULL};
  isoStatus st;
  *X = xf_identity();
  if (!n) return ISO_OK;
  if ((st = scene_check(c, f, n, NULL, attrs)) != ISO_OK) return st;
  double p[3] = {0, 0, 0}, r[3] = {0, 0, 0};
  char *xyz = scene_attr(&c->mem, n, "xyz"), *rpy = scene_attr(&c->mem, n, "rpy");
  if (xyz && (st = scene_numbers(f, n, "xyz", xyz, 3, p)) != ISO_OK) return st;
  if (rpy && (st = scene_numbers(f, n, "rpy", rpy, 3, r)) != ISO_OK) return st;
  *X = xf_make(scene_rpy(r[0], r[1], r[2]), v3(p[0], p[1], p[2]));
  return ISO_OK;
}

isoStatus scene_urdf_number(sceneCtx *c, const sceneFile *f, xmlNode *n, const char *attr, double *out, int *given) {
  char *s = scene_attr(&c->mem, n, attr);
  if (given) *given = s != NULL;
  return s ? scene_numbers(f, n, attr, s, 1, out) : ISO_OK;
}

/* A numeric attribute that must be present. */
static isoStatus need_attr(sceneCtx *c, const sceneFile *f, xmlNode *n, const char *attr, int count, double *out) {
  char *s = scene_attr(&c->mem, n, attr);
  if (!s) return scene_fail(f, n, ISO_ERR_PARSE, "needs a '%s' attribute", attr);
  return scene_numbers(f, n, attr, s, count, out);
}

static isoStatus read_inertial(sceneCtx *c, const sceneFile *f, xmlNode *n, sceneLink *l) {
  static const char *const elems[] = {"origin", "mass", "inertia", NULL};
  static const char *const iattrs[] = {"ixx", "iyy", "izz", "ixy", "ixz", "iyz", NULL};
  static const char *const mattrs[] = {"value", NULL};
  isoStatus st;
  if ((st = scene_check(c, f, n, elems, NULL)) != ISO_OK) return st;
  xform X;
  if ((st = scene_urdf_origin(c, f, scene_child(n, "origin"), &X)) != ISO_OK) return st;
  /* Drake's defaults: what is absent is zero. */
  double mass = 0, I[6] = {0, 0, 0, 0, 0, 0};
  xmlNode *m = scene_child(n, "mass");
  if (m) {
    if ((st = scene_check(c, f, m, NULL, mattrs)) != ISO_OK) return st;
    if ((st = need_attr(c, f, m, "value", 1, &mass)) != ISO_OK) return st;
    if (mass < 0) return scene_fail(f, m, ISO_ERR_INVALID, "mass %g must be >= 0", mass);
  }
  xmlNode *in = scene_child(n, "inertia");
  if (in) {
    if ((st = scene_check(c, f, in, NULL, iattrs)) != ISO_OK) return st;
    for (int i = 0; i < 6; ++i) {
      char *s = scene_attr(&c->mem, in, iattrs[i]);
      if (s && (st = scene_numbers(f, in, iattrs[i], s, 1, &I[i])) != ISO_OK) return st;
    }
  }
  l->inertial_line = scene_line(n);
  l->mass = mass;
  l->com[0] = X.p.x;
  l->com[1] = X.p.y;
  l->com[2] = X.p.z;
  quat q = X.q;
  if (q.w == 1 && q.x == 0 && q.y == 0 && q.z == 0) memcpy(l->inertia, I, sizeof I);
  else scene_rotate_inertia(q, I, l->inertia);
  return ISO_OK;
}

static isoStatus read_geometry(sceneCtx *c, const sceneFile *f, xmlNode *n, isoGeometryDef *g) {
  static const char *const shapes[] = {"box", "sphere", "cylinder", "capsule", "drake:capsule", "mesh", "drake:ellipsoid", NULL};
  isoStatus st;
  xmlNode *shape = NULL;
  for (xmlNode *k = n->children; k; k = k->next) {
    if (k->type != XML_ELEMENT_NODE) continue;
    int known = 0;
    for (int i = 0; shapes[i]; ++i) known |= scene_is(k, shapes[i]);
    if (scene_is(k, "drake:declare_convex")) {
      /* Beside the <mesh> rather than in it: Drake's parser reads it only inside <mesh>. */
      if ((st = scene_ignore(c, f, k, "drake:declare_convex counts only inside <mesh>; Drake ignores it here too")) !=
          ISO_OK)
        return st;
      continue;
    }
    char qb[128];
    if (!known) return scene_fail(f, k, ISO_ERR_PARSE, "unknown geometry <%s>", scene_qname(k, qb, (int)sizeof qb));
    if (shape) {
      if ((st = scene_ignore(c, f, k, "a <geometry> holds one shape; the first one is used")) != ISO_OK) return st;
      continue;
    }
    shape = k;
  }
  static const char *const allowed[] = {"box",  "sphere",          "cylinder",             "capsule", "drake:capsule",
                                        "mesh", "drake:ellipsoid", "drake:declare_convex", NULL};
  if ((st = scene_check(c, f, n, allowed, NULL)) != ISO_OK) return st;
  if (!shape) return scene_fail(f, n, ISO_ERR_PARSE, "has no shape (box, sphere, cylinder, capsule, mesh or drake:ellipsoid)");
  /* Size entries a shape does not use keep the API default, so a file and API calls that set
   * only what the shape uses build equal models. */
  double v[3];
  if (scene_is(shape, "box")) {
    static const char *const a[] = {"size", NULL};
    if ((st = scene_check(c, f, shape, NULL, a)) != ISO_OK) return st;
    if ((st = need_attr(c, f, shape, "size", 3, v)) != ISO_OK) return st;
    g->shape = ISO_SHAPE_BOX;
    memcpy(g->size, v, sizeof v);
  } else if (scene_is(shape, "sphere")) {
    static const char *const a[] = {"radius", NULL};
    if ((st = scene_check(c, f, shape, NULL, a)) != ISO_OK) return st;
    if ((st = need_attr(c, f, shape, "radius", 1, v)) != ISO_OK) return st;
    g->shape = ISO_SHAPE_SPHERE;
    g->size[0] = v[0];
  } else if (scene_is(shape, "cylinder") || scene_is(shape, "capsule") || scene_is(shape, "drake:capsule")) {
    static const char *const a[] = {"radius", "length", NULL};
    if ((st = scene_check(c, f, shape, NULL, a)) != ISO_OK) return st;
    if ((st = need_attr(c, f, shape, "radius", 1, &v[0])) != ISO_OK) return st;
    if ((st = need_attr(c, f, shape, "length", 1, &v[1])) != ISO_OK) return st;
    g->shape = scene_is(shape, "cylinder") ? ISO_SHAPE_CYLINDER : ISO_SHAPE_CAPSULE;
    g->size[0] = v[0];
    g->size[1] = v[1];
  } else if (scene_is(shape, "drake:ellipsoid")) {
    static const char *const a[] = {"a", "b", "c", NULL};
    if ((st = scene_check(c, f, shape, NULL, a)) != ISO_OK) return st;
    for (int i = 0; i < 3; ++i)
      if ((st = need_attr(c, f, shape, a[i], 1, &g->size[i])) != ISO_OK) return st;
    g->shape = ISO_SHAPE_ELLIPSOID;
  } else { /* mesh */
    static const char *const e[] = {"drake:declare_convex", NULL}, *const a[] = {"filename", "scale", NULL};
    if ((st = scene_check(c, f, shape, e, a)) != ISO_OK) return st;
    char *uri = scene_attr(&c->mem, shape, "filename"), *path = NULL;
    if (!uri) return scene_fail(f, shape, ISO_ERR_PARSE, "needs a 'filename' attribute");
    if ((st = scene_resolve_uri(&c->mem, &c->packages, f, shape, uri, &path)) != ISO_OK) return st;
    xmlNode *convex = scene_child(shape, "drake:declare_convex");
    if (convex && (st = scene_check(c, f, convex, NULL, NULL)) != ISO_OK) return st;
    if (!scene_has_ext(path, ".obj") && !scene_has_ext(path, ".vtk") && !scene_has_ext(path, ".gltf") &&
        !scene_has_ext(path, ".glb"))
      return scene_fail(f, shape, ISO_ERR_UNSUPPORTED, "mesh '%s': only .obj, .gltf, .glb and .vtk files are supported", path);
    if (convex && scene_has_ext(path, ".vtk"))
      return scene_fail(f, convex, ISO_ERR_UNSUPPORTED, "a convex mesh must be an .obj, .gltf or .glb file (got '%s')", path);
    g->shape = convex ? ISO_SHAPE_CONVEX : ISO_SHAPE_MESH;
    g->mesh_file = path;
    char *scale = scene_attr(&c->mem, shape, "scale");
    if (scale && (st = scene_numbers(f, shape, "scale", scale, 3, g->mesh_scale)) != ISO_OK) return st;
  }
  return ISO_OK;
}

static isoStatus read_collision(sceneCtx *c, const sceneFile *f, xmlNode *n, int link) {
  static const char *const elems[] = {"origin", "geometry", "drake:proximity_properties", "drake_compliance",
                                      "isobar:tactile_pad", NULL};
  static const char *const attrs[] = {"name", NULL};
  isoStatus st;
  if ((st = scene_isobar_check(f, n, elems)) != ISO_OK) return st;
  if ((st = scene_check(c, f, n, elems, attrs)) != ISO_OK) return st;
  xmlNode *geom = scene_child(n, "geometry");
  if (!geom) return scene_fail(f, n, ISO_ERR_PARSE, "needs a <geometry>");
  isoGeometryDef g = scene_default_geometry();
  if ((st = read_geometry(c, f, geom, &g)) != ISO_OK) return st;
  xform X;
  if ((st = scene_urdf_origin(c, f, scene_child(n, "origin"), &X)) != ISO_OK) return st;
  sceneProx given = {NULL, NULL, NULL};
  xmlNode *props = scene_child(n, "drake:proximity_properties");
  if (props && (st = scene_proximity(c, f, props, 1, &g, &given)) != ISO_OK) return st;
  xmlNode *comp = scene_child(n, "drake_compliance"); /* seed 004's materials */
  if (comp && (st = scene_drake_compliance(c, f, comp, &given, &g)) != ISO_OK) return st;
  char *name = scene_attr(&c->mem, n, "name");
  sceneGeom *sg;
  if ((st = scene_new_geom(c, &sg)) != ISO_OK) return st;
  sg->link = link;
  sg->def = g;
  sg->def.name = scene_geometry_name(c, link, name, g.shape);
  if (!sg->def.name) return nomem();
  sg->X_LG = X;
  sg->file = f;
  sg->line = scene_line(n);
  return scene_tactile_pads(c, f, n, 1, c->ngeom - 1, xf_identity());
}

static isoStatus read_link(sceneCtx *c, const sceneFile *f, xmlNode *n, const char *model, int *index) {
  static const char *const elems[] = {"inertial", "visual", "collision", "drake:deformable_properties", NULL};
  static const char *const attrs[] = {"name", NULL};
  isoStatus st;
  /* Deformable bodies are SDFormat-only in Drake: its URDF parser skips the tag and the link
   * stays a rigid body, so here too (reported; strict mode rejects it). */
  xmlNode *deformable = scene_child(n, "drake:deformable_properties");
  if (deformable && (st = scene_ignore(c, f, deformable, "Drake's URDF parser has no deformable bodies; the link "
                                       "is rigid, as in Drake (use SDFormat)")) != ISO_OK)
    return st;
  if ((st = scene_check(c, f, n, elems, attrs)) != ISO_OK) return st;
  char *name = scene_attr(&c->mem, n, "name");
  if (!name || !name[0]) return scene_fail(f, n, ISO_ERR_PARSE, "needs a non-empty 'name' attribute");
  sceneLink *l;
  if ((st = scene_new_link(c, &l, index)) != ISO_OK) return st;
  l->name = scene_printf(&c->mem, "%s::%s", model, name);
  if (!l->name) return nomem();
  l->file = f;
  l->line = l->inertial_line = scene_line(n);
  int world = strcmp(name, "world") == 0;
  l->welded = world;
  xmlNode *in = scene_child(n, "inertial");
  if (in && world) {
    if ((st = scene_ignore(c, f, in, "the world link has no mass; Drake ignores it too")) != ISO_OK) return st;
  } else if (in) {
    if ((st = read_inertial(c, f, in, &c->links[*index])) != ISO_OK) return st;
  }
  for (xmlNode *k = n->children; k; k = k->next) {
    if (scene_is(k, "collision")) {
      if ((st = read_collision(c, f, k, *index)) != ISO_OK) return st;
    } else if (scene_is(k, "visual")) {
      scene_count_visual(c, f, k);
    }
  }
  return ISO_OK;
}

/* Pose of link i in the model frame: its parent's pose times its joint's origin (the child
 * link's frame is the joint frame at q = 0). */
static isoStatus place(sceneCtx *c, int i, int first, const int *parent_joint, int *state) {
  int k = i - first;
  if (state[k] == 2) return ISO_OK;
  int j = parent_joint[k];
  if (state[k] == 1) {
    const sceneJoint *jt = &c->joints[j];
    return iso_fail(ISO_ERR_PARSE, "%s:%d: <joint name='%s'>: the joints form a loop", jt->file->path, jt->line, jt->name);
  }
  if (j < 0) {
    c->links[i].X_WL = xf_identity();
  } else {
    state[k] = 1;
    int p = c->joints[j].parent;
    isoStatus st = place(c, p, first, parent_joint, state);
    if (st != ISO_OK) return st;
    c->links[i].X_WL = xf_mul(c->links[p].X_WL, c->joints[j].X_PJ);
  }
  state[k] = 2;
  return ISO_OK;
}

/* 1 when a joint of the robot has <parent link="world">. */
static int uses_world(xmlNode *robot) {
  for (xmlNode *k = robot->children; k; k = k->next) {
    if (!scene_is(k, "joint")) continue;
    xmlNode *p = scene_child(k, "parent");
    xmlChar *v = p ? xmlGetProp(p, (const xmlChar *)"link") : NULL;
    int w = v && xmlStrcmp(v, (const xmlChar *)"world") == 0;
    if (v) xmlFree(v);
    if (w) return 1;
  }
  return 0;
}

/* The world link a joint names without the file declaring it: welded, massless, no geometry. */
static isoStatus add_world_link(sceneCtx *c, const sceneFile *f, xmlNode *robot, const char *model, nameMap *links) {
  sceneLink *l;
  int idx;
  isoStatus st = scene_new_link(c, &l, &idx);
  if (st != ISO_OK) return st;
  l->name = scene_printf(&c->mem, "%s::world", model);
  if (!l->name) return nomem();
  l->file = f;
  l->line = l->inertial_line = scene_line(robot);
  l->welded = 1;
  l->X_WL = xf_identity();
  return name_map_put(links, 0, "world", 5, idx) < 0 ? nomem() : ISO_OK;
}

/* Drake's <frame name link xyz rpy>: a frame fixed to a link. Drake's URDF joints connect links
 * only, so nothing a simulation uses can name it: it is checked (its link exists, its name is
 * new, its pose is numbers) and kept no further. */
static isoStatus read_frame(sceneCtx *c, const sceneFile *f, xmlNode *n, const nameMap *links, nameMap *frames) {
  static const char *const attrs[] = {"name", "link", "xyz", "rpy", NULL};
  isoStatus st;
  if ((st = scene_check(c, f, n, NULL, attrs)) != ISO_OK) return st;
  char *name = scene_attr(&c->mem, n, "name"), *link = scene_attr(&c->mem, n, "link");
  if (!name || !name[0]) return scene_fail(f, n, ISO_ERR_PARSE, "needs a non-empty 'name' attribute");
  if (!link || !link[0]) return scene_fail(f, n, ISO_ERR_PARSE, "frame '%s': needs a 'link' attribute", name);
  if (name_map_get(links, 0, link, strlen(link)) < 0)
    return scene_fail(f, n, ISO_ERR_PARSE, "frame '%s': no link named '%s'", name, link);
  int put = name_map_put(frames, 0, name, strlen(name), 0);
  if (put < 0) return nomem();
  if (put == 0 || name_map_get(links, 0, name, strlen(name)) >= 0)
    return scene_fail(f, n, ISO_ERR_PARSE, "the name '%s' is already used by a link or frame", name);
  double v[3];
  char *xyz = scene_attr(&c->mem, n, "xyz"), *rpy = scene_attr(&c->mem, n, "rpy");
  if (xyz && (st = scene_numbers(f, n, "xyz", xyz, 3, v)) != ISO_OK) return st;
  if (rpy && (st = scene_numbers(f, n, "rpy", rpy, 3, v)) != ISO_OK) return st;
  return ISO_OK;
}

isoStatus scene_urdf_robot(sceneCtx *c, const sceneFile *f, xmlNode *robot, const char *model, int *first,
                           int *end) {
  static const char *const elems[] = {"link", "joint", "material", "transmission", "frame",
                                      "drake:collision_filter_group", NULL};
  static const char *const attrs[] = {"name", "version", NULL};
  static const char *const rejected[] = {"drake:joint", "drake:linear_bushing_rpy", "drake:ball_constraint",
                                         "drake:linear_spring_damper", "drake:tendon_constraint", NULL};
  isoStatus st;
  for (xmlNode *k = robot->children; k; k = k->next)
    for (int i = 0; rejected[i]; ++i)
      if (scene_is(k, rejected[i])) return scene_fail(f, k, ISO_ERR_UNSUPPORTED, "<%s> is not supported yet", rejected[i]);
  if ((st = scene_check(c, f, robot, elems, attrs)) != ISO_OK) return st;
  if (!model) model = scene_attr(&c->mem, robot, "name");
  if (!model || !model[0]) return scene_fail(f, robot, ISO_ERR_PARSE, "needs a non-empty 'name' attribute");
  size_t plen = strlen(model) + 2;
  *first = c->nlink;
  nameMap links = {0};
  for (xmlNode *k = robot->children; k; k = k->next) {
    if (scene_is(k, "link")) {
      int idx, put;
      if ((st = read_link(c, f, k, model, &idx)) != ISO_OK) break;
      const char *local = c->links[idx].name + plen;
      if ((put = name_map_put(&links, 0, local, strlen(local), idx)) <= 0) {
        st = put < 0 ? nomem()
                     : scene_fail(f, k, ISO_ERR_PARSE, "a link of that name already exists in robot '%s'", model);
        break;
      }
    } else if (scene_is(k, "material")) {
      scene_count_visual(c, f, k);
    }
  }
  /* Drake's URDF parser takes a parent link named "world" as the world, declared or not. */
  if (st == ISO_OK && name_map_get(&links, 0, "world", 5) < 0 && uses_world(robot))
    st = add_world_link(c, f, robot, model, &links);
  nameMap frames = {0};
  for (xmlNode *k = robot->children; k && st == ISO_OK; k = k->next)
    if (scene_is(k, "frame")) st = read_frame(c, f, k, &links, &frames);
  name_map_free(&frames);
  if (st != ISO_OK) {
    name_map_free(&links);
    return st;
  }
  *end = c->nlink;
  int nl = *end - *first;
  int *parent_joint = (int *)malloc(sizeof(int) * (size_t)(nl + 1)), *state = (int *)calloc((size_t)nl + 1, sizeof(int));
  urdfJoints joints;
  memset(&joints, 0, sizeof joints);
  joints.first = c->njoint;
  st = parent_joint && state ? ISO_OK : nomem();
  for (int i = 0; i < nl && st == ISO_OK; ++i) parent_joint[i] = -1;
  for (xmlNode *k = robot->children; k && st == ISO_OK; k = k->next) {
    if (!scene_is(k, "joint")) continue;
    if ((st = scene_urdf_joint(c, f, k, model, &links, &joints)) != ISO_OK) break;
    int j = c->njoint - 1, child = c->joints[j].child - *first;
    if (parent_joint[child] >= 0) {
      st = scene_fail(f, k, ISO_ERR_PARSE, "link '%s' is already the child of joint '%s'", c->links[c->joints[j].child].name,
                      c->joints[parent_joint[child]].name);
      break;
    }
    parent_joint[child] = j;
  }
  for (int i = *first; i < *end && st == ISO_OK; ++i) st = place(c, i, *first, parent_joint, state);
  /* Drake reads mimics once every joint exists, then the transmissions. */
  for (xmlNode *k = robot->children; k && st == ISO_OK; k = k->next)
    if (scene_is(k, "joint")) st = scene_urdf_mimic(c, f, k, &joints);
  for (xmlNode *k = robot->children; k && st == ISO_OK; k = k->next)
    if (scene_is(k, "transmission")) st = scene_urdf_transmission(c, f, k, model, &joints);
  for (xmlNode *k = robot->children; k && st == ISO_OK; k = k->next)
    if (scene_is(k, "drake:collision_filter_group")) st = scene_filter_group(c, f, k, model, 1);
  free(parent_joint);
  free(state);
  free(joints.effort);
  name_map_free(&joints.names);
  name_map_free(&links);
  return st;
}

isoStatus scene_urdf_load(sceneCtx *c, const char *path) {
  sceneFile *f;
  isoStatus st = scene_open(&c->mem, path, NULL, NULL, &f);
  if (st != ISO_OK) return st;
  xmlNode *robot = xmlDocGetRootElement(f->doc);
  if (!scene_is(robot, "robot"))
    return scene_fail(f, robot, ISO_ERR_PARSE, "the root element is <%s>, expected <robot>", (const char *)robot->name);
  int first, end;
  return scene_urdf_robot(c, f, robot, NULL, &first, &end);
}
