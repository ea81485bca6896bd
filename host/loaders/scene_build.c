/* Scene files: from the parsed description to a compiled model, and the public entry points.
 *
 * Links joined by fixed joints form groups (union-find over the fixed joints; everything welded
 * joins the world's group). A group holding the world is anchored: its collisions go on
 * ISO_WORLD_BODY at their world pose. Any other group is one body, named and framed by its root
 * link (the one that is no fixed joint's child), with the members' mass properties combined
 * about the group's centre of mass by the parallel-axis theorem; it is free unless one of its
 * links is the child of a moving joint. Moving joints connect the bodies of their links' groups
 * (the world for the anchored group), their frames re-expressed in the bodies' frames.
 *
 * Bodies are added in the document order of their root links, except that a body moving on a
 * joint comes after the body it hangs from (the model wants parents first): a scene without
 * moving joints, and a file and the C calls that describe the same scene in the same order,
 * build the same model. Geometries, their tactile pads and joints follow in document order. A
 * one-link body copies the link's numbers untouched. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/loaders/scene_filter.h"
#include "host/loaders/scene_load.h"
#include "host/loaders/scene_report.h"
#include "isobar/tactile.h"

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

/* The working arrays of one build, over the links (n + 1 entries: the world is n) and joints. */
typedef struct sceneBuild {
  sceneCtx *c;
  int n, world;   /* links; the world's group */
  int *uf;        /* union-find over links joined by fixed joints and welds */
  int *child_of;  /* link -> the joint it is the child of, or -1 */
  int *root_of;   /* group -> its root link (the one that is no fixed joint's child) */
  int *body_of;   /* group -> its body, -1 until added */
  int *in_joint;  /* group -> the moving joint its body moves on, or -1 */
  int *on_path;   /* group -> 1 while its parents are being added */
  int *head, *next; /* group -> first member, member -> next member, in document order */
  int *path;      /* groups waiting for their parents, innermost last */
  int *joint_id;  /* scene joint -> model joint, -1 for fixed joints */
  isoModel *m;
} sceneBuild;

static isoStatus joint_fail(const sceneJoint *jt, const char *fmt, const char *a, const char *b) {
  char what[600];
  snprintf(what, sizeof what, fmt, a, b);
  return iso_fail(ISO_ERR_PARSE, "%s:%d: <joint name='%s'>: %s", jt->file->path, jt->line, jt->name, what);
}

/* Groups: union the fixed joints, find each group's root, and the moving joint each group's body
 * moves on. */
static isoStatus group_links(sceneBuild *B) {
  sceneCtx *c = B->c;
  const int n = B->n, W = n;
  for (int i = 0; i <= n; ++i) {
    B->uf[i] = i;
    B->root_of[i] = B->body_of[i] = B->in_joint[i] = B->child_of[i] = -1;
    B->on_path[i] = 0;
  }
  for (int i = 0; i < n; ++i)
    if (c->links[i].welded) unite(B->uf, i, W);
  for (int j = 0; j < c->njoint; ++j) {
    const sceneJoint *jt = &c->joints[j];
    if (B->child_of[jt->child] >= 0)
      return joint_fail(jt, "link '%s' is already the child of joint '%s'", c->links[jt->child].name,
                        c->joints[B->child_of[jt->child]].name);
    B->child_of[jt->child] = j;
    if (jt->type == ISO_JOINT_FIXED) unite(B->uf, jt->child, jt->parent < 0 ? W : jt->parent);
  }
  B->world = find(B->uf, W);
  for (int i = 0; i < n; ++i) {
    int g = find(B->uf, i), j = B->child_of[i];
    if (g != B->world && B->root_of[g] < 0 && (j < 0 || c->joints[j].type != ISO_JOINT_FIXED)) B->root_of[g] = i;
  }
  for (int i = 0; i < n; ++i) {
    int g = find(B->uf, i);
    if (g != B->world && B->root_of[g] < 0) {
      const sceneJoint *jt = &c->joints[B->child_of[i]];
      return iso_fail(ISO_ERR_PARSE, "%s:%d: <joint name='%s'>: the fixed joints form a loop", jt->file->path, jt->line,
                      jt->name);
    }
  }
  for (int j = 0; j < c->njoint; ++j) {
    const sceneJoint *jt = &c->joints[j];
    if (jt->type == ISO_JOINT_FIXED) continue;
    int gc = find(B->uf, jt->child), gp = jt->parent < 0 ? B->world : find(B->uf, jt->parent);
    if (gc == B->world)
      return joint_fail(jt, "link '%s' is welded to the world (%s); it cannot move on a joint",
                        c->links[jt->child].name, "a static model, or fixed to the world");
    if (gc == gp)
      return joint_fail(jt, "links '%s' and '%s' are already joined by fixed joints: the joints form a loop",
                        jt->parent < 0 ? "world" : c->links[jt->parent].name, c->links[jt->child].name);
    if (B->in_joint[gc] >= 0)
      return joint_fail(jt, "link '%s' moves as one body with the links fixed to it, and that body already moves "
                        "on joint '%s': the joints form a loop", c->links[jt->child].name,
                        c->joints[B->in_joint[gc]].name);
    B->in_joint[gc] = j;
  }
  for (int i = 0; i <= n; ++i) B->head[i] = -1;
  for (int i = n - 1; i >= 0; --i) {
    int g = find(B->uf, i);
    B->next[i] = B->head[g];
    B->head[g] = i;
  }
  return ISO_OK;
}

