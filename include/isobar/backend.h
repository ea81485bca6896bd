/* Backend selection: where a sim's worlds live and run. */
#ifndef ISOBAR_BACKEND_H
#define ISOBAR_BACKEND_H

#include "isobar/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum isoBackendKind {
  ISO_BACKEND_CPU = 0,  /* OpenMP over worlds on the host; bitwise identical for any thread count */
  ISO_BACKEND_CUDA = 1, /* one CUDA device; fails with ISO_ERR_BACKEND when none is usable */
  ISO_BACKEND_AUTO = 2  /* CUDA when a device is usable, otherwise CPU (reason readable) */
} isoBackendKind;

/* Parse "cpu", "cuda" or "auto" (case-sensitive). ISO_ERR_INVALID names the bad string. */
isoStatus iso_backend_parse(const char *name, isoBackendKind *out);

/* "cpu", "cuda" or "auto". */
const char *iso_backend_name(isoBackendKind kind);

/* Whether the CUDA backend was compiled into this library (1) or not (0). */
int iso_cuda_compiled(void);

/* Whether a CUDA device is usable now. Returns ISO_OK and sets *ndevice (0 when none); `why`
 * (may be NULL) receives a sentence saying why no device is usable, or which one is. */
isoStatus iso_cuda_probe(int *ndevice, char *why, int why_len);

#ifdef __cplusplus
}
#endif
#endif
