/* Scene files: from the parsed description to a compiled model, and the public entry points.
 *
 * Links joined by fixed joints form groups (union-find over the joints; everything welded joins
 * the world's group). A group holding the world is anchored: its collisions go on
 * ISO_WORLD_BODY at their world pose. Any other group is one free body, named and framed by its
 * root link (the one that is no joint's child), with the members' mass properties combined
 * about the group's centre of mass by the parallel-axis theorem. Bodies are added in the
 * document order of their root links and geometries in document order, so a file and the C
 * calls that describe the same scene in the same order build the same model. A one-link body
 * copies the link's numbers untouched. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/loaders/scene_load.h"
#include "host/loaders/scene_report.h"

isoLoadOptions iso_default_load_options(void) {
  isoLoadOptions o;
  memset(&o, 0, sizeof o);
  return o;
}

static int find(int *uf, int i) {
  while (uf[i] != i) {
    uf[i] = uf[uf[i]];
    i = uf[i];
  }
  return i;
}

static void unite(int *uf, int a, int b) {
  a = find(uf, a);
  b = find(uf, b);
  if (a != b) uf[a] = b;
}

/* Re-fail with the model builder's message prefixed by where the element is. */
static isoStatus located(isoStatus st, const sceneFile *f, int line, const char *element, const char *name) {
  char msg[1024];
  snprintf(msg, sizeof msg, "%s", iso_last_error());
  return iso_fail(st, "%s:%d: <%s name='%s'>: %s", f->path, line, element, name, msg);
}

/* Mass properties of group `g` in the frame of its root link r. The members are walked from
 * head[g] along next[] in document order (a list, so that the merge costs the group's size, not
 * the scene's). */
static void merge_mass(const sceneCtx *c, const int *head, const int *next, int g, int r, isoBodyDef *b) {
  const sceneLink *R = &c->links[r];
  if (next[head[g]] < 0) {
    b->mass = R->mass;
    memcpy(b->com, R->com, sizeof b->com);
    memcpy(b->inertia, R->inertia, sizeof b->inertia);
    return;
  }
  xform X_RW = xf_inv(R->X_WL);
  double M = 0;
  vec3 mc = v3_zero();
  for (int k = head[g]; k >= 0; k = next[k]) {
    const sceneLink *L = &c->links[k];
    vec3 ck = xf_point(xf_mul(X_RW, L->X_WL), v3(L->com[0], L->com[1], L->com[2]));
    M += L->mass;
    mc = v3_axpy(mc, L->mass, ck);
  }
  vec3 com = M > 0 ? v3_scale(mc, 1.0 / M) : v3_zero();
  double I[6] = {0, 0, 0, 0, 0, 0};
  for (int k = head[g]; k >= 0; k = next[k]) {
    const sceneLink *L = &c->links[k];
    xform X_RK = xf_mul(X_RW, L->X_WL);
    double Ik[6];
    scene_rotate_inertia(X_RK.q, L->inertia, Ik);
    vec3 d = v3_sub(xf_point(X_RK, v3(L->com[0], L->com[1], L->com[2])), com);
    /* Parallel axis: + m (|d|² 1 − d dᵀ). */
    double m = L->mass;
    I[0] += Ik[0] + m * (d.y * d.y + d.z * d.z);
    I[1] += Ik[1] + m * (d.x * d.x + d.z * d.z);
    I[2] += Ik[2] + m * (d.x * d.x + d.y * d.y);
    I[3] += Ik[3] - m * d.x * d.y;
    I[4] += Ik[4] - m * d.x * d.z;
    I[5] += Ik[5] - m * d.y * d.z;
  }
  b->mass = M;
  b->com[0] = com.x;
  b->com[1] = com.y;
  b->com[2] = com.z;
  memcpy(b->inertia, I, sizeof I);
}

/* Compiling builds meshes and pressure fields; a failure names a geometry, which names the
 * file and line it came from. */
static isoStatus compile_located(const sceneCtx *c, isoStatus st) {
  char msg[1024];
  snprintf(msg, sizeof msg, "%s", iso_last_error());
  for (int i = 0; i < c->ngeom; ++i) {
    char key[600];
    snprintf(key, sizeof key, "geometry '%s'", c->geoms[i].def.name);
    if (strstr(msg, key))
      return iso_fail(st, "%s:%d: <collision name='%s'>: %s", c->geoms[i].file->path, c->geoms[i].line,
                      c->geoms[i].def.name, msg);
  }
  return iso_fail(st, "%s: %s", c->mem.files[0]->path, msg);
}