/* The body of group g: its root link's name, the members' mass merged, and, for a free body,
 * the root link's pose as the initial state of its floating joint. */
static isoStatus add_group_body(sceneBuild *B, int g) {
  const sceneCtx *c = B->c;
  const int i = B->root_of[g];
  const sceneLink *L = &c->links[i];
  isoStatus st;
  isoBodyDef b = iso_default_body_def();
  b.name = L->name;
  merge_mass(c, B->head, B->next, g, i, &b);
  if (b.mass == 0)
    return iso_fail(ISO_ERR_INVALID, "%s:%d: <link name='%s'>: a %s needs a mass > 0, and this link and the links "
                    "fixed to it have none (a URDF link without <inertial> has no mass)",
                    L->file->path, L->inertial_line, L->name, B->in_joint[g] < 0 ? "free body" : "body");
  if ((st = iso_model_add_body(B->m, &b, &B->body_of[g])) != ISO_OK)
    return located(st, L->file, L->inertial_line, "link", L->name);
  if (B->in_joint[g] >= 0) return ISO_OK; /* it starts where its joint at q = 0 puts it */
  isoFreeBodyState x = iso_default_free_body_state();
  x.position[0] = L->X_WL.p.x;
  x.position[1] = L->X_WL.p.y;
  x.position[2] = L->X_WL.p.z;
  x.quaternion[0] = L->X_WL.q.w;
  x.quaternion[1] = L->X_WL.q.x;
  x.quaternion[2] = L->X_WL.q.y;
  x.quaternion[3] = L->X_WL.q.z;
  if ((st = iso_model_set_initial_state(B->m, B->body_of[g], &x)) != ISO_OK)
    return located(st, L->file, L->line, "link", L->name);
  return ISO_OK;
}

/* Add group g's body, after the bodies of the groups its joint hangs from (a model joint's
 * parent must be added before its child). Free bodies and tree roots keep document order. */
static isoStatus add_group_chain(sceneBuild *B, int g) {
  const sceneCtx *c = B->c;
  int depth = 0;
  for (int x = g; x >= 0 && B->body_of[x] < 0;) {
    if (B->on_path[x]) {
      const sceneJoint *jt = &c->joints[B->in_joint[x]];
      return iso_fail(ISO_ERR_PARSE, "%s:%d: <joint name='%s'>: the joints form a loop", jt->file->path, jt->line,
                      jt->name);
    }
    B->on_path[x] = 1;
    B->path[depth++] = x;
    int j = B->in_joint[x];
    x = j < 0 || c->joints[j].parent < 0 ? -1 : find(B->uf, c->joints[j].parent);
    if (x == B->world) x = -1;
  }
  while (depth > 0) {
    int x = B->path[--depth];
    B->on_path[x] = 0;
    isoStatus st = add_group_body(B, x);
    if (st != ISO_OK) return st;
  }
  return ISO_OK;
}

/* X_LA, a pose in link `link`'s frame, re-expressed in the frame of the link's body: the
 * world's for a welded link (and for -1, the world itself), else the group's root link's. A
 * root link's pose is returned untouched, bit for bit. */
static xform in_body(const sceneBuild *B, int link, xform X_LA) {
  if (link < 0) return X_LA;
  const sceneCtx *c = B->c;
  int g = find(B->uf, link);
  if (g == B->world) return xf_mul(c->links[link].X_WL, X_LA);
  int r = B->root_of[g];
  return r == link ? X_LA : xf_mul(xf_mul(xf_inv(c->links[r].X_WL), c->links[link].X_WL), X_LA);
}

