/* Deformable bodies of the model builder (include/isobar/deformable.h): Drake's defaults, the
 * checks at the door, the mesh placed in the world, its surface, and the Dirichlet vertices.
 *
 * A body is built whole in a local record (mesh read or copied, scaled, posed, checked, surface
 * extracted) and joins the model only when every check passed, so a refusal leaves the model
 * as it was. Messages name the body ("deformable 'ball'") and, where one exists, the element
 * (tetrahedron, vertex) by its index in the mesh as given. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/assets/mesh.h"
#include "host/assets/mesh_read.h"
#include "host/base/error.h"
#include "host/model/model_internal.h"
#include "kernels/math/quat.h"

isoDeformableDef iso_default_deformable_def(void) {
  isoDeformableDef d;
  memset(&d, 0, sizeof d);
  d.mesh_scale[0] = d.mesh_scale[1] = d.mesh_scale[2] = 1.0;
  d.quaternion[0] = 1.0;
  d.material = ISO_MATERIAL_LINEAR_COROTATED;
  /* Drake's DeformableBodyConfig (drake_algorithms.md §6.6) */
  d.youngs_modulus = 1e8;
  d.poissons_ratio = 0.49;
  d.mass_density = 1500.0;
  d.mass_damping = 0.0;
  d.stiffness_damping = 0.0;
  /* the contact defaults of a rigid geometry (iso_default_geometry_def) */
  d.hunt_crossley_dissipation = 50.0;
  d.relaxation_time = 0.1;
  d.mu_static = 0.5;
  d.mu_dynamic = 0.5;
  return d;
}

#define CHECK(expr)                \
  do {                             \
    isoStatus st_ = (expr);        \
    if (st_ != ISO_OK) return st_; \
  } while (0)

/* x within [lo, hi] (NaN fails), else an error naming the field, the value and the range. */
static isoStatus within(const char *what, const char *field, double x, double lo, double hi) {
  if (!(x >= lo && x <= hi))
    return iso_fail(ISO_ERR_INVALID, "%s: %s %g must be within [%g, %g]", what, field, x, lo, hi);
  return ISO_OK;
}

/* The material, contact values, scale and pose: everything but the mesh. */
static isoStatus check_params(const isoDeformableDef *d, const char *what) {
  if ((int)d->material != ISO_MATERIAL_LINEAR_COROTATED)
    return iso_fail(ISO_ERR_UNSUPPORTED, "%s: material model %d is not supported (only linear corotated, %d)", what,
                    (int)d->material, (int)ISO_MATERIAL_LINEAR_COROTATED);
  if (!(d->youngs_modulus > 0) || !(d->youngs_modulus <= ISO_MAX_MODULUS))
    return iso_fail(ISO_ERR_INVALID, "%s: Young's modulus %g must be > 0 and <= %g Pa", what, d->youngs_modulus,
                    ISO_MAX_MODULUS);
  /* ν = 0.5 is incompressible: λ = Eν/((1+ν)(1−2ν)) is infinite; ν = −1 makes μ infinite */
  if (!(d->poissons_ratio > -1.0 && d->poissons_ratio < 0.5))
    return iso_fail(ISO_ERR_INVALID, "%s: Poisson's ratio %g must be within (-1, 0.5)", what, d->poissons_ratio);
  if (!(d->mass_density > 0) || !isfinite(d->mass_density))
    return iso_fail(ISO_ERR_INVALID, "%s: mass density %g must be finite and > 0", what, d->mass_density);
  if (!(d->mass_damping >= 0) || !isfinite(d->mass_damping))
    return iso_fail(ISO_ERR_INVALID, "%s: mass damping %g must be finite and >= 0", what, d->mass_damping);
  if (!(d->stiffness_damping >= 0) || !isfinite(d->stiffness_damping))
    return iso_fail(ISO_ERR_INVALID, "%s: stiffness damping %g must be finite and >= 0", what, d->stiffness_damping);
  CHECK(within(what, "hunt_crossley_dissipation", d->hunt_crossley_dissipation, 0, ISO_MAX_DISSIPATION));
  CHECK(within(what, "relaxation_time", d->relaxation_time, 0, ISO_MAX_RELAXATION));
  CHECK(within(what, "mu_static", d->mu_static, 0, ISO_MAX_FRICTION));
  CHECK(within(what, "mu_dynamic", d->mu_dynamic, 0, ISO_MAX_FRICTION));
  for (int k = 0; k < 3; ++k)
    if (!isfinite(d->mesh_scale[k]) || d->mesh_scale[k] == 0)
      return iso_fail(ISO_ERR_INVALID, "%s: mesh scale %g must be finite and non-zero", what, d->mesh_scale[k]);
  if (!model_all_finite(d->position, 3) || !model_all_finite(d->quaternion, 4))
    return iso_fail(ISO_ERR_INVALID, "%s: pose is not finite", what);
  const double *q = d->quaternion;
  if (!(sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]) > 1e-12))
    return iso_fail(ISO_ERR_INVALID, "%s: quaternion has zero length", what);
  return ISO_OK;
}

