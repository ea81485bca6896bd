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

/* ISO_SOURCE_DIR/rel (ctest sets ISO_SOURCE_DIR; the test is skipped when it is unset). The
 * result lives in one of 8 rotating buffers. */
const char *test_source_path(const char *rel);

/* The 1-based number of the first line of `path` holding `needle` (the test fails if none). */
int test_line_of(const char *path, const char *needle);

/* 1 when a CUDA device is usable; otherwise 0 and a reason for the skip message. */
int test_cuda_device(char *why, int why_len);

#endif
