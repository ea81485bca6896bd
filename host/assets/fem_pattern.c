/* The sparsity analysis of a deformable mesh's tangent matrix (host/assets/fem_pattern.h),
 * once per mesh: vertex graph -> ordering (host/assets/fem_order.c) -> elimination tree ->
 * L's block pattern -> left-looking update schedule -> the slots of each tet's blocks.
 *
 * Symbolic factorization (Liu's algorithms over the permuted graph, positions 0..n-1):
 *  - the elimination tree by path compression over each position's lower neighbours;
 *  - the pattern of row i of L is the union of the tree paths from each lower neighbour k of i
 *    up to i (the "row subtree"), walked with a mark per row. Visiting rows in ascending order
 *    and appending i to each column found fills every column with its rows ascending, the
 *    diagonal first, with no sort.
 * Schedule (kernels/linalg/block_chol.h): for target column j, one pair per k with L_jk != 0,
 * k ascending (L's rows, which the transposed pattern lists in that order), its sources the
 * tail of column k from row j, its targets found through a scatter of column j's rows.
 *
 * Every count is checked against int range before it sizes an array; a mesh whose factor
 * would not fit is refused by name, not truncated. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "host/assets/fem_pattern.h"
#include "host/base/error.h"

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* The vertex graph as sorted distinct neighbour lists: xadj (nvert + 1), *adj_out (xadj[n]).
 * Each tet contributes its 6 edges in both directions; sorting then drops the repeats. */
static isoStatus vertex_graph(int nvert, int ntet, const int *tet, int *xadj, int **adj_out) {
  int *cnt = (int *)calloc((size_t)nvert + 1, sizeof(int));
  int *adj = (int *)malloc(sizeof(int) * ((size_t)ntet * 12 + 1));
  if (!cnt || !adj) {
    free(cnt);
    free(adj);
    return iso_fail(ISO_ERR_NOMEM, "fem_pattern_build: out of memory for the graph of %d tets", ntet);
  }
  for (int e = 0; e < ntet; ++e)
    for (int a = 0; a < 4; ++a) cnt[tet[4 * e + a] + 1] += 3;
  for (int v = 0; v < nvert; ++v) cnt[v + 1] += cnt[v];
  memcpy(xadj, cnt, sizeof(int) * ((size_t)nvert + 1));
  for (int e = 0; e < ntet; ++e)
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b)
        if (a != b) adj[cnt[tet[4 * e + a]]++] = tet[4 * e + b];
  int w = 0; /* sort each list and compact it in place */
  for (int v = 0; v < nvert; ++v) {
    int s = xadj[v], e = xadj[v + 1];
    qsort(adj + s, (size_t)(e - s), sizeof(int), cmp_int);
    xadj[v] = w;
    for (int q = s; q < e; ++q)
      if (q == s || adj[q] != adj[q - 1]) adj[w++] = adj[q];
  }
  xadj[nvert] = w;
  free(cnt);
  *adj_out = adj;
  return ISO_OK;
}

/* The permuted graph's lower neighbours of each position (those < it), sorted: lx (n + 1), la. */
static void lower_graph(int n, const int *xadj, const int *adj, const int *perm, const int *iperm, int *lx,
                        int *la) {
  lx[0] = 0;
  for (int i = 0; i < n; ++i) {
    int w = lx[i], v = perm[i];
    for (int q = xadj[v]; q < xadj[v + 1]; ++q)
      if (iperm[adj[q]] < i) la[w++] = iperm[adj[q]];
    qsort(la + lx[i], (size_t)(w - lx[i]), sizeof(int), cmp_int);
    lx[i + 1] = w;
  }
}

/* parent (n): the elimination tree, by path compression through anc (n, scratch). */
static void etree(int n, const int *lx, const int *la, int *parent, int *anc) {
  for (int i = 0; i < n; ++i) {
    parent[i] = -1;
    anc[i] = -1;
    for (int q = lx[i]; q < lx[i + 1]; ++q) {
      int r = la[q];
      while (anc[r] != -1 && anc[r] != i) {
        int t = anc[r];
        anc[r] = i;
        r = t;
      }
      if (anc[r] == -1) {
        anc[r] = i;
        parent[r] = i;
      }
    }
  }
}

