/* libFuzzer harness: the Wavefront OBJ reader (mesh_read_obj), open and closed meshes. */
#include "fuzz/fuzz_common.h"
#include "host/assets/mesh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_write_input(data, size, ".obj");
  /* The first byte picks the scale and whether the mesh must be closed, so mirrored and
   * non-uniform scales are covered as well as the plain read. */
  static const double scales[4][3] = {{1, 1, 1}, {-1, 1, 1}, {2, 0.5, 3}, {-1, -1, -1}};
  const int pick = size ? data[0] & 3 : 0;
  const int closed = size ? (data[0] >> 2) & 1 : 0;
  triMesh m = {0};
  if (mesh_read_obj(path, pick ? scales[pick] : NULL, closed, &m) == ISO_OK) tri_mesh_free(&m);
  return 0;
}
