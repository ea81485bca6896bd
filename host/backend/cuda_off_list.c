/* The CUDA list primitives' C face when this library was built without nvcc: every entry point
 * fails with ISO_ERR_BACKEND and says so (a CUDA backend cannot exist in such a build, so these
 * are reached only through a corrupted isoBackend). */
#include "host/base/error.h"
#include "host/backend/list.h"

#define OFF_MSG "isobar was built without the CUDA backend (nvcc not found at configure time)"

size_t cuda_list_workspace_bytes(const isoBackend *b, int n_max) {
  (void)b, (void)n_max;
  iso_fail(ISO_ERR_BACKEND, "list_workspace_bytes: %s", OFF_MSG);
  return 0;
}

isoStatus cuda_list_scan(const isoBackend *b, const int *in, int *out, int n, int *total,
                         void *ws, size_t ws_bytes) {
  (void)b, (void)in, (void)out, (void)n, (void)total, (void)ws, (void)ws_bytes;
  return iso_fail(ISO_ERR_BACKEND, "list_exclusive_scan: %s", OFF_MSG);
}

isoStatus cuda_list_sort_by_key(const isoBackend *b, uint64_t *keys, int *values, int n, void *ws,
                                size_t ws_bytes) {
  (void)b, (void)keys, (void)values, (void)n, (void)ws, (void)ws_bytes;
  return iso_fail(ISO_ERR_BACKEND, "list_sort_by_key: %s", OFF_MSG);
}

isoStatus cuda_list_compact(const isoBackend *b, const int *flags, int n, int *out_index,
                            int *count, void *ws, size_t ws_bytes) {
  (void)b, (void)flags, (void)n, (void)out_index, (void)count, (void)ws, (void)ws_bytes;
  return iso_fail(ISO_ERR_BACKEND, "list_compact: %s", OFF_MSG);
}
