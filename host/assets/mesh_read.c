/* Reading helpers shared by the OBJ and VTK readers (host/assets/mesh_read.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/base/error.h"
#include "host/assets/mesh_read.h"

static const char *file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

isoStatus mesh_read_check_file(const char *path) {
  struct stat sb;
  if (stat(path, &sb) != 0) return iso_fail(ISO_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
  if (!S_ISREG(sb.st_mode))
    return iso_fail(ISO_ERR_IO, "%s: it is %s, not a regular file (a mesh must be one)", path, file_kind(sb.st_mode));
  if (sb.st_size > MESH_READ_MAX_BYTES)
    return iso_fail(ISO_ERR_IO, "%s: %lld bytes is more than the %d MiB a mesh file may hold", path,
                    (long long)sb.st_size, MESH_READ_MAX_BYTES >> 20);
  return ISO_OK;
}

/* The stat comes first so a FIFO is never opened (opening one blocks until a writer comes);
 * O_NONBLOCK and the fstat cover a file swapped in between. The cap is checked again while
 * reading, since a file may grow after the stat. */
isoStatus mesh_read_slurp(const char *path, char **text, size_t *len) {
  isoStatus st = mesh_read_check_file(path);
  if (st != ISO_OK) return st;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return iso_fail(ISO_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
  struct stat sb;
  if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    close(fd);
    return iso_fail(ISO_ERR_IO, "%s: it changed into %s while opened", path, file_kind(sb.st_mode));
  }
  size_t cap = (size_t)sb.st_size + 2, n = 0;
  char *buf = (char *)malloc(cap);
  while (buf != NULL) {
    if (cap - n < 2) {
      char *nb = (char *)realloc(buf, cap * 2);
      if (nb == NULL) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
    ssize_t got = read(fd, buf + n, cap - n - 1);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      int err = errno;
      close(fd);
      free(buf);
      return iso_fail(ISO_ERR_IO, "%s: cannot read: %s", path, strerror(err));
    }
    if (got == 0) break;
    n += (size_t)got;
    if (n > MESH_READ_MAX_BYTES) {
      close(fd);
      free(buf);
      return iso_fail(ISO_ERR_IO, "%s: grew past the %d MiB a mesh file may hold while read", path,
                      MESH_READ_MAX_BYTES >> 20);
    }
  }
  close(fd);
  if (buf == NULL) return iso_fail(ISO_ERR_NOMEM, "%s: out of memory reading the file", path);
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
