/* List primitives (host/backend/list.h) against simple reference loops on random inputs, for many sizes
 * (below, at and above the CPU's chunk size, so one and several chunks both run) and 1, 2 and 3
 * threads. Everything is integer, so every comparison is exact. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/backend/backend.h"
#include "host/backend/list.h"
#include "support/support.h"

static const int sizes[] = {0, 1, 2, 7, 255, 1000, 8191, 8192, 16385, 30001, 100003};
enum { NSIZES = sizeof sizes / sizeof sizes[0], NMAX = 100003 };

static void *xmalloc(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  cr_assert_not_null(p);
  return p;
}

static isoBackend cpu(int threads) {
  isoBackend b;
  cr_assert_eq(backend_init(&b, ISO_BACKEND_CPU, threads, NULL), ISO_OK);
  return b;
}

/* Index of the first difference, or -1. */
static int first_diff(const void *a, const void *b, int n, size_t size) {
  for (int i = 0; i < n; ++i)
    if (memcmp((const char *)a + (size_t)i * size, (const char *)b + (size_t)i * size, size) != 0)
      return i;
  return -1;
}

/* ---- references ---------------------------------------------------------------------------- */

static long long ref_scan(const int *in, int *out, int n) {
  long long s = 0;
  for (int i = 0; i < n; ++i) {
    out[i] = (int)s;
    s += in[i];
  }
  return s;
}

typedef struct {
  uint64_t key;
  int index;
} key_index;

/* Ordering by (key, input index) makes qsort's unstable order the unique stable one. */
static int cmp_key_index(const void *pa, const void *pb) {
  const key_index *a = (const key_index *)pa, *b = (const key_index *)pb;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  return (a->index > b->index) - (a->index < b->index);
}

static void ref_sort(uint64_t *keys, int *values, int n) {
  key_index *t = (key_index *)xmalloc((size_t)n * sizeof *t);
  int *v = (int *)xmalloc((size_t)n * sizeof *v);
  for (int i = 0; i < n; ++i) t[i].key = keys[i], t[i].index = i, v[i] = values[i];
  qsort(t, (size_t)n, sizeof *t, cmp_key_index);
  for (int i = 0; i < n; ++i) keys[i] = t[i].key, values[i] = v[t[i].index];
  free(t);
  free(v);
}

static int ref_compact(const int *flags, int n, int *out) {
  int k = 0;
  for (int i = 0; i < n; ++i)
    if (flags[i] != 0) out[k++] = i;
  return k;
}

/* ---- drivers: run one primitive on backend b with an exactly sized workspace ----------------- */

static void run_scan(const isoBackend *b, const int *in, int *out, int n, int *total, int in_place) {
  size_t wsb = list_workspace_bytes(b, n);
  void *ws = xmalloc(wsb);
  if (in_place) {
    memcpy(out, in, (size_t)n * sizeof *out);
    cr_assert_eq(list_exclusive_scan(b, out, out, n, total, ws, wsb), ISO_OK, "%s", iso_last_error());
  } else {
    cr_assert_eq(list_exclusive_scan(b, in, out, n, total, ws, wsb), ISO_OK, "%s", iso_last_error());
  }
  free(ws);
}

static void run_sort(const isoBackend *b, uint64_t *keys, int *values, int n) {
  size_t wsb = list_workspace_bytes(b, n);
  void *ws = xmalloc(wsb);
  cr_assert_eq(list_sort_by_key(b, keys, values, n, ws, wsb), ISO_OK, "%s", iso_last_error());
  free(ws);
}

static int run_compact(const isoBackend *b, const int *flags, int n, int *out) {
  size_t wsb = list_workspace_bytes(b, n);
  void *ws = xmalloc(wsb);
  int count = -1;
  cr_assert_eq(list_compact(b, flags, n, out, &count, ws, wsb), ISO_OK, "%s", iso_last_error());
  free(ws);
  return count;
}

/* ---- exclusive scan ------------------------------------------------------------------------ */

