/* Compliant tetrahedral mesh of a cylinder (axis z, centred at the origin) that follows its
 * medial structure: Drake's MakeCylinderVolumeMeshWithMa (reference/mesh_recipes.md §2).
 *
 * n = max(3, ⌈2πR/h⌉) vertices per rim. Vertices: 0 = bottom cap centre, 1 = top cap centre,
 * then the rims interleaved (b_i = 2 + 2i at z = −L/2, t_i = 3 + 2i at z = +L/2, angle
 * 2πi/n), then the medial vertices, which depend on the class (tolerance 1e-14·max(1,
 * min(L/2, R))):
 *  - long  (L/2 > R): MA segment ends at z = ∓(L/2 − R)     → 2n + 4 vertices, 5n tets;
 *  - medium (L/2 = R): one MA point at the origin           → 2n + 3 vertices, 4n tets;
 *  - short (L/2 < R): the origin and a medial circle of radius R − L/2 in z = 0
 *                                                            → 3n + 3 vertices, 9n tets.
 * Tets are emitted wedge by wedge (rim pair i = j−1, j), in the recipe's order, with the
 * meshing_utilities PRISM/PYRAMID splits, so element order matches Drake. All positive; the
 * boundary is 4n triangles (two cap fans and 2n side triangles). */
#include <string.h>

#include "host/base/error.h"
#include "host/assets/mesh.h"

#define PI 3.14159265358979323846

/* A finer rim than this is a mistake in the inputs (Drake has no cap; the capsule's is 706),
 * not a mesh anyone can afford per geometry: refuse it instead of exhausting memory. */
#define MAX_RIM 1000000

enum { LONG, MEDIUM, SHORT };

isoStatus mesh_cylinder_tets(double radius, double length, double hint, tetMesh *out) {
  CHECK_NULL(out, "mesh_cylinder_tets");
  memset(out, 0, sizeof *out);
  if (!(radius > 0) || !isfinite(radius))
    return iso_fail(ISO_ERR_INVALID, "cylinder mesh: radius %g must be positive and finite", radius);
  if (!(length > 0) || !isfinite(length))
    return iso_fail(ISO_ERR_INVALID, "cylinder mesh: length %g must be positive and finite", length);
  if (!(hint > 0) || !isfinite(hint))
    return iso_fail(ISO_ERR_INVALID, "cylinder mesh: resolution hint %g must be positive and finite", hint);
  double R = radius, hz = length / 2;
  double nd = ceil(2 * PI * R / hint);
  if (nd > MAX_RIM)
    return iso_fail(ISO_ERR_INVALID, "cylinder mesh: resolution hint %g is too fine for radius %g (%.3g rim vertices > %d)",
                    hint, R, nd, MAX_RIM);
  int n = nd < 3 ? 3 : (int)nd;
  double s = hz < R ? hz : R, tol = 1e-14 * (s > 1 ? s : 1);
  int cls = hz - R > tol ? LONG : (R - hz > tol ? SHORT : MEDIUM);
  int nvert = cls == LONG ? 2 * n + 4 : (cls == MEDIUM ? 2 * n + 3 : 3 * n + 3);
  int ntet = (cls == LONG ? 5 : (cls == MEDIUM ? 4 : 9)) * n;
  isoStatus st = tet_mesh_alloc(out, nvert, ntet);
  if (st != ISO_OK) return st;

  real *X = out->vert;
  X[2] = -hz; /* 0 = bottom cap centre */
  X[5] = hz;  /* 1 = top cap centre */
  for (int i = 0; i < n; ++i) {
    double th = 2 * PI * i / n, c = R * cos(th), sn = R * sin(th);
    real *b = X + 3 * (2 + 2 * i), *t = b + 3;
    b[0] = t[0] = c;
    b[1] = t[1] = sn;
    b[2] = -hz;
    t[2] = hz;
  }
  const int m0 = 2 * n + 2, m1 = 2 * n + 3; /* long: MA ends; medium/short: m0 = the origin */
  if (cls == LONG) {
    X[3 * m0 + 2] = -(hz - R);
    X[3 * m1 + 2] = hz - R;
  } else if (cls == SHORT) {
    /* the medial circle: the bottom rim's x, y scaled by ρ/R, ρ = R − L/2 */
    double k = (R - hz) / R;
    for (int i = 0; i < n; ++i) {
      X[3 * (2 * n + 3 + i)] = X[3 * (2 + 2 * i)] * k;
      X[3 * (2 * n + 3 + i) + 1] = X[3 * (2 + 2 * i) + 1] * k;
    }
  }

  const int bc = 0, tc = 1;
  int *T = out->tet;
  for (int j = 0; j < n; ++j) {
    int i = j == 0 ? n - 1 : j - 1;
    int bi = 2 + 2 * i, bj = 2 + 2 * j, ti = bi + 1, tj = bj + 1;
    if (cls == LONG) {
      mesh_put_tet(T, bc, bi, bj, m0);
      mesh_put_tet(T + 4, tc, tj, ti, m1);
      T = mesh_prism(T + 8, m0, bi, bj, m1, ti, tj);
    } else if (cls == MEDIUM) {
      mesh_put_tet(T, bc, bi, bj, m0);
      mesh_put_tet(T + 4, tc, tj, ti, m0);
      T = mesh_pyramid(T + 8, ti, tj, bj, bi, m0);
    } else {
      int c = m0, mi = 2 * n + 3 + i, mj = 2 * n + 3 + j;
      T = mesh_prism(T, bc, bi, bj, c, mi, mj); /* bottom frustum */
      T = mesh_prism(T, c, mi, mj, tc, ti, tj); /* top frustum */
      T = mesh_prism(T, bi, mi, ti, bj, mj, tj); /* outer ring */
    }
  }
  return ISO_OK;
}
