/* A minimum-degree ordering of a deformable mesh's vertex graph, computed once per mesh
 * (host/assets/fem_pattern.c uses it; the factor's layout is in kernels/linalg/block_chol.h).
 *
 * The plain algorithm on an explicit elimination graph: repeatedly eliminate the vertex of
 * least current degree and join its neighbours into a clique (the fill its elimination causes).
 * Ties go to the lowest vertex index, so the ordering is a function of the mesh alone. The
 * degrees sit in a binary heap keyed (degree, vertex); a vertex whose degree changes is pushed
 * again and its stale entries are skipped when they surface.
 *
 * Cost: eliminating v costs deg(v) times the neighbours' degrees, O(n * fill) over the mesh,
 * which is acceptable at compile for meshes up to ~1e5 vertices. Quotient graphs, mass
 * elimination and approximate degrees (AMD) would make it faster, not better ordered for these
 * meshes; they are the next step if compile time ever matters. */
#include <stdlib.h>
#include <string.h>

#include "host/assets/fem_pattern.h"
#include "host/base/error.h"

typedef struct {
  int *v;
  int len, cap;
} intList;

static int list_push(intList *l, int x) {
  if (l->len == l->cap) {
    int cap = l->cap ? 2 * l->cap : 8;
    int *nv = (int *)realloc(l->v, sizeof(int) * (size_t)cap);
    if (!nv) return 1;
    l->v = nv;
    l->cap = cap;
  }
  l->v[l->len++] = x;
  return 0;
}

/* A binary min-heap of (degree, vertex) packed as degree * n + vertex. */
typedef struct {
  long long *key;
  int len, cap;
} keyHeap;

static int heap_push(keyHeap *h, long long k) {
  if (h->len == h->cap) {
    int cap = h->cap ? 2 * h->cap : 64;
    long long *nk = (long long *)realloc(h->key, sizeof(long long) * (size_t)cap);
    if (!nk) return 1;
    h->key = nk;
    h->cap = cap;
  }
  int i = h->len++;
  while (i > 0 && h->key[(i - 1) / 2] > k) {
    h->key[i] = h->key[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h->key[i] = k;
  return 0;
}

static long long heap_pop(keyHeap *h) {
  long long top = h->key[0], last = h->key[--h->len];
  int i = 0;
  for (;;) {
    int c = 2 * i + 1;
    if (c >= h->len) break;
    if (c + 1 < h->len && h->key[c + 1] < h->key[c]) ++c;
    if (h->key[c] >= last) break;
    h->key[i] = h->key[c];
    i = c;
  }
  if (h->len > 0) h->key[i] = last;
  return top;
}

/* perm (n): the vertices in elimination order, by minimum degree over the graph given as
 * xadj (n + 1), adj (xadj[n]): each vertex's distinct neighbours, itself excluded. */
isoStatus fem_order_min_degree(int n, const int *xadj, const int *adj, int *perm) {
  isoStatus st = ISO_OK;
  intList *nb = (intList *)calloc((size_t)(n > 0 ? n : 1), sizeof(intList));
  int *mark = (int *)calloc((size_t)(n > 0 ? n : 1), sizeof(int));
  unsigned char *done = (unsigned char *)calloc((size_t)(n > 0 ? n : 1), 1);
  keyHeap heap = {NULL, 0, 0};
  int stamp = 0;
  if (!nb || !mark || !done) goto nomem;
  for (int v = 0; v < n; ++v) {
    for (int q = xadj[v]; q < xadj[v + 1]; ++q)
      if (list_push(&nb[v], adj[q])) goto nomem;
    if (heap_push(&heap, (long long)nb[v].len * n + v)) goto nomem;
  }
  for (int k = 0; k < n; ++k) {
    int v;
    for (;;) { /* the least current (degree, vertex); stale entries skipped */
      long long key = heap_pop(&heap);
      v = (int)(key % n);
      if (!done[v] && key / n == nb[v].len) break;
    }
    perm[k] = v;
    done[v] = 1;
    const intList *N = &nb[v];
    for (int q = 0; q < N->len; ++q) {
      intList *U = &nb[N->v[q]];
      ++stamp;
      int w = 0; /* drop v from u's list, mark what stays */
      for (int r = 0; r < U->len; ++r)
        if (U->v[r] != v) {
          mark[U->v[r]] = stamp;
          U->v[w++] = U->v[r];
        }
      U->len = w;
      mark[N->v[q]] = stamp;
      for (int r = 0; r < N->len; ++r) /* the clique: v's other neighbours */
        if (mark[N->v[r]] != stamp) {
          mark[N->v[r]] = stamp;
          if (list_push(U, N->v[r])) goto nomem;
        }
      if (heap_push(&heap, (long long)U->len * n + N->v[q])) goto nomem;
    }
    free(nb[v].v);
    nb[v].v = NULL;
    nb[v].len = nb[v].cap = 0;
  }
  goto done_;
nomem:
  st = iso_fail(ISO_ERR_NOMEM, "fem_order_min_degree: out of memory ordering %d vertices", n);
done_:
  if (nb)
    for (int v = 0; v < n; ++v) free(nb[v].v);
  free(nb);
  free(mark);
  free(done);
  free(heap.key);
  return st;
}