/* lo..hi: counts (non-negative) and signed values both. */
static void check_scan(int lo, int hi) {
  test_rng r = {42};
  int *in = (int *)xmalloc(NMAX * sizeof(int)), *out = (int *)xmalloc(NMAX * sizeof(int));
  int *ref = (int *)xmalloc(NMAX * sizeof(int));
  for (int t = 1; t <= 3; ++t) {
    isoBackend b = cpu(t);
    for (int s = 0; s < NSIZES; ++s) {
      int n = sizes[s];
      for (int i = 0; i < n; ++i) in[i] = (int)test_rng_uniform(&r, lo, hi);
      long long want = ref_scan(in, ref, n);
      for (int in_place = 0; in_place <= 1; ++in_place) {
        int total = -12345;
        run_scan(&b, in, out, n, &total, in_place);
        int d = first_diff(out, ref, n, sizeof *out);
        cr_assert_eq(d, -1, "t=%d n=%d in_place=%d: out[%d] = %d, want %d", t, n, in_place, d,
                     d >= 0 ? out[d] : 0, d >= 0 ? ref[d] : 0);
        cr_assert_eq(total, want, "t=%d n=%d: total %d, want %lld", t, n, total, want);
      }
      run_scan(&b, in, out, n, NULL, 0); /* total is optional */
      cr_assert_eq(first_diff(out, ref, n, sizeof *out), -1, "t=%d n=%d without total", t, n);
    }
    backend_release(&b);
  }
  free(in), free(out), free(ref);
}

Test(list, scan_counts_matches_reference) { check_scan(0, 1000); }
Test(list, scan_signed_matches_reference) { check_scan(-1000, 1000); }

Test(list, scan_extremes_within_int_range) {
  isoBackend b = cpu(2);
  int in[3] = {INT_MAX - 5, 5, 0}, out[3], total = 0;
  run_scan(&b, in, out, 3, &total, 0);
  cr_assert(out[0] == 0 && out[1] == INT_MAX - 5 && out[2] == INT_MAX);
  cr_assert_eq(total, INT_MAX);
  int neg[2] = {INT_MIN, 0};
  run_scan(&b, neg, out, 2, &total, 0);
  cr_assert(out[0] == 0 && out[1] == INT_MIN && total == INT_MIN);
  backend_release(&b);
}

Test(list, scan_overflow_is_refused_and_writes_nothing) {
  isoBackend b = cpu(3);
  size_t wsb = list_workspace_bytes(&b, NMAX);
  void *ws = xmalloc(wsb);
  int out[3] = {7, 7, 7}, total = 7;
  /* The total overflows. */
  int a[2] = {INT_MAX, 1};
  cr_assert_eq(list_exclusive_scan(&b, a, out, 2, &total, ws, wsb), ISO_ERR_CAPACITY);
  cr_assert(strstr(iso_last_error(), "int range") != NULL, "%s", iso_last_error());
  /* Only a prefix overflows; the total (INT_MAX - 1) would fit. */
  int c[3] = {INT_MAX, 1, -2};
  cr_assert_eq(list_exclusive_scan(&b, c, out, 3, &total, ws, wsb), ISO_ERR_CAPACITY);
  int d[2] = {INT_MIN, -1};
  cr_assert_eq(list_exclusive_scan(&b, d, out, 2, NULL, ws, wsb), ISO_ERR_CAPACITY);
  cr_assert(out[0] == 7 && out[1] == 7 && out[2] == 7 && total == 7, "a refused scan wrote");
  /* Across several chunks (3 threads): 100003 x 30000 > INT_MAX, in place. */
  int *big = (int *)xmalloc(NMAX * sizeof(int));
  for (int i = 0; i < NMAX; ++i) big[i] = 30000;
  cr_assert_eq(list_exclusive_scan(&b, big, big, NMAX, &total, ws, wsb), ISO_ERR_CAPACITY);
  for (int i = 0; i < NMAX; ++i) cr_assert_eq(big[i], 30000, "in-place input changed at %d", i);
  free(big), free(ws);
  backend_release(&b);
}