static void put_pose(xform X, double *p, double *q) {
  p[0] = X.p.x;
  p[1] = X.p.y;
  p[2] = X.p.z;
  q[0] = X.q.w;
  q[1] = X.q.x;
  q[2] = X.q.y;
  q[3] = X.q.z;
}

/* The moving joints in document order, then their actuators and couplers. A member link's
 * joint frame is composed with the link's pose in its group's body. */
static isoStatus add_joints(sceneBuild *B) {
  const sceneCtx *c = B->c;
  isoStatus st;
  for (int j = 0; j < c->njoint; ++j) {
    const sceneJoint *jt = &c->joints[j];
    B->joint_id[j] = -1;
    if (jt->type == ISO_JOINT_FIXED) continue;
    isoJointDef d = iso_default_joint_def();
    d.name = jt->name;
    d.type = jt->type;
    int gp = jt->parent < 0 ? B->world : find(B->uf, jt->parent);
    d.parent = gp == B->world ? -1 : B->body_of[gp];
    d.child = B->body_of[find(B->uf, jt->child)];
    put_pose(in_body(B, jt->parent, jt->X_PJ), d.parent_position, d.parent_quaternion);
    put_pose(in_body(B, jt->child, jt->X_CJ), d.child_position, d.child_quaternion);
    memcpy(d.axis, jt->axis, sizeof d.axis);
    d.position_lower = jt->lower;
    d.position_upper = jt->upper;
    d.velocity_limit = jt->velocity;
    d.damping = jt->damping;
    if ((st = iso_model_add_joint(B->m, &d, &B->joint_id[j])) != ISO_OK)
      return located(st, jt->file, jt->line, "joint", jt->name);
  }
  for (int i = 0; i < c->nactuator; ++i) {
    const sceneActuator *sa = &c->actuators[i];
    isoActuatorDef a = iso_default_actuator_def();
    a.name = sa->name;
    a.joint = B->joint_id[sa->joint];
    a.effort_limit = sa->effort;
    a.kp = sa->kp;
    a.kd = sa->kd;
    a.rotor_inertia = sa->rotor_inertia;
    a.gear_ratio = sa->gear_ratio;
    if ((st = iso_model_add_actuator(B->m, &a, NULL)) != ISO_OK)
      return located(st, sa->file, sa->line, "actuator", sa->name);
  }
  for (int i = 0; i < c->ncoupler; ++i) {
    const sceneCoupler *sk = &c->couplers[i];
    isoCouplerDef k = iso_default_coupler_def();
    k.follower = B->joint_id[sk->follower];
    k.leader = B->joint_id[sk->leader];
    k.gear_ratio = sk->gear_ratio;
    k.offset = sk->offset;
    if ((st = iso_model_add_coupler(B->m, &k, NULL)) != ISO_OK)
      return located(st, sk->file, sk->line, "mimic", c->joints[sk->follower].name);
  }
  return ISO_OK;
}

/* Drake filters the collisions of the two links a joint connects, unless the parent is the world
 * itself. The model does the same for joints between bodies (hydro_pair_kind); a parent link
 * welded to the world, though, is world geometry here, so its pairs with the joint's child link
 * are excluded one by one (e.g. a robot's base welded to the world and its first link). */
static isoStatus exclude_anchored_adjacent(sceneBuild *B, const int *geom_id) {
  const sceneCtx *c = B->c;
  for (int j = 0; j < c->njoint; ++j) {
    const sceneJoint *jt = &c->joints[j];
    if (jt->type == ISO_JOINT_FIXED || jt->parent < 0 || find(B->uf, jt->parent) != B->world) continue;
    for (int a = 0; a < c->ngeom; ++a) {
      if (c->geoms[a].link != jt->parent) continue;
      for (int b = 0; b < c->ngeom; ++b) {
        if (c->geoms[b].link != jt->child) continue;
        isoStatus st = iso_model_exclude_pair(B->m, geom_id[a], geom_id[b]);
        if (st != ISO_OK) return located(st, jt->file, jt->line, "joint", jt->name);
      }
    }
  }
  return ISO_OK;
}

/* The tactile pads in document order: X_LP = X_LG · X_CP re-expressed in the geometry's body
 * frame (the world's for an anchored geometry), as iso_model_add_tactile_pad takes it. The
 * model checks the sizes; a failure names the pad's line and its collision. */