/* Walk row i's subtree, visiting each off-diagonal column j of row i of L once: with row NULL
 * it counts into cnt[j], else it appends i to column j at the cursor cnt[j]. mark (n) holds no
 * value >= i on entry (-1 initially; each walk leaves its own row index). */
static void row_subtree(int i, const int *lx, const int *la, const int *parent, int *mark, int *cnt, int *row) {
  mark[i] = i;
  for (int q = lx[i]; q < lx[i + 1]; ++q)
    for (int j = la[q]; mark[j] != i; j = parent[j]) {
      mark[j] = i;
      if (row)
        row[cnt[j]++] = i;
      else
        ++cnt[j];
    }
}

/* Lay out data once every count is known; returns 1 when a count leaves int range. */
static int layout(femPattern *p, long long ntgt) {
  const long long n = p->nvert;
  long long off = 0, sizes[9] = {n, n, n, n + 1, p->nslot, n + 1, 3LL * p->npair, ntgt, 16LL * p->ntet};
  int *offs[9] = {&p->off_perm,     &p->off_iperm, &p->off_parent, &p->off_col_ptr, &p->off_row,
                  &p->off_pair_ptr, &p->off_pair,  &p->off_tgt,    &p->off_tet_slot};
  for (int a = 0; a < 9; ++a) {
    if (off > INT_MAX) return 1;
    *offs[a] = (int)off;
    off += sizes[a];
  }
  if (off > INT_MAX / 2 || ntgt > INT_MAX) return 1;
  p->ndata = (int)off;
  p->ntgt = (int)ntgt;
  return 0;
}

/* The update schedule: pair_ptr, pair, tgt (block_chol.h). rptr (n + 1), rcol, rslot (npair):
 * L's off-diagonal slots by rows, column k ascending in each; pos (n): scratch, all -1 on entry
 * and on return. Returns 1 if a source row is missing from its target column (which the
 * symbolic factorization rules out: an internal error, never a user's). */
static int schedule(femPattern *p, const int *rptr, const int *rcol, const int *rslot, int *pos) {
  int *d = p->data;
  const int *col_ptr = d + p->off_col_ptr, *row = d + p->off_row;
  int *pair_ptr = d + p->off_pair_ptr, *pair = d + p->off_pair, *tgt = d + p->off_tgt;
  int np = 0, nt = 0, bad = 0;
  for (int j = 0; j < p->nvert; ++j) {
    pair_ptr[j] = np;
    for (int s = col_ptr[j]; s < col_ptr[j + 1]; ++s) pos[row[s]] = s;
    for (int q = rptr[j]; q < rptr[j + 1]; ++q) {
      int sb = rslot[q], se = col_ptr[rcol[q] + 1];
      pair[3 * np] = sb, pair[3 * np + 1] = se, pair[3 * np + 2] = nt;
      ++np;
      for (int s = sb; s < se; ++s) {
        tgt[nt] = pos[row[s]];
        bad |= tgt[nt] < 0;
        ++nt;
      }
    }
    for (int s = col_ptr[j]; s < col_ptr[j + 1]; ++s) pos[row[s]] = -1;
  }
  pair_ptr[p->nvert] = np;
  return bad || np != p->npair || nt != p->ntgt;
}

/* The slot of block (r, c), r >= c, in column c: a binary search of its ascending rows; -1 if
 * absent. */
static int find_slot(const int *col_ptr, const int *row, int r, int c) {
  int lo = col_ptr[c], hi = col_ptr[c + 1] - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    if (row[mid] == r) return mid;
    if (row[mid] < r)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

/* Per tet, 2 * slot + transposed of each of its 16 blocks (fem_pattern_tet_slot). */
static int tet_slots(femPattern *p, const int *tet) {
  int *d = p->data;
  const int *iperm = d + p->off_iperm, *col_ptr = d + p->off_col_ptr, *row = d + p->off_row;
  int *ts = d + p->off_tet_slot;
  for (int e = 0; e < p->ntet; ++e)
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b) {
        int pa = iperm[tet[4 * e + a]], pb = iperm[tet[4 * e + b]];
        int s = pa >= pb ? find_slot(col_ptr, row, pa, pb) : find_slot(col_ptr, row, pb, pa);
        if (s < 0) return 1;
        ts[16 * e + 4 * a + b] = 2 * s + (pa < pb);
      }
  return 0;
}

