/* Model compile, hydroelastic part: meshes, unit-modulus pressure fields and BVHs for every
 * geometry that has a hydroelastic representation (reference §1, §1.9), shared between
 * geometries with the same shape; and the table of geometry pairs with how each is handled
 * (reference §2 dispatch: compliant–compliant, rigid–compliant, the half-space cases, and the
 * pairs that fall back to point contact as in Drake's hydroelastic_with_fallback). */
#include "host/assets/assets.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/model/model_internal.h"

static int is_world(int body) { return body == ISO_WORLD_BODY; }

static int excluded(const isoModel *m, int a, int b) {
  int lo = a < b ? a : b, hi = a < b ? b : a;
  for (int i = 0; i < m->nexclude; ++i)
    if (m->exclude[2 * i] == lo && m->exclude[2 * i + 1] == hi) return 1;
  return 0;
}

/* 1 when a joint connects bodies a and b, neither the world: Drake's MultibodyPlant filters such
 * adjacent bodies' collisions (joints to the world excepted), and so does isobar. */
static int adjacent(const isoModel *m, int a, int b) {
  if (a < 0 || b < 0) return 0;
  for (int j = 0; j < m->njoint; ++j) {
    const isoJointDef *d = &m->joint[j];
    if (d->parent >= 0 && ((d->parent == a && d->child == b) || (d->parent == b && d->child == a))) return 1;
  }
  return 0;
}

int hydro_pair_kind(const isoModel *m, const hydroGeom *geom, int a, int b, int *first, int *second) {
  const isoGeometryDef *ga = &m->geom[a], *gb = &m->geom[b];
  *first = a < b ? a : b;
  *second = a < b ? b : a;
  if (ga->body == gb->body || (is_world(ga->body) && is_world(gb->body)) || excluded(m, a, b) ||
      adjacent(m, ga->body, gb->body))
    return ISO_PAIR_FILTERED;
  int ka = geom[a].kind, kb = geom[b].kind;
  /* order so that (ka, a) is the "M" side where a rule needs it */
  if (ka == HGEOM_TETS && kb == HGEOM_TETS) return ISO_PAIR_COMPLIANT_COMPLIANT;
  if (kb == HGEOM_TETS && (ka == HGEOM_TRIS || ka == HGEOM_RIGID_HALF)) {
    int t = a;
    a = b, b = t;
    t = ka, ka = kb, kb = t;
  }
  if (kb == HGEOM_SOFT_HALF && ka == HGEOM_TRIS) {
    int t = a;
    a = b, b = t;
    t = ka, ka = kb, kb = t;
  }
  *first = a;
  *second = b;
  if (ka == HGEOM_TETS && kb == HGEOM_TRIS) return ISO_PAIR_RIGID_COMPLIANT;
  if (ka == HGEOM_TETS && kb == HGEOM_RIGID_HALF) return ISO_PAIR_HALFSPACE_COMPLIANT;
  if (ka == HGEOM_SOFT_HALF && kb == HGEOM_TRIS) return ISO_PAIR_RIGID_SOFT_HALFSPACE;
  *first = a < b ? a : b;
  *second = a < b ? b : a;
  return ISO_PAIR_POINT_FALLBACK;
}

static int hydro_kind_of(const isoGeometryDef *g) {
  if (g->compliance == ISO_COMPLIANCE_UNDEFINED) return HGEOM_NONE;
  int soft = g->compliance == ISO_COMPLIANCE_COMPLIANT;
  if (g->shape == ISO_SHAPE_HALFSPACE) return soft ? HGEOM_SOFT_HALF : HGEOM_RIGID_HALF;
  return soft ? HGEOM_TETS : HGEOM_TRIS;
}

static int has_ext(const char *path, const char *ext) {
  size_t n = strlen(path), e = strlen(ext);
  if (n < e) return 0;
  for (size_t i = 0; i < e; ++i) {
    char c = path[n - e + i];
    if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
    if (c != ext[i]) return 0;
  }
  return 1;
}

/* Whether geometry g (kind k) can use the asset built from geometry h: everything the mesh and
 * the unit-modulus field depend on is equal; the modulus is not among them. */
static int same_asset(const isoGeometryDef *g, int k, const isoGeometryDef *h, int kh) {
  if (k != kh || g->shape != h->shape || g->resolution_hint != h->resolution_hint) return 0;
  if (k == HGEOM_TETS && g->margin != h->margin) return 0;
  for (int i = 0; i < 3; ++i)
    if (g->size[i] != h->size[i] || g->mesh_scale[i] != h->mesh_scale[i]) return 0;
  if (!g->mesh_file != !h->mesh_file) return 0;
  return !g->mesh_file || strcmp(g->mesh_file, h->mesh_file) == 0;
}