static isoStatus add_pads(const sceneBuild *B, const int *geom_id) {
  const sceneCtx *c = B->c;
  for (int i = 0; i < c->npad; ++i) {
    const scenePad *sp = &c->pads[i];
    const sceneGeom *sg = &c->geoms[sp->geom];
    isoTactilePadDef d = iso_default_tactile_pad_def();
    d.geometry = geom_id[sp->geom];
    d.rows = sp->rows;
    d.cols = sp->cols;
    d.spacing = sp->spacing;
    put_pose(in_body(B, sg->link, xf_mul(sg->X_LG, sp->X_CP)), d.position, d.quaternion);
    isoStatus st = iso_model_add_tactile_pad(B->m, &d, NULL);
    if (st != ISO_OK) {
      char msg[1024];
      snprintf(msg, sizeof msg, "%s", iso_last_error());
      return iso_fail(st, "%s:%d: <isobar:tactile_pad> of collision '%s': %s", sp->file->path, sp->line,
                      sp->geom_name, msg);
    }
  }
  return ISO_OK;
}

/* Weld w of deformable `id`: the shape re-expressed in its link's body (the world's frame for
 * a link fixed to the world, whose vertices are then held). The free bodies' initial states and
 * the joints (with their initial positions) are set by now, so the shape sits where the file
 * poses the link, and the count the call gives is the one compile will weld: a shape that
 * catches nothing fails here, naming its line, rather than at compile. */
static isoStatus add_weld(const sceneBuild *B, int id, const sceneWeld *w) {
  const int g = w->link < 0 ? B->world : find(B->uf, w->link);
  const int rigid = g == B->world ? ISO_WORLD_BODY : B->body_of[g];
  double p[3], q[4];
  put_pose(in_body(B, w->link, w->X_LG), p, q);
  int n = 0;
  isoStatus st = iso_model_weld_deformable(B->m, id, rigid, (int)w->shape, w->size, p, q, &n);
  if (st == ISO_OK && n > 0) return ISO_OK;
  char msg[1024];
  if (st == ISO_OK)
    st = ISO_ERR_INVALID, snprintf(msg, sizeof msg, "the weld shape holds no vertex where the file poses the link");
  else
    snprintf(msg, sizeof msg, "%s", iso_last_error());
  return iso_fail(st, "%s:%d: <isobar:weld> to '%s': %s", w->file->path, scene_line(w->node), w->body, msg);
}

/* The deformable bodies in document order, each with its walls and welds; the mesh is read
 * here, so a bad mesh names the <link> as well as the file. */
static isoStatus add_deformables(const sceneBuild *B) {
  const sceneCtx *c = B->c;
  for (int i = 0; i < c->ndeformable; ++i) {
    const sceneDeformable *sd = &c->deformables[i];
    int id;
    isoStatus st = iso_model_add_deformable(B->m, &sd->def, &id);
    for (int w = 0; w < sd->nwall && st == ISO_OK; ++w)
      st = iso_model_deformable_wall(B->m, id, sd->wall[w], sd->wall[w] + 3, NULL);
    if (st != ISO_OK) return located(st, sd->file, sd->line, "link", sd->def.name);
    for (int w = 0; w < sd->nweld; ++w)
      if ((st = add_weld(B, id, &sd->welds[w])) != ISO_OK) return st;
  }
  return ISO_OK;
}

static isoStatus build(sceneBuild *B, isoModel **out) {
  sceneCtx *c = B->c;
  const int n = B->n;
  isoStatus st = group_links(B);
  if (st != ISO_OK) return st;
  isoModelDef md = iso_default_model_def();
  memcpy(md.gravity, c->gravity, sizeof md.gravity);
  md.time_step = c->opt.time_step > 0 ? c->opt.time_step : c->time_step > 0 ? c->time_step : 1e-3;
  if ((st = iso_model_create(&md, &B->m)) != ISO_OK) return st;
  for (int i = 0; i < n && st == ISO_OK; ++i) {
    int g = find(B->uf, i);
    if (g != B->world && B->root_of[g] == i) st = add_group_chain(B, g);
  }
  int *geom_id = (int *)malloc(sizeof(int) * (size_t)(2 * c->ngeom + 1)), *geom_body = geom_id + c->ngeom;
  if (!geom_id) st = iso_fail(ISO_ERR_NOMEM, "scene: out of memory");
  for (int i = 0; i < c->ngeom && st == ISO_OK; ++i) {
    const sceneGeom *sg = &c->geoms[i];
    int g = find(B->uf, sg->link);
    isoGeometryDef def = sg->def;
    def.body = g == B->world ? ISO_WORLD_BODY : B->body_of[g];
    put_pose(in_body(B, sg->link, sg->X_LG), def.position, def.quaternion);
    geom_body[i] = def.body;
    if ((st = iso_model_add_geometry(B->m, &def, &geom_id[i])) != ISO_OK)
      st = located(st, sg->file, sg->line, "collision", def.name);
  }
  if (st == ISO_OK) st = scene_filter_apply(c, B->m, geom_id, geom_body);
  if (st == ISO_OK) st = exclude_anchored_adjacent(B, geom_id);
  if (st == ISO_OK) st = add_pads(B, geom_id);
  free(geom_id);
  if (st == ISO_OK) st = add_joints(B);
  if (st == ISO_OK) st = add_deformables(B);
  if (st == ISO_OK && !c->opt.defer_compile && (st = iso_model_compile(B->m)) != ISO_OK) st = compile_located(c, st);
  if (st != ISO_OK) {
    iso_model_destroy(B->m);
    return st;
  }
  *out = B->m;
  return ISO_OK;
}