/* Drake makes a deformable's mesh only from a .vtk file (make_mesh_for_deformable.cc). */
static int vtk_named(const char *path) {
  size_t n = strlen(path);
  return n >= 4 && ieq(path + n - 4, 4, ".vtk");
}

static void body_free(modelDeformable *b) {
  free((char *)b->def.name);
  free((char *)b->def.mesh_file);
  free(b->rest);
  free(b->tet);
  free(b->tri);
  free(b->tri_tet);
  free(b->held);
  free(b->sdf);
  fem_pattern_free(&b->pattern);
  bvh_free(&b->sbvh);
  free(b->weld_vert);
  free(b->weld_body);
  free(b->weld_p);
  free(b->shape);
  memset(b, 0, sizeof *b);
}

/* ---- the mesh ------------------------------------------------------------------------------ */

/* The file's mesh, scaled (the reader turns mirrored tets back), into b->rest and b->tet. */
static isoStatus mesh_from_file(const isoDeformableDef *d, const char *what, modelDeformable *b) {
  isoStatus st = mesh_read_check_file(d->mesh_file);
  tetMesh tm;
  memset(&tm, 0, sizeof tm);
  if (st == ISO_OK) {
    if (!vtk_named(d->mesh_file))
      return iso_fail(ISO_ERR_UNSUPPORTED, "%s: mesh file '%s' is not a .vtk tetrahedral mesh", what, d->mesh_file);
    st = mesh_read_vtk(d->mesh_file, d->mesh_scale, &tm);
  }
  if (st != ISO_OK) {
    char why[1024];
    snprintf(why, sizeof why, "%s", iso_last_error());
    return iso_fail(st, "%s: %s", what, why);
  }
  b->nvert = tm.nvert;
  b->ntet = tm.ntet;
  b->rest = tm.vert; /* taken over; the field arrays are not needed */
  b->tet = tm.tet;
  tm.vert = NULL;
  tm.tet = NULL;
  tet_mesh_free(&tm);
  return ISO_OK;
}

/* The def's arrays, indices checked and vertices scaled; a mirroring scale swaps two vertices
 * of every tet, as the file reader does (host/assets/mesh_read.h), so orientation is kept. */
static isoStatus mesh_from_arrays(const isoDeformableDef *d, const char *what, modelDeformable *b) {
  if (d->nvert < 4 || d->ntet < 1 || !d->vertices || !d->tets)
    return iso_fail(ISO_ERR_INVALID, "%s: needs a mesh_file, or vertices (nvert >= 4, got %d) and tets (ntet >= 1, "
                    "got %d)", what, d->nvert, d->ntet);
  if (d->nvert > ISO_MAX_DEFORMABLE_VERTICES)
    return iso_fail(ISO_ERR_INVALID, "%s: %d vertices are more than ISO_MAX_DEFORMABLE_VERTICES (%d)", what, d->nvert,
                    ISO_MAX_DEFORMABLE_VERTICES);
  if (d->ntet > MESH_MAX_ITEMS / 4)
    return iso_fail(ISO_ERR_INVALID, "%s: %d tetrahedra are too many", what, d->ntet);
  for (int i = 0; i < 3 * d->nvert; ++i)
    if (!isfinite(d->vertices[i]))
      return iso_fail(ISO_ERR_INVALID, "%s: vertex %d is not finite", what, i / 3);
  for (int e = 0; e < d->ntet; ++e)
    for (int k = 0; k < 4; ++k) {
      int v = d->tets[4 * e + k];
      if (v < 0 || v >= d->nvert)
        return iso_fail(ISO_ERR_INVALID, "%s: tetrahedron %d refers to vertex %d, outside [0, %d)", what, e, v,
                        d->nvert);
    }
  const int mirror = (d->mesh_scale[0] < 0) ^ (d->mesh_scale[1] < 0) ^ (d->mesh_scale[2] < 0);
  b->nvert = d->nvert;
  b->ntet = d->ntet;
  b->rest = (real *)malloc((size_t)d->nvert * 3 * sizeof(real));
  b->tet = (int *)malloc((size_t)d->ntet * 4 * sizeof(int));
  if (!b->rest || !b->tet) return iso_fail(ISO_ERR_NOMEM, "%s: out of memory for the mesh", what);
  for (int i = 0; i < 3 * d->nvert; ++i) {
    b->rest[i] = (real)(d->vertices[i] * d->mesh_scale[i % 3]);
    if (!isfinite(b->rest[i])) return iso_fail(ISO_ERR_INVALID, "%s: vertex %d overflows when scaled", what, i / 3);
  }
  for (int e = 0; e < d->ntet; ++e) {
    const int *s = d->tets + 4 * e;
    int *t = b->tet + 4 * e;
    t[0] = s[mirror ? 1 : 0];
    t[1] = s[mirror ? 0 : 1];
    t[2] = s[2];
    t[3] = s[3];
  }
  return ISO_OK;
}

