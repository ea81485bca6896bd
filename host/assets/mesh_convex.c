/* Drake's compliant convex mesh made from a convex hull (drake_algorithms.md §1.6); the hull
 * itself comes from mesh_convex_hull (mesh_hull.c).
 *
 * mesh_convex_tets adds one vertex at the hull's volume centroid and makes one tet
 * (centroid, v0, v1, v2) per hull triangle: for an outward triangle, det(v0−c, v1−c, v2−c) =
 * (v0−c)·((v1−v0)×(v2−v0)) > 0, the positive orientation of host/assets/mesh.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/assets/mesh.h"
#include "kernels/math/vec3.h"

isoStatus mesh_convex_tets(const triMesh *hull, tetMesh *out, const char *what) {
  CHECK_NULL(hull, "mesh_convex_tets");
  CHECK_NULL(out, "mesh_convex_tets");
  if (what == NULL) what = "convex mesh";
  if (hull->nvert < 4 || hull->ntri < 4 || hull->nvert >= MESH_MAX_ITEMS)
    return iso_fail(ISO_ERR_INVALID, "%s: a convex hull needs at least 4 vertices and 4 triangles, got %d and %d",
                    what, hull->nvert, hull->ntri);
  for (int i = 0; i < 3 * hull->ntri; ++i)
    if (hull->tri[i] < 0 || hull->tri[i] >= hull->nvert)
      return iso_fail(ISO_ERR_INVALID, "%s: triangle %d refers to vertex %d of %d", what, i / 3, hull->tri[i],
                      hull->nvert);

  /* Volume centroid as the signed-volume-weighted centroid of the tets (r, triangle). Drake
   * takes r at the origin; any r gives the same point in exact arithmetic, and the vertex
   * mean keeps the determinants free of cancellation for a hull far from the origin. */
  vec3 r = v3_zero();
  for (int i = 0; i < hull->nvert; ++i)
    r = v3_add(r, v3(hull->vert[3 * i], hull->vert[3 * i + 1], hull->vert[3 * i + 2]));
  r = v3_scale(r, (real)1 / hull->nvert);
  real vol6 = 0;
  vec3 acc = v3_zero();
  for (int t = 0; t < hull->ntri; ++t) {
    const int *f = hull->tri + 3 * t;
    vec3 a = v3_sub(v3(hull->vert[3 * f[0]], hull->vert[3 * f[0] + 1], hull->vert[3 * f[0] + 2]), r);
    vec3 b = v3_sub(v3(hull->vert[3 * f[1]], hull->vert[3 * f[1] + 1], hull->vert[3 * f[1] + 2]), r);
    vec3 c = v3_sub(v3(hull->vert[3 * f[2]], hull->vert[3 * f[2] + 1], hull->vert[3 * f[2] + 2]), r);
    real d = v3_dot(a, v3_cross(b, c));
    vol6 += d;
    acc = v3_axpy(acc, d * (real)0.25, v3_add(v3_add(a, b), c)); /* centroid of (r, a, b, c) is (a+b+c)/4 */
  }
  if (!(vol6 > 0) || !isfinite(vol6))
    return iso_fail(ISO_ERR_INVALID, "%s: convex hull has non-positive volume (6V = %.3g): open or wound inward",
                    what, vol6);
  vec3 cen = v3_add(r, v3_scale(acc, 1 / vol6));

  tetMesh m;
  isoStatus st = tet_mesh_alloc(&m, hull->nvert + 1, hull->ntri);
  if (st != ISO_OK) return st;
  free(m.pressure); /* no field yet (host/assets/mesh.h) */
  m.pressure = NULL;
  memcpy(m.vert, hull->vert, (size_t)hull->nvert * 3 * sizeof(real));
  int ic = hull->nvert;
  m.vert[3 * ic] = cen.x;
  m.vert[3 * ic + 1] = cen.y;
  m.vert[3 * ic + 2] = cen.z;
  for (int t = 0; t < hull->ntri; ++t) {
    const int *f = hull->tri + 3 * t;
    int *e = m.tet + 4 * t;
    e[0] = ic;
    e[1] = f[0];
    e[2] = f[1];
    e[3] = f[2];
    vec3 p0 = v3_sub(v3(m.vert[3 * f[0]], m.vert[3 * f[0] + 1], m.vert[3 * f[0] + 2]), cen);
    vec3 p1 = v3_sub(v3(m.vert[3 * f[1]], m.vert[3 * f[1] + 1], m.vert[3 * f[1] + 2]), cen);
    vec3 p2 = v3_sub(v3(m.vert[3 * f[2]], m.vert[3 * f[2] + 1], m.vert[3 * f[2] + 2]), cen);
    real v6 = v3_dot(v3_cross(p0, p1), p2);
    if (!(v6 > 0)) {
      tet_mesh_free(&m);
      return iso_fail(ISO_ERR_INVALID,
                      "%s: tetrahedron %d (centroid and triangle %d) has non-positive volume (6V = %.3g): the "
                      "surface is not convex or not wound outward",
                      what, t, t, v6);
    }
  }
  *out = m;
  return ISO_OK;
}
