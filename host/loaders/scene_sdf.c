/* Scene files: SDFormat, the subset Drake scenes use (see include/isobar/scene.h).
 *
 * The parse is two passes. The first walks the XML (following <include>s) and records model
 * scopes, named frames (model frames, links, <frame>s, joints) each with its pose relative to
 * another frame, links with their mass properties, collisions and joints (their type, axis,
 * limits and Drake's extensions read by scene_sdf_joint.c). Poses may name frames declared
 * later, so only the second pass, once every name is known, resolves the frame graph into
 * world poses (with cycle detection), places links and collisions, binds the joints' parent
 * and child names to links and their frames and axes to the resolved graph, and then their
 * drake:mimic elements to the joints they name.
 *
 * Names: a model scope has a scoped path ("outer::inner"); a link's body name is
 * "<path>::<link>". A name in relative_to, <parent> or <child> is looked up in the element's
 * own model scope and may descend into nested models with "::"; "world" and "__model__" are
 * understood everywhere.
 *
 * <pose>, <inertial> and <collision> are read by scene_sdf_elements.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "host/base/error.h"
#include "host/loaders/scene_filter.h"
#include "host/loaders/scene_load.h"
#include "host/loaders/scene_report.h"
#include "host/loaders/scene_sdf.h"
#include "host/model/name_map.h"

#define MAX_INCLUDE_DEPTH 32

static isoStatus nomem(void) { return iso_fail(ISO_ERR_NOMEM, "scene: out of memory"); }

static void *grow(void *items, int *n, int *cap, size_t size) {
  if (*n == *cap) {
    int nc = *cap ? 2 * *cap : 16;
    void *p = realloc(items, (size_t)nc * size);
    if (!p) return NULL;
    items = p;
    *cap = nc;
  }
  return items;
}

static int add_scope(sdfParser *P) {
  void *s = grow(P->scopes, &P->nscope, &P->scope_cap, sizeof *P->scopes);
  if (!s) return -1;
  P->scopes = (sdfScope *)s;
  memset(&P->scopes[P->nscope], 0, sizeof *P->scopes);
  return P->nscope++;
}

static int add_frame(sdfParser *P, int kind, int scope, const char *name, const sceneFile *f, xmlNode *n) {
  void *s = grow(P->frames, &P->nframe, &P->frame_cap, sizeof *P->frames);
  if (!s) return -1;
  P->frames = (sdfFrame *)s;
  sdfFrame *fr = &P->frames[P->nframe];
  memset(fr, 0, sizeof *fr);
  fr->kind = kind;
  fr->scope = fr->rel_scope = scope;
  fr->name = name;
  fr->X = xf_identity();
  fr->X_W = xf_identity();
  fr->link = fr->joint = -1;
  fr->file = f;
  fr->node = n;
  if (kind != F_MODEL && kind != F_WORLD && name &&
      name_map_put(&P->frame_names, scope, name, strlen(name), P->nframe) < 0)
    return -1;
  return P->nframe++;
}

/* ---- names -------------------------------------------------------------------------------- */

static int child_scope(const sdfParser *P, int scope, const char *name, size_t len) {
  return name_map_get(&P->scope_names, scope, name, len);
}

int scene_sdf_lookup(const sdfParser *P, int scope, const char *name) {
  if (strcmp(name, "world") == 0) return 0;
  if (strcmp(name, "__model__") == 0) return P->scopes[scope].frame;
  const char *sep = strstr(name, "::");
  if (sep) {
    int s = child_scope(P, scope, name, (size_t)(sep - name));
    return s < 0 ? -1 : scene_sdf_lookup(P, s, sep + 2);
  }
  int fi = name_map_get(&P->frame_names, scope, name, strlen(name));
  if (fi >= 0) return fi;
  int s = child_scope(P, scope, name, strlen(name));
  return s < 0 ? -1 : P->scopes[s].frame;
}

