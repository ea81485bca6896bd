/* Geometries of the model builder: defaults (Drake's DefaultProximityProperties), checks at
 * the door, collision filters. Meshes and fields are built at compile, not here. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/assets/mesh_read.h"
#include "host/base/error.h"
#include "host/model/model_internal.h"

isoGeometryDef iso_default_geometry_def(void) {
  isoGeometryDef g;
  memset(&g, 0, sizeof g);
  g.body = ISO_WORLD_BODY;
  g.quaternion[0] = 1.0;
  g.shape = ISO_SHAPE_SPHERE;
  g.size[0] = g.size[1] = g.size[2] = 0.1;
  g.mesh_scale[0] = g.mesh_scale[1] = g.mesh_scale[2] = 1.0;
  g.compliance = ISO_COMPLIANCE_UNDEFINED;
  g.hydroelastic_modulus = 1e7;
  g.resolution_hint = 0.02;
  g.margin = 0.0;
  g.slab_thickness = 0.0;
  g.hunt_crossley_dissipation = 50.0;
  g.relaxation_time = 0.1;
  g.mu_static = 0.5;
  g.mu_dynamic = 0.5;
  g.point_stiffness = 1e6;
  g.legacy_given = ISO_LEGACY_ALL;
  return g;
}

const char *iso_shape_name(isoShape s) {
  switch (s) {
    case ISO_SHAPE_SPHERE: return "sphere";
    case ISO_SHAPE_BOX: return "box";
    case ISO_SHAPE_CYLINDER: return "cylinder";
    case ISO_SHAPE_CAPSULE: return "capsule";
    case ISO_SHAPE_ELLIPSOID: return "ellipsoid";
    case ISO_SHAPE_HALFSPACE: return "half-space";
    case ISO_SHAPE_MESH: return "mesh";
    case ISO_SHAPE_CONVEX: return "convex";
  }
  return "unknown";
}

static isoStatus positive(const char *what, const char *field, double x) {
  if (!isfinite(x) || x <= 0)
    return iso_fail(ISO_ERR_INVALID, "%s: %s %g must be finite and > 0", what, field, x);
  return ISO_OK;
}

static isoStatus nonneg(const char *what, const char *field, double x) {
  if (!isfinite(x) || x < 0)
    return iso_fail(ISO_ERR_INVALID, "%s: %s %g must be finite and >= 0", what, field, x);
  return ISO_OK;
}

/* x within [lo, hi] (NaN fails), else an error naming the value and the range. */
static isoStatus within(const char *what, const char *field, double x, double lo, double hi) {
  if (!(x >= lo && x <= hi))
    return iso_fail(ISO_ERR_INVALID, "%s: %s %g is outside the range [%g, %g] isobar accepts (see geometry.h)", what,
                    field, x, lo, hi);
  return ISO_OK;
}

/* A size: 0 or within [ISO_MIN_SIZE, ISO_MAX_SIZE] (its sign is checked first). */
static isoStatus size_ok(const char *what, const char *field, double x) {
  return x == 0 ? ISO_OK : within(what, field, x, ISO_MIN_SIZE, ISO_MAX_SIZE);
}

#define CHECK(expr)                 \
  do {                              \
    isoStatus st_ = (expr);         \
    if (st_ != ISO_OK) return st_;  \
  } while (0)

