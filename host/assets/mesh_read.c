/* Reading helpers shared by the OBJ and VTK readers (host/assets/mesh_read.h). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/assets/mesh_read.h"

/* The whole file as one NUL-terminated buffer (read in chunks, so pipes work too). */
isoStatus mesh_read_slurp(const char *path, char **text, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return iso_fail(ISO_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
  size_t cap = 1 << 16, n = 0;
  char *buf = (char *)malloc(cap);
  while (buf != NULL) {
    if (cap - n < 2) {
      char *nb = (cap > SIZE_MAX / 2) ? NULL : (char *)realloc(buf, cap * 2);
      if (nb == NULL) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
    size_t got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
    if (got == 0) break;
  }
  if (buf == NULL) {
    fclose(f);
    return iso_fail(ISO_ERR_NOMEM, "%s: out of memory reading the file", path);
  }
  if (ferror(f)) {
    int err = errno;
    fclose(f);
    free(buf);
    return iso_fail(ISO_ERR_IO, "%s: cannot read: %s", path, strerror(err));
  }
  fclose(f);
  buf[n] = '\0';
  *text = buf;
  *len = n;
  return ISO_OK;
}

/* Grow *p (elements of `size` bytes, capacity *cap) to hold at least `need`. 0 when out of memory. */
int mesh_read_reserve(void **p, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return 1;
  size_t c = *cap ? *cap : 64;
  while (c < need) c *= 2;
  if (c > SIZE_MAX / size) return 0;
  void *q = realloc(*p, c * size);
  if (q == NULL) return 0;
  *p = q;
  *cap = c;
  return 1;
}

/* Scale factors: NULL means unit; each factor must be finite and non-zero. Sets *mirror when
 * an odd number of them is negative. */
isoStatus mesh_read_scale(const char *path, const double *scale, double s[3], int *mirror) {
  int neg = 0;
  for (int k = 0; k < 3; ++k) {
    s[k] = scale ? scale[k] : 1.0;
    if (!isfinite(s[k]) || s[k] == 0)
      return iso_fail(ISO_ERR_INVALID, "%s: scale (%g, %g, %g) must be finite and non-zero on every axis", path,
                      s[0], scale ? scale[1] : 1.0, scale ? scale[2] : 1.0);
    neg += s[k] < 0;
  }
  *mirror = neg % 2;
  return ISO_OK;
}