/* SDFormat requires links, joints, frames and nested models of one model to have distinct names. */
static isoStatus claim_name(sdfParser *P, int scope, const char *name, const sceneFile *f, xmlNode *n) {
  if (!name || !name[0]) return scene_fail(f, n, ISO_ERR_PARSE, "needs a non-empty 'name' attribute");
  if (strcmp(name, "world") == 0 || strcmp(name, "__model__") == 0 || strstr(name, "::"))
    return scene_fail(f, n, ISO_ERR_PARSE, "the name '%s' is reserved by SDFormat", name);
  if (scene_sdf_lookup(P, scope, name) >= 0)
    return scene_fail(f, n, ISO_ERR_PARSE, "the name '%s' is already used in model '%s'", name,
                      P->scopes[scope].path[0] ? P->scopes[scope].path : "(world)");
  return ISO_OK;
}

/* ---- links, joints, frames, models, includes ---------------------------------------------- */

/* A deformable link: a frame of its own (its name is claimed, its pose may be relative to
 * other frames and other poses to it), and a deformable body, not a link. */
static isoStatus read_deformable_link(sdfParser *P, const sceneFile *f, xmlNode *n, int scope) {
  sceneCtx *c = P->c;
  isoStatus st;
  char *name = scene_attr(&c->mem, n, "name");
  if ((st = claim_name(P, scope, name, f, n)) != ISO_OK) return st;
  int fi = add_frame(P, F_DEFORMABLE, scope, name, f, n);
  if (fi < 0) return nomem();
  xmlNode *pn = scene_child(n, "pose");
  if (pn) {
    scenePose pose;
    if ((st = scene_sdf_pose(c, f, pn, &pose)) != ISO_OK) return st;
    P->frames[fi].X = pose.X;
    P->frames[fi].rel_to = pose.rel_to;
  }
  const char *scoped = scene_printf(&c->mem, "%s::%s", P->scopes[scope].path, name);
  if (!scoped) return nomem();
  return scene_sdf_deformable(c, f, n, scope, scoped, fi);
}

static isoStatus read_link(sdfParser *P, const sceneFile *f, xmlNode *n, int scope) {
  static const char *const elems[] = {"pose", "inertial", "collision", "visual", NULL};
  static const char *const attrs[] = {"name", NULL};
  sceneCtx *c = P->c;
  isoStatus st;
  if (scene_child(n, "drake:deformable_properties")) return read_deformable_link(P, f, n, scope);
  /* Drake: a drake: element a rigid link does not know is an error */
  if (scene_child(n, "drake:wall_boundary_condition"))
    return scene_fail(f, scene_child(n, "drake:wall_boundary_condition"), ISO_ERR_INVALID,
                      "a wall boundary condition belongs to a deformable link (one with <drake:deformable_properties>)");
  if (scene_child(n, "isobar:weld"))
    return scene_fail(f, scene_child(n, "isobar:weld"), ISO_ERR_INVALID,
                      "a weld belongs to a deformable link (one with <drake:deformable_properties>)");
  if ((st = scene_check(c, f, n, elems, attrs)) != ISO_OK) return st;
  char *name = scene_attr(&c->mem, n, "name");
  if ((st = claim_name(P, scope, name, f, n)) != ISO_OK) return st;
  int li, fi = add_frame(P, F_LINK, scope, name, f, n);
  if (fi < 0) return nomem();
  sceneLink *l;
  if ((st = scene_new_link(c, &l, &li)) != ISO_OK) return st;
  l->name = scene_printf(&c->mem, "%s::%s", P->scopes[scope].path, name);
  if (!l->name) return nomem();
  l->file = f;
  l->line = l->inertial_line = scene_line(n);
  /* SDFormat's default inertial: mass 1 and unit moments at the link origin. */
  l->mass = 1.0;
  l->inertia[0] = l->inertia[1] = l->inertia[2] = 1.0;
  l->welded = P->scopes[scope].is_static;
  l->frame = fi;
  P->frames[fi].link = li;
  for (xmlNode *k = n->children; k; k = k->next) {
    if (scene_is(k, "pose")) {
      scenePose pose;
      if ((st = scene_sdf_pose(c, f, k, &pose)) != ISO_OK) return st;
      P->frames[fi].X = pose.X;
      P->frames[fi].rel_to = pose.rel_to;
    } else if (scene_is(k, "inertial")) {
      if ((st = scene_sdf_inertial(c, f, k, li)) != ISO_OK) return st;
    } else if (scene_is(k, "collision")) {
      if ((st = scene_sdf_collision(c, f, k, scope, li)) != ISO_OK) return st;
    } else if (scene_is(k, "visual")) {
      scene_count_visual(c, f, k);
    }
  }
  return ISO_OK;
}

