/* libFuzzer harness: the glTF reader (mesh_read_gltf), JSON .gltf with embedded base64 buffers
 * and binary .glb alike: an input starting with the .glb magic is written as .glb. */
#include <string.h>

#include "fuzz/fuzz_common.h"
#include "host/assets/mesh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const int glb = size >= 4 && memcmp(data, "glTF", 4) == 0;
  const char *path = fuzz_write_input(data, size, glb ? ".glb" : ".gltf");
  triMesh m = {0};
  if (mesh_read_gltf(path, NULL, &m) == ISO_OK) tri_mesh_free(&m);
  return 0;
}
