/* Scene files: an SDFormat <link> holding <drake:deformable_properties> is a deformable body,
 * read as Drake's parser reads it (multibody/parsing/detail_sdf_parser.cc,
 * AddDeformableLinkFromSpecification, LoadDeformableConfig, ParseWallBoundaryConditions;
 * detail_sdf_geometry.cc, MakeProximityForDeformableCollision):
 *
 *   <link> may hold <pose>, exactly one <collision>, at most one <visual>,
 *     <drake:deformable_properties> and <drake:wall_boundary_condition>s;
 *   <drake:deformable_properties>: drake:youngs_modulus (> 0), drake:poissons_ratio
 *     (in (−1, 0.5)), drake:mass_density (> 0), drake:mass_damping and
 *     drake:stiffness_damping (>= 0), drake:material_model (Drake knows "linear_corotated",
 *     "corotated", "neohookean" and "linear"; isobar steps the first only, and rejects the
 *     others as unsupported);
 *   <drake:wall_boundary_condition>: <drake:point_on_plane> and <drake:outward_normal>
 *     (non-zero), both in the world frame, holding every vertex behind the plane;
 *   the <collision>'s <geometry> is a <mesh> whose uri names a .vtk tetrahedral mesh, with an
 *     optional <scale>; its <drake:proximity_properties> may give drake:mu_dynamic (static
 *     and dynamic friction alike), drake:hunt_crossley_dissipation, drake:relaxation_time
 *     and drake:mesh_resolution_hint (unused for a mesh, as in Drake).
 *
 * The mesh is placed at the link's pose: Drake registers it at X_WL, so a <pose> inside the
 * <collision> is not used (Drake warns and ignores it; here it is reported). As in Drake's
 * CheckSupportedElements, a drake: element that does not belong is an error, any other is
 * reported as ignored (<inertial>: the mass comes from the density). Drake also meshes a
 * <sphere> from drake:mesh_resolution_hint; isobar does not (rejected, naming it). Friction
 * not given is Drake's parser default, 1.0.
 *
 * isobar's own extension, which Drake's parsers lack (Drake offers DeformableBody::
 * AddFixedConstraint in code only), welds vertices to a rigid link:
 *
 *   <isobar:weld> (zero or more) holds <isobar:body> (the rigid link, named as a joint's
 *     <parent> is: "link", "inner::link" or "world"), an optional <pose> (the shape in that
 *     link's frame; no relative_to) and a <geometry> with one <box>, <sphere>, <cylinder>,
 *     <capsule> or <ellipsoid> (or <drake:ellipsoid>) sized as SDFormat sizes them.
 *
 * Drake warns that it ignores the element and loads the rest. An isobar: element that does not
 * belong is an error, as Drake's CheckSupportedElements makes a misplaced drake: one. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "host/base/error.h"
#include "host/loaders/scene_report.h"
#include "host/loaders/scene_sdf.h"

static isoStatus nomem(void) { return iso_fail(ISO_ERR_NOMEM, "scene: out of memory"); }

static int listed(xmlNode *k, const char *const *names) {
  for (int i = 0; names[i]; ++i)
    if (scene_is(k, names[i])) return 1;
  return 0;
}

/* Drake's CheckSupportedElements: an unlisted drake: child is an error. The others are left to
 * scene_check, which reports them. */
static isoStatus no_foreign_drake(const sceneFile *f, xmlNode *n, const char *const *known) {
  for (xmlNode *k = n->children; k; k = k->next) {
    if (k->type != XML_ELEMENT_NODE || listed(k, known)) continue;
    char qb[128];
    const char *qn = scene_qname(k, qb, (int)sizeof qb);
    if (strncmp(qn, "drake:", 6) == 0) {
      char pb[128];
      return scene_fail(f, k, ISO_ERR_UNSUPPORTED, "<%s> does not belong in a deformable body's <%s> (Drake rejects it too)",
                        qn, scene_qname(n, pb, (int)sizeof pb));
    }
  }
  return ISO_OK;
}

/* One <isobar:weld> of a deformable link of model scope `scope` into w; its body is bound once
 * every link is known (scene_sdf_bind_welds). */