static vec3 rest_at(const real *x, int v) { return v3(x[3 * v], x[3 * v + 1], x[3 * v + 2]); }

/* Every tet positively oriented and not flat, every vertex in some tet. A tet whose volume is
 * below 1e-12 of the cube of its longest edge is flat to double precision (its shape matrix's
 * condition number passes 1e12), so its elastic force would be noise. */
static isoStatus check_mesh(const modelDeformable *b, const char *what) {
  if (b->nvert > ISO_MAX_DEFORMABLE_VERTICES)
    return iso_fail(ISO_ERR_INVALID, "%s: %d vertices are more than ISO_MAX_DEFORMABLE_VERTICES (%d)", what, b->nvert,
                    ISO_MAX_DEFORMABLE_VERTICES);
  for (int e = 0; e < b->ntet; ++e) {
    const int *t = b->tet + 4 * e;
    vec3 p[4];
    for (int k = 0; k < 4; ++k) p[k] = rest_at(b->rest, t[k]);
    real v6 = v3_dot(v3_cross(v3_sub(p[1], p[0]), v3_sub(p[2], p[0])), v3_sub(p[3], p[0]));
    if (!(v6 > 0))
      return iso_fail(ISO_ERR_INVALID, "%s: tetrahedron %d is %s (signed volume %.3g m³); its vertices must be "
                      "ordered so that ((v1-v0)x(v2-v0)).(v3-v0) > 0", what, e, v6 < 0 ? "inverted" : "degenerate",
                      (double)(v6 / 6));
    real l2 = 0;
    for (int i = 0; i < 4; ++i)
      for (int j = i + 1; j < 4; ++j) {
        real d2 = v3_dot(v3_sub(p[j], p[i]), v3_sub(p[j], p[i]));
        if (d2 > l2) l2 = d2;
      }
    if (v6 <= 1e-12 * l2 * sqrt(l2))
      return iso_fail(ISO_ERR_INVALID, "%s: tetrahedron %d is degenerate (signed volume %.3g m³ with edges up to "
                      "%.3g m)", what, e, (double)(v6 / 6), (double)sqrt(l2));
  }
  unsigned char *used = (unsigned char *)calloc((size_t)b->nvert, 1);
  if (!used) return iso_fail(ISO_ERR_NOMEM, "%s: out of memory", what);
  for (int i = 0; i < 4 * b->ntet; ++i) used[b->tet[i]] = 1;
  int unused = -1;
  for (int v = 0; v < b->nvert && unused < 0; ++v)
    if (!used[v]) unused = v;
  free(used);
  if (unused >= 0)
    return iso_fail(ISO_ERR_INVALID, "%s: vertex %d belongs to no tetrahedron (it would have no mass)", what, unused);
  return ISO_OK;
}