isoStatus scene_build(sceneCtx *c, isoModel **out) {
  enum { NARRAY = 9 };
  size_t n = (size_t)c->nlink + 1;
  int *block = (int *)malloc((NARRAY * n + (size_t)c->njoint + 1) * sizeof(int));
  if (!block) return iso_fail(ISO_ERR_NOMEM, "scene: out of memory");
  sceneBuild B;
  memset(&B, 0, sizeof B);
  B.c = c;
  B.n = c->nlink;
  int **arrays[NARRAY] = {&B.uf, &B.child_of, &B.root_of, &B.body_of, &B.in_joint,
                          &B.on_path, &B.head, &B.next, &B.path};
  for (int k = 0; k < NARRAY; ++k) *arrays[k] = block + (size_t)k * n;
  B.joint_id = block + NARRAY * n;
  isoStatus st = build(&B, out);
  free(block);
  return st;
}

static void ctx_free(sceneCtx *c) {
  free(c->links);
  free(c->geoms);
  free(c->pads);
  free(c->deformables);
  free(c->joints);
  free(c->actuators);
  free(c->couplers);
  free(c->filter_groups);
  free(c->filter_entries);
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
  c.packages.option = o.package_path;
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

/* The name of item i of a model (a body or a joint), or NULL. */
typedef const char *(*itemName)(const isoModel *model, int i);

static const char *body_name(const isoModel *model, int i) {
  isoBodyDef b;
  return iso_model_get_body(model, i, &b) == ISO_OK ? b.name : NULL;
}

static const char *joint_name(const isoModel *model, int i) {
  isoJointDef j;
  return iso_model_get_joint(model, i, &j) == ISO_OK ? j.name : NULL;
}

/* iso_scene_find_body and iso_scene_find_joint: the full name, or a unique tail after "::". */
static isoStatus find_named(const isoModel *model, const char *name, int *id, const char *fn, const char *kind,
                            const char *kinds, int n, itemName get) {
  CHECK_NULL(model, fn);
  CHECK_NULL(name, fn);
  CHECK_NULL(id, fn);
  int found = -1, matches = 0;
  char cands[1200] = "", all[1200] = "";
  size_t nl = strlen(name);
  for (int i = 0; i < n; ++i) {
    const char *item = get(model, i);
    if (!item) continue;
    if (strcmp(item, name) == 0) {
      *id = i;
      return ISO_OK;
    }
    size_t bl = strlen(item);
    list_add(all, sizeof all, item);
    if (nl > 0 && bl > nl + 2 && strcmp(item + bl - nl, name) == 0 && strncmp(item + bl - nl - 2, "::", 2) == 0) {
      found = i;
      ++matches;
      list_add(cands, sizeof cands, item);
    }
  }
  if (matches == 1) {
    *id = found;
    return ISO_OK;
  }
  if (matches > 1)
    return iso_fail(ISO_ERR_INVALID, "%s name '%s' is ambiguous: it matches %s; give the full name", kind, name, cands);
  return iso_fail(ISO_ERR_NOT_FOUND, "no %s named '%s'; the %s are: %s", kind, name, kinds, n ? all : "(none)");
}

isoStatus iso_scene_find_body(const isoModel *model, const char *name, int *id) {
  return find_named(model, name, id, "iso_scene_find_body", "body", "bodies", model ? iso_model_body_count(model) : 0,
                    body_name);
}

isoStatus iso_scene_find_joint(const isoModel *model, const char *name, int *id) {
  return find_named(model, name, id, "iso_scene_find_joint", "joint", "joints", model ? iso_model_joint_count(model) : 0,
                    joint_name);
}