static isoStatus check_mesh(int nvert, int ntet, const int *tet) {
  if (nvert < 0 || ntet < 0 || nvert > INT_MAX / 16 || ntet > INT_MAX / 16)
    return iso_fail(ISO_ERR_INVALID, "fem_pattern_build: %d vertices and %d tets: counts out of range", nvert,
                    ntet);
  if (ntet > 0 && tet == NULL) return iso_fail(ISO_ERR_NULL, "fem_pattern_build: argument 'tet' is NULL");
  for (int e = 0; e < ntet; ++e)
    for (int a = 0; a < 4; ++a) {
      int v = tet[4 * e + a];
      if (v < 0 || v >= nvert)
        return iso_fail(ISO_ERR_INVALID, "fem_pattern_build: tet %d: vertex %d is not in [0, %d)", e, v, nvert);
      for (int b = 0; b < a; ++b)
        if (tet[4 * e + b] == v)
          return iso_fail(ISO_ERR_INVALID, "fem_pattern_build: tet %d: vertex %d repeated", e, v);
    }
  return ISO_OK;
}

isoStatus fem_pattern_build(int nvert, int ntet, const int *tet, int ordering, femPattern *out) {
  if (out == NULL) return iso_fail(ISO_ERR_NULL, "fem_pattern_build: argument 'out' is NULL");
  memset(out, 0, sizeof *out);
  isoStatus st = check_mesh(nvert, ntet, tet);
  if (st != ISO_OK) return st;
  if (ordering != FEM_ORDER_MIN_DEGREE && ordering != FEM_ORDER_NATURAL)
    return iso_fail(ISO_ERR_INVALID, "fem_pattern_build: unknown ordering %d", ordering);
  const int n = nvert;
  const size_t n1 = (size_t)n + 1;
  femPattern p;
  memset(&p, 0, sizeof p);
  p.nvert = n, p.ntet = ntet;
  int *xadj = (int *)malloc(sizeof(int) * n1), *adj = NULL, *perm = (int *)malloc(sizeof(int) * n1);
  int *lx = (int *)malloc(sizeof(int) * n1), *la = NULL, *parent = (int *)malloc(sizeof(int) * n1);
  int *mark = (int *)malloc(sizeof(int) * n1), *cnt = (int *)calloc(n1, sizeof(int));
  int *rptr = (int *)calloc(n1 + 1, sizeof(int)), *rcol = NULL, *rslot = NULL;
  if (!xadj || !perm || !lx || !parent || !mark || !cnt || !rptr) goto nomem;
  TRY(vertex_graph(n, ntet, tet, xadj, &adj));
  p.nblock_T = n + xadj[n] / 2;
  if (ordering == FEM_ORDER_NATURAL) {
    for (int v = 0; v < n; ++v) perm[v] = v;
  } else {
    TRY(fem_order_min_degree(n, xadj, adj, perm));
  }
  la = (int *)malloc(sizeof(int) * ((size_t)xadj[n] / 2 + 1));
  if (!la) goto nomem;
  for (int k = 0; k < n; ++k) mark[perm[k]] = k; /* mark: iperm until the tree is built */
  lower_graph(n, xadj, adj, perm, mark, lx, la);
  etree(n, lx, la, parent, cnt);
  for (int i = 0; i < n; ++i) mark[i] = -1;
  /* column counts (off-diagonal), then sizes */
  memset(cnt, 0, sizeof(int) * n1);
  long long nslot = n, ntgt = 0;
  for (int i = 0; i < n; ++i) row_subtree(i, lx, la, parent, mark, cnt, NULL);
  for (int j = 0; j < n; ++j) {
    nslot += cnt[j];
    ntgt += (long long)cnt[j] * (cnt[j] + 1) / 2; /* each off-diagonal slot s: the tail from s */
  }
  if (nslot > INT_MAX / 16) goto toobig;
  p.nslot = (int)nslot;
  p.npair = (int)(nslot - n);
  if (layout(&p, ntgt)) goto toobig;
  p.data = (int *)malloc(sizeof(int) * (size_t)p.ndata);
  rcol = (int *)malloc(sizeof(int) * ((size_t)p.npair + 1));
  rslot = (int *)malloc(sizeof(int) * ((size_t)p.npair + 1));
  if (!p.data || !rcol || !rslot) goto nomem;
  int *d = p.data, *col_ptr = d + p.off_col_ptr, *row = d + p.off_row;
  memcpy(d + p.off_perm, perm, sizeof(int) * (size_t)n);
  for (int k = 0; k < n; ++k) d[p.off_iperm + perm[k]] = k;
  memcpy(d + p.off_parent, parent, sizeof(int) * (size_t)n);
  col_ptr[0] = 0;
  for (int j = 0; j < n; ++j) col_ptr[j + 1] = col_ptr[j] + 1 + cnt[j];
  for (int j = 0; j < n; ++j) {
    row[col_ptr[j]] = j;
    cnt[j] = col_ptr[j] + 1; /* the cursor past the diagonal */
  }
  for (int i = 0; i < n; ++i) mark[i] = -1;
  for (int i = 0; i < n; ++i) row_subtree(i, lx, la, parent, mark, cnt, row);
  /* L's off-diagonal slots by rows (k ascending, since columns are visited in order) */
  for (int k = 0; k < n; ++k)
    for (int s = col_ptr[k] + 1; s < col_ptr[k + 1]; ++s) ++rptr[row[s] + 1];
  for (int i = 0; i < n; ++i) rptr[i + 1] += rptr[i];
  memcpy(cnt, rptr, sizeof(int) * n1);
  for (int k = 0; k < n; ++k)
    for (int s = col_ptr[k] + 1; s < col_ptr[k + 1]; ++s) {
      rcol[cnt[row[s]]] = k;
      rslot[cnt[row[s]]++] = s;
    }
  for (int i = 0; i < n; ++i) mark[i] = -1;
  if (schedule(&p, rptr, rcol, rslot, mark) || tet_slots(&p, tet)) {
    st = iso_fail(ISO_ERR_INVALID, "fem_pattern_build: internal error: the schedule misses a slot");
    goto fail;
  }
  int height = 0; /* parent > child, so depths fill from the roots down */
  for (int j = n - 1; j >= 0; --j) {
    cnt[j] = parent[j] < 0 ? 1 : cnt[parent[j]] + 1;
    if (cnt[j] > height) height = cnt[j];
  }
  p.height = height;
  p.flops_factor = 54.0 * p.ntgt + 27.0 * p.npair + 15.0 * n;
  p.flops_solve = 2.0 * (18.0 * p.npair + 9.0 * n);
  *out = p;
  p.data = NULL;
  goto done;
toobig:
  st = iso_fail(ISO_ERR_INVALID,
                "fem_pattern_build: a mesh of %d vertices whose factor has %lld blocks and %lld updates is "
                "too large",
                n, nslot, ntgt);
  goto fail;
nomem:
  st = iso_fail(ISO_ERR_NOMEM, "fem_pattern_build: out of memory analysing %d vertices", n);
fail:
done:
  free(p.data);
  free(xadj);
  free(adj);
  free(perm);
  free(lx);
  free(la);
  free(parent);
  free(mark);
  free(cnt);
  free(rptr);
  free(rcol);
  free(rslot);
  return st;
}

void fem_pattern_free(femPattern *p) {
  if (p == NULL) return;
  free(p->data);
  memset(p, 0, sizeof *p);
}

int fem_pattern_tet_slot(const femPattern *p, int e, int a, int b, int *transposed) {
  int code = p->data[p->off_tet_slot + 16 * e + 4 * a + b];
  if (transposed) *transposed = code & 1;
  return code >> 1;
}