/* ---- sort by key --------------------------------------------------------------------------- */

typedef enum { KEYS_DUP, KEYS_FULL, KEYS_BYTE, KEYS_SHORT, KEYS_HIGH, KEYS_SAME } key_kind;

static uint64_t make_key(test_rng *r, key_kind kind) {
  switch (kind) {
    case KEYS_DUP: return test_rng_u64(r) % 16;                     /* many equal keys */
    case KEYS_FULL: return test_rng_u64(r);                         /* all 8 bytes vary */
    case KEYS_BYTE: return test_rng_u64(r) % 200;                   /* one pass: odd count */
    case KEYS_SHORT: return test_rng_u64(r) % 50000;                /* two passes */
    case KEYS_HIGH: return (test_rng_u64(r) % 4) << 56 | 0x1234;   /* only the top byte varies */
    case KEYS_SAME: return 0xABCDEF0123456789ull;                   /* no pass at all */
  }
  return 0;
}

static void check_sort(key_kind kind) {
  test_rng r = {42};
  uint64_t *k = (uint64_t *)xmalloc(NMAX * sizeof *k), *rk = (uint64_t *)xmalloc(NMAX * sizeof *rk);
  int *v = (int *)xmalloc(NMAX * sizeof *v), *rv = (int *)xmalloc(NMAX * sizeof *rv);
  for (int t = 1; t <= 3; ++t) {
    isoBackend b = cpu(t);
    for (int s = 0; s < NSIZES; ++s) {
      int n = sizes[s];
      for (int i = 0; i < n; ++i) {
        rk[i] = k[i] = make_key(&r, kind);
        rv[i] = v[i] = (int)(test_rng_u64(&r) >> 33); /* values unrelated to the order */
      }
      ref_sort(rk, rv, n);
      run_sort(&b, k, v, n);
      int dk = first_diff(k, rk, n, sizeof *k), dv = first_diff(v, rv, n, sizeof *v);
      cr_assert_eq(dk, -1, "kind=%d t=%d n=%d: keys differ at %d", (int)kind, t, n, dk);
      cr_assert_eq(dv, -1, "kind=%d t=%d n=%d: values differ at %d (stability)", (int)kind, t, n, dv);
    }
    backend_release(&b);
  }
  free(k), free(rk), free(v), free(rv);
}

Test(list, sort_duplicate_keys_is_stable) { check_sort(KEYS_DUP); }
Test(list, sort_full_64bit_keys) { check_sort(KEYS_FULL); }
Test(list, sort_small_keys_one_pass) { check_sort(KEYS_BYTE); }
Test(list, sort_small_keys_two_passes) { check_sort(KEYS_SHORT); }
Test(list, sort_only_high_byte_varies) { check_sort(KEYS_HIGH); }
Test(list, sort_equal_keys_keeps_order) { check_sort(KEYS_SAME); }

/* ---- compaction ---------------------------------------------------------------------------- */

typedef enum { FLAGS_ZERO, FLAGS_ONE, FLAGS_RANDOM, FLAGS_ANY_NONZERO } flag_kind;

static void check_compact(flag_kind kind) {
  test_rng r = {42};
  int *f = (int *)xmalloc(NMAX * sizeof *f), *out = (int *)xmalloc(NMAX * sizeof *out);
  int *ref = (int *)xmalloc(NMAX * sizeof *ref);
  for (int t = 1; t <= 3; ++t) {
    isoBackend b = cpu(t);
    for (int s = 0; s < NSIZES; ++s) {
      int n = sizes[s];
      for (int i = 0; i < n; ++i) {
        double u = test_rng_uniform(&r, 0, 1);
        f[i] = kind == FLAGS_ZERO ? 0
             : kind == FLAGS_ONE ? 1
             : kind == FLAGS_RANDOM ? u < 0.3
             : (u < 0.5 ? 0 : (int)test_rng_uniform(&r, -100, 100) | 1); /* any nonzero value */
      }
      int want = ref_compact(f, n, ref);
      int count = run_compact(&b, f, n, out);
      cr_assert_eq(count, want, "kind=%d t=%d n=%d: count %d, want %d", (int)kind, t, n, count, want);
      int d = first_diff(out, ref, count, sizeof *out);
      cr_assert_eq(d, -1, "kind=%d t=%d n=%d: out_index[%d] differs", (int)kind, t, n, d);
    }
    backend_release(&b);
  }
  free(f), free(out), free(ref);
}