static isoStatus read_joint(sdfParser *P, const sceneFile *f, xmlNode *n, int scope) {
  sceneCtx *c = P->c;
  isoStatus st;
  char *name = scene_attr(&c->mem, n, "name"), *type = scene_attr(&c->mem, n, "type");
  if (!type) return scene_fail(f, n, ISO_ERR_PARSE, "needs a 'type' attribute");
  sdfJointSpec spec;
  if ((st = scene_sdf_joint(c, f, n, name ? name : "", type, &spec)) != ISO_OK) return st;
  if ((st = claim_name(P, scope, name, f, n)) != ISO_OK) return st;
  xmlNode *pn = scene_child(n, "parent"), *cn = scene_child(n, "child");
  if (!pn || !cn) return scene_fail(f, n, ISO_ERR_PARSE, "a joint needs <parent> and <child>");
  if ((st = scene_check(c, f, pn, NULL, NULL)) != ISO_OK) return st;
  if ((st = scene_check(c, f, cn, NULL, NULL)) != ISO_OK) return st;
  void *s = grow(P->joints, &P->njoint, &P->joint_cap, sizeof *P->joints);
  if (!s) return nomem();
  P->joints = (sdfJoint *)s;
  sdfJoint *j = &P->joints[P->njoint++];
  memset(j, 0, sizeof *j);
  j->scope = scope;
  j->parent = scene_text(&c->mem, pn);
  j->child = scene_text(&c->mem, cn);
  j->file = f;
  j->node = n;
  j->spec = spec;
  j->index = -1;
  if (!j->parent || !j->child) return nomem();
  /* A joint is a frame too, by default at its child link. */
  int fi = add_frame(P, F_JOINT, scope, name, f, n);
  if (fi < 0) return nomem();
  j->frame = fi;
  P->frames[fi].joint = P->njoint - 1;
  P->frames[fi].def_rel = j->child;
  xmlNode *po = scene_child(n, "pose");
  if (po) {
    scenePose pose;
    if ((st = scene_sdf_pose(c, f, po, &pose)) != ISO_OK) return st;
    P->frames[fi].X = pose.X;
    P->frames[fi].rel_to = pose.rel_to;
  }
  return ISO_OK;
}

static isoStatus read_frame(sdfParser *P, const sceneFile *f, xmlNode *n, int scope) {
  static const char *const elems[] = {"pose", NULL};
  static const char *const attrs[] = {"name", "attached_to", NULL};
  sceneCtx *c = P->c;
  isoStatus st;
  if ((st = scene_check(c, f, n, elems, attrs)) != ISO_OK) return st;
  char *name = scene_attr(&c->mem, n, "name");
  if ((st = claim_name(P, scope, name, f, n)) != ISO_OK) return st;
  int fi = add_frame(P, F_FRAME, scope, name, f, n);
  if (fi < 0) return nomem();
  char *att = scene_attr(&c->mem, n, "attached_to");
  P->frames[fi].def_rel = att && att[0] ? att : NULL;
  xmlNode *po = scene_child(n, "pose");
  if (po) {
    scenePose pose;
    if ((st = scene_sdf_pose(c, f, po, &pose)) != ISO_OK) return st;
    P->frames[fi].X = pose.X;
    P->frames[fi].rel_to = pose.rel_to;
  }
  return ISO_OK;
}