/* The convex hull of a mesh file's vertices (OBJ surface or the points of a VTK tet mesh). */
static isoStatus hull_of_file(const isoGeometryDef *g, triMesh *hull, const char *what) {
  isoStatus st;
  if (has_ext(g->mesh_file, ".vtk")) {
    tetMesh t;
    memset(&t, 0, sizeof t);
    st = mesh_read_vtk(g->mesh_file, g->mesh_scale, &t);
    if (st == ISO_OK) st = mesh_convex_hull(t.vert, t.nvert, hull, what);
    tet_mesh_free(&t);
    return st;
  }
  triMesh s;
  memset(&s, 0, sizeof s);
  st = mesh_read_surface(g->mesh_file, g->mesh_scale, &s);
  if (st == ISO_OK) st = mesh_convex_hull(s.vert, s.nvert, hull, what);
  tri_mesh_free(&s);
  return st;
}

static isoStatus build_compliant(const isoGeometryDef *g, tetMesh *t, const char *what) {
  const double d = g->margin, h = g->resolution_hint;
  isoStatus st = ISO_OK;
  switch (g->shape) {
    case ISO_SHAPE_SPHERE: {
      double R = g->size[0];
      st = mesh_sphere_tets(R + d, h, t);
      if (st == ISO_OK) st = field_sphere(t, R, 1.0, d);
      break;
    }
    case ISO_SHAPE_ELLIPSOID: {
      double abc[3] = {g->size[0], g->size[1], g->size[2]};
      double inf[3] = {abc[0] + d, abc[1] + d, abc[2] + d};
      st = mesh_ellipsoid_tets(inf, h, t);
      if (st == ISO_OK) st = field_ellipsoid(t, abc, 1.0, d);
      break;
    }
    case ISO_SHAPE_BOX: {
      double half[3] = {g->size[0] / 2, g->size[1] / 2, g->size[2] / 2};
      double inf[3] = {half[0] + d, half[1] + d, half[2] + d};
      st = mesh_box_tets(inf, t);
      if (st == ISO_OK) st = field_box(t, half, 1.0, d);
      break;
    }
    case ISO_SHAPE_CYLINDER: {
      double R = g->size[0], L = g->size[1];
      st = mesh_cylinder_tets(R + d, L + 2 * d, h, t);
      if (st == ISO_OK) st = field_cylinder(t, R, L, 1.0, d);
      break;
    }
    case ISO_SHAPE_CAPSULE: {
      double R = g->size[0], L = g->size[1];
      st = mesh_capsule_tets(R + d, L, h, t);
      if (st == ISO_OK) st = field_capsule(t, R, L, 1.0, d);
      break;
    }
    case ISO_SHAPE_MESH:
    case ISO_SHAPE_CONVEX: {
      if (d > 0)
        return iso_fail(ISO_ERR_UNSUPPORTED, "%s: a hydroelastic margin on a %s is not supported yet "
                        "(margins are supported on primitives)", what, iso_shape_name(g->shape));
      if (g->shape == ISO_SHAPE_MESH && has_ext(g->mesh_file, ".vtk")) {
        st = mesh_read_vtk(g->mesh_file, g->mesh_scale, t);
      } else {
        /* Drake: a compliant Convex, or a Mesh that is not a .vtk, uses the convex hull. */
        triMesh hull;
        memset(&hull, 0, sizeof hull);
        st = hull_of_file(g, &hull, what);
        if (st == ISO_OK) st = mesh_convex_tets(&hull, t, what);
        tri_mesh_free(&hull);
      }
      if (st == ISO_OK) st = field_distance(t, 1.0, 0.0, what);
      break;
    }
    default:
      return iso_fail(ISO_ERR_UNSUPPORTED, "%s: no compliant representation for a %s", what,
                      iso_shape_name(g->shape));
  }
  if (st == ISO_OK) st = mesh_tet_gradients(t, what);
  if (st != ISO_OK && strstr(iso_last_error(), what) == NULL) {
    char msg[900];
    snprintf(msg, sizeof msg, "%s", iso_last_error());
    st = iso_fail(st, "%s: %s", what, msg);
  }
  return st;
}

