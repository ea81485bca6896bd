/* List primitives (host/backend/list.h): argument checks, dispatch on the backend, and the CPU versions.
 *
 * CPU layout: an input of n items is cut into nchunk contiguous chunks (at most one per thread,
 * none smaller than MIN_CHUNK items, so small inputs run as one plain serial loop). Every
 * primitive is two parallel passes over the chunks with a short serial step between them that
 * turns per-chunk results into per-chunk starting offsets. All arithmetic is on integers, and
 * the chunk boundaries only decide who computes what, never the value computed, so the output
 * is the same bits for any thread count.
 *
 * Workspace (host memory), aligned to ALIGN inside the caller's buffer:
 *   scan     per chunk: sum, min and max prefix, offset              (4 x nchunk int64)
 *   compact  per chunk: flagged count, offset                        (2 x nchunk int64)
 *   sort     second key and value buffers (n), per-chunk digit counts (nchunk x 256 int),
 *            per-chunk OR and AND of the keys                        (2 x nchunk uint64) */
#include "host/backend/list.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "host/base/error.h"

enum {
  ALIGN = 64,       /* workspace regions start on a cache line */
  MIN_CHUNK = 8192, /* below this many items per thread, fork/join costs more than it saves */
  RADIX = 256       /* 8-bit digits: 8 passes at most for 64-bit keys */
};

static size_t round_up(size_t x) { return (x + ALIGN - 1) / ALIGN * ALIGN; }

static int chunk_count(const isoBackend *b, int n) {
  int c = n / MIN_CHUNK;
  if (c > b->threads) c = b->threads;
  return c < 1 ? 1 : c;
}

/* First item of chunk c; chunk c is [chunk_begin(c), chunk_begin(c + 1)). */
static int chunk_begin(int n, int nchunk, int c) { return (int)((long long)n * c / nchunk); }

/* Workspace bytes each primitive needs for n items with nchunk chunks, excluding alignment. */
static size_t scan_bytes(int nchunk) { return round_up(4 * (size_t)nchunk * sizeof(int64_t)); }
static size_t compact_bytes(int nchunk) { return round_up(2 * (size_t)nchunk * sizeof(int64_t)); }
static size_t sort_bytes(int n, int nchunk) {
  return round_up((size_t)n * sizeof(uint64_t)) + round_up((size_t)n * sizeof(int)) +
         round_up((size_t)nchunk * RADIX * sizeof(int)) +
         round_up(2 * (size_t)nchunk * sizeof(uint64_t));
}

static size_t cpu_workspace_bytes(const isoBackend *b, int n_max) {
  if (n_max <= 0) return 0;
  /* nchunk grows with n and is capped by b->threads, so the n_max figures bound every n. */
  int nchunk = chunk_count(b, n_max);
  size_t s = scan_bytes(nchunk), c = compact_bytes(nchunk), t = sort_bytes(n_max, nchunk);
  size_t m = s > c ? s : c;
  return (m > t ? m : t) + ALIGN; /* + ALIGN: room to align a caller's pointer */
}

/* Align ws and check that `need` bytes fit after the alignment; *base receives the start. */
static isoStatus take_workspace(const char *fn, int n, void *ws, size_t ws_bytes, size_t need,
                                char **base) {
  size_t pad = (size_t)(-(uintptr_t)ws & (ALIGN - 1));
  if (ws == NULL && ws_bytes > 0) return iso_fail(ISO_ERR_NULL, "%s: argument 'ws' is NULL", fn);
  if (ws_bytes < pad || ws_bytes - pad < need)
    return iso_fail(ISO_ERR_CAPACITY,
                    "%s: workspace of %zu bytes is smaller than the %zu bytes needed for n = %d "
                    "(size it with list_workspace_bytes)",
                    fn, ws_bytes, need + pad, n);
  *base = (char *)ws + pad;
  return ISO_OK;
}

/* ---- exclusive scan ------------------------------------------------------------------------ */

typedef struct {
  const int *in;
  int *out;
  int n, nchunk;
  int64_t *sum, *lo, *hi, *off; /* per chunk (nchunk) */
} scan_ctx;

/* Pass 1: each chunk's sum and the range of its local prefixes (0 and every partial sum up to
 * the full chunk sum), so overflow anywhere is known before anything is written. */
