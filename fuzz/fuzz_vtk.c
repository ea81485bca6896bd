/* libFuzzer harness: the legacy ASCII VTK tetrahedron reader (mesh_read_vtk). */
#include "fuzz/fuzz_common.h"
#include "host/assets/mesh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_write_input(data, size, ".vtk");
  static const double mirror[3] = {-1, 2, 1};
  tetMesh m = {0};
  if (mesh_read_vtk(path, size && (data[0] & 1) ? mirror : NULL, &m) == ISO_OK) tet_mesh_free(&m);
  return 0;
}
