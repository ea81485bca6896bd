/* The sim's calls for deformable bodies (include/isobar/deformable.h): the deformed meshes of a
 * world as a VTK file. The vertex states themselves go through iso_sim_get_state and
 * iso_sim_set_state (ISO_STATE_VERTEX_POSITION, ISO_STATE_VERTEX_VELOCITY). */
#include <stdlib.h>
#include <string.h>

#include "host/assets/mesh.h"
#include "host/base/error.h"
#include "host/sim/sim_internal.h"
#include "isobar/deformable.h"

isoStatus iso_sim_write_deformed_vtk(const isoSim *s, int world, const char *path) {
  const char *fn = "iso_sim_write_deformed_vtk";
  CHECK_NULL(s, fn);
  CHECK_NULL(path, fn);
  if (world < 0 || world >= s->nworld)
    return iso_fail(ISO_ERR_INVALID, "%s: world %d is out of range [0, %d)", fn, world, s->nworld);
  const modelView *m = &s->mh;
  if (m->z.ndef == 0) return iso_fail(ISO_ERR_INVALID, "%s: the model has no deformable body", fn);
  /* one unstructured grid: every body's tets, their vertex indices offset to the body's first
   * vertex, so ParaView shows the whole world's deformables from one file */
  tetMesh t;
  memset(&t, 0, sizeof t);
  isoStatus st = tet_mesh_alloc(&t, (int)m->z.ndvert, (int)m->z.ndtet);
  if (st == ISO_OK) st = iso_sim_get_state(s, ISO_STATE_VERTEX_POSITION, iso_worlds_one(world), t.vert);
  for (int d = 0; d < m->z.ndef && st == ISO_OK; ++d)
    for (int e = m->def_tet0[d]; e < m->def_tet0[d + 1]; ++e)
      for (int k = 0; k < 4; ++k) t.tet[4 * e + k] = m->def_vert0[d] + m->def_tet[4 * e + k];
  free(t.pressure); /* no scalar field to write */
  t.pressure = NULL;
  if (st == ISO_OK) st = vtk_write_tets(path, &t);
  tet_mesh_free(&t);
  return st;
}
