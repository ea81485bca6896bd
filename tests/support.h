/* Shared helpers for the Criterion tests. */
#ifndef ISO_TESTS_SUPPORT_H
#define ISO_TESTS_SUPPORT_H

#include <stdint.h>

/* Deterministic pseudo-random numbers (splitmix64), so every failure reproduces. */
typedef struct { uint64_t s; } test_rng;
uint64_t test_rng_u64(test_rng *r);
double test_rng_uniform(test_rng *r, double lo, double hi); /* [lo, hi) */

/* A mkstemp/mkdtemp template "<dir>/<stem>XXXXXX" in $TMPDIR (else the system's temporary
 * directory); returns buf. */
char *test_tmp_template(char *buf, int len, const char *stem);

/* 1 when a CUDA device is usable; otherwise 0 and a reason for the skip message. */
int test_cuda_device(char *why, int why_len);

#endif
