/* Bounding-volume hierarchies (host/assets/bvh.h, kernels/collide/bvh.h): build invariants and
 * determinism, element bounds, degenerate inputs, and tree-against-tree and tree-against-plane
 * queries against brute force on random soups of tets and triangles, plus the root box of a
 * posed tree. The box tests the queries rest on are in tests/test_box.c.
 *
 * Tolerances. Tree queries are compared with a brute-force loop that runs the very same box
 * test on every element pair, so they must agree exactly. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host/assets/bvh.h"
#include "kernels/collide/box.h"
#include "kernels/collide/bvh.h"
#include "kernels/math/transform.h"
#include "support/collide_rand.h"
#include "support/soup.h"
#include "support/support.h"

static vec3 soup_point(const soup *s, int e, int k, xform X) {
  const double *p = s->vert + 3 * s->idx[e * s->nper + k];
  return xf_point(X, v3(p[0], p[1], p[2]));
}

/* ---- exact-enough element overlap (sufficient conditions, away from degeneracy) ----------- */

static double orient(vec3 a, vec3 b, vec3 c, vec3 d) {
  return v3_dot(v3_cross(v3_sub(b, a), v3_sub(c, a)), v3_sub(d, a));
}

/* p strictly inside tet t[4] (either orientation), by a margin. */
static int point_in_tet(const vec3 *t, vec3 p) {
  double v = orient(t[0], t[1], t[2], t[3]);
  double tol = 1e-9 * fabs(v);
  double s0 = orient(p, t[1], t[2], t[3]), s1 = orient(t[0], p, t[2], t[3]);
  double s2 = orient(t[0], t[1], p, t[3]), s3 = orient(t[0], t[1], t[2], p);
  if (fabs(v) < 1e-12) return 0;
  if (v < 0) {
    s0 = -s0;
    s1 = -s1;
    s2 = -s2;
    s3 = -s3;
  }
  return s0 > tol && s1 > tol && s2 > tol && s3 > tol;
}

/* Segment pq crosses triangle abc at an interior point, by a margin. */
static int seg_crosses_tri(vec3 p, vec3 q, vec3 a, vec3 b, vec3 c) {
  const double tol = 1e-12;
  double sp = orient(a, b, c, p), sq = orient(a, b, c, q);
  double u = orient(p, q, a, b), v = orient(p, q, b, c), w = orient(p, q, c, a);
  if (!((sp > tol && sq < -tol) || (sp < -tol && sq > tol))) return 0;
  return (u > tol && v > tol && w > tol) || (u < -tol && v < -tol && w < -tol);
}