isoStatus model_check_geometry(const isoModel *m, const isoGeometryDef *g, const char *what) {
  if (g->body != ISO_WORLD_BODY && (g->body < 0 || g->body >= m->nbody))
    return iso_fail(ISO_ERR_INVALID, "%s: body index %d does not exist (the model has %d bodies; "
                    "use ISO_WORLD_BODY for the world)", what, g->body, m->nbody);
  if (!model_all_finite(g->position, 3) || !model_all_finite(g->quaternion, 4))
    return iso_fail(ISO_ERR_INVALID, "%s: pose is not finite", what);
  const double *q = g->quaternion;
  if (!(sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]) > 1e-12))
    return iso_fail(ISO_ERR_INVALID, "%s: quaternion has zero length", what);
  switch (g->shape) {
    case ISO_SHAPE_SPHERE:
      CHECK(nonneg(what, "sphere radius", g->size[0]));
      if (g->size[0] == 0 && g->compliance != ISO_COMPLIANCE_UNDEFINED)
        return iso_fail(ISO_ERR_INVALID, "%s: a sphere of radius 0 (a point) has no hydroelastic representation; "
                        "give it no hydroelastic compliance (point contact only)", what);
      break;
    case ISO_SHAPE_BOX:
      CHECK(positive(what, "box size x", g->size[0]));
      CHECK(positive(what, "box size y", g->size[1]));
      CHECK(positive(what, "box size z", g->size[2]));
      break;
    case ISO_SHAPE_CYLINDER:
    case ISO_SHAPE_CAPSULE:
      CHECK(positive(what, "radius", g->size[0]));
      CHECK(positive(what, "length", g->size[1]));
      break;
    case ISO_SHAPE_ELLIPSOID:
      CHECK(positive(what, "ellipsoid semi-axis a", g->size[0]));
      CHECK(positive(what, "ellipsoid semi-axis b", g->size[1]));
      CHECK(positive(what, "ellipsoid semi-axis c", g->size[2]));
      break;
    case ISO_SHAPE_HALFSPACE: break;
    case ISO_SHAPE_MESH:
    case ISO_SHAPE_CONVEX: {
      if (!g->mesh_file || !g->mesh_file[0])
        return iso_fail(ISO_ERR_INVALID, "%s: a %s needs a mesh file", what, iso_shape_name(g->shape));
      for (int k = 0; k < 3; ++k)
        if (!isfinite(g->mesh_scale[k]) || g->mesh_scale[k] == 0)
          return iso_fail(ISO_ERR_INVALID, "%s: mesh scale %g must be finite and non-zero", what,
                          g->mesh_scale[k]);
      /* Checked without opening: a FIFO would block here, and a device would pass an open. */
      isoStatus fst = mesh_read_check_file(g->mesh_file);
      if (fst != ISO_OK) {
        char why[1024];
        snprintf(why, sizeof why, "%s", iso_last_error());
        return iso_fail(fst, "%s: mesh file %s", what, why);
      }
      break;
    }
    default:
      return iso_fail(ISO_ERR_INVALID, "%s: unknown shape %d", what, (int)g->shape);
  }
  if (g->compliance != ISO_COMPLIANCE_UNDEFINED && g->compliance != ISO_COMPLIANCE_RIGID &&
      g->compliance != ISO_COMPLIANCE_COMPLIANT)
    return iso_fail(ISO_ERR_INVALID, "%s: unknown compliance %d", what, (int)g->compliance);
  CHECK(positive(what, "hydroelastic_modulus", g->hydroelastic_modulus));
  CHECK(positive(what, "resolution_hint", g->resolution_hint));
  CHECK(nonneg(what, "margin", g->margin));
  if (!isnan(g->hunt_crossley_dissipation)) /* NaN: from the penetration allowance */
    CHECK(nonneg(what, "hunt_crossley_dissipation", g->hunt_crossley_dissipation));
  CHECK(nonneg(what, "relaxation_time", g->relaxation_time));
  CHECK(nonneg(what, "mu_static", g->mu_static));
  CHECK(nonneg(what, "mu_dynamic", g->mu_dynamic));
  /* +∞ is allowed (a rigid side: the other's stiffness counts), 0 means "estimate" */
  if (!(g->point_stiffness >= 0))
    return iso_fail(ISO_ERR_INVALID, "%s: point_stiffness %g must be >= 0", what, g->point_stiffness);
  /* the ranges of geometry.h */
  for (int k = 0; k < 3; ++k)
    if (g->shape != ISO_SHAPE_HALFSPACE && g->shape != ISO_SHAPE_MESH && g->shape != ISO_SHAPE_CONVEX)
      CHECK(size_ok(what, "size", g->size[k]));
  CHECK(within(what, "hydroelastic_modulus", g->hydroelastic_modulus, 0, ISO_MAX_MODULUS));
  if (isfinite(g->point_stiffness)) CHECK(within(what, "point_stiffness", g->point_stiffness, 0, ISO_MAX_STIFFNESS));
  if (!isnan(g->hunt_crossley_dissipation))
    CHECK(within(what, "hunt_crossley_dissipation", g->hunt_crossley_dissipation, 0, ISO_MAX_DISSIPATION));
  CHECK(within(what, "mu_static", g->mu_static, 0, ISO_MAX_FRICTION));
  CHECK(within(what, "mu_dynamic", g->mu_dynamic, 0, ISO_MAX_FRICTION));
  CHECK(within(what, "relaxation_time", g->relaxation_time, 0, ISO_MAX_RELAXATION));
  if (g->legacy_given & ~ISO_LEGACY_ALL)
    return iso_fail(ISO_ERR_INVALID, "%s: legacy_given %#x has bits outside ISO_LEGACY_ALL", what, g->legacy_given);
  if (g->shape == ISO_SHAPE_HALFSPACE && g->compliance == ISO_COMPLIANCE_COMPLIANT) {
    if (!(g->slab_thickness > 0) || !isfinite(g->slab_thickness))
      return iso_fail(ISO_ERR_INVALID, "%s: a compliant half-space needs slab_thickness > 0 (got %g)",
                      what, g->slab_thickness);
  }
  return ISO_OK;
}

static int find_geom(const isoModel *m, const char *name) {
  return name_map_get(&m->geom_names, 0, name, strlen(name));
}