static isoStatus build_rigid(const isoGeometryDef *g, triMesh *s, const char *what) {
  isoStatus st = ISO_OK;
  tetMesh t;
  memset(&t, 0, sizeof t);
  const double h = g->resolution_hint;
  switch (g->shape) {
    case ISO_SHAPE_SPHERE: st = mesh_sphere_tets(g->size[0], h, &t); break;
    case ISO_SHAPE_ELLIPSOID: st = mesh_ellipsoid_tets(g->size, h, &t); break;
    case ISO_SHAPE_BOX: {
      double half[3] = {g->size[0] / 2, g->size[1] / 2, g->size[2] / 2};
      st = mesh_box_tets(half, &t);
      break;
    }
    case ISO_SHAPE_CYLINDER: st = mesh_cylinder_tets(g->size[0], g->size[1], h, &t); break;
    case ISO_SHAPE_CAPSULE: st = mesh_capsule_tets(g->size[0], g->size[1], h, &t); break;
    case ISO_SHAPE_CONVEX: return hull_of_file(g, s, what);
    case ISO_SHAPE_MESH:
      if (has_ext(g->mesh_file, ".vtk")) {
        st = mesh_read_vtk(g->mesh_file, g->mesh_scale, &t);
        break;
      }
      return mesh_read_surface(g->mesh_file, g->mesh_scale, s);
    default:
      return iso_fail(ISO_ERR_UNSUPPORTED, "%s: no rigid representation for a %s", what, iso_shape_name(g->shape));
  }
  if (st == ISO_OK) st = mesh_tet_boundary(&t, s, what);
  tet_mesh_free(&t);
  return st;
}

static isoStatus finish_asset(hydroAsset *a, const char *what) {
  int n = a->kind == HGEOM_TETS ? a->tets.ntet : a->tris.ntri;
  real *lo = (real *)malloc(sizeof(real) * 3 * (size_t)(n + 1));
  real *hi = (real *)malloc(sizeof(real) * 3 * (size_t)(n + 1));
  if (!lo || !hi) {
    free(lo), free(hi);
    return iso_fail(ISO_ERR_NOMEM, "%s: out of memory building its BVH", what);
  }
  isoStatus st = a->kind == HGEOM_TETS ? bvh_elem_bounds_tets(a->tets.vert, a->tets.tet, n, lo, hi)
                                       : bvh_elem_bounds_tris(a->tris.vert, a->tris.tri, n, lo, hi);
  if (st == ISO_OK) st = bvh_build(lo, hi, n, a->kind == HGEOM_TETS ? 1 : 3, &a->bvh);
  for (int k = 0; k < 3; ++k) {
    a->lo[k] = INFINITY;
    a->hi[k] = -INFINITY;
  }
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) {
      a->lo[k] = fmin(a->lo[k], lo[3 * i + k]);
      a->hi[k] = fmax(a->hi[k], hi[3 * i + k]);
    }
  free(lo), free(hi);
  return st;
}

/* The compliant asset each geometry shows deformable bodies (hydroGeom.def_asset): its own when
 * it is compliant, else one built as if it were (shared like any asset). A shape that has none
 * (a point sphere, a margin on a mesh) keeps −1 and a sim refuses it by name: its model still
 * compiles, since rigid bodies may use it. */
static void build_deformable_assets(const isoModel *m, modelHydro *h) {
  for (int i = 0; i < m->ngeom; ++i) {
    const isoGeometryDef *g = &m->geom[i];
    hydroGeom *hg = &h->geom[i];
    if (g->shape == ISO_SHAPE_HALFSPACE) continue;
    if (hg->kind == HGEOM_TETS) {
      hg->def_asset = hg->asset;
      continue;
    }
    for (int a = 0; a < h->nasset && hg->def_asset < 0; ++a)
      if (same_asset(g, HGEOM_TETS, &m->geom[h->asset[a].source], h->asset[a].kind)) hg->def_asset = a;
    if (hg->def_asset >= 0) continue;
    char what[160];
    snprintf(what, sizeof what, "geometry '%.120s'", g->name);
    hydroAsset *a = &h->asset[h->nasset];
    memset(a, 0, sizeof *a);
    a->kind = HGEOM_TETS;
    a->source = i;
    isoStatus st = g->shape == ISO_SHAPE_SPHERE && !(g->size[0] > 0) ? ISO_ERR_UNSUPPORTED : build_compliant(g, &a->tets, what);
    if (st == ISO_OK) st = finish_asset(a, what);
    if (st != ISO_OK) {
      tet_mesh_free(&a->tets);
      bvh_free(&a->bvh);
      memset(a, 0, sizeof *a);
      continue;
    }
    hg->def_asset = h->nasset++;
  }
}

