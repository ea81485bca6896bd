/* Status codes and error messages shared by every isobar call. */
#ifndef ISOBAR_STATUS_H
#define ISOBAR_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Every public function returns one of these. On anything but ISO_OK, iso_last_error() says
 * what went wrong and where, in words a user can act on; the call changed nothing. */
typedef enum isoStatus {
  ISO_OK = 0,
  ISO_ERR_NULL = 1,            /* a required pointer argument was NULL */
  ISO_ERR_INVALID = 2,         /* an argument or a model value is out of range or non-finite */
  ISO_ERR_STATE = 3,           /* the object is not in a state that allows the call */
  ISO_ERR_NOMEM = 4,           /* an allocation failed (host or device) */
  ISO_ERR_BACKEND = 5,         /* the backend asked for is not available (reason in the message) */
  ISO_ERR_CUDA = 6,            /* a CUDA, cuSOLVER or Thrust call failed */
  ISO_ERR_NOT_FOUND = 7,       /* a name or index does not exist */
  ISO_ERR_IO = 8,              /* a file could not be read or written */
  ISO_ERR_PARSE = 9,           /* a file is malformed (message carries file:line) */
  ISO_ERR_CAPACITY = 10,       /* a fixed capacity is too small */
  ISO_ERR_UNSUPPORTED = 11     /* a feature or combination isobar does not support */
} isoStatus;

/* A short constant name for a status code ("ISO_ERR_INVALID"); never NULL. */
const char *iso_status_string(isoStatus status);

/* The message of the last failed call on the calling thread ("" when none). The string is
 * owned by the library and stays valid until the next isobar call on this thread. */
const char *iso_last_error(void);

/* Forget the calling thread's last error message. */
void iso_clear_error(void);

/* The library version, "MAJOR.MINOR.PATCH". */
const char *iso_version(void);

/* sizeof a public struct by its name ("isoSimDef", "isoLoadOptions", "isoView", ...), or 0 for a
 * name it does not know: a binding that mirrors the structs checks its layouts against the
 * library it opened. */
unsigned long iso_sizeof(const char *type);

#ifdef __cplusplus
}
#endif
#endif