Test(list, compact_all_zero) { check_compact(FLAGS_ZERO); }
Test(list, compact_all_one) { check_compact(FLAGS_ONE); }
Test(list, compact_random) { check_compact(FLAGS_RANDOM); }
Test(list, compact_any_nonzero_flag_counts) { check_compact(FLAGS_ANY_NONZERO); }

/* ---- determinism, edge cases, errors ------------------------------------------------------- */

Test(list, bitwise_identical_across_thread_counts) {
  enum { N = NMAX };
  test_rng r = {7};
  int *in = (int *)xmalloc(N * sizeof *in);
  uint64_t *k0 = (uint64_t *)xmalloc(N * sizeof *k0);
  for (int i = 0; i < N; ++i) in[i] = (int)test_rng_uniform(&r, -50, 1000), k0[i] = test_rng_u64(&r) % 1000;
  int *scan[4], *vals[4], *idx[4], total[4], count[4];
  uint64_t *keys[4];
  for (int t = 1; t <= 3; ++t) {
    isoBackend b = cpu(t);
    scan[t] = (int *)xmalloc(N * sizeof(int)), idx[t] = (int *)xmalloc(N * sizeof(int));
    vals[t] = (int *)xmalloc(N * sizeof(int)), keys[t] = (uint64_t *)xmalloc(N * sizeof(uint64_t));
    memcpy(keys[t], k0, N * sizeof *k0);
    for (int i = 0; i < N; ++i) vals[t][i] = i;
    run_scan(&b, in, scan[t], N, &total[t], 0);
    run_sort(&b, keys[t], vals[t], N);
    count[t] = run_compact(&b, in, N, idx[t]); /* the nonzero inputs */
    backend_release(&b);
  }
  for (int t = 2; t <= 3; ++t) {
    cr_assert(total[t] == total[1] && count[t] == count[1], "t=%d", t);
    cr_assert_eq(memcmp(scan[t], scan[1], N * sizeof(int)), 0, "scan t=%d", t);
    cr_assert_eq(memcmp(keys[t], keys[1], N * sizeof(uint64_t)), 0, "sort keys t=%d", t);
    cr_assert_eq(memcmp(vals[t], vals[1], N * sizeof(int)), 0, "sort values t=%d", t);
    cr_assert_eq(memcmp(idx[t], idx[1], (size_t)count[1] * sizeof(int)), 0, "compact t=%d", t);
  }
  for (int t = 1; t <= 3; ++t) free(scan[t]), free(idx[t]), free(vals[t]), free(keys[t]);
  free(in), free(k0);
}

Test(list, empty_input_needs_no_buffers) {
  isoBackend b = cpu(2);
  cr_assert_eq(list_workspace_bytes(&b, 0), 0);
  int total = 9, count = 9;
  cr_assert_eq(list_exclusive_scan(&b, NULL, NULL, 0, &total, NULL, 0), ISO_OK);
  cr_assert_eq(total, 0);
  cr_assert_eq(list_sort_by_key(&b, NULL, NULL, 0, NULL, 0), ISO_OK);
  cr_assert_eq(list_compact(&b, NULL, 0, NULL, &count, NULL, 0), ISO_OK);
  cr_assert_eq(count, 0);
  backend_release(&b);
}