static const int tet_edge[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
static const int tri_edge[3][2] = {{0, 1}, {1, 2}, {2, 0}};

/* 1 when elements ea of A and eb of B (posed in A by X_AB) certainly intersect. */
static int elements_intersect(const soup *A, int ea, const soup *B, int eb, xform X_AB) {
  vec3 pa[4], pb[4];
  xform I = xf_identity();
  for (int k = 0; k < A->nper; ++k) pa[k] = soup_point(A, ea, k, I);
  for (int k = 0; k < B->nper; ++k) pb[k] = soup_point(B, eb, k, X_AB);
  if (A->nper == 4)
    for (int k = 0; k < B->nper; ++k)
      if (point_in_tet(pa, pb[k])) return 1;
  if (B->nper == 4)
    for (int k = 0; k < A->nper; ++k)
      if (point_in_tet(pb, pa[k])) return 1;
  if (A->nper == 4 && B->nper == 3)
    for (int k = 0; k < 6; ++k)
      if (seg_crosses_tri(pa[tet_edge[k][0]], pa[tet_edge[k][1]], pb[0], pb[1], pb[2])) return 1;
  if (A->nper == 3 && B->nper == 4)
    for (int k = 0; k < 6; ++k)
      if (seg_crosses_tri(pb[tet_edge[k][0]], pb[tet_edge[k][1]], pa[0], pa[1], pa[2])) return 1;
  if (A->nper == 3 && B->nper == 3)
    for (int k = 0; k < 3; ++k)
      if (seg_crosses_tri(pa[tri_edge[k][0]], pa[tri_edge[k][1]], pb[0], pb[1], pb[2]) ||
          seg_crosses_tri(pb[tri_edge[k][0]], pb[tri_edge[k][1]], pa[0], pa[1], pa[2]))
        return 1;
  return 0;
}

/* ---- brute-force references ------------------------------------------------------------ */

/* Padded box of element id from the tree (stored in leaf order). */
static const double *elem_box(const bvhHost *h, int id) {
  for (int k = 0; k < h->nelem; ++k)
    if (h->elem[k] == id) return h->box + 6 * k;
  cr_assert_fail("element %d not in the tree", id);
  return NULL;
}

static int cmp_pair(const void *pa, const void *pb) {
  const int *a = (const int *)pa, *b = (const int *)pb;
  if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
  return (a[1] > b[1]) - (a[1] < b[1]);
}

/* Sorted element-id pairs whose padded element boxes pass the six face axes of the separating-
 * axis test (box_overlap_rel_faces): the walk's contract (kernels/collide/bvh.h). */
static int brute_pairs(const bvhHost *A, const bvhHost *B, xform X_AB, int *pairs) {
  int n = 0;
  const boxRel rel = box_rel_make(X_AB);
  for (int i = 0; i < A->nelem; ++i) {
    const double *ba = elem_box(A, i);
    for (int j = 0; j < B->nelem; ++j) {
      const double *bb = elem_box(B, j);
      if (box_overlap_rel_faces(ba, ba + 3, bb, bb + 3, &rel)) {
        pairs[2 * n] = i;
        pairs[2 * n + 1] = j;
        ++n;
      }
    }
  }
  return n;
}

/* ---- build ---------------------------------------------------------------------------------- */

static int ceil_log2(int n) {
  int d = 0;
  while ((1 << d) < n) ++d;
  return d;
}

/* Structural invariants of a built tree over element bounds lo/hi. */
static void check_tree(const bvhHost *h, const double *lo, const double *hi, int nelem,
                       int leaf_size) {
  int *seen = (int *)calloc((size_t)nelem + 1, sizeof(int));
  int next = 0, nleaf = 0;
  cr_assert_eq(h->nelem, nelem);
  cr_assert_eq(h->leaf_size, leaf_size);
  cr_assert_leq(h->depth, BVH_MAX_DEPTH);
  cr_assert_leq(h->depth, ceil_log2((nelem + leaf_size - 1) / leaf_size));
  for (int k = 0; k < nelem; ++k) {
    int id = h->elem[k];
    cr_assert(id >= 0 && id < nelem);
    cr_assert_eq(seen[id], 0, "element %d appears twice", id);
    seen[id] = 1;
    /* stored box = padded input box */
    double plo[3], phi[3];
    box_pad(lo + 3 * id, hi + 3 * id, plo, phi);
    cr_assert(memcmp(plo, h->box + 6 * k, sizeof plo) == 0);
    cr_assert(memcmp(phi, h->box + 6 * k + 3, sizeof phi) == 0);
    for (int i = 0; i < 3; ++i) cr_assert(plo[i] < lo[3 * id + i] && phi[i] > hi[3 * id + i]);
  }
  for (int i = 0; i < h->nnode; ++i) {
    const bvhNode *nd = h->node + i;
    if (bvh_is_leaf(nd)) {
      int k0 = bvh_leaf_begin(nd), k1 = bvh_leaf_end(nd);
      ++nleaf;
      cr_assert_eq(k0, next, "leaves must cover the elements in order");
      cr_assert(k1 - k0 >= 1 && k1 - k0 <= leaf_size, "leaf %d holds %d", i, k1 - k0);
      next = k1;
      for (int k = k0; k < k1; ++k)
        for (int a = 0; a < 3; ++a)
          cr_assert(nd->lo[a] <= h->box[6 * k + a] && nd->hi[a] >= h->box[6 * k + 3 + a]);
    } else {
      cr_assert_eq(nd->a, i + 1, "pre-order: first child follows its parent");
      cr_assert(nd->b > nd->a && nd->b < h->nnode);
      for (int c = 0; c < 2; ++c) {
        const bvhNode *ch = h->node + (c ? nd->b : nd->a);
        for (int a = 0; a < 3; ++a) cr_assert(nd->lo[a] <= ch->lo[a] && nd->hi[a] >= ch->hi[a]);
      }
    }
  }
  cr_assert_eq(next, nelem);
  cr_assert_eq(h->nnode, 2 * nleaf - 1);
  free(seen);
}

Test(bvh, build_invariants) {
  static const int sizes[] = {1, 2, 3, 4, 5, 7, 100, 1000, 4097};
  test_rng r = {42};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
    for (int leaf = 1; leaf <= 3; ++leaf) {
      int n = sizes[s];
      soup m = make_soup(&r, n, leaf == 1 ? 4 : 3, 0.1);
      double *lo = (double *)xmalloc((size_t)n * 3 * sizeof(double));
      double *hi = (double *)xmalloc((size_t)n * 3 * sizeof(double));
      bvhHost h;
      cr_assert_eq(m.nper == 4 ? bvh_elem_bounds_tets(m.vert, m.idx, n, lo, hi)
                               : bvh_elem_bounds_tris(m.vert, m.idx, n, lo, hi),
                   ISO_OK);
      cr_assert_eq(bvh_build(lo, hi, n, leaf, &h), ISO_OK, "%s", iso_last_error());
      check_tree(&h, lo, hi, n, leaf);
      bvh_free(&h);
      cr_assert_null(h.node);
      free(lo);
      free(hi);
      soup_free(&m);
    }
}

Test(bvh, build_deterministic) {
  test_rng r = {42};
  soup m = make_soup(&r, 2000, 3, 0.2);
  bvhHost h1 = soup_bvh(&m, 3), h2 = soup_bvh(&m, 3);
  cr_assert_eq(h1.nnode, h2.nnode);
  cr_assert_eq(h1.depth, h2.depth);
  cr_assert(memcmp(h1.node, h2.node, (size_t)h1.nnode * sizeof(bvhNode)) == 0);
  cr_assert(memcmp(h1.elem, h2.elem, (size_t)h1.nelem * sizeof(int)) == 0);
  cr_assert(memcmp(h1.box, h2.box, (size_t)h1.nelem * 6 * sizeof(double)) == 0);
  bvh_free(&h1);
  bvh_free(&h2);
  soup_free(&m);
}

Test(bvh, elem_bounds) {
  const double vert[] = {0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, -1, 5, 7};
  const int tet[] = {0, 1, 2, 3, 4, 1, 2, 3};
  const int tri[] = {4, 0, 1};
  double lo[6], hi[6];
  cr_assert_eq(bvh_elem_bounds_tets(vert, tet, 2, lo, hi), ISO_OK);
  cr_assert(lo[0] == 0 && lo[1] == 0 && lo[2] == 0 && hi[0] == 1 && hi[1] == 2 && hi[2] == 3);
  cr_assert(lo[3] == -1 && lo[4] == 0 && lo[5] == 0 && hi[3] == 1 && hi[4] == 5 && hi[5] == 7);
  cr_assert_eq(bvh_elem_bounds_tris(vert, tri, 1, lo, hi), ISO_OK);
  cr_assert(lo[0] == -1 && lo[1] == 0 && lo[2] == 0 && hi[0] == 1 && hi[1] == 5 && hi[2] == 7);
  {
    const int bad_tet[] = {0, 1, 2, 3, 0, 1, -2, 3};
    cr_assert_eq(bvh_elem_bounds_tets(vert, bad_tet, 2, lo, hi), ISO_ERR_INVALID);
    cr_assert(strstr(iso_last_error(), "tetrahedron 1") != NULL, "%s", iso_last_error());
  }
  cr_assert_eq(bvh_elem_bounds_tris(vert, tri, 1, NULL, hi), ISO_ERR_NULL);
  cr_assert_eq(bvh_elem_bounds_tris(NULL, NULL, 0, NULL, NULL), ISO_OK);
  {
    /* a non-finite vertex gives non-finite bounds, which the build refuses */
    double bad[15];
    memcpy(bad, vert, sizeof bad);
    bad[13] = NAN;
    cr_assert_eq(bvh_elem_bounds_tris(bad, tri, 1, lo, hi), ISO_OK);
    bvhHost h;
    cr_assert_eq(bvh_build(lo, hi, 1, 3, &h), ISO_ERR_INVALID);
  }
}

Test(bvh, degenerate_inputs) {
  bvhHost h, keep;
  double lo[3 * 64], hi[3 * 64];
  int out_a[4096], out_b[4096];
  /* nelem 0: an empty tree, and every query finds nothing */
  cr_assert_eq(bvh_build(NULL, NULL, 0, 1, &h), ISO_OK);
  cr_assert(h.nnode == 0 && h.nelem == 0 && h.node == NULL && h.elem == NULL && h.box == NULL);
  {
    bvhTree t = bvh_host_view(&h);
    double wlo[3], whi[3];
    cr_assert_eq(bvh_pairs_count(t, t, xf_identity()), 0);
    cr_assert_eq(bvh_plane_count(t, v3(0, 0, 1), 0, BVH_PLANE_INSIDE), 0);
    bvh_root_box(t, xf_identity(), wlo, whi);
    cr_assert(wlo[0] > whi[0]);
  }
  bvh_free(&h);
  /* one element: a single leaf */
  for (int i = 0; i < 3; ++i) {
    lo[i] = -1;
    hi[i] = 1;
  }
  cr_assert_eq(bvh_build(lo, hi, 1, 1, &h), ISO_OK);
  cr_assert(h.nnode == 1 && h.depth == 0 && h.elem[0] == 0 && bvh_is_leaf(h.node));
  {
    bvhTree t = bvh_host_view(&h);
    cr_assert_eq(bvh_pairs_emit(t, t, xf_identity(), out_a, out_b, 4), 1);
    cr_assert(out_a[0] == 0 && out_b[0] == 0);
  }
  bvh_free(&h);
  /* 64 identical elements: still median splits, depth log2(64), all 64² pairs */
  for (int e = 0; e < 64; ++e)
    for (int i = 0; i < 3; ++i) {
      lo[3 * e + i] = 0.5;
      hi[3 * e + i] = 0.75;
    }
  cr_assert_eq(bvh_build(lo, hi, 64, 1, &h), ISO_OK);
  check_tree(&h, lo, hi, 64, 1);
  cr_assert_eq(h.depth, 6);
  for (int k = 0; k < 64; ++k) cr_assert_eq(h.elem[k], k, "ties are broken by element id");
  {
    bvhTree t = bvh_host_view(&h);
    cr_assert_eq(bvh_pairs_count(t, t, xf_identity()), 64 * 64);
    cr_assert_eq(bvh_pairs_emit(t, t, xf_identity(), out_a, out_b, 4096), 64 * 64);
  }
  /* bad input is refused and leaves *out untouched */
  keep = h;
  cr_assert_eq(bvh_build(lo, hi, -1, 1, &h), ISO_ERR_INVALID);
  cr_assert_eq(bvh_build(lo, hi, 64, 0, &h), ISO_ERR_INVALID);
  cr_assert_eq(bvh_build(NULL, hi, 64, 1, &h), ISO_ERR_NULL);
  cr_assert_eq(bvh_build(lo, hi, 64, 1, NULL), ISO_ERR_NULL);
  lo[3 * 17 + 1] = 0.8; /* lo > hi */
  cr_assert_eq(bvh_build(lo, hi, 64, 1, &h), ISO_ERR_INVALID);
  cr_assert(strstr(iso_last_error(), "element 17") != NULL, "%s", iso_last_error());
  lo[3 * 17 + 1] = INFINITY;
  cr_assert_eq(bvh_build(lo, hi, 64, 1, &h), ISO_ERR_INVALID);
  cr_assert(memcmp(&keep, &h, sizeof h) == 0);
  bvh_free(&h);
  bvh_free(NULL);
}

/* ---- tree against tree ---------------------------------------------------------------------- */

/* Check every claim about bvh_pairs_* for trees over soups A and B at pose X_AB. */
static void check_pairs(const soup *sa, const bvhHost *A, const soup *sb, const bvhHost *B,
                        xform X_AB, int *n_actual) {
  int cap = sa->nelem * sb->nelem;
  int *ea = (int *)xmalloc((size_t)cap * sizeof(int));
  int *eb = (int *)xmalloc((size_t)cap * sizeof(int));
  int *ea2 = (int *)xmalloc((size_t)cap * sizeof(int));
  int *eb2 = (int *)xmalloc((size_t)cap * sizeof(int));
  int *got = (int *)xmalloc((size_t)cap * 2 * sizeof(int));
  int *want = (int *)xmalloc((size_t)cap * 2 * sizeof(int));
  bvhTree ta = bvh_host_view(A), tb = bvh_host_view(B);
  int count = bvh_pairs_count(ta, tb, X_AB);
  int n = bvh_pairs_emit(ta, tb, X_AB, ea, eb, cap);
  int nb = brute_pairs(A, B, X_AB, want);
  cr_assert_eq(count, n);
  cr_assert_eq(n, nb, "tree found %d pairs, brute force %d", n, nb);
  /* same set (sorted lists equal, so also no duplicates) */
  for (int k = 0; k < n; ++k) {
    got[2 * k] = ea[k];
    got[2 * k + 1] = eb[k];
  }
  qsort(got, (size_t)n, 2 * sizeof(int), cmp_pair);
  cr_assert(memcmp(got, want, (size_t)n * 2 * sizeof(int)) == 0, "pair sets differ");
  for (int k = 1; k < n; ++k) cr_assert(cmp_pair(got + 2 * (k - 1), got + 2 * k) < 0);
  /* superset of the element pairs that certainly intersect */
  for (int i = 0; i < sa->nelem; ++i)
    for (int j = 0; j < sb->nelem; ++j)
      if (elements_intersect(sa, i, sb, j, X_AB)) {
        int key[2] = {i, j};
        cr_assert_not_null(bsearch(key, got, (size_t)n, 2 * sizeof(int), cmp_pair),
                           "intersecting elements (%d, %d) not emitted", i, j);
        ++*n_actual;
      }
  /* order: identical on a second run, and a capped run writes exactly the prefix */
  cr_assert_eq(bvh_pairs_emit(ta, tb, X_AB, ea2, eb2, cap), n);
  cr_assert(memcmp(ea, ea2, (size_t)n * sizeof(int)) == 0);
  cr_assert(memcmp(eb, eb2, (size_t)n * sizeof(int)) == 0);
  {
    int small = n / 3;
    for (int k = 0; k < cap; ++k) ea2[k] = eb2[k] = -7;
    cr_assert_eq(bvh_pairs_emit(ta, tb, X_AB, ea2, eb2, small), n);
    cr_assert(memcmp(ea, ea2, (size_t)small * sizeof(int)) == 0);
    cr_assert(memcmp(eb, eb2, (size_t)small * sizeof(int)) == 0);
    for (int k = small; k < cap; ++k) cr_assert(ea2[k] == -7 && eb2[k] == -7, "wrote past cap");
    cr_assert_eq(bvh_pairs_emit(ta, tb, X_AB, NULL, NULL, 0), n);
  }
  free(ea);
  free(eb);
  free(ea2);
  free(eb2);
  free(got);
  free(want);
}

static void pairs_case(int nper_a, int leaf_a, int nper_b, int leaf_b, uint64_t seed) {
  test_rng r = {seed};
  soup sa = make_soup(&r, 300, nper_a, 0.15), sb = make_soup(&r, 250, nper_b, 0.15);
  bvhHost A = soup_bvh(&sa, leaf_a), B = soup_bvh(&sb, leaf_b);
  int n_actual = 0;
  for (int t = 0; t < 12; ++t) check_pairs(&sa, &A, &sb, &B, rand_pose(&r, 1.0), &n_actual);
  cr_assert_gt(n_actual, 100, "too few intersecting pairs (%d) to test the superset", n_actual);
  /* a tree against itself at the identity pairs every element with itself */
  {
    bvhTree t = bvh_host_view(&A);
    int n = bvh_pairs_count(t, t, xf_identity());
    int *ea = (int *)xmalloc((size_t)n * sizeof(int));
    int *eb = (int *)xmalloc((size_t)n * sizeof(int));
    int *self = (int *)calloc((size_t)A.nelem, sizeof(int));
    cr_assert_eq(bvh_pairs_emit(t, t, xf_identity(), ea, eb, n), n);
    for (int k = 0; k < n; ++k)
      if (ea[k] == eb[k]) self[ea[k]]++;
    for (int e = 0; e < A.nelem; ++e) cr_assert_eq(self[e], 1, "element %d", e);
    free(ea);
    free(eb);
    free(self);
  }
  bvh_free(&A);
  bvh_free(&B);
  soup_free(&sa);
  soup_free(&sb);
}

Test(bvh, pairs_tet_tet) { pairs_case(4, 1, 4, 1, 42); }
Test(bvh, pairs_tri_tet) { pairs_case(3, 3, 4, 1, 43); }
Test(bvh, pairs_tet_tri) { pairs_case(4, 1, 3, 3, 44); }
Test(bvh, pairs_tri_tri) { pairs_case(3, 3, 3, 2, 45); }

/* A block of nx × ny × nz cubes of side h from the origin, each cut into the six tets around its
 * main diagonal (each tet with its own copy of its vertices, as make_soup's). */
static soup grid_soup(int nx, int ny, int nz, double h) {
  static const int kuhn[6][4] = {{0, 1, 3, 7}, {0, 1, 5, 7}, {0, 2, 3, 7}, {0, 2, 6, 7}, {0, 4, 5, 7}, {0, 4, 6, 7}};
  soup s;
  s.nper = 4;
  s.nelem = 6 * nx * ny * nz;
  s.nvert = 4 * s.nelem;
  s.vert = (double *)xmalloc((size_t)s.nvert * 3 * sizeof(double));
  s.idx = (int *)xmalloc((size_t)s.nvert * sizeof(int));
  int e = 0;
  for (int i = 0; i < nx; ++i)
    for (int j = 0; j < ny; ++j)
      for (int k = 0; k < nz; ++k)
        for (int t = 0; t < 6; ++t, ++e)
          for (int c = 0; c < 4; ++c) {
            const int corner = kuhn[t][c], v = 4 * e + c;
            s.vert[3 * v] = h * (i + (corner & 1));
            s.vert[3 * v + 1] = h * (j + ((corner >> 1) & 1));
            s.vert[3 * v + 2] = h * (k + ((corner >> 2) & 1));
            s.idx[v] = v;
          }
  return s;
}

/* Face to face: one block set on another, exactly touching or within round-off of it, turned by
 * nothing, by round-off-sized angles and by real ones. Here element boxes touch along a whole
 * plane, and the walk must still emit exactly the element pairs the face axes pass on their
 * element boxes: check_pairs compares with the brute-force loop. */
Test(bvh, pairs_face_to_face_blocks) {
  soup sa = grid_soup(4, 4, 2, 0.125), sb = grid_soup(4, 4, 2, 0.125);
  bvhHost A = soup_bvh(&sa, 1), B = soup_bvh(&sb, 1);
  const double gaps[] = {0, 1e-16, -1e-16, 1e-13, -1e-13, 1e-9, -1e-9, 1e-3};
  const double angles[] = {0, 1e-15, 1e-12, 1e-9, 1e-6, 0.3};
  const double shifts[] = {0, 0.0625, 0.125};
  test_rng r = {46};
  int n_actual = 0, cases = 0;
  for (int g = 0; g < 8; ++g)
    for (int a = 0; a < 6; ++a)
      for (int d = 0; d < 3; ++d) {
        vec3 axis = v3_normalize(v3(test_rng_uniform(&r, -1, 1), test_rng_uniform(&r, -1, 1), test_rng_uniform(&r, -1, 1)));
        xform X = xf_make(quat_from_axis_angle(axis, angles[a]), v3(shifts[d], -shifts[d], 0.25 + gaps[g]));
        check_pairs(&sa, &A, &sb, &B, X, &n_actual);
        ++cases;
      }
  cr_assert_gt(n_actual, cases, "the blocks must overlap somewhere (%d intersecting pairs)", n_actual);
  bvh_free(&A);
  bvh_free(&B);
  soup_free(&sa);
  soup_free(&sb);
}

/* ---- tree against plane / half-space -------------------------------------------------------- */

static void check_plane(const soup *s, const bvhHost *h, vec3 n_A, double d_A, int mode,
                        int *n_actual) {
  int cap = s->nelem;
  int *out = (int *)xmalloc((size_t)cap * sizeof(int));
  int *out2 = (int *)xmalloc((size_t)cap * sizeof(int));
  char *hit = (char *)calloc((size_t)cap, 1);
  bvhTree t = bvh_host_view(h);
  int count = bvh_plane_count(t, n_A, d_A, mode);
  int n = bvh_plane_emit(t, n_A, d_A, mode, out, cap);
  int nb = 0;
  cr_assert_eq(count, n);
  for (int k = 0; k < n; ++k) {
    cr_assert_eq(hit[out[k]], 0, "element %d emitted twice", out[k]);
    hit[out[k]] = 1;
  }
  for (int e = 0; e < s->nelem; ++e) {
    const double *bx = elem_box(h, e);
    int want = mode == BVH_PLANE_INSIDE ? box_halfspace_overlap(bx, bx + 3, n_A, d_A)
                                        : box_plane_straddle(bx, bx + 3, n_A, d_A);
    cr_assert_eq(hit[e], want, "element %d: tree %d, brute force %d", e, hit[e], want);
    nb += want;
    /* superset of the elements that certainly cross the plane / reach into the half-space */
    {
      int below = 0, above = 0;
      for (int k = 0; k < s->nper; ++k) {
        double hgt = v3_dot(n_A, soup_point(s, e, k, xf_identity())) - d_A;
        below += hgt < -1e-12;
        above += hgt > 1e-12;
      }
      if ((mode == BVH_PLANE_INSIDE && below) || (below && above)) {
        cr_assert(hit[e], "element %d reaches the %s but was not emitted", e,
                  mode == BVH_PLANE_INSIDE ? "half-space" : "plane");
        ++*n_actual;
      }
    }
  }
  cr_assert_eq(n, nb);
  /* order: repeatable, and capped runs write exactly the prefix */
  cr_assert_eq(bvh_plane_emit(t, n_A, d_A, mode, out2, cap), n);
  cr_assert(memcmp(out, out2, (size_t)n * sizeof(int)) == 0);
  for (int k = 0; k < cap; ++k) out2[k] = -7;
  cr_assert_eq(bvh_plane_emit(t, n_A, d_A, mode, out2, n / 2), n);
  cr_assert(memcmp(out, out2, (size_t)(n / 2) * sizeof(int)) == 0);
  for (int k = n / 2; k < cap; ++k) cr_assert_eq(out2[k], -7, "wrote past cap");
  free(out);
  free(out2);
  free(hit);
}

Test(bvh, plane_queries) {
  test_rng r = {42};
  for (int nper = 3; nper <= 4; ++nper) {
    soup s = make_soup(&r, 800, nper, 0.15);
    bvhHost h = soup_bvh(&s, nper == 4 ? 1 : 3);
    int n_actual[2] = {0, 0};
    for (int t = 0; t < 20; ++t) {
      vec3 n = v3_normalize(v3(test_rng_uniform(&r, -1, 1), test_rng_uniform(&r, -1, 1),
                               test_rng_uniform(&r, -1, 1)));
      double d = test_rng_uniform(&r, -0.8, 0.8);
      check_plane(&s, &h, n, d, BVH_PLANE_STRADDLE, &n_actual[0]);
      check_plane(&s, &h, n, d, BVH_PLANE_INSIDE, &n_actual[1]);
    }
    cr_assert(n_actual[0] > 100 && n_actual[1] > 100);
    cr_assert_eq(bvh_plane_count(bvh_host_view(&h), v3(0, 0, 1), 0, 7), -1, "unknown mode");
    bvh_free(&h);
    soup_free(&s);
  }
}

Test(bvh, root_box_contains_posed_mesh) {
  test_rng r = {42};
  soup s = make_soup(&r, 500, 4, 0.1);
  bvhHost h = soup_bvh(&s, 1);
  for (int t = 0; t < 50; ++t) {
    xform X = rand_pose(&r, 5);
    double lo[3], hi[3];
    bvh_root_box(bvh_host_view(&h), X, lo, hi);
    for (int v = 0; v < s.nvert; ++v) {
      vec3 p = xf_point(X, v3(s.vert[3 * v], s.vert[3 * v + 1], s.vert[3 * v + 2]));
      for (int i = 0; i < 3; ++i) cr_assert(v3_get(p, i) >= lo[i] && v3_get(p, i) <= hi[i]);
    }
  }
  bvh_free(&h);
  soup_free(&s);
}