static void scan_sums(int c0, int c1, void *vctx) {
  scan_ctx *x = (scan_ctx *)vctx;
  for (int c = c0; c < c1; ++c) {
    int64_t s = 0, lo = 0, hi = 0;
    int end = chunk_begin(x->n, x->nchunk, c + 1);
    for (int i = chunk_begin(x->n, x->nchunk, c); i < end; ++i) {
      s += x->in[i];
      if (s < lo) lo = s;
      if (s > hi) hi = s;
    }
    x->sum[c] = s, x->lo[c] = lo, x->hi[c] = hi;
  }
}

/* Pass 2: local scan from the chunk's offset. in[i] is read before out[i] is written, which is
 * what makes in == out safe. */
static void scan_write(int c0, int c1, void *vctx) {
  scan_ctx *x = (scan_ctx *)vctx;
  for (int c = c0; c < c1; ++c) {
    int run = (int)x->off[c];
    int end = chunk_begin(x->n, x->nchunk, c + 1);
    for (int i = chunk_begin(x->n, x->nchunk, c); i < end; ++i) {
      int v = x->in[i];
      x->out[i] = run;
      run += v; /* cannot overflow: every prefix was range-checked in pass 1 */
    }
  }
}

static isoStatus cpu_scan(const isoBackend *b, const int *in, int *out, int n, int *total,
                          void *ws, size_t ws_bytes) {
  static const char fn[] = "list_exclusive_scan";
  int nchunk = chunk_count(b, n);
  char *base = NULL;
  isoStatus st = take_workspace(fn, n, ws, ws_bytes, scan_bytes(nchunk), &base);
  if (st != ISO_OK) return st;
  int64_t *w = (int64_t *)(void *)base;
  scan_ctx x = {in, out, n, nchunk, w, w + nchunk, w + 2 * nchunk, w + 3 * nchunk};
  backend_cpu_for(b, nchunk, scan_sums, &x);
  /* |offset| <= n * 2^31 < 2^62, so the 64-bit offsets themselves never overflow. */
  int64_t off = 0;
  for (int c = 0; c < nchunk; ++c) {
    int64_t lo = off + x.lo[c], hi = off + x.hi[c];
    if (lo < INT_MIN || hi > INT_MAX)
      return iso_fail(ISO_ERR_CAPACITY,
                      "%s: a prefix sum of the %d items reaches %lld, outside the int range",
                      fn, n, (long long)(hi > INT_MAX ? hi : lo));
    x.off[c] = off;
    off += x.sum[c];
  }
  backend_cpu_for(b, nchunk, scan_write, &x);
  if (total) *total = (int)off;
  return ISO_OK;
}

/* ---- compaction ---------------------------------------------------------------------------- */

typedef struct {
  const int *flags;
  int *out;
  int n, nchunk;
  int64_t *cnt, *off; /* per chunk (nchunk) */
} compact_ctx;

static void compact_count(int c0, int c1, void *vctx) {
  compact_ctx *x = (compact_ctx *)vctx;
  for (int c = c0; c < c1; ++c) {
    int64_t k = 0;
    int end = chunk_begin(x->n, x->nchunk, c + 1);
    for (int i = chunk_begin(x->n, x->nchunk, c); i < end; ++i) k += x->flags[i] != 0;
    x->cnt[c] = k;
  }
}

static void compact_write(int c0, int c1, void *vctx) {
  compact_ctx *x = (compact_ctx *)vctx;
  for (int c = c0; c < c1; ++c) {
    int k = (int)x->off[c];
    int end = chunk_begin(x->n, x->nchunk, c + 1);
    for (int i = chunk_begin(x->n, x->nchunk, c); i < end; ++i)
      if (x->flags[i] != 0) x->out[k++] = i;
  }
}

static isoStatus cpu_compact(const isoBackend *b, const int *flags, int n, int *out_index,
                             int *count, void *ws, size_t ws_bytes) {
  int nchunk = chunk_count(b, n);
  char *base = NULL;
  isoStatus st = take_workspace("list_compact", n, ws, ws_bytes, compact_bytes(nchunk), &base);
  if (st != ISO_OK) return st;
  int64_t *w = (int64_t *)(void *)base;
  compact_ctx x = {flags, out_index, n, nchunk, w, w + nchunk};
  backend_cpu_for(b, nchunk, compact_count, &x);
  int64_t k = 0; /* <= n, so it fits in int */
  for (int c = 0; c < nchunk; ++c) {
    x.off[c] = k;
    k += x.cnt[c];
  }
  backend_cpu_for(b, nchunk, compact_write, &x);
  *count = (int)k;
  return ISO_OK;
}

