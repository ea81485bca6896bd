/* Element soups for the BVH tests (tests/test_bvh.c, tests/test_walk_keep.c): random tets or
 * triangles in [-1, 1]^3 and their trees. Header-only (static); needs Criterion. */
#ifndef ISO_TESTS_SOUP_H
#define ISO_TESTS_SOUP_H

#include <criterion/criterion.h>
#include <stdlib.h>

#include "host/assets/bvh.h"
#include "isobar/isobar.h"
#include "support/support.h"

static inline void *xmalloc(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  cr_assert_not_null(p);
  return p;
}

/* ---- meshes: element soups --------------------------------------------------------------- */

typedef struct soup {
  int nvert, nelem, nper; /* nper: 4 tets, 3 triangles */
  double *vert;           /* (nvert, 3) */
  int *idx;               /* (nelem, nper) */
} soup;

/* nelem elements, each nper vertices within `size` of a centre in [-1, 1]^3. */
static inline soup make_soup(test_rng *r, int nelem, int nper, double size) {
  soup s;
  s.nelem = nelem;
  s.nper = nper;
  s.nvert = nelem * nper;
  s.vert = (double *)xmalloc((size_t)s.nvert * 3 * sizeof(double));
  s.idx = (int *)xmalloc((size_t)s.nvert * sizeof(int));
  for (int e = 0; e < nelem; ++e) {
    double c[3];
    for (int i = 0; i < 3; ++i) c[i] = test_rng_uniform(r, -1, 1);
    for (int k = 0; k < nper; ++k) {
      int v = e * nper + k;
      for (int i = 0; i < 3; ++i) s.vert[3 * v + i] = c[i] + test_rng_uniform(r, -size, size);
      s.idx[v] = v;
    }
  }
  return s;
}

static inline void soup_free(soup *s) {
  free(s->vert);
  free(s->idx);
}

static inline bvhHost soup_bvh(const soup *s, int leaf_size) {
  double *lo = (double *)xmalloc((size_t)s->nelem * 3 * sizeof(double));
  double *hi = (double *)xmalloc((size_t)s->nelem * 3 * sizeof(double));
  bvhHost h;
  isoStatus st = s->nper == 4
                     ? bvh_elem_bounds_tets(s->vert, s->idx, s->nelem, lo, hi)
                     : bvh_elem_bounds_tris(s->vert, s->idx, s->nelem, lo, hi);
  cr_assert_eq(st, ISO_OK, "%s", iso_last_error());
  cr_assert_eq(bvh_build(lo, hi, s->nelem, leaf_size, &h), ISO_OK, "%s", iso_last_error());
  free(lo);
  free(hi);
  return h;
}

#endif