static isoStatus read_weld(sceneCtx *c, const sceneFile *f, xmlNode *n, int scope, sceneWeld *w) {
  static const char *const known[] = {"isobar:body", "pose", "geometry", NULL};
  static const char *const shapes[] = {"box", "sphere", "cylinder", "capsule", "ellipsoid", "drake:ellipsoid", NULL};
  isoStatus st;
  if ((st = no_foreign_drake(f, n, known)) != ISO_OK) return st;
  if ((st = scene_isobar_check(f, n, known)) != ISO_OK) return st;
  if ((st = scene_check(c, f, n, known, NULL)) != ISO_OK) return st;
  w->file = f;
  w->node = n;
  w->link = -1;
  w->scope = scope;
  w->X_LG = xf_identity();
  xmlNode *b = scene_child(n, "isobar:body"), *geom = scene_child(n, "geometry"), *pose = scene_child(n, "pose");
  if (!b) return scene_fail(f, n, ISO_ERR_PARSE, "needs an <isobar:body> naming the rigid link to weld to");
  if ((st = scene_check(c, f, b, NULL, NULL)) != ISO_OK) return st;
  w->body = scene_text(&c->mem, b);
  w->body_node = b;
  if (!w->body) return nomem();
  if (!w->body[0]) return scene_fail(f, b, ISO_ERR_PARSE, "is empty; name the rigid link to weld to");
  if (pose) {
    scenePose X;
    if ((st = scene_sdf_pose(c, f, pose, &X)) != ISO_OK) return st;
    if (X.rel_to)
      return scene_fail(f, pose, ISO_ERR_UNSUPPORTED, "a weld shape's pose is in its body's link frame; relative_to "
                        "is not supported here");
    w->X_LG = X.X;
  }
  if (!geom) return scene_fail(f, n, ISO_ERR_PARSE, "needs a <geometry> holding the shape whose vertices are welded");
  for (xmlNode *k = geom->children; k; k = k->next) {
    if (k->type != XML_ELEMENT_NODE) continue;
    int ok = 0;
    for (int i = 0; shapes[i]; ++i) ok |= scene_is(k, shapes[i]);
    char qb[128];
    if (!ok)
      return scene_fail(f, k, ISO_ERR_UNSUPPORTED, "a weld shape is a <box>, <sphere>, <cylinder>, <capsule> or "
                        "<ellipsoid>; <%s> is not supported", scene_qname(k, qb, (int)sizeof qb));
    break; /* the first shape is the one used; scene_sdf_geometry reports the others */
  }
  isoGeometryDef g = scene_default_geometry();
  xform X_GC;
  int empty;
  if ((st = scene_sdf_geometry(c, f, geom, &g, &X_GC, &empty)) != ISO_OK) return st;
  w->shape = g.shape;
  memcpy(w->size, g.size, sizeof w->size);
  return ISO_OK;
}

isoStatus scene_sdf_bind_welds(const sdfParser *P) {
  const sceneCtx *c = P->c;
  for (int d = 0; d < c->ndeformable; ++d) {
    for (int i = 0; i < c->deformables[d].nweld; ++i) {
      sceneWeld *w = &c->deformables[d].welds[i];
      const char *path = P->scopes[w->scope].path;
      if (strcmp(w->body, "world") == 0) {
        w->link = -1;
        continue;
      }
      int fi = scene_sdf_lookup(P, w->scope, w->body);
      if (fi >= 0 && P->frames[fi].kind == F_DEFORMABLE)
        return scene_fail(w->file, w->body_node, ISO_ERR_UNSUPPORTED, "'%s' is a deformable link; a weld holds "
                          "vertices on a rigid link or the world", w->body);
      if (fi < 0 || P->frames[fi].kind != F_LINK)
        return scene_fail(w->file, w->body_node, ISO_ERR_PARSE, "'%s' names no link of model '%s'", w->body,
                          path[0] ? path : "(world)");
      w->link = P->frames[fi].link;
    }
  }
  return ISO_OK;
}

/* The one number of element k, checked against a rule: > 0 (positive), >= 0, or in (−1, 0.5). */
enum { RULE_POSITIVE, RULE_NONNEG, RULE_POISSON };

static isoStatus read_number(sceneCtx *c, const sceneFile *f, xmlNode *k, int rule, double *out) {
  isoStatus st;
  if ((st = scene_check(c, f, k, NULL, NULL)) != ISO_OK) return st;
  double v;
  if ((st = scene_text_numbers(&c->mem, f, k, 1, &v)) != ISO_OK) return st;
  char qb[128];
  const char *qn = scene_qname(k, qb, (int)sizeof qb);
  if (rule == RULE_POSITIVE && !(v > 0)) return scene_fail(f, k, ISO_ERR_INVALID, "<%s> %g must be > 0", qn, v);
  if (rule == RULE_NONNEG && !(v >= 0)) return scene_fail(f, k, ISO_ERR_INVALID, "<%s> %g must be >= 0", qn, v);
  if (rule == RULE_POISSON && !(v > -1 && v < 0.5))
    return scene_fail(f, k, ISO_ERR_INVALID, "<%s> %g must be within (-1, 0.5)", qn, v);
  *out = v;
  return ISO_OK;
}