Test(list, misaligned_workspace_is_fine) {
  isoBackend b = cpu(3);
  enum { N = 30001 };
  size_t wsb = list_workspace_bytes(&b, N);
  char *buf = (char *)xmalloc(wsb + 1);
  int *in = (int *)xmalloc(N * sizeof *in), *out = (int *)xmalloc(N * sizeof *out);
  for (int i = 0; i < N; ++i) in[i] = i % 3;
  int total, *ref = (int *)xmalloc(N * sizeof *ref);
  long long want = ref_scan(in, ref, N);
  /* The slack in the query covers aligning any pointer. */
  cr_assert_eq(list_exclusive_scan(&b, in, out, N, &total, buf + 1, wsb), ISO_OK, "%s", iso_last_error());
  cr_assert(total == want && first_diff(out, ref, N, sizeof *out) == -1);
  free(buf), free(in), free(out), free(ref);
  backend_release(&b);
}

Test(list, workspace_for_n_max_serves_smaller_n) {
  isoBackend b = cpu(3);
  size_t big = list_workspace_bytes(&b, NMAX);
  for (int s = 0; s < NSIZES; ++s) cr_assert_leq(list_workspace_bytes(&b, sizes[s]), big);
  backend_release(&b);
}

Test(list, small_workspace_is_refused_naming_sizes) {
  isoBackend b = cpu(2);
  enum { N = 1000 };
  size_t wsb = list_workspace_bytes(&b, N);
  char *ws = (char *)xmalloc(wsb);
  int in[N], out[N], total = 5, count = 5;
  uint64_t keys[N];
  for (int i = 0; i < N; ++i) in[i] = 1, out[i] = -1, keys[i] = (uint64_t)(N - i);
  /* Too small even for the smallest primitive: all three refuse. */
  cr_assert_eq(list_exclusive_scan(&b, in, out, N, &total, ws, 16), ISO_ERR_CAPACITY);
  cr_assert(strstr(iso_last_error(), "workspace of 16 bytes") != NULL, "%s", iso_last_error());
  cr_assert(strstr(iso_last_error(), "bytes needed for n = 1000") != NULL, "%s", iso_last_error());
  cr_assert_eq(list_compact(&b, in, N, out, &count, ws, 16), ISO_ERR_CAPACITY);
  /* The sort needs the most (two more key and value buffers): half the query is refused. */
  cr_assert_eq(list_sort_by_key(&b, keys, in, N, ws, wsb / 2), ISO_ERR_CAPACITY);
  cr_assert(strstr(iso_last_error(), "list_sort_by_key") != NULL, "%s", iso_last_error());
  cr_assert(total == 5 && count == 5 && out[0] == -1 && keys[0] == N, "a refused call wrote");
  /* No workspace at all. */
  cr_assert_eq(list_exclusive_scan(&b, in, out, N, &total, NULL, wsb), ISO_ERR_NULL);
  cr_assert_eq(list_exclusive_scan(&b, in, out, N, &total, NULL, 0), ISO_ERR_CAPACITY);
  free(ws);
  backend_release(&b);
}

/* The smallest workspace each call accepts is really enough: run every primitive in a buffer of
 * exactly that size (the sanitizer build catches any overrun), and one byte less is refused. */
static isoStatus call_with(int which, const isoBackend *b, int n, void *ws, size_t wsb, int *buf,
                           uint64_t *keys) {
  int total, count;
  switch (which) {
    case 0: return list_exclusive_scan(b, buf, buf + n, n, &total, ws, wsb);
    case 1: return list_sort_by_key(b, keys, buf, n, ws, wsb);
    default: return list_compact(b, buf, n, buf + n, &count, ws, wsb);
  }
}

