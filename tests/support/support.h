/* Shared helpers for the Criterion tests. */
#ifndef ISO_TESTS_SUPPORT_H
#define ISO_TESTS_SUPPORT_H

#include <stdint.h>

#include "isobar/scene.h"
#include "isobar/sim.h"

/* Deterministic pseudo-random numbers (splitmix64), so every failure reproduces. */
typedef struct { uint64_t s; } test_rng;
uint64_t test_rng_u64(test_rng *r);
double test_rng_uniform(test_rng *r, double lo, double hi); /* [lo, hi) */

/* A mkstemp/mkdtemp template "<dir>/<stem>XXXXXX" in $TMPDIR (else the system's temporary
 * directory); returns buf. */
char *test_tmp_template(char *buf, int len, const char *stem);

/* Remove a test's temporary directory: its files and empty subdirectories, then itself. An empty
 * `dir` is nothing to remove. */
void test_tmpdir_remove(const char *dir);

/* Write the SDFormat file `name` into the folder `dir` (made from `stem` by mkdtemp when dir[0]
 * is 0; dir_len bytes): the <sdf version="1.9"> element declaring drake: and xmlns_extra ("" for
 * nothing more), `body` with every MESH replaced by the absolute path of mesh_rel (a path under
 * the sources; NULL: no replacement), and </sdf>. The returned path stays valid for 8 calls. */
const char *test_write_sdf(char *dir, int dir_len, const char *stem, const char *name, const char *xmlns_extra,
                           const char *mesh_rel, const char *body);

/* ISO_SOURCE_DIR/rel (ctest sets ISO_SOURCE_DIR; the test is skipped when it is unset). The
 * result lives in one of 8 rotating buffers. */
const char *test_source_path(const char *rel);

/* The 1-based number of the first line of `path` holding `needle` (the test fails if none). */
int test_line_of(const char *path, const char *needle);

/* A scene load fails with `want`; its message names path:line (the first line of `path` holding
 * `at`) and holds `needle` (the test fails otherwise). */
void test_load_fails_at(const char *path, isoStatus want, const char *at, const char *needle);

/* A sim of m with `worlds` worlds on `backend`, `threads` CPU threads, the default capacities
 * and solver (the test fails when creation does). */
isoSim *test_sim(const isoModel *m, int worlds, isoBackendKind backend, int threads);

/* 1 when a CUDA device is usable; otherwise 0 and a reason for the skip message. */
int test_cuda_device(char *why, int why_len);

/* For the tests that need a CUDA device (the emulated one counts): without one, skip with the
 * probe's reason, or fail when ISO_REQUIRE_CUDA_DEVICE=1 (a GPU runner, where a skip would
 * hide a missing device or too old a driver behind a green run). */
void test_require_cuda_device(void);

/* 1 when the CUDA backend is the host emulation (ISO_CUDA_EMULATE). It runs the CPU backend's
 * item functions and Cholesky, compiled without contraction, so CUDA-vs-CPU comparisons are
 * bitwise there. */
int test_cuda_emulated(void);

/* 1 when the CUDA backend's step must give the CPU's bits: the emulated device, or nvcc's
 * module built with ISO_PARITY (no FMA contraction; every example scene matched on an H200).
 * Not cuSOLVER's factorizations, which are not the CPU's algorithm (test_cuda_emulated). A
 * module built with contraction rounds otherwise, and the tests keep their tolerances there. */
int test_cuda_exact(void);

/* 1 when a and b hold the same bits (NaNs and signed zeros included). */
int test_same_bits(const double *a, const double *b, int n);

#endif