static isoStatus read_material(sceneCtx *c, const sceneFile *f, xmlNode *k, isoDeformableDef *d) {
  isoStatus st;
  if ((st = scene_check(c, f, k, NULL, NULL)) != ISO_OK) return st;
  char *t = scene_text(&c->mem, k);
  if (!t) return nomem();
  const char *s = t;
  while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') ++s;
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r')) --n;
  if (n == strlen("linear_corotated") && strncmp(s, "linear_corotated", n) == 0) {
    d->material = ISO_MATERIAL_LINEAR_COROTATED;
    return ISO_OK;
  }
  static const char *const drakes[] = {"corotated", "neohookean", "linear", NULL};
  for (int i = 0; drakes[i]; ++i)
    if (n == strlen(drakes[i]) && strncmp(s, drakes[i], n) == 0)
      return scene_fail(f, k, ISO_ERR_UNSUPPORTED, "material model '%s' is not supported; isobar steps "
                        "'linear_corotated' only", drakes[i]);
  return scene_fail(f, k, ISO_ERR_INVALID, "material model '%.*s' is unknown; Drake's are 'linear', "
                    "'linear_corotated', 'neohookean' and 'corotated'", (int)n, s);
}

static isoStatus read_properties(sceneCtx *c, const sceneFile *f, xmlNode *n, isoDeformableDef *d) {
  static const char *const known[] = {"drake:youngs_modulus", "drake:poissons_ratio", "drake:mass_damping",
                                      "drake:stiffness_damping", "drake:mass_density", "drake:material_model", NULL};
  isoStatus st;
  if ((st = no_foreign_drake(f, n, known)) != ISO_OK) return st;
  if ((st = scene_check(c, f, n, known, NULL)) != ISO_OK) return st;
  for (xmlNode *k = n->children; k; k = k->next) {
    if (scene_is(k, "drake:youngs_modulus")) st = read_number(c, f, k, RULE_POSITIVE, &d->youngs_modulus);
    else if (scene_is(k, "drake:poissons_ratio")) st = read_number(c, f, k, RULE_POISSON, &d->poissons_ratio);
    else if (scene_is(k, "drake:mass_density")) st = read_number(c, f, k, RULE_POSITIVE, &d->mass_density);
    else if (scene_is(k, "drake:mass_damping")) st = read_number(c, f, k, RULE_NONNEG, &d->mass_damping);
    else if (scene_is(k, "drake:stiffness_damping")) st = read_number(c, f, k, RULE_NONNEG, &d->stiffness_damping);
    else if (scene_is(k, "drake:material_model")) st = read_material(c, f, k, d);
    if (st != ISO_OK) return st;
  }
  return ISO_OK;
}

/* One <drake:wall_boundary_condition> into w (point, normal). */
static isoStatus read_wall(sceneCtx *c, const sceneFile *f, xmlNode *n, double *w) {
  static const char *const known[] = {"drake:point_on_plane", "drake:outward_normal", NULL};
  isoStatus st;
  if ((st = scene_check(c, f, n, known, NULL)) != ISO_OK) return st;
  for (int i = 0; i < 2; ++i) {
    xmlNode *k = scene_child(n, known[i]);
    if (!k) return scene_fail(f, n, ISO_ERR_PARSE, "needs a <%s>", known[i]);
    if ((st = scene_check(c, f, k, NULL, NULL)) != ISO_OK) return st;
    if ((st = scene_text_numbers(&c->mem, f, k, 3, w + 3 * i)) != ISO_OK) return st;
  }
  /* Drake's threshold (ParseWallBoundaryConditions) */
  if (!(sqrt(w[3] * w[3] + w[4] * w[4] + w[5] * w[5]) > 1e-10))
    return scene_fail(f, scene_child(n, "drake:outward_normal"), ISO_ERR_INVALID, "the outward normal is zero");
  return ISO_OK;
}