/* Rest positions in the world: x_W = R_WM·x_M + p_WM, the scale already applied. */
static void place(modelDeformable *b, const isoDeformableDef *d) {
  quat q = quat_normalize(quat_make(d->quaternion[0], d->quaternion[1], d->quaternion[2], d->quaternion[3]));
  vec3 p = v3(d->position[0], d->position[1], d->position[2]);
  for (int v = 0; v < b->nvert; ++v) {
    vec3 x = v3_add(quat_rotate(q, rest_at(b->rest, v)), p);
    b->rest[3 * v] = x.x;
    b->rest[3 * v + 1] = x.y;
    b->rest[3 * v + 2] = x.z;
  }
}

/* The surface of b's mesh into b->tri, b->tri_tet (trimmed to size). */
static isoStatus build_surface(modelDeformable *b, const char *what) {
  size_t nf = (size_t)b->ntet * 4;
  b->tri = (int *)malloc(nf * 3 * sizeof(int));
  b->tri_tet = (int *)malloc(nf * sizeof(int));
  if (!b->tri || !b->tri_tet) return iso_fail(ISO_ERR_NOMEM, "%s: out of memory for the surface", what);
  CHECK(model_deformable_surface(b->tet, b->ntet, b->tri, b->tri_tet, &b->ntri, what));
  int *t = (int *)realloc(b->tri, (size_t)b->ntri * 3 * sizeof(int));
  int *tt = (int *)realloc(b->tri_tet, (size_t)b->ntri * sizeof(int));
  if (t) b->tri = t; /* a failed shrink keeps the larger block */
  if (tt) b->tri_tet = tt;
  return ISO_OK;
}

/* ---- the API ------------------------------------------------------------------------------- */

static int find_deformable(const isoModel *m, const char *name) {
  return name_map_get(&m->deformables.names, 0, name, strlen(name));
}

isoStatus iso_model_add_deformable(isoModel *m, const isoDeformableDef *def, int *id) {
  CHECK_NULL(m, "iso_model_add_deformable");
  CHECK_NULL(def, "iso_model_add_deformable");
  if (m->compiled)
    return iso_fail(ISO_ERR_STATE, "iso_model_add_deformable: the model is compiled and read-only");
  modelDeformables *D = &m->deformables;
  char auto_name[32], what[160];
  const char *name = def->name;
  if (!name) {
    snprintf(auto_name, sizeof auto_name, "deformable%d", D->n);
    name = auto_name;
  }
  if (!name[0]) return iso_fail(ISO_ERR_INVALID, "deformable %d: name is empty", D->n);
  snprintf(what, sizeof what, "deformable '%.120s'", name);
  if (find_deformable(m, name) >= 0)
    return iso_fail(ISO_ERR_INVALID, "%s: a deformable body of that name already exists", what);
  CHECK(check_params(def, what));

  modelDeformable b;
  memset(&b, 0, sizeof b);
  isoStatus st = ISO_OK;
  TRY(def->mesh_file ? mesh_from_file(def, what, &b) : mesh_from_arrays(def, what, &b));
  TRY(check_mesh(&b, what)); /* rotation and translation keep every volume's sign */
  place(&b, def);
  TRY(build_surface(&b, what));
  b.held = (unsigned char *)calloc((size_t)b.nvert, 1);
  b.def = *def;
  b.def.name = model_strdup(name);
  b.def.mesh_file = model_strdup(def->mesh_file);
  b.def.vertices = NULL;
  b.def.tets = NULL;
  b.def.nvert = b.nvert;
  b.def.ntet = b.ntet;
  if (!b.held || !b.def.name || (def->mesh_file && !b.def.mesh_file)) {
    st = iso_fail(ISO_ERR_NOMEM, "iso_model_add_deformable: out of memory");
    goto fail;
  }
  double *q = b.def.quaternion;
  double qn = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int k = 0; k < 4; ++k) q[k] /= qn;
  if (D->n == D->cap) {
    int cap = D->cap ? 2 * D->cap : 4;
    modelDeformable *nb = (modelDeformable *)realloc(D->body, (size_t)cap * sizeof *nb);
    if (!nb) {
      st = iso_fail(ISO_ERR_NOMEM, "iso_model_add_deformable: out of memory");
      goto fail;
    }
    D->body = nb;
    D->cap = cap;
  }
  if (name_map_put(&D->names, 0, b.def.name, strlen(b.def.name), D->n) < 0) {
    st = iso_fail(ISO_ERR_NOMEM, "iso_model_add_deformable: out of memory");
    goto fail;
  }
  D->body[D->n] = b;
  if (id) *id = D->n;
  D->n++;
  return ISO_OK;