static isoStatus build(sceneCtx *c, int *uf, int *child_of, int *root_of, int *body_of, isoModel **out) {
  const int n = c->nlink, W = n;
  isoStatus st;
  for (int i = 0; i <= n; ++i) {
    uf[i] = i;
    root_of[i] = -1;
    body_of[i] = -1;
  }
  for (int i = 0; i < n; ++i) {
    child_of[i] = -1;
    if (c->links[i].welded) unite(uf, i, W);
  }
  for (int j = 0; j < c->njoint; ++j) {
    const sceneJoint *jt = &c->joints[j];
    if (child_of[jt->child] >= 0)
      return iso_fail(ISO_ERR_PARSE, "%s:%d: <joint name='%s'>: link '%s' is already the child of joint '%s'",
                      jt->file->path, jt->line, jt->name, c->links[jt->child].name, c->joints[child_of[jt->child]].name);
    child_of[jt->child] = j;
    unite(uf, jt->child, jt->parent < 0 ? W : jt->parent);
  }
  const int world = find(uf, W);
  for (int i = 0; i < n; ++i) {
    int g = find(uf, i);
    if (g != world && root_of[g] < 0 && child_of[i] < 0) root_of[g] = i;
  }
  for (int i = 0; i < n; ++i) {
    int g = find(uf, i);
    if (g != world && root_of[g] < 0) {
      const sceneJoint *jt = &c->joints[child_of[i]];
      return iso_fail(ISO_ERR_PARSE, "%s:%d: <joint name='%s'>: the fixed joints form a loop", jt->file->path, jt->line,
                      jt->name);
    }
  }

  int *head = (int *)malloc(((size_t)n + 1) * sizeof *head), *next = (int *)malloc(((size_t)n + 1) * sizeof *next);
  if (!head || !next) {
    free(head);
    free(next);
    return iso_fail(ISO_ERR_NOMEM, "scene: out of memory");
  }
  for (int i = 0; i <= n; ++i) head[i] = -1;
  for (int i = n - 1; i >= 0; --i) {
    int g = find(uf, i);
    next[i] = head[g];
    head[g] = i;
  }

  isoModelDef md = iso_default_model_def();
  memcpy(md.gravity, c->gravity, sizeof md.gravity);
  md.time_step = c->opt.time_step > 0 ? c->opt.time_step : c->time_step > 0 ? c->time_step : 1e-3;
  isoModel *m = NULL;
  if ((st = iso_model_create(&md, &m)) != ISO_OK) {
    free(head);
    free(next);
    return st;
  }
  for (int i = 0; i < n && st == ISO_OK; ++i) {
    int g = find(uf, i);
    if (g == world || root_of[g] != i) continue;
    const sceneLink *L = &c->links[i];
    isoBodyDef b = iso_default_body_def();
    b.name = L->name;
    merge_mass(c, head, next, g, i, &b);
    if (b.mass == 0) {
      st = iso_fail(ISO_ERR_INVALID, "%s:%d: <link name='%s'>: a free body needs a mass > 0, and this link and "
                    "the links fixed to it have none (a URDF link without <inertial> has no mass)",
                    L->file->path, L->inertial_line, L->name);
      break;
    }
    if ((st = iso_model_add_body(m, &b, &body_of[g])) != ISO_OK) {
      st = located(st, L->file, L->inertial_line, "link", L->name);
      break;
    }
    /* A free link starts where its pose puts it: the initial state of its floating joint. */
    isoFreeBodyState x = iso_default_free_body_state();
    x.position[0] = L->X_WL.p.x;
    x.position[1] = L->X_WL.p.y;
    x.position[2] = L->X_WL.p.z;
    x.quaternion[0] = L->X_WL.q.w;
    x.quaternion[1] = L->X_WL.q.x;
    x.quaternion[2] = L->X_WL.q.y;
    x.quaternion[3] = L->X_WL.q.z;
    if ((st = iso_model_set_initial_state(m, body_of[g], &x)) != ISO_OK)
      st = located(st, L->file, L->line, "link", L->name);
  }
  for (int i = 0; i < c->ngeom && st == ISO_OK; ++i) {
    const sceneGeom *sg = &c->geoms[i];
    const sceneLink *L = &c->links[sg->link];
    int g = find(uf, sg->link);
    isoGeometryDef def = sg->def;
    xform X;
    if (g == world) {
      def.body = ISO_WORLD_BODY;
      X = xf_mul(L->X_WL, sg->X_LG);
    } else {
      def.body = body_of[g];
      int r = root_of[g];
      X = r == sg->link ? sg->X_LG : xf_mul(xf_mul(xf_inv(c->links[r].X_WL), L->X_WL), sg->X_LG);
    }
    def.position[0] = X.p.x;
    def.position[1] = X.p.y;
    def.position[2] = X.p.z;
    def.quaternion[0] = X.q.w;
    def.quaternion[1] = X.q.x;
    def.quaternion[2] = X.q.y;
    def.quaternion[3] = X.q.z;
    if ((st = iso_model_add_geometry(m, &def, NULL)) != ISO_OK)
      st = located(st, sg->file, sg->line, "collision", def.name);
  }
  free(head);
  free(next);
  if (st == ISO_OK && (st = iso_model_compile(m)) != ISO_OK) st = compile_located(c, st);
  if (st != ISO_OK) {
    iso_model_destroy(m);
    return st;
  }
  *out = m;
  return ISO_OK;
}