/* The <geometry> of the collision: a .vtk <mesh>. */
static isoStatus read_mesh(sceneCtx *c, const sceneFile *f, xmlNode *geom, isoDeformableDef *d) {
  isoStatus st;
  xmlNode *mesh = scene_child(geom, "mesh");
  if (!mesh) {
    if (scene_child(geom, "sphere"))
      return scene_fail(f, scene_child(geom, "sphere"), ISO_ERR_UNSUPPORTED, "a deformable <sphere> (which Drake "
                        "meshes from drake:mesh_resolution_hint) is not supported; give a .vtk <mesh>");
    xmlNode *k = geom->children;
    while (k && k->type != XML_ELEMENT_NODE) k = k->next;
    char qb[128];
    return scene_fail(f, geom, ISO_ERR_INVALID, "the <geometry> of a deformable link's <collision> must be a <mesh> "
                      "naming a .vtk tetrahedral mesh; found %s%s%s", k ? "<" : "nothing",
                      k ? scene_qname(k, qb, (int)sizeof qb) : "", k ? ">" : "");
  }
  static const char *const ge[] = {"mesh", NULL}, *const me[] = {"uri", "scale", NULL};
  if ((st = scene_check(c, f, geom, ge, NULL)) != ISO_OK) return st;
  if ((st = scene_check(c, f, mesh, me, NULL)) != ISO_OK) return st;
  xmlNode *u = scene_child(mesh, "uri");
  if (!u) return scene_fail(f, mesh, ISO_ERR_PARSE, "needs <uri>");
  if ((st = scene_check(c, f, u, NULL, NULL)) != ISO_OK) return st;
  char *uri = scene_text(&c->mem, u), *path = NULL;
  if (!uri) return nomem();
  if ((st = scene_resolve_uri(&c->mem, &c->packages, f, u, uri, &path)) != ISO_OK) return st;
  if (!scene_has_ext(path, ".vtk"))
    return scene_fail(f, u, ISO_ERR_UNSUPPORTED, "a deformable body's mesh must be a .vtk tetrahedral mesh (got "
                      "'%s'), as in Drake", path);
  d->mesh_file = path;
  xmlNode *s = scene_child(mesh, "scale");
  if (s) {
    if ((st = scene_check(c, f, s, NULL, NULL)) != ISO_OK) return st;
    if ((st = scene_text_numbers(&c->mem, f, s, 3, d->mesh_scale)) != ISO_OK) return st;
  }
  return ISO_OK;
}

static isoStatus read_proximity(sceneCtx *c, const sceneFile *f, xmlNode *n, isoDeformableDef *d) {
  static const char *const known[] = {"drake:mu_dynamic", "drake:hunt_crossley_dissipation", "drake:relaxation_time",
                                      "drake:mesh_resolution_hint", NULL};
  isoStatus st;
  if ((st = no_foreign_drake(f, n, known)) != ISO_OK) return st;
  if ((st = scene_check(c, f, n, known, NULL)) != ISO_OK) return st;
  for (xmlNode *k = n->children; k; k = k->next) {
    if (scene_is(k, "drake:mu_dynamic")) {
      if ((st = read_number(c, f, k, RULE_NONNEG, &d->mu_dynamic)) != ISO_OK) return st;
      d->mu_static = d->mu_dynamic; /* Drake: CoulombFriction(mu_dynamic, mu_dynamic) */
    } else if (scene_is(k, "drake:hunt_crossley_dissipation")) {
      if ((st = read_number(c, f, k, RULE_NONNEG, &d->hunt_crossley_dissipation)) != ISO_OK) return st;
    } else if (scene_is(k, "drake:relaxation_time")) {
      if ((st = read_number(c, f, k, RULE_NONNEG, &d->relaxation_time)) != ISO_OK) return st;
    } else if (scene_is(k, "drake:mesh_resolution_hint")) {
      if ((st = scene_ignore(c, f, k, "a deformable <mesh> is used as given; Drake ignores the hint too")) != ISO_OK)
        return st;
    }
  }
  return ISO_OK;
}