fail:
  body_free(&b);
  return st;
}

/* Body `body` of m for a call that changes it: not compiled, in range. */
static isoStatus body_to_change(isoModel *m, int body, const char *fn) {
  if (m->compiled) return iso_fail(ISO_ERR_STATE, "%s: the model is compiled and read-only", fn);
  if (body < 0 || body >= m->deformables.n)
    return iso_fail(ISO_ERR_NOT_FOUND, "%s: deformable body index %d is out of range [0, %d)", fn, body,
                    m->deformables.n);
  return ISO_OK;
}

isoStatus iso_model_fix_deformable_vertices(isoModel *m, int body, int count, const int *vertices) {
  CHECK_NULL(m, "iso_model_fix_deformable_vertices");
  CHECK(body_to_change(m, body, "iso_model_fix_deformable_vertices"));
  modelDeformable *b = &m->deformables.body[body];
  if (count < 0)
    return iso_fail(ISO_ERR_INVALID, "deformable '%s': vertex count %d must be >= 0", b->def.name, count);
  if (count > 0) CHECK_NULL(vertices, "iso_model_fix_deformable_vertices");
  for (int i = 0; i < count; ++i) /* all checked before any is held: a refusal changes nothing */
    if (vertices[i] < 0 || vertices[i] >= b->nvert)
      return iso_fail(ISO_ERR_INVALID, "deformable '%s': vertex %d (entry %d) is outside [0, %d)", b->def.name,
                      vertices[i], i, b->nvert);
  for (int i = 0; i < count; ++i) b->held[vertices[i]] = 1;
  return ISO_OK;
}

isoStatus iso_model_deformable_wall(isoModel *m, int body, const double point[3], const double normal[3],
                                    int *count) {
  CHECK_NULL(m, "iso_model_deformable_wall");
  CHECK_NULL(point, "iso_model_deformable_wall");
  CHECK_NULL(normal, "iso_model_deformable_wall");
  CHECK(body_to_change(m, body, "iso_model_deformable_wall"));
  modelDeformable *b = &m->deformables.body[body];
  if (!model_all_finite(point, 3) || !model_all_finite(normal, 3))
    return iso_fail(ISO_ERR_INVALID, "deformable '%s': wall point and normal must be finite", b->def.name);
  vec3 n = v3(normal[0], normal[1], normal[2]);
  /* Drake's SetWallBoundaryCondition demands |n| > 1e-10 before normalising */
  if (!(v3_norm(n) > 1e-10))
    return iso_fail(ISO_ERR_INVALID, "deformable '%s': wall normal (%g, %g, %g) is zero", b->def.name, normal[0],
                    normal[1], normal[2]);
  n = v3_scale(n, 1.0 / v3_norm(n));
  vec3 Q = v3(point[0], point[1], point[2]);
  int held = 0;
  for (int v = 0; v < b->nvert; ++v)
    if (v3_dot(n, v3_sub(rest_at(b->rest, v), Q)) < 0) {
      b->held[v] = 1;
      ++held;
    }
  if (count) *count = held;
  return ISO_OK;
}

int iso_model_deformable_count(const isoModel *m) { return m ? m->deformables.n : 0; }

isoStatus iso_model_find_deformable(const isoModel *m, const char *name, int *id) {
  CHECK_NULL(m, "iso_model_find_deformable");
  CHECK_NULL(name, "iso_model_find_deformable");
  CHECK_NULL(id, "iso_model_find_deformable");
  int i = find_deformable(m, name);
  if (i < 0) return iso_fail(ISO_ERR_NOT_FOUND, "no deformable body named '%s'", name);
  *id = i;
  return ISO_OK;
}

/* Body `id` of m for a query. */
static isoStatus body_to_read(const isoModel *m, int id, const char *fn) {
  if (id < 0 || id >= m->deformables.n)
    return iso_fail(ISO_ERR_NOT_FOUND, "%s: deformable body index %d is out of range [0, %d)", fn, id,
                    m->deformables.n);
  return ISO_OK;
}

isoStatus iso_model_get_deformable(const isoModel *m, int id, isoDeformableDef *out) {
  CHECK_NULL(m, "iso_model_get_deformable");
  CHECK_NULL(out, "iso_model_get_deformable");
  CHECK(body_to_read(m, id, "iso_model_get_deformable"));
  *out = m->deformables.body[id].def;
  return ISO_OK;
}