Test(list, smallest_accepted_workspace_is_enough) {
  isoBackend b = cpu(3);
  enum { N = 30001 };
  int *buf = (int *)xmalloc(2 * N * sizeof *buf);
  uint64_t *keys = (uint64_t *)xmalloc(N * sizeof *keys);
  test_rng r = {3};
  size_t wsb = list_workspace_bytes(&b, N);
  char *big = (char *)aligned_alloc(64, (wsb + 63) / 64 * 64);
  cr_assert_not_null(big);
  for (int which = 0; which < 3; ++which) {
    size_t lo = 0, hi = wsb; /* refused at lo (nothing), accepted at hi */
    for (int i = 0; i < N; ++i) buf[i] = i % 2, keys[i] = test_rng_u64(&r);
    while (hi - lo > 1) {
      size_t mid = lo + (hi - lo) / 2;
      if (call_with(which, &b, N, big, mid, buf, keys) == ISO_OK) hi = mid;
      else lo = mid;
    }
    char *exact = (char *)aligned_alloc(64, (hi + 63) / 64 * 64);
    cr_assert_not_null(exact);
    cr_assert_eq(call_with(which, &b, N, exact, hi, buf, keys), ISO_OK, "which=%d", which);
    cr_assert_eq(call_with(which, &b, N, exact, hi - 1, buf, keys), ISO_ERR_CAPACITY, "which=%d", which);
    free(exact);
  }
  free(big), free(buf), free(keys);
  backend_release(&b);
}

Test(list, bad_arguments_are_refused) {
  isoBackend b = cpu(1);
  size_t wsb = list_workspace_bytes(&b, 10);
  void *ws = xmalloc(wsb);
  int in[10] = {0}, out[10], count;
  uint64_t keys[10] = {0};
  cr_assert_eq(list_exclusive_scan(&b, in, out, -1, NULL, ws, wsb), ISO_ERR_INVALID);
  cr_assert(strstr(iso_last_error(), "n = -1") != NULL, "%s", iso_last_error());
  cr_assert_eq(list_sort_by_key(&b, keys, in, -3, ws, wsb), ISO_ERR_INVALID);
  cr_assert_eq(list_compact(&b, in, -2, out, &count, ws, wsb), ISO_ERR_INVALID);
  cr_assert_eq(list_workspace_bytes(&b, -5), 0);
  cr_assert_eq(list_exclusive_scan(NULL, in, out, 10, NULL, ws, wsb), ISO_ERR_NULL);
  cr_assert_eq(list_exclusive_scan(&b, NULL, out, 10, NULL, ws, wsb), ISO_ERR_NULL);
  cr_assert_eq(list_exclusive_scan(&b, in, NULL, 10, NULL, ws, wsb), ISO_ERR_NULL);
  cr_assert_eq(list_sort_by_key(&b, NULL, in, 10, ws, wsb), ISO_ERR_NULL);
  cr_assert_eq(list_sort_by_key(&b, keys, NULL, 10, ws, wsb), ISO_ERR_NULL);
  cr_assert_eq(list_compact(&b, in, 10, out, NULL, ws, wsb), ISO_ERR_NULL);
  cr_assert_eq(list_compact(&b, NULL, 10, out, &count, ws, wsb), ISO_ERR_NULL);
  cr_assert_eq(list_compact(&b, in, 10, NULL, &count, ws, wsb), ISO_ERR_NULL);
  cr_assert(strstr(iso_last_error(), "out_index") != NULL, "%s", iso_last_error());
  free(ws);
  backend_release(&b);
}

/* ---- CUDA against the CPU --------------------------------------------------------------------- */