/* A new model scope under `parent` with its model frame; `pose` (may be NULL) places it. */
static isoStatus new_scope(sdfParser *P, int parent, const char *name, int is_static, const scenePose *pose,
                           const sceneFile *f, xmlNode *n, int *out) {
  isoStatus st;
  if ((st = claim_name(P, parent, name, f, n)) != ISO_OK) return st;
  int s = add_scope(P);
  if (s < 0) return nomem();
  sdfScope *sc = &P->scopes[s];
  sc->name = name;
  sc->path = parent == 0 ? name : scene_printf(&P->c->mem, "%s::%s", P->scopes[parent].path, name);
  sc->parent = parent;
  sc->is_static = is_static || P->scopes[parent].is_static;
  if (!sc->path || name_map_put(&P->scope_names, parent, name, strlen(name), s) < 0) return nomem();
  int fi = add_frame(P, F_MODEL, s, "__model__", f, n);
  if (fi < 0) return nomem();
  P->scopes[s].frame = fi;
  P->frames[fi].rel_scope = parent;
  if (pose) {
    P->frames[fi].X = pose->X;
    P->frames[fi].rel_to = pose->rel_to;
    P->frames[fi].file = pose->file;
    P->frames[fi].node = pose->node;
  }
  *out = s;
  return ISO_OK;
}

static isoStatus read_include(sdfParser *P, const sceneFile *f, xmlNode *n, int parent);

/* Elements that would change the motion and that isobar cannot honour yet: rejected, not
 * reported. */
static isoStatus reject_unsupported(const sceneFile *f, xmlNode *n) {
  static const char *const rejected[] = {"drake:joint", "drake:linear_bushing_rpy", "drake:ball_constraint",
                                         "drake:linear_spring_damper", "drake:tendon_constraint", NULL};
  for (xmlNode *k = n->children; k; k = k->next)
    for (int i = 0; rejected[i]; ++i)
      if (scene_is(k, rejected[i]))
        return scene_fail(f, k, ISO_ERR_UNSUPPORTED, "<%s> is not supported yet", rejected[i]);
  return ISO_OK;
}

/* <model>: `name`, `pose` and `is_static` (-1: none) override the file's (from <include>). */
static isoStatus read_model(sdfParser *P, const sceneFile *f, xmlNode *n, int parent, const char *name,
                            const scenePose *pose, int is_static) {
  static const char *const elems[] = {"static", "pose", "link", "joint", "model", "include", "frame",
                                      "drake:collision_filter_group", NULL};
  static const char *const attrs[] = {"name", NULL};
  sceneCtx *c = P->c;
  isoStatus st;
  char *pf = scene_attr(&c->mem, n, "placement_frame");
  if (pf && pf[0])
    return scene_fail(f, n, ISO_ERR_UNSUPPORTED, "placement_frame is not supported; give the model's pose instead");
  if ((st = reject_unsupported(f, n)) != ISO_OK) return st;
  if ((st = scene_check(c, f, n, elems, attrs)) != ISO_OK) return st;
  if (!name) name = scene_attr(&c->mem, n, "name");
  if (is_static < 0) {
    is_static = 0;
    xmlNode *sn = scene_child(n, "static");
    if (sn) {
      char *t = scene_text(&c->mem, sn);
      if (!t) return nomem();
      if ((st = scene_check(c, f, sn, NULL, NULL)) != ISO_OK) return st;
      if ((st = scene_bool(f, sn, "static", t, &is_static)) != ISO_OK) return st;
    }
  }
  scenePose own;
  xmlNode *pn = scene_child(n, "pose");
  if (pn && (st = scene_sdf_pose(c, f, pn, &own)) != ISO_OK) return st;
  if (!pose && pn) pose = &own;
  int s;
  if ((st = new_scope(P, parent, name, is_static, pose, f, n, &s)) != ISO_OK) return st;
  for (xmlNode *k = n->children; k; k = k->next) {
    if (scene_is(k, "link")) st = read_link(P, f, k, s);
    else if (scene_is(k, "joint")) st = read_joint(P, f, k, s);
    else if (scene_is(k, "frame")) st = read_frame(P, f, k, s);
    else if (scene_is(k, "model")) st = read_model(P, f, k, s, NULL, NULL, -1);
    else if (scene_is(k, "include")) st = read_include(P, f, k, s);
    else if (scene_is(k, "drake:collision_filter_group")) st = scene_filter_group(c, f, k, P->scopes[s].path, 0);
    if (st != ISO_OK) return st;
  }
  return ISO_OK;
}

/* A URDF robot included from SDFormat: a model scope whose links are frames at their pose in
 * the robot's model frame. */