isoStatus iso_model_add_geometry(isoModel *m, const isoGeometryDef *def, int *id) {
  CHECK_NULL(m, "iso_model_add_geometry");
  CHECK_NULL(def, "iso_model_add_geometry");
  if (m->compiled)
    return iso_fail(ISO_ERR_STATE, "iso_model_add_geometry: the model is compiled and read-only");
  char auto_name[32], what[160];
  const char *name = def->name;
  if (!name) {
    snprintf(auto_name, sizeof auto_name, "geometry%d", m->ngeom);
    name = auto_name;
  }
  if (!name[0]) return iso_fail(ISO_ERR_INVALID, "geometry %d: name is empty", m->ngeom);
  snprintf(what, sizeof what, "geometry '%.120s'", name);
  CHECK(model_check_geometry(m, def, what));
  if (find_geom(m, name) >= 0)
    return iso_fail(ISO_ERR_INVALID, "%s: a geometry of that name already exists", what);
  if (m->ngeom == m->geom_cap) {
    int cap = m->geom_cap ? 2 * m->geom_cap : 8;
    isoGeometryDef *g = (isoGeometryDef *)realloc(m->geom, (size_t)cap * sizeof *g);
    if (!g) return iso_fail(ISO_ERR_NOMEM, "iso_model_add_geometry: out of memory");
    m->geom = g;
    m->geom_cap = cap;
  }
  isoGeometryDef g = *def;
  g.name = model_strdup(name);
  g.mesh_file = model_strdup(def->mesh_file);
  if (!g.name || (def->mesh_file && !g.mesh_file) ||
      name_map_put(&m->geom_names, 0, g.name, strlen(g.name), m->ngeom) < 0) {
    free((char *)g.name);
    free((char *)g.mesh_file);
    return iso_fail(ISO_ERR_NOMEM, "iso_model_add_geometry: out of memory");
  }
  double *q = g.quaternion;
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int k = 0; k < 4; ++k) q[k] /= n;
  m->geom[m->ngeom] = g;
  if (id) *id = m->ngeom;
  m->ngeom++;
  return ISO_OK;
}

isoStatus iso_model_exclude_pair(isoModel *m, int a, int b) {
  CHECK_NULL(m, "iso_model_exclude_pair");
  if (m->compiled)
    return iso_fail(ISO_ERR_STATE, "iso_model_exclude_pair: the model is compiled and read-only");
  if (a < 0 || a >= m->ngeom || b < 0 || b >= m->ngeom)
    return iso_fail(ISO_ERR_INVALID, "iso_model_exclude_pair: geometry indices %d, %d must be in [0, %d)",
                    a, b, m->ngeom);
  if (a == b) return iso_fail(ISO_ERR_INVALID, "iso_model_exclude_pair: a geometry cannot be paired with itself");
  if (a > b) {
    int t = a;
    a = b;
    b = t;
  }
  if (m->nexclude == m->exclude_cap) {
    int cap = m->exclude_cap ? 2 * m->exclude_cap : 8;
    int *e = (int *)realloc(m->exclude, (size_t)cap * 2 * sizeof(int));
    if (!e) return iso_fail(ISO_ERR_NOMEM, "iso_model_exclude_pair: out of memory");
    m->exclude = e;
    m->exclude_cap = cap;
  }
  m->exclude[2 * m->nexclude] = a;
  m->exclude[2 * m->nexclude + 1] = b;
  m->nexclude++;
  return ISO_OK;
}

int iso_model_geometry_count(const isoModel *m) { return m ? m->ngeom : 0; }

isoStatus iso_model_find_geometry(const isoModel *m, const char *name, int *id) {
  CHECK_NULL(m, "iso_model_find_geometry");
  CHECK_NULL(name, "iso_model_find_geometry");
  CHECK_NULL(id, "iso_model_find_geometry");
  int i = find_geom(m, name);
  if (i < 0) return iso_fail(ISO_ERR_NOT_FOUND, "no geometry named '%s'", name);
  *id = i;
  return ISO_OK;
}

isoStatus iso_model_get_geometry(const isoModel *m, int id, isoGeometryDef *out) {
  CHECK_NULL(m, "iso_model_get_geometry");
  CHECK_NULL(out, "iso_model_get_geometry");
  if (id < 0 || id >= m->ngeom)
    return iso_fail(ISO_ERR_NOT_FOUND, "geometry index %d is out of range [0, %d)", id, m->ngeom);
  *out = m->geom[id];
  return ISO_OK;
}

void model_geometry_free(isoModel *m) {
  for (int i = 0; i < m->ngeom; ++i) {
    free((char *)m->geom[i].name);
    free((char *)m->geom[i].mesh_file);
  }
  free(m->geom);
  free(m->exclude);
  name_map_free(&m->geom_names);
  m->geom = NULL;
  m->exclude = NULL;
  m->ngeom = m->nexclude = 0;
}