isoStatus hydro_build(const isoModel *m, modelHydro *h) {
  memset(h, 0, sizeof *h);
  isoStatus st = ISO_OK;
  int ng = m->ngeom;
  h->geom = (hydroGeom *)calloc((size_t)ng + 1, sizeof(hydroGeom));
  h->asset = (hydroAsset *)calloc(2 * (size_t)ng + 1, sizeof(hydroAsset)); /* room for deformable contact */
  size_t maxpair = (size_t)ng * (size_t)(ng > 0 ? ng - 1 : 0) / 2 + 1;
  h->pair = (hydroPair *)calloc(maxpair, sizeof(hydroPair));
  h->fallback = (hydroPair *)calloc(maxpair, sizeof(hydroPair));
  if (!h->geom || !h->asset || !h->pair || !h->fallback) {
    hydro_free(h);
    return iso_fail(ISO_ERR_NOMEM, "model compile: out of memory for %d geometries", ng);
  }
  for (int i = 0; i < ng; ++i) {
    const isoGeometryDef *g = &m->geom[i];
    hydroGeom *hg = &h->geom[i];
    hg->kind = hydro_kind_of(g);
    hg->asset = hg->def_asset = -1;
    if (hg->kind != HGEOM_TETS && hg->kind != HGEOM_TRIS) continue;
    char what[160];
    for (int a = 0; a < h->nasset && hg->asset < 0; ++a)
      if (same_asset(g, hg->kind, &m->geom[h->asset[a].source], h->asset[a].kind)) hg->asset = a;
    if (hg->asset >= 0) continue;
    snprintf(what, sizeof what, "geometry '%.120s'", g->name);
    hydroAsset *a = &h->asset[h->nasset];
    a->kind = hg->kind;
    a->source = i;
    st = hg->kind == HGEOM_TETS ? build_compliant(g, &a->tets, what) : build_rigid(g, &a->tris, what);
    if (st == ISO_OK) st = finish_asset(a, what);
    hg->asset = h->nasset++;
    if (st != ISO_OK) {
      hydro_free(h);
      return st;
    }
  }
  if (m->deformables.n > 0) build_deformable_assets(m, h);
  for (int a = 0; a < ng; ++a)
    for (int b = a + 1; b < ng; ++b) {
      int first, second;
      int kind = hydro_pair_kind(m, h->geom, a, b, &first, &second);
      if (kind == ISO_PAIR_FILTERED) continue;
      hydroPair p;
      p.m = first;
      p.n = second;
      p.kind = kind;
      if (kind == ISO_PAIR_POINT_FALLBACK) h->fallback[h->nfallback++] = p;
      else h->pair[h->npair++] = p;
    }
  /* point contact treats meshes as their convex hulls (Drake: FCL convex); built only for
   * geometries in point-contact pairs, so a flat rigid mesh used hydroelastically is fine */
  h->point_nvert = (int *)calloc((size_t)ng + 1, sizeof(int));
  if (!h->point_nvert) {
    hydro_free(h);
    return iso_fail(ISO_ERR_NOMEM, "model compile: out of memory");
  }
  for (int i = 0; i < ng; ++i) {
    const isoGeometryDef *g = &m->geom[i];
    if (g->shape != ISO_SHAPE_MESH && g->shape != ISO_SHAPE_CONVEX) continue;
    int in_fallback = 0; /* only geometries that point contact will query need a hull */
    for (int p = 0; p < h->nfallback && !in_fallback; ++p)
      in_fallback = h->fallback[p].m == i || h->fallback[p].n == i;
    if (!in_fallback) continue;
    char what[160];
    snprintf(what, sizeof what, "geometry '%.120s'", g->name);
    triMesh hull;
    memset(&hull, 0, sizeof hull);
    st = hull_of_file(g, &hull, what);
    if (st == ISO_OK) {
      long have = 0;
      for (int j = 0; j < i; ++j) have += h->point_nvert[j];
      real *pv = (real *)realloc(h->point_vert, sizeof(real) * 3 * (size_t)(have + hull.nvert));
      if (!pv) st = iso_fail(ISO_ERR_NOMEM, "model compile: out of memory");
      else {
        h->point_vert = pv;
        memcpy(pv + 3 * have, hull.vert, sizeof(real) * 3 * (size_t)hull.nvert);
        h->point_nvert[i] = hull.nvert;
      }
    }
    tri_mesh_free(&hull);
    if (st != ISO_OK) {
      hydro_free(h);
      return st;
    }
  }
  return ISO_OK;
}

void hydro_free(modelHydro *h) {
  if (!h) return;
  for (int a = 0; a < h->nasset; ++a) {
    tet_mesh_free(&h->asset[a].tets);
    tri_mesh_free(&h->asset[a].tris);
    bvh_free(&h->asset[a].bvh);
  }
  free(h->asset);
  free(h->geom);
  free(h->pair);
  free(h->fallback);
  free(h->point_nvert);
  free(h->point_vert);
  memset(h, 0, sizeof *h);
}