Test(list, cuda_matches_cpu) {
  test_require_cuda_device();
  isoBackend g, c = cpu(3);
  cr_assert_eq(backend_init(&g, ISO_BACKEND_CUDA, 1, NULL), ISO_OK, "%s", iso_last_error());
  size_t gwsb = list_workspace_bytes(&g, NMAX);
  cr_assert_gt(gwsb, 0, "%s", iso_last_error());
  void *gws, *din, *dout, *dkeys;
  cr_assert_eq(backend_alloc(&g, &gws, gwsb), ISO_OK);
  cr_assert_eq(backend_alloc(&g, &din, NMAX * sizeof(int)), ISO_OK);
  cr_assert_eq(backend_alloc(&g, &dout, NMAX * sizeof(int)), ISO_OK);
  cr_assert_eq(backend_alloc(&g, &dkeys, NMAX * sizeof(uint64_t)), ISO_OK);
  int *in = (int *)xmalloc(NMAX * sizeof(int)), *want = (int *)xmalloc(NMAX * sizeof(int));
  int *got = (int *)xmalloc(NMAX * sizeof(int));
  uint64_t *k = (uint64_t *)xmalloc(NMAX * sizeof *k), *gk = (uint64_t *)xmalloc(NMAX * sizeof *gk);
  test_rng r = {42};
  for (int s = 0; s < NSIZES; ++s) {
    int n = sizes[s];
    size_t ib = (size_t)n * sizeof(int);
    for (int i = 0; i < n; ++i) in[i] = (int)test_rng_uniform(&r, 0, 4) == 0 ? 0 : (int)test_rng_uniform(&r, 0, 1000);
    /* scan, out of place and in place */
    int tc = -1, tg = -2;
    run_scan(&c, in, want, n, &tc, 0);
    cr_assert_eq(backend_upload(&g, din, in, ib), ISO_OK);
    cr_assert_eq(list_exclusive_scan(&g, (const int *)din, (int *)dout, n, &tg, gws, gwsb), ISO_OK, "%s", iso_last_error());
    cr_assert_eq(backend_download(&g, got, dout, ib), ISO_OK);
    cr_assert(tc == tg && first_diff(got, want, n, sizeof(int)) == -1, "cuda scan n=%d", n);
    cr_assert_eq(list_exclusive_scan(&g, (const int *)din, (int *)din, n, NULL, gws, gwsb), ISO_OK, "%s", iso_last_error());
    cr_assert_eq(backend_download(&g, got, din, ib), ISO_OK);
    cr_assert_eq(first_diff(got, want, n, sizeof(int)), -1, "cuda in-place scan n=%d", n);
    /* compaction of the nonzero inputs */
    int cc = run_compact(&c, in, n, want), cg = -1;
    cr_assert_eq(backend_upload(&g, din, in, ib), ISO_OK);
    cr_assert_eq(list_compact(&g, (const int *)din, n, (int *)dout, &cg, gws, gwsb), ISO_OK, "%s", iso_last_error());
    cr_assert_eq(backend_download(&g, got, dout, (size_t)cg * sizeof(int)), ISO_OK);
    cr_assert(cc == cg && first_diff(got, want, cc, sizeof(int)) == -1, "cuda compact n=%d", n);
    /* stable sort, duplicate-heavy and full keys */
    for (int kind = KEYS_DUP; kind <= KEYS_FULL; ++kind) {
      for (int i = 0; i < n; ++i) k[i] = make_key(&r, (key_kind)kind), in[i] = i;
      cr_assert_eq(backend_upload(&g, dkeys, k, (size_t)n * sizeof *k), ISO_OK);
      cr_assert_eq(backend_upload(&g, din, in, ib), ISO_OK);
      run_sort(&c, k, in, n);
      cr_assert_eq(list_sort_by_key(&g, (uint64_t *)dkeys, (int *)din, n, gws, gwsb), ISO_OK, "%s", iso_last_error());
      cr_assert_eq(backend_download(&g, gk, dkeys, (size_t)n * sizeof *gk), ISO_OK);
      cr_assert_eq(backend_download(&g, got, din, ib), ISO_OK);
      cr_assert(first_diff(gk, k, n, sizeof *k) == -1 && first_diff(got, in, n, sizeof(int)) == -1,
                "cuda sort kind=%d n=%d", kind, n);
    }
  }
  /* overflow and a short workspace are refused on CUDA too */
  int big[2] = {INT_MAX, 1}, tg;
  cr_assert_eq(backend_upload(&g, din, big, sizeof big), ISO_OK);
  cr_assert_eq(list_exclusive_scan(&g, (const int *)din, (int *)dout, 2, &tg, gws, gwsb), ISO_ERR_CAPACITY);
  cr_assert_eq(list_sort_by_key(&g, (uint64_t *)dkeys, (int *)din, NMAX, gws, 64), ISO_ERR_CAPACITY);
  backend_free(&g, gws), backend_free(&g, din), backend_free(&g, dout), backend_free(&g, dkeys);
  free(in), free(want), free(got), free(k), free(gk);
  backend_release(&g);
  backend_release(&c);
}
