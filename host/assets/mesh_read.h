/* Internal to the mesh file readers (mesh_obj.c, mesh_vtk.c): what both do the same way; the
 * model's validation checks mesh files with mesh_read_check_file before anything opens them.
 *
 * Both readers load the whole file, parse it into growable scratch arrays and build the output
 * mesh only when everything checked out, so a failure leaves `out` untouched and every error
 * names the file and, where one exists, the line ("cube.obj:12: face index 9 out of range
 * (8 vertices)"). Nothing is printed. Numbers go through strtod/strtol, which assumes the "C"
 * numeric locale (the library never changes it).
 *
 * Scale is per axis; a NULL scale means (1, 1, 1). An odd number of negative factors mirrors
 * the mesh, which would turn every triangle inward and every tet negative, so the readers swap
 * two vertices of each element to keep the conventions of host/assets/mesh.h. */
#ifndef ISO_HOST_MESH_READ_H
#define ISO_HOST_MESH_READ_H

#include <stddef.h>
#include <string.h>

#include "isobar/status.h"

/* The most bytes a mesh file may hold: 256 MiB is about 5 million triangles of OBJ text or 2
 * million tetrahedra of ASCII VTK, far past any contact mesh worth simulating, and it keeps a
 * mistaken path (a disk image, /dev/zero) from filling memory. */
#define MESH_READ_MAX_BYTES (256 << 20)

/* ISO_OK when `path` is a regular file within MESH_READ_MAX_BYTES; ISO_ERR_IO naming the file
 * and what it is (a FIFO, a device, a folder) or the cap otherwise. Opens nothing, so a FIFO
 * never blocks. */
isoStatus mesh_read_check_file(const char *path);

/* The whole file as one NUL-terminated buffer; a regular file only, within the cap. */
isoStatus mesh_read_slurp(const char *path, char **text, size_t *len);

/* Grow *p (elements of `size` bytes, capacity *cap) to hold at least `need`. 0 when out of memory. */
int mesh_read_reserve(void **p, size_t *cap, size_t need, size_t size);

/* Scale factors: NULL means unit; each factor must be finite and non-zero. Sets *mirror when
 * an odd number of them is negative. */
isoStatus mesh_read_scale(const char *path, const double *scale, double s[3], int *mirror);

/* The lexical details both formats share: blanks within a line, and keywords compared
 * case-insensitively. */
static inline int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

static inline int ieq(const char *a, size_t alen, const char *b) {
  size_t blen = strlen(b);
  if (alen != blen) return 0;
  for (size_t i = 0; i < alen; ++i) {
    char x = a[i], y = b[i];
    if (x >= 'a' && x <= 'z') x = (char)(x - 'a' + 'A');
    if (y >= 'a' && y <= 'z') y = (char)(y - 'a' + 'A');
    if (x != y) return 0;
  }
  return 1;
}

#endif