isoStatus scene_build(sceneCtx *c, isoModel **out) {
  size_t n = (size_t)c->nlink + 1;
  int *uf = (int *)malloc(n * sizeof(int)), *child_of = (int *)malloc(n * sizeof(int));
  int *root_of = (int *)malloc(n * sizeof(int)), *body_of = (int *)malloc(n * sizeof(int));
  isoStatus st = uf && child_of && root_of && body_of ? build(c, uf, child_of, root_of, body_of, out)
                                                      : iso_fail(ISO_ERR_NOMEM, "scene: out of memory");
  free(uf);
  free(child_of);
  free(root_of);
  free(body_of);
  return st;
}

static void ctx_free(sceneCtx *c) {
  free(c->links);
  free(c->geoms);
  free(c->joints);
  name_map_free(&c->geom_names);
  scene_mem_free(&c->mem);
}

isoStatus iso_scene_load(const char *path, const isoLoadOptions *opt, isoModel **out, isoLoadReport **report) {
  CHECK_NULL(path, "iso_scene_load");
  CHECK_NULL(out, "iso_scene_load");
  *out = NULL;
  if (report) *report = NULL;
  isoLoadOptions o = opt ? *opt : iso_default_load_options();
  if (!isfinite(o.time_step) || o.time_step < 0)
    return iso_fail(ISO_ERR_INVALID, "iso_scene_load: time_step %g must be 0 (the scene's) or > 0", o.time_step);
  int sdf = scene_has_ext(path, ".sdf") || scene_has_ext(path, ".world"), urdf = scene_has_ext(path, ".urdf");
  if (!sdf && !urdf)
    return iso_fail(ISO_ERR_INVALID, "%s: unknown scene format: the name must end in .sdf, .world (SDFormat) or .urdf (URDF)", path);
  sceneCtx c;
  memset(&c, 0, sizeof c);
  c.opt = o;
  c.gravity[2] = -9.81;
  isoStatus st = scene_report_new(&c.report);
  if (st != ISO_OK) return st;
  isoModel *m = NULL;
  st = sdf ? scene_sdf_load(&c, path) : scene_urdf_load(&c, path);
  if (st == ISO_OK) st = scene_report_finish(&c);
  if (st == ISO_OK) st = scene_build(&c, &m);
  ctx_free(&c);
  if (st != ISO_OK) {
    iso_load_report_free(c.report);
    return st;
  }
  *out = m;
  if (report) *report = c.report;
  else iso_load_report_free(c.report);
  return ISO_OK;
}

/* Append "a, b, c" to buf, cut short with ", ..." when it does not fit. */
static void list_add(char *buf, size_t len, const char *name) {
  size_t used = strlen(buf);
  if (used + 1 >= len || strstr(buf, ", ...")) return;
  int w = snprintf(buf + used, len - used, "%s'%s'", used ? ", " : "", name);
  if (w < 0 || (size_t)w >= len - used) {
    buf[used] = '\0';
    if (used + 6 < len) strcat(buf, ", ...");
  }
}

isoStatus iso_scene_find_body(const isoModel *model, const char *name, int *id) {
  CHECK_NULL(model, "iso_scene_find_body");
  CHECK_NULL(name, "iso_scene_find_body");
  CHECK_NULL(id, "iso_scene_find_body");
  int n = iso_model_body_count(model), found = -1, matches = 0;
  char cands[1200] = "", all[1200] = "";
  size_t nl = strlen(name);
  for (int i = 0; i < n; ++i) {
    isoBodyDef b;
    if (iso_model_get_body(model, i, &b) != ISO_OK) continue;
    if (strcmp(b.name, name) == 0) {
      *id = i;
      return ISO_OK;
    }
    size_t bl = strlen(b.name);
    list_add(all, sizeof all, b.name);
    if (nl > 0 && bl > nl + 2 && strcmp(b.name + bl - nl, name) == 0 && strncmp(b.name + bl - nl - 2, "::", 2) == 0) {
      found = i;
      ++matches;
      list_add(cands, sizeof cands, b.name);
    }
  }
  if (matches == 1) {
    *id = found;
    return ISO_OK;
  }
  if (matches > 1)
    return iso_fail(ISO_ERR_INVALID, "body name '%s' is ambiguous: it matches %s; give the full name", name, cands);
  return iso_fail(ISO_ERR_NOT_FOUND, "no body named '%s'; the bodies are: %s", name, n ? all : "(none)");
}