/* ---- stable LSD radix sort ------------------------------------------------------------------ */

typedef struct {
  uint64_t *src_k, *dst_k; /* this pass reads src, writes dst; they swap after each pass */
  int *src_v, *dst_v;
  int n, nchunk, shift;
  int *hist;            /* (nchunk, RADIX): digit counts, then each chunk's write positions */
  uint64_t *kor, *kand; /* per chunk (nchunk) */
} sort_ctx;

static void sort_bits(int c0, int c1, void *vctx) {
  sort_ctx *x = (sort_ctx *)vctx;
  for (int c = c0; c < c1; ++c) {
    uint64_t o = 0, a = ~(uint64_t)0;
    int end = chunk_begin(x->n, x->nchunk, c + 1);
    for (int i = chunk_begin(x->n, x->nchunk, c); i < end; ++i) o |= x->src_k[i], a &= x->src_k[i];
    x->kor[c] = o, x->kand[c] = a;
  }
}

static void sort_hist(int c0, int c1, void *vctx) {
  sort_ctx *x = (sort_ctx *)vctx;
  for (int c = c0; c < c1; ++c) {
    int *h = x->hist + (size_t)c * RADIX;
    memset(h, 0, RADIX * sizeof *h);
    int end = chunk_begin(x->n, x->nchunk, c + 1);
    for (int i = chunk_begin(x->n, x->nchunk, c); i < end; ++i) h[(x->src_k[i] >> x->shift) & 0xFF]++;
  }
}

/* Each chunk writes its items in input order from its own starting position per digit:
 * chunks before it in the same digit come first, which is exactly what makes the pass stable. */
static void sort_scatter(int c0, int c1, void *vctx) {
  sort_ctx *x = (sort_ctx *)vctx;
  for (int c = c0; c < c1; ++c) {
    int *pos = x->hist + (size_t)c * RADIX;
    int end = chunk_begin(x->n, x->nchunk, c + 1);
    for (int i = chunk_begin(x->n, x->nchunk, c); i < end; ++i) {
      int p = pos[(x->src_k[i] >> x->shift) & 0xFF]++;
      x->dst_k[p] = x->src_k[i];
      x->dst_v[p] = x->src_v[i];
    }
  }
}

static void sort_copy_back(int c0, int c1, void *vctx) {
  sort_ctx *x = (sort_ctx *)vctx;
  int i0 = chunk_begin(x->n, x->nchunk, c0), i1 = chunk_begin(x->n, x->nchunk, c1);
  memcpy(x->dst_k + i0, x->src_k + i0, (size_t)(i1 - i0) * sizeof *x->dst_k);
  memcpy(x->dst_v + i0, x->src_v + i0, (size_t)(i1 - i0) * sizeof *x->dst_v);
}

