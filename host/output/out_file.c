/* Output files written to a temporary and renamed over the target (host/output/out_file.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/base/error.h"
#include "host/output/out_file.h"
#include "isobar/deformable.h"
#include "isobar/geometry.h"

static const char *file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

static char *dup_str(const char *s) {
  char *d = (char *)malloc(strlen(s) + 1);
  if (d) strcpy(d, s);
  return d;
}

static void zero(outFile *o) {
  free(o->target);
  free(o->tmp);
  memset(o, 0, sizeof *o);
}

/* The target with symbolic links resolved when it exists; *mode its permission bits, -1 for a
 * new file. */
static isoStatus resolve_target(const char *path, char **target, int *mode) {
  struct stat sb;
  *mode = -1;
  if (stat(path, &sb) != 0) {
    if (errno != ENOENT) return iso_fail(ISO_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    *target = dup_str(path);
  } else {
    if (!S_ISREG(sb.st_mode))
      return iso_fail(ISO_ERR_IO, "%s: cannot write: it is %s, and isobar writes only regular files", path,
                      file_kind(sb.st_mode));
    *mode = (int)(sb.st_mode & 07777);
    *target = realpath(path, NULL);
  }
  if (!*target) return iso_fail(ISO_ERR_NOMEM, "%s: out of memory", path);
  return ISO_OK;
}

/* A new file beside the target: "<dir>/.<name>.<pid>-<n>.tmp", created exclusively so nothing
 * that exists is ever opened, with mode 0666 so the umask applies as for any new file. */
static int create_tmp(const char *target, char **tmp) {
  static _Thread_local unsigned counter;
  const char *slash = strrchr(target, '/');
  int dirlen = slash ? (int)(slash - target + 1) : 0;
  const char *base = slash ? slash + 1 : target;
  size_t len = strlen(target) + 64;
  char *p = (char *)malloc(len);
  if (!p) {
    errno = ENOMEM;
    return -1;
  }
  for (int tries = 0; tries < 100; ++tries) {
    snprintf(p, len, "%.*s.%s.%ld-%u.tmp", dirlen, target, base, (long)getpid(), counter++);
    int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      *tmp = p;
      return fd;
    }
    if (errno != EEXIST) break;
  }
  free(p);
  return -1;
}

isoStatus out_open(outFile *o, const char *path) {
  memset(o, 0, sizeof *o);
  CHECK_NULL(path, "out_open");
  int mode;
  isoStatus st = resolve_target(path, &o->target, &mode);
  if (st != ISO_OK) {
    zero(o);
    return st;
  }
  int fd = create_tmp(o->target, &o->tmp);
  if (fd < 0) {
    int err = errno;
    zero(o);
    return iso_fail(ISO_ERR_IO, "%s: cannot create a temporary file beside it to write: %s", path, strerror(err));
  }
  if (mode >= 0) (void)fchmod(fd, (mode_t)mode); /* best effort: the data matters more */
  o->f = fdopen(fd, "w");
  if (!o->f) {
    int err = errno;
    close(fd);
    unlink(o->tmp);
    zero(o);
    return iso_fail(ISO_ERR_IO, "%s: cannot write: %s", path, strerror(err));
  }
  return ISO_OK;
}

isoStatus out_commit(outFile *o) {
  if (!o->f) {
    zero(o);
    return ISO_OK;
  }
  int err = 0;
  if (ferror(o->f)) err = errno ? errno : EIO;
  if (!err && fflush(o->f) != 0) err = errno;
  /* Synced before the rename, or a crash could leave the new name on an empty file. Some file
   * systems cannot sync (EINVAL): nothing is lost there that a sync would have kept. */
  if (!err && fsync(fileno(o->f)) != 0 && errno != EINVAL) err = errno;
  if (fclose(o->f) != 0 && !err) err = errno;
  o->f = NULL;
  if (!err && rename(o->tmp, o->target) != 0) err = errno;
  if (err) {
    unlink(o->tmp);
    isoStatus st = iso_fail(ISO_ERR_IO, "%s: write failed: %s (nothing was written there)", o->target, strerror(err));
    zero(o);
    return st;
  }
  zero(o);
  return ISO_OK;
}

void out_abort(outFile *o) {
  if (o->f) fclose(o->f);
  if (o->tmp) unlink(o->tmp);
  zero(o);
}

static int same_file(const struct stat *a, const char *path) {
  struct stat b;
  return path && stat(path, &b) == 0 && a->st_dev == b.st_dev && a->st_ino == b.st_ino;
}

isoStatus out_check_not_input(const char *out, const char *what, const char *scene, const isoModel *model) {
  struct stat so;
  if (!out || stat(out, &so) != 0) return ISO_OK; /* nothing there yet: it cannot be an input */
  if (same_file(&so, scene))
    return iso_fail(ISO_ERR_INVALID, "%s '%s' is the scene file '%s': isobar never writes over its input", what, out,
                    scene);
  int n = model ? iso_model_geometry_count(model) : 0;
  for (int i = 0; i < n; ++i) {
    isoGeometryDef g;
    if (iso_model_get_geometry(model, i, &g) == ISO_OK && g.mesh_file && same_file(&so, g.mesh_file))
      return iso_fail(ISO_ERR_INVALID, "%s '%s' is the mesh file of geometry '%s': isobar never writes over its input",
                      what, out, g.name ? g.name : "");
  }
  n = model ? iso_model_deformable_count(model) : 0;
  for (int i = 0; i < n; ++i) {
    isoDeformableDef d;
    if (iso_model_get_deformable(model, i, &d) == ISO_OK && d.mesh_file && same_file(&so, d.mesh_file))
      return iso_fail(ISO_ERR_INVALID, "%s '%s' is the mesh file of deformable '%s': isobar never writes over its input",
                      what, out, d.name ? d.name : "");
  }
  return ISO_OK;
}