static isoStatus read_collision(sceneCtx *c, const sceneFile *f, xmlNode *n, isoDeformableDef *d) {
  static const char *const known[] = {"geometry", "drake:proximity_properties", NULL};
  static const char *const reported[] = {"geometry", "drake:proximity_properties", "pose", NULL};
  static const char *const attrs[] = {"name", NULL};
  isoStatus st;
  if ((st = no_foreign_drake(f, n, known)) != ISO_OK) return st;
  xmlNode *pad = scene_child(n, "isobar:tactile_pad");
  if (pad)
    return scene_fail(f, pad, ISO_ERR_UNSUPPORTED, "a tactile pad senses a rigid geometry; contacts of deformable "
                      "bodies are not sampled");
  if ((st = scene_isobar_check(f, n, known)) != ISO_OK) return st;
  xmlNode *pose = scene_child(n, "pose");
  if (pose && (st = scene_ignore(c, f, pose, "a deformable mesh is placed at its link's pose; Drake ignores the "
                                 "collision's too")) != ISO_OK)
    return st;
  if ((st = scene_check(c, f, n, reported, attrs)) != ISO_OK) return st;
  xmlNode *geom = scene_child(n, "geometry");
  if (!geom) return scene_fail(f, n, ISO_ERR_PARSE, "needs a <geometry>");
  if ((st = read_mesh(c, f, geom, d)) != ISO_OK) return st;
  xmlNode *props = scene_child(n, "drake:proximity_properties");
  return props ? read_proximity(c, f, props, d) : ISO_OK;
}

isoStatus scene_sdf_deformable(sceneCtx *c, const sceneFile *f, xmlNode *n, int scope, const char *name, int frame) {
  static const char *const known[] = {"pose", "collision", "visual", "drake:deformable_properties",
                                      "drake:wall_boundary_condition", "isobar:weld", NULL};
  static const char *const reported[] = {"pose", "collision", "visual", "drake:deformable_properties",
                                         "drake:wall_boundary_condition", "isobar:weld", "inertial", NULL};
  static const char *const attrs[] = {"name", NULL};
  isoStatus st;
  if ((st = no_foreign_drake(f, n, known)) != ISO_OK) return st;
  if ((st = scene_isobar_check(f, n, known)) != ISO_OK) return st;
  xmlNode *inertial = scene_child(n, "inertial");
  if (inertial && (st = scene_ignore(c, f, inertial, "a deformable body's mass comes from its density; Drake "
                                     "ignores it too")) != ISO_OK)
    return st;
  if ((st = scene_check(c, f, n, reported, attrs)) != ISO_OK) return st;
  int ncoll = 0, nwall = 0, nvisual = 0, nweld = 0;
  xmlNode *coll = NULL;
  for (xmlNode *k = n->children; k; k = k->next) {
    if (scene_is(k, "collision")) {
      coll = coll ? coll : k;
      ++ncoll;
    }
    nwall += scene_is(k, "drake:wall_boundary_condition");
    nvisual += scene_is(k, "visual");
    nweld += scene_is(k, "isobar:weld");
  }
  if (ncoll != 1)
    return scene_fail(f, n, ISO_ERR_INVALID, "a deformable <link> must have exactly one <collision> (it has %d), "
                      "as in Drake", ncoll);
  if (nvisual > 1) /* isobar draws nothing, but Drake refuses the file */
    return scene_fail(f, n, ISO_ERR_INVALID, "a deformable <link> may have at most one <visual> (it has %d), as in "
                      "Drake", nvisual);
  sceneDeformable *sd;
  if ((st = scene_new_deformable(c, &sd)) != ISO_OK) return st;
  sd->def.name = name;
  sd->frame = frame;
  sd->file = f;
  sd->line = scene_line(n);
  if (nwall > 0) {
    sd->wall = (double(*)[6])scene_alloc(&c->mem, sizeof(double[6]) * (size_t)nwall);
    if (!sd->wall) return nomem();
  }
  if (nweld > 0) {
    sd->welds = (sceneWeld *)scene_alloc(&c->mem, sizeof(sceneWeld) * (size_t)nweld);
    if (!sd->welds) return nomem();
  }
  for (xmlNode *k = n->children; k; k = k->next) {
    if (scene_is(k, "drake:deformable_properties")) {
      if ((st = read_properties(c, f, k, &sd->def)) != ISO_OK) return st;
    } else if (scene_is(k, "drake:wall_boundary_condition")) {
      if ((st = read_wall(c, f, k, sd->wall[sd->nwall])) != ISO_OK) return st;
      sd->nwall++;
    } else if (scene_is(k, "isobar:weld")) {
      if ((st = read_weld(c, f, k, scope, &sd->welds[sd->nweld])) != ISO_OK) return st;
      sd->nweld++;
    } else if (scene_is(k, "visual")) {
      scene_count_visual(c, f, k);
    }
  }
  return read_collision(c, f, coll, &sd->def);
}