static isoStatus cpu_sort(const isoBackend *b, uint64_t *keys, int *values, int n, void *ws,
                          size_t ws_bytes) {
  int nchunk = chunk_count(b, n);
  char *base = NULL;
  isoStatus st = take_workspace("list_sort_by_key", n, ws, ws_bytes, sort_bytes(n, nchunk), &base);
  if (st != ISO_OK) return st;
  uint64_t *alt_k = (uint64_t *)(void *)base;
  base += round_up((size_t)n * sizeof(uint64_t));
  int *alt_v = (int *)(void *)base;
  base += round_up((size_t)n * sizeof(int));
  sort_ctx x = {keys, alt_k, values, alt_v, n, nchunk, 0, (int *)(void *)base, NULL, NULL};
  base += round_up((size_t)nchunk * RADIX * sizeof(int));
  x.kor = (uint64_t *)(void *)base;
  x.kand = x.kor + nchunk;

  /* A byte on which every key agrees leaves the order unchanged: skip its pass. Keys are often
   * small (world and pair indices), so most high bytes are skipped. A bit differs somewhere
   * exactly when OR and AND of all keys disagree on it. */
  backend_cpu_for(b, nchunk, sort_bits, &x);
  uint64_t o = 0, a = ~(uint64_t)0;
  for (int c = 0; c < nchunk; ++c) o |= x.kor[c], a &= x.kand[c];
  uint64_t varying = o ^ a;

  for (int shift = 0; shift < 64; shift += 8) {
    if (((varying >> shift) & 0xFF) == 0) continue;
    x.shift = shift;
    backend_cpu_for(b, nchunk, sort_hist, &x);
    /* Digit-major, chunk-minor exclusive scan of the counts: write positions per chunk. */
    int run = 0;
    for (int d = 0; d < RADIX; ++d)
      for (int c = 0; c < nchunk; ++c) {
        int *h = x.hist + (size_t)c * RADIX + d;
        int k = *h;
        *h = run;
        run += k;
      }
    backend_cpu_for(b, nchunk, sort_scatter, &x);
    /* The destination becomes the next pass's source. */
    uint64_t *sk = x.src_k;
    int *sv = x.src_v;
    x.src_k = x.dst_k, x.src_v = x.dst_v;
    x.dst_k = sk, x.dst_v = sv;
  }
  if (x.src_k != keys) { /* an odd number of passes left the result in the second buffer */
    x.dst_k = keys, x.dst_v = values;
    backend_cpu_for(b, nchunk, sort_copy_back, &x);
  }
  return ISO_OK;
}

/* ---- public entry points: checks, then dispatch ---------------------------------------------- */

static isoStatus check_args(const char *fn, const isoBackend *b, int n) {
  if (b == NULL) return iso_fail(ISO_ERR_NULL, "%s: argument 'b' is NULL", fn);
  if (n < 0) return iso_fail(ISO_ERR_INVALID, "%s: item count n = %d is negative", fn, n);
  if (b->kind != ISO_BACKEND_CPU && b->kind != ISO_BACKEND_CUDA)
    return iso_fail(ISO_ERR_STATE, "%s: backend kind %d is not initialised", fn, (int)b->kind);
  return ISO_OK;
}

size_t list_workspace_bytes(const isoBackend *b, int n_max) {
  if (b == NULL || n_max <= 0) return 0;
  if (b->kind == ISO_BACKEND_CUDA) return cuda_list_workspace_bytes(b, n_max);
  return cpu_workspace_bytes(b, n_max);
}

isoStatus list_exclusive_scan(const isoBackend *b, const int *in, int *out, int n, int *total,
                              void *ws, size_t ws_bytes) {
  static const char fn[] = "list_exclusive_scan";
  isoStatus st = check_args(fn, b, n);
  if (st != ISO_OK) return st;
  if (n == 0) {
    if (total) *total = 0;
    return ISO_OK;
  }
  CHECK_NULL(in, fn);
  CHECK_NULL(out, fn);
  if (b->kind == ISO_BACKEND_CUDA) return cuda_list_scan(b, in, out, n, total, ws, ws_bytes);
  return cpu_scan(b, in, out, n, total, ws, ws_bytes);
}

isoStatus list_sort_by_key(const isoBackend *b, uint64_t *keys, int *values, int n, void *ws,
                           size_t ws_bytes) {
  static const char fn[] = "list_sort_by_key";
  isoStatus st = check_args(fn, b, n);
  if (st != ISO_OK) return st;
  if (n == 0) return ISO_OK;
  CHECK_NULL(keys, fn);
  CHECK_NULL(values, fn);
  if (b->kind == ISO_BACKEND_CUDA) return cuda_list_sort_by_key(b, keys, values, n, ws, ws_bytes);
  return cpu_sort(b, keys, values, n, ws, ws_bytes);
}

isoStatus list_compact(const isoBackend *b, const int *flags, int n, int *out_index, int *count,
                       void *ws, size_t ws_bytes) {
  static const char fn[] = "list_compact";
  isoStatus st = check_args(fn, b, n);
  if (st != ISO_OK) return st;
  CHECK_NULL(count, fn);
  if (n == 0) {
    *count = 0;
    return ISO_OK;
  }
  CHECK_NULL(flags, fn);
  CHECK_NULL(out_index, fn);
  if (b->kind == ISO_BACKEND_CUDA)
    return cuda_list_compact(b, flags, n, out_index, count, ws, ws_bytes);
  return cpu_compact(b, flags, n, out_index, count, ws, ws_bytes);
}
