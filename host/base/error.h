/* Internal: recording errors for iso_last_error(). */
#ifndef ISO_HOST_ERROR_H
#define ISO_HOST_ERROR_H

#include "isobar/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Record a printf-style message as the calling thread's last error and return `status`, so a
 * failure reads `return iso_fail(ISO_ERR_INVALID, "body '%s': mass %g must be > 0", ...)`. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
isoStatus iso_fail(isoStatus status, const char *fmt, ...);

#ifdef __cplusplus
}
#endif

/* Evaluate a call returning isoStatus; on failure jump to the function's `fail:` label with
 * `st` set. The function must declare `isoStatus st = ISO_OK;`. */
#define TRY(expr)                     \
  do {                                \
    st = (expr);                      \
    if (st != ISO_OK) goto fail;      \
  } while (0)

/* Fail with ISO_ERR_NULL naming the argument when a pointer is NULL. */
#define CHECK_NULL(ptr, fn)                                                   \
  do {                                                                        \
    if ((ptr) == NULL)                                                        \
      return iso_fail(ISO_ERR_NULL, "%s: argument '%s' is NULL", fn, #ptr);   \
  } while (0)

#endif
