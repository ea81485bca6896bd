/* Thread-local last-error message: each thread that calls isobar reads its own failures. */
#include "host/base/error.h"

#include <stdarg.h>
#include <stdio.h>

#ifndef ISO_VERSION_STRING
#define ISO_VERSION_STRING "0.0.0"
#endif

static _Thread_local char last_error[1024];

isoStatus iso_fail(isoStatus status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_error, sizeof last_error, fmt, ap);
  va_end(ap);
  return status;
}

const char *iso_last_error(void) { return last_error; }

void iso_clear_error(void) { last_error[0] = '\0'; }

const char *iso_version(void) { return ISO_VERSION_STRING; }

const char *iso_status_string(isoStatus status) {
  switch (status) {
    case ISO_OK: return "ISO_OK";
    case ISO_ERR_NULL: return "ISO_ERR_NULL";
    case ISO_ERR_INVALID: return "ISO_ERR_INVALID";
    case ISO_ERR_STATE: return "ISO_ERR_STATE";
    case ISO_ERR_NOMEM: return "ISO_ERR_NOMEM";
    case ISO_ERR_BACKEND: return "ISO_ERR_BACKEND";
    case ISO_ERR_CUDA: return "ISO_ERR_CUDA";
    case ISO_ERR_NOT_FOUND: return "ISO_ERR_NOT_FOUND";
    case ISO_ERR_IO: return "ISO_ERR_IO";
    case ISO_ERR_PARSE: return "ISO_ERR_PARSE";
    case ISO_ERR_CAPACITY: return "ISO_ERR_CAPACITY";
    case ISO_ERR_UNSUPPORTED: return "ISO_ERR_UNSUPPORTED";
  }
  return "ISO_ERR_UNKNOWN";
}
