/* The surface of a deformable body's tet mesh (model_deformable.h): the faces that belong to
 * exactly one tet, found as the hydroelastic meshes' boundaries are (mesh_tet_boundary_faces,
 * host/assets/mesh_core.c), kept on the body's own vertex numbering, in (tet, face) order. */
#include <stdlib.h>
#include <string.h>

#include "host/assets/mesh.h"
#include "host/base/error.h"
#include "host/model/model_deformable.h"

isoStatus model_deformable_surface(const int *tet, int ntet, int *tri, int *tri_tet, int *ntri, const char *what) {
  unsigned char *once = (unsigned char *)calloc(ntet > 0 ? 4 * (size_t)ntet : 1, 1); /* per (tet, face) */
  if (!once) return iso_fail(ISO_ERR_NOMEM, "%s: out of memory extracting the surface of %d tetrahedra", what, ntet);
  isoStatus st = mesh_tet_boundary_faces(tet, ntet, once, NULL, what);
  if (st != ISO_OK) goto done;
  int n = 0;
  for (int e = 0; e < ntet; ++e)
    for (int f = 0; f < 4; ++f)
      if (once[4 * (size_t)e + f]) {
        for (int k = 0; k < 3; ++k) tri[3 * n + k] = tet[4 * e + mesh_tet_face_vertex(f, k)];
        tri_tet[n++] = e;
      }
  *ntri = n;
done:
  free(once);
  return st;
}