static isoStatus include_urdf(sdfParser *P, const sceneFile *uf, const sceneFile *f, xmlNode *inc, int parent,
                              const char *name, const scenePose *pose, int is_static) {
  sceneCtx *c = P->c;
  isoStatus st;
  xmlNode *robot = xmlDocGetRootElement(uf->doc);
  if (!scene_is(robot, "robot"))
    return scene_fail(uf, robot, ISO_ERR_PARSE, "the root element of a URDF file must be <robot>");
  if (!name) name = scene_attr(&c->mem, robot, "name");
  int s;
  if ((st = new_scope(P, parent, name, is_static > 0, pose, f, inc, &s)) != ISO_OK) return st;
  int first, end;
  if ((st = scene_urdf_robot(c, uf, robot, P->scopes[s].path, &first, &end)) != ISO_OK) return st;
  size_t plen = strlen(P->scopes[s].path) + 2;
  for (int i = first; i < end; ++i) {
    sceneLink *l = &c->links[i];
    const char *local = l->name + plen;
    if (l->welded && strcmp(local, "world") == 0) {
      l->frame = 0; /* the URDF world link is the world, wherever the robot is placed */
      continue;
    }
    int fi = add_frame(P, F_LINK, s, local, uf, robot);
    if (fi < 0) return nomem();
    P->frames[fi].X = l->X_WL;
    P->frames[fi].link = i;
    l->frame = fi;
    if (P->scopes[s].is_static) l->welded = 1;
  }
  return ISO_OK;
}

static isoStatus read_include(sdfParser *P, const sceneFile *f, xmlNode *n, int parent) {
  static const char *const elems[] = {"uri", "name", "pose", "static", NULL};
  static const char *const attrs[] = {"merge", NULL};
  sceneCtx *c = P->c;
  isoStatus st;
  char *merge = scene_attr(&c->mem, n, "merge");
  int merging = 0;
  if (merge && (st = scene_bool(f, n, "merge", merge, &merging)) != ISO_OK) return st;
  if (merging) return scene_fail(f, n, ISO_ERR_UNSUPPORTED, "merge=\"true\" is not supported");
  if (scene_child(n, "placement_frame"))
    return scene_fail(f, scene_child(n, "placement_frame"), ISO_ERR_UNSUPPORTED,
                      "placement_frame is not supported; give the pose instead");
  if ((st = scene_check(c, f, n, elems, attrs)) != ISO_OK) return st;
  if (P->depth >= MAX_INCLUDE_DEPTH)
    return scene_fail(f, n, ISO_ERR_PARSE, "includes nest deeper than %d (does a file include itself?)", MAX_INCLUDE_DEPTH);
  if (++P->nincl > ISO_SCENE_MAX_INCLUDES)
    return scene_fail(f, n, ISO_ERR_CAPACITY, "the scene follows more than %d includes in one load",
                      ISO_SCENE_MAX_INCLUDES);
  xmlNode *un = scene_child(n, "uri");
  if (!un) return scene_fail(f, n, ISO_ERR_PARSE, "needs a <uri>");
  char *uri = scene_text(&c->mem, un), *path = NULL;
  if (!uri) return nomem();
  if ((st = scene_check(c, f, un, NULL, NULL)) != ISO_OK) return st;
  if ((st = scene_resolve_uri(&c->mem, &c->packages, f, un, uri, &path)) != ISO_OK) return st;
  struct stat sb;
  if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
    /* A model folder: its model.sdf (Gazebo's model.config is not read). */
    path = scene_printf(&c->mem, "%s/model.sdf", path);
    if (!path) return nomem();
  }
  const char *name = NULL;
  xmlNode *nn = scene_child(n, "name");
  if (nn) {
    if ((st = scene_check(c, f, nn, NULL, NULL)) != ISO_OK) return st;
    name = scene_text(&c->mem, nn);
    if (!name) return nomem();
  }
  scenePose pose, *pp = NULL;
  xmlNode *pn = scene_child(n, "pose");
  if (pn) {
    if ((st = scene_sdf_pose(c, f, pn, &pose)) != ISO_OK) return st;
    pp = &pose;
  }
  int is_static = -1;
  xmlNode *sn = scene_child(n, "static");
  if (sn) {
    char *t = scene_text(&c->mem, sn);
    if (!t) return nomem();
    if ((st = scene_check(c, f, sn, NULL, NULL)) != ISO_OK) return st;
    if ((st = scene_bool(f, sn, "static", t, &is_static)) != ISO_OK) return st;
  }
  sceneFile *inc;
  if ((st = scene_open(&c->mem, path, f, un, &inc)) != ISO_OK) return st;
  P->depth++;
  if (scene_has_ext(path, ".urdf")) {
    st = include_urdf(P, inc, f, n, parent, name, pp, is_static);
  } else {
    xmlNode *root = xmlDocGetRootElement(inc->doc);
    static const char *const re[] = {"model", NULL}, *const ra[] = {"version", NULL};
    xmlNode *model = scene_child(root, "model");
    if (!scene_is(root, "sdf"))
      st = scene_fail(inc, root, ISO_ERR_PARSE, "the root element is <%s>, expected <sdf>", (const char *)root->name);
    else if (!model)
      st = scene_fail(inc, root, ISO_ERR_PARSE, "an included file must hold a <model>");
    else if ((st = scene_check(c, inc, root, re, ra)) == ISO_OK)
      st = read_model(P, inc, model, parent, name, pp, is_static);
  }
  P->depth--;
  return st;
}

