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
  ISO_BACKEND_AUTO = 2  /* CUDA when a device is usable and a sim has ISO_AUTO_CUDA_MIN_WORLDS
                           worlds or more and no deformable body, otherwise CPU (the reason is
                           readable: iso_sim_backend_reason) */
} isoBackendKind;

/* The fewest worlds for which AUTO takes the GPU. The CUDA backend runs one thread per world:
 * on an H200 at 1024 worlds it already stepped the rigid contact scenes faster than 16 CPU cores
 * did at 4096; below that it was not measured, and a few worlds leave the device idle. Models
 * with deformable bodies stay on the CPU under AUTO: each world's FEM runs in one GPU thread,
 * and the soft beam ran 26 k world-steps/s there at 1024 worlds, about what four CPU cores do
 * (bench/RESULTS.md, "GPU: first measurements"). ISO_BACKEND_CUDA takes the GPU regardless. */
#define ISO_AUTO_CUDA_MIN_WORLDS 1024

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
