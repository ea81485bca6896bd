/* Compliant tetrahedral mesh of a capsule (axis z, cylinder length L between the centres of
 * its hemispherical caps): Drake's MakeCapsuleVolumeMesh (reference/mesh_recipes.md §3).
 *
 * n = trunc(clamp(2πR/h, 3, 706)) vertices per circle (Drake's code truncates although its
 * header says ⌈·⌉; we follow the code), k = ⌊n/2⌋ latitude circles per cap. Vertices:
 * 0 = M1 (0,0,+L/2) and 1 = M0 (0,0,−L/2), the medial-axis ends and the only interior
 * vertices; 2, 3 = the top and bottom poles; then T(i,j) = 4 + 2(n·i + j) on the top cap and
 * B(i,j) = 5 + 2(n·i + j) its mirror, latitude i = 0 (equator) .. k−1, longitude j. Tets:
 * quad rings between consecutive latitudes coned to the cap's medial end (PYRAMID), the pole
 * fans, and the cylindrical wedges (PRISM), in the recipe's order. Counts: 2nk + 4 vertices,
 * 4n(k−1) + 5n tets, 4nk boundary triangles; all positive. */
#include <string.h>

#include "host/base/error.h"
#include "host/assets/mesh.h"

#define PI 3.14159265358979323846

isoStatus mesh_capsule_tets(double radius, double length, double hint, tetMesh *out) {
  CHECK_NULL(out, "mesh_capsule_tets");
  memset(out, 0, sizeof *out);
  if (!(radius > 0) || !isfinite(radius))
    return iso_fail(ISO_ERR_INVALID, "capsule mesh: radius %g must be positive and finite", radius);
  /* L = 0 would make M0 = M1 and every cylindrical wedge flat (Drake's Capsule requires
   * length > 0 as well). */
  if (!(length > 0) || !isfinite(length))
    return iso_fail(ISO_ERR_INVALID, "capsule mesh: length %g must be positive and finite", length);
  if (!(hint > 0) || !isfinite(hint))
    return iso_fail(ISO_ERR_INVALID, "capsule mesh: resolution hint %g must be positive and finite", hint);
  double R = radius, hl = length / 2;
  double nd = 2 * PI * R / hint;
  nd = nd < 3 ? 3 : (nd > 706 ? 706 : nd);
  const int n = (int)nd, k = n / 2;
  isoStatus st = tet_mesh_alloc(out, 2 * n * k + 4, 4 * n * (k - 1) + 5 * n);
  if (st != ISO_OK) return st;

  const int M1 = 0, M0 = 1, PT = 2, PB = 3;
  real *X = out->vert;
  X[3 * M1 + 2] = hl;
  X[3 * M0 + 2] = -hl;
  X[3 * PT + 2] = hl + R;
  X[3 * PB + 2] = -(hl + R);
#define TV(i, j) (4 + 2 * (n * (i) + (j)))
#define BV(i, j) (5 + 2 * (n * (i) + (j)))
  for (int i = 0; i < k; ++i) {
    double th = PI / 2 - i * PI / (2 * k); /* polar angle; i = 0 is the equator */
    for (int j = 0; j < n; ++j) {
      double ph = 2 * PI * j / n;
      real *t = X + 3 * TV(i, j), *b = X + 3 * BV(i, j);
      t[0] = b[0] = R * sin(th) * cos(ph);
      t[1] = b[1] = R * sin(th) * sin(ph);
      t[2] = hl + R * cos(th);
      b[2] = -t[2];
    }
  }

  int *T = out->tet;
  for (int i = 0; i + 1 < k; ++i)
    for (int j = 0; j < n; ++j) {
      int j1 = (j + 1) % n;
      T = mesh_pyramid(T, TV(i + 1, j), TV(i + 1, j1), TV(i, j1), TV(i, j), M1);
      T = mesh_pyramid(T, BV(i, j), BV(i, j1), BV(i + 1, j1), BV(i + 1, j), M0);
    }
  for (int j = 0; j < n; ++j) {
    int j1 = (j + 1) % n;
    mesh_put_tet(T, PT, TV(k - 1, j1), TV(k - 1, j), M1);
    mesh_put_tet(T + 4, PB, BV(k - 1, j), BV(k - 1, j1), M0);
    T = mesh_prism(T + 8, M0, BV(0, j), BV(0, j1), M1, TV(0, j), TV(0, j1));
  }
#undef TV
#undef BV
  return ISO_OK;
}