static isoStatus read_world(sdfParser *P, const sceneFile *f, xmlNode *n) {
  static const char *const elems[] = {"gravity", "physics", "model", "include", "frame", NULL};
  static const char *const attrs[] = {"name", NULL};
  static const char *const pe[] = {"max_step_size", NULL}, *const pa[] = {"name", "default", "type", NULL};
  sceneCtx *c = P->c;
  isoStatus st;
  if ((st = scene_check(c, f, n, elems, attrs)) != ISO_OK) return st;
  for (xmlNode *k = n->children; k; k = k->next) {
    if (scene_is(k, "gravity")) {
      if ((st = scene_check(c, f, k, NULL, NULL)) != ISO_OK) return st;
      if ((st = scene_text_numbers(&c->mem, f, k, 3, c->gravity)) != ISO_OK) return st;
    } else if (scene_is(k, "physics")) {
      /* Drake takes its step from the plant config; isobar reads the step a Gazebo-style world
       * declares and ignores the rest of the engine settings. */
      if ((st = scene_check(c, f, k, pe, pa)) != ISO_OK) return st;
      xmlNode *ms = scene_child(k, "max_step_size");
      if (ms) {
        if ((st = scene_check(c, f, ms, NULL, NULL)) != ISO_OK) return st;
        if ((st = scene_text_numbers(&c->mem, f, ms, 1, &c->time_step)) != ISO_OK) return st;
        if (!(c->time_step > 0)) return scene_fail(f, ms, ISO_ERR_INVALID, "the step %g must be > 0", c->time_step);
      }
    } else if (scene_is(k, "model")) {
      st = read_model(P, f, k, 0, NULL, NULL, -1);
    } else if (scene_is(k, "include")) {
      st = read_include(P, f, k, 0);
    } else if (scene_is(k, "frame")) {
      st = read_frame(P, f, k, 0);
    }
    if (st != ISO_OK) return st;
  }
  return ISO_OK;
}

/* ---- the second pass ---------------------------------------------------------------------- */

static isoStatus resolve(sdfParser *P, int fi) {
  sdfFrame *fr = &P->frames[fi];
  if (fr->state == 2) return ISO_OK;
  if (fr->state == 1)
    return scene_fail(fr->file, fr->node, ISO_ERR_PARSE, "the poses' relative_to form a cycle through '%s'", fr->name);
  fr->state = 1;
  const char *target = fr->rel_to ? fr->rel_to : fr->def_rel;
  int rel_scope = fr->rel_scope;
  int ti = target ? scene_sdf_lookup(P, rel_scope, target) : P->scopes[rel_scope].frame;
  if (ti < 0) {
    const char *path = P->scopes[rel_scope].path;
    return scene_fail(fr->file, fr->node, ISO_ERR_PARSE, "%s '%s' names no frame of model '%s'",
                      fr->rel_to ? "relative_to" : fr->kind == F_JOINT ? "child" : "attached_to", target,
                      path[0] ? path : "(world)");
  }
  isoStatus st = resolve(P, ti);
  if (st != ISO_OK) return st;
  fr = &P->frames[fi];
  fr->X_W = xf_mul(P->frames[ti].X_W, fr->X);
  fr->state = 2;
  return ISO_OK;
}