isoStatus iso_model_deformable_size(const isoModel *m, int id, int *nvert, int *ntet, int *ntri) {
  CHECK_NULL(m, "iso_model_deformable_size");
  CHECK(body_to_read(m, id, "iso_model_deformable_size"));
  const modelDeformable *b = &m->deformables.body[id];
  if (nvert) *nvert = b->nvert;
  if (ntet) *ntet = b->ntet;
  if (ntri) *ntri = b->ntri;
  return ISO_OK;
}

isoStatus iso_model_deformable_mesh(const isoModel *m, int id, double *rest, int *tets, int *tris,
                                    unsigned char *held) {
  CHECK_NULL(m, "iso_model_deformable_mesh");
  CHECK(body_to_read(m, id, "iso_model_deformable_mesh"));
  const modelDeformable *b = &m->deformables.body[id];
  if (rest)
    for (int i = 0; i < 3 * b->nvert; ++i) rest[i] = (double)b->rest[i];
  if (tets) memcpy(tets, b->tet, (size_t)b->ntet * 4 * sizeof(int));
  if (tris) memcpy(tris, b->tri, (size_t)b->ntri * 3 * sizeof(int));
  if (held) memcpy(held, b->held, (size_t)b->nvert);
  return ISO_OK;
}

/* ---- model internals ----------------------------------------------------------------------- */

void model_deformable_free(modelDeformables *d) {
  for (int i = 0; i < d->n; ++i) body_free(&d->body[i]);
  free(d->body);
  name_map_free(&d->names);
  memset(d, 0, sizeof *d);
}

isoStatus model_deformable_validate(const isoModel *m) {
  const modelDeformables *D = &m->deformables;
  for (int i = 0; i < D->n; ++i) {
    const modelDeformable *b = &D->body[i];
    char what[160];
    snprintf(what, sizeof what, "deformable '%.120s'", b->def.name);
    CHECK(check_params(&b->def, what));
    if (b->nvert < 4 || b->ntet < 1 || b->ntri < 4 || !b->rest || !b->tet || !b->tri || !b->held)
      return iso_fail(ISO_ERR_INVALID, "%s: mesh is missing", what);
    for (int k = 0; k < 3 * b->nvert; ++k)
      if (!isfinite(b->rest[k])) return iso_fail(ISO_ERR_INVALID, "%s: vertex %d is not finite", what, k / 3);
  }
  return ISO_OK;
}

isoStatus model_deformable_compile(isoModel *m) {
  modelDeformables *D = &m->deformables;
  for (int i = 0; i < D->n; ++i) {
    modelDeformable *b = &D->body[i];
    char what[160];
    snprintf(what, sizeof what, "iso_model_compile: deformable '%.120s'", b->def.name);
    if (!b->sdf) { /* a compile that failed later kept it */
      real *sdf = (real *)malloc(sizeof(real) * (size_t)b->nvert);
      if (!sdf) return iso_fail(ISO_ERR_NOMEM, "%s: out of memory for %d signed distances", what, b->nvert);
      isoStatus st = mesh_sdf(b->rest, b->nvert, b->tri, b->ntri, sdf, what);
      if (st != ISO_OK) {
        free(sdf);
        return st;
      }
      b->sdf = sdf;
    }
    if (b->pattern.data) continue; /* a compile that failed later kept it */
    isoStatus st = fem_pattern_build(b->nvert, b->ntet, b->tet, FEM_ORDER_MIN_DEGREE, &b->pattern);
    if (st == ISO_OK) { /* the surface's BVH: leaves of up to 3 triangles, as the rigid meshes' */
      real *lo = (real *)malloc(sizeof(real) * 3 * (size_t)b->ntri), *hi = (real *)malloc(sizeof(real) * 3 * (size_t)b->ntri);
      st = lo && hi ? bvh_elem_bounds_tris(b->rest, b->tri, b->ntri, lo, hi) : ISO_ERR_NOMEM;
      if (st == ISO_OK) st = bvh_build(lo, hi, b->ntri, 3, &b->sbvh);
      free(lo), free(hi);
    }
    if (st != ISO_OK) {
      char why[1024];
      snprintf(why, sizeof why, "%s", iso_last_error());
      return iso_fail(st, "iso_model_compile: deformable '%s': %s", b->def.name, why);
    }
  }
  return ISO_OK;
}