static isoStatus second_pass(sdfParser *P) {
  sceneCtx *c = P->c;
  isoStatus st;
  for (int i = 0; i < P->nframe; ++i)
    if ((st = resolve(P, i)) != ISO_OK) return st;
  for (int i = 0; i < c->nlink; ++i)
    if (c->links[i].frame >= 0) c->links[i].X_WL = P->frames[c->links[i].frame].X_W;
  for (int i = 0; i < c->ngeom; ++i) {
    sceneGeom *g = &c->geoms[i];
    if (!g->rel_to) continue;
    int fi = scene_sdf_lookup(P, g->rel_scope, g->rel_to);
    if (fi < 0)
      return iso_fail(ISO_ERR_PARSE, "%s:%d: <collision>: relative_to '%s' names no frame of model '%s'", g->file->path,
                      g->line, g->rel_to, P->scopes[g->rel_scope].path);
    /* X_LC = X_LW X_WR X_RC */
    g->X_LG = xf_mul(xf_mul(xf_inv(c->links[g->link].X_WL), P->frames[fi].X_W), g->X_LG);
  }
  for (int i = 0; i < c->ndeformable; ++i) {
    xform X = P->frames[c->deformables[i].frame].X_W;
    double *p = c->deformables[i].def.position, *q = c->deformables[i].def.quaternion;
    p[0] = X.p.x;
    p[1] = X.p.y;
    p[2] = X.p.z;
    q[0] = X.q.w;
    q[1] = X.q.x;
    q[2] = X.q.y;
    q[3] = X.q.z;
  }
  if ((st = scene_sdf_bind_welds(P)) != ISO_OK) return st;
  for (int i = 0; i < P->njoint; ++i)
    if ((st = scene_sdf_bind_joint(P, &P->joints[i])) != ISO_OK) return st;
  /* Drake reads drake:mimic once every joint of the model exists. */
  for (int i = 0; i < P->njoint; ++i)
    if (P->joints[i].spec.mimic && (st = scene_sdf_bind_mimic(P, &P->joints[i])) != ISO_OK) return st;
  return ISO_OK;
}

isoStatus scene_sdf_load(sceneCtx *c, const char *path) {
  sdfParser P;
  memset(&P, 0, sizeof P);
  P.c = c;
  isoStatus st;
  sceneFile *f;
  if ((st = scene_open(&c->mem, path, NULL, NULL, &f)) != ISO_OK) return st;
  /* Scope 0 is the world, frame 0 its frame. */
  int w = add_scope(&P), wf = add_frame(&P, F_WORLD, 0, "world", f, NULL);
  if (w < 0 || wf < 0) {
    st = nomem();
    goto done;
  }
  P.scopes[0].name = P.scopes[0].path = "";
  P.scopes[0].parent = -1;
  P.scopes[0].frame = 0;
  P.frames[0].state = 2;
  xmlNode *root = xmlDocGetRootElement(f->doc);
  if (!scene_is(root, "sdf")) {
    st = scene_fail(f, root, ISO_ERR_PARSE, "the root element is <%s>, expected <sdf>", (const char *)root->name);
    goto done;
  }
  static const char *const re[] = {"world", "model", NULL}, *const ra[] = {"version", NULL};
  if ((st = scene_check(c, f, root, re, ra)) != ISO_OK) goto done;
  int nworld = 0;
  for (xmlNode *k = root->children; k && st == ISO_OK; k = k->next) {
    if (scene_is(k, "world")) {
      if (nworld++ > 0) st = scene_fail(f, k, ISO_ERR_UNSUPPORTED, "a file may hold one <world>");
      else st = read_world(&P, f, k);
    } else if (scene_is(k, "model")) {
      st = read_model(&P, f, k, 0, NULL, NULL, -1);
    }
  }
  if (st == ISO_OK) st = second_pass(&P);
done:
  free(P.scopes);
  free(P.frames);
  free(P.joints);
  name_map_free(&P.frame_names);
  name_map_free(&P.scope_names);
  return st;
}
