/* Mesh basics shared by every mesher and reader: allocation, triangle normals, the per-tet
 * pressure gradient with element validation, and the boundary surface of a tet mesh.
 *
 * Conventions (host/assets/mesh.h, reference/mesh_recipes.md §0 and §6, drake_algorithms.md §1.0):
 *  - a tet (a, b, c, d) is valid when its vertices are finite and 6V = ((b−a)×(c−a))·(d−a) is
 *    positive and larger than machine epsilon (Drake's absolute 2.2e-16 threshold below which
 *    a barycentric gradient "cannot be computed");
 *  - the face opposite local vertex i, wound so that its right-handed normal points out of a
 *    positive tet, is face 0 = (1,2,3), face 1 = (0,3,2), face 2 = (0,1,3), face 3 = (0,2,1)
 *    (mesh_intersection.cc's outward triples);
 *  - boundary triangles come out in (tet, face) order, i.e. the order Drake's
 *    IdentifyBoundaryFaces visits them, and boundary vertices keep their relative order
 *    (compact renumbering by increasing original index). Both are deterministic: face keys
 *    are sorted by a total order, never hashed by address. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/assets/mesh.h"
#include "kernels/math/vec3.h"

/* Largest element count handed to calloc: keeps every (n * 4 * sizeof) product well inside
 * size_t and int indexing. */
#define MAX_ITEMS (INT32_MAX / 8)

/* Outward-winding local vertex triples of the face opposite local vertex f (§6). */
static const int kFaceOut[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};

/* calloc that never returns NULL for a zero count, so "no items" and "out of memory" differ. */
static void *zalloc(size_t n, size_t size) { return calloc(n > 0 ? n : 1, size); }

void tet_mesh_free(tetMesh *m) {
  if (m == NULL) return;
  free(m->vert);
  free(m->tet);
  free(m->pressure);
  free(m->grad);
  free(m->p_origin);
  memset(m, 0, sizeof *m);
}

void tri_mesh_free(triMesh *m) {
  if (m == NULL) return;
  free(m->vert);
  free(m->tri);
  free(m->normal);
  memset(m, 0, sizeof *m);
}

isoStatus tet_mesh_alloc(tetMesh *m, int nvert, int ntet) {
  CHECK_NULL(m, "tet_mesh_alloc");
  memset(m, 0, sizeof *m);
  if (nvert < 0 || ntet < 0 || nvert > MAX_ITEMS || ntet > MAX_ITEMS)
    return iso_fail(ISO_ERR_INVALID, "tet_mesh_alloc: %d vertices and %d tetrahedra are out of range", nvert, ntet);
  m->vert = (real *)zalloc((size_t)nvert * 3, sizeof(real));
  m->tet = (int *)zalloc((size_t)ntet * 4, sizeof(int));
  m->pressure = (real *)zalloc((size_t)nvert, sizeof(real));
  m->grad = (real *)zalloc((size_t)ntet * 3, sizeof(real));
  m->p_origin = (real *)zalloc((size_t)ntet, sizeof(real));
  if (!m->vert || !m->tet || !m->pressure || !m->grad || !m->p_origin) {
    tet_mesh_free(m);
    return iso_fail(ISO_ERR_NOMEM, "tet_mesh_alloc: out of memory for %d vertices and %d tetrahedra", nvert, ntet);
  }
  m->nvert = nvert;
  m->ntet = ntet;
  return ISO_OK;
}

isoStatus tri_mesh_alloc(triMesh *m, int nvert, int ntri) {
  CHECK_NULL(m, "tri_mesh_alloc");
  memset(m, 0, sizeof *m);
  if (nvert < 0 || ntri < 0 || nvert > MAX_ITEMS || ntri > MAX_ITEMS)
    return iso_fail(ISO_ERR_INVALID, "tri_mesh_alloc: %d vertices and %d triangles are out of range", nvert, ntri);
  m->vert = (real *)zalloc((size_t)nvert * 3, sizeof(real));
  m->tri = (int *)zalloc((size_t)ntri * 3, sizeof(int));
  m->normal = (real *)zalloc((size_t)ntri * 3, sizeof(real));
  if (!m->vert || !m->tri || !m->normal) {
    tri_mesh_free(m);
    return iso_fail(ISO_ERR_NOMEM, "tri_mesh_alloc: out of memory for %d vertices and %d triangles", nvert, ntri);
  }
  m->nvert = nvert;
  m->ntri = ntri;
  return ISO_OK;
}

static vec3 vert_at(const real *vert, int i) { return v3(vert[3 * i], vert[3 * i + 1], vert[3 * i + 2]); }

isoStatus tri_mesh_normals(triMesh *m, const char *what) {
  CHECK_NULL(m, "tri_mesh_normals");
  if (what == NULL) what = "mesh";
  if (m->normal == NULL && m->ntri > 0) {
    m->normal = (real *)zalloc((size_t)m->ntri * 3, sizeof(real));
    if (m->normal == NULL) return iso_fail(ISO_ERR_NOMEM, "%s: out of memory for %d triangle normals", what, m->ntri);
  }
  for (int t = 0; t < m->ntri; ++t) {
    const int *f = m->tri + 3 * t;
    for (int k = 0; k < 3; ++k)
      if (f[k] < 0 || f[k] >= m->nvert)
        return iso_fail(ISO_ERR_INVALID, "%s: triangle %d refers to vertex %d of %d", what, t, f[k], m->nvert);
    vec3 a = vert_at(m->vert, f[0]), b = vert_at(m->vert, f[1]), c = vert_at(m->vert, f[2]);
    vec3 n = v3_cross(v3_sub(b, a), v3_sub(c, a));
    real len = v3_norm(n);
    /* Only an exactly zero (or non-finite) cross product is rejected: a sliver still has a
     * well-defined normal, and a relative threshold would depend on the mesh's scale. */
    if (!(len > 0) || !isfinite(len))
      return iso_fail(ISO_ERR_INVALID, "%s: triangle %d has zero area (or a non-finite vertex)", what, t);
    n = v3_scale(n, 1 / len);
    m->normal[3 * t] = n.x;
    m->normal[3 * t + 1] = n.y;
    m->normal[3 * t + 2] = n.z;
  }
  return ISO_OK;
}

/* Validate tet e: indices in range, finite vertices, 6V positive and above machine epsilon. */
static isoStatus check_tet(const tetMesh *m, int e, const char *what) {
  const int *t = m->tet + 4 * e;
  for (int k = 0; k < 4; ++k)
    if (t[k] < 0 || t[k] >= m->nvert)
      return iso_fail(ISO_ERR_INVALID, "%s: tetrahedron %d refers to vertex %d of %d", what, e, t[k], m->nvert);
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < k; ++j)
      if (t[k] == t[j])
        return iso_fail(ISO_ERR_INVALID, "%s: tetrahedron %d repeats vertex %d", what, e, t[k]);
  vec3 p[4];
  for (int k = 0; k < 4; ++k) {
    p[k] = vert_at(m->vert, t[k]);
    if (!v3_isfinite(p[k]))
      return iso_fail(ISO_ERR_INVALID, "%s: tetrahedron %d has a non-finite vertex %d", what, e, t[k]);
  }
  real v6 = v3_dot(v3_cross(v3_sub(p[1], p[0]), v3_sub(p[2], p[0])), v3_sub(p[3], p[0]));
  /* drake_algorithms.md §1.0: |6V| <= 2.2e-16 (absolute) means no gradient can be computed. */
  if (!(fabs(v6) > ISO_REAL_EPS))
    return iso_fail(ISO_ERR_INVALID, "%s: tetrahedron %d is degenerate (6V = %.3g)", what, e, v6);
  if (v6 < 0) return iso_fail(ISO_ERR_INVALID, "%s: tetrahedron %d is inverted (6V = %.3g)", what, e, v6);
  return ISO_OK;
}

isoStatus mesh_tet_gradients(tetMesh *m, const char *what) {
  CHECK_NULL(m, "mesh_tet_gradients");
  if (what == NULL) what = "mesh";
  if (m->ntet > 0 && (m->vert == NULL || m->tet == NULL))
    return iso_fail(ISO_ERR_STATE, "%s: tetrahedral mesh has no vertex or element arrays", what);
  for (int e = 0; e < m->ntet; ++e) {
    isoStatus st = check_tet(m, e, what);
    if (st != ISO_OK) return st;
  }
  /* A mesh without a field is only validated (readers call this before any field exists). */
  if (m->pressure == NULL) return ISO_OK;
  for (int i = 0; i < m->nvert; ++i)
    if (!isfinite(m->pressure[i]))
      return iso_fail(ISO_ERR_INVALID, "%s: pressure at vertex %d is not finite", what, i);
  if (m->ntet > 0 && m->grad == NULL) m->grad = (real *)zalloc((size_t)m->ntet * 3, sizeof(real));
  if (m->ntet > 0 && m->p_origin == NULL) m->p_origin = (real *)zalloc((size_t)m->ntet, sizeof(real));
  if (m->ntet > 0 && (m->grad == NULL || m->p_origin == NULL))
    return iso_fail(ISO_ERR_NOMEM, "%s: out of memory for %d tetrahedron gradients", what, m->ntet);

  for (int e = 0; e < m->ntet; ++e) {
    const int *t = m->tet + 4 * e;
    vec3 p[4];
    for (int k = 0; k < 4; ++k) p[k] = vert_at(m->vert, t[k]);
    /* §1.0: ∇p = Σ_i p_i ∇b_i with ∇b_V = (AB×AC) / ((AB×AC)·AV), A, B, C the other three
     * vertices in cyclic order i+1, i+2, i+3 — the same per-vertex formula as Drake's
     * VolumeMesh::CalcGradientVectorOfLinearField, so both round alike. */
    vec3 g = v3_zero();
    for (int i = 0; i < 4; ++i) {
      vec3 A = p[(i + 1) % 4], B = p[(i + 2) % 4], C = p[(i + 3) % 4];
      vec3 n = v3_cross(v3_sub(B, A), v3_sub(C, A));
      real den = v3_dot(n, v3_sub(p[i], A)); /* ±6V: checked above */
      g = v3_axpy(g, m->pressure[t[i]] / den, n);
    }
    m->grad[3 * e] = g.x;
    m->grad[3 * e + 1] = g.y;
    m->grad[3 * e + 2] = g.z;
    /* p_e(Mo) = p(v0) − ∇p_e·v0, so that p(x) = ∇p_e·x + p_e(Mo) inside the tet. */
    m->p_origin[e] = m->pressure[t[0]] - v3_dot(g, p[0]);
  }
  return ISO_OK;
}

/* ---- boundary surface ------------------------------------------------------------------------ */

typedef struct faceKey {
  int k[3];    /* the face's vertex indices, ascending */
  int tet, f;  /* owning tet and local face (opposite local vertex f) */
  int parity;  /* 0 or 1: parity of the permutation sorting the outward triple into k */
} faceKey;

/* Total order (key, tet, face): the sort result is unique, hence deterministic. */
static int face_cmp(const void *pa, const void *pb) {
  const faceKey *a = (const faceKey *)pa, *b = (const faceKey *)pb;
  for (int i = 0; i < 3; ++i)
    if (a->k[i] != b->k[i]) return a->k[i] < b->k[i] ? -1 : 1;
  if (a->tet != b->tet) return a->tet < b->tet ? -1 : 1;
  return (a->f > b->f) - (a->f < b->f);
}

static faceKey make_face(const int *t, int e, int f) {
  faceKey q;
  int v[3] = {t[kFaceOut[f][0]], t[kFaceOut[f][1]], t[kFaceOut[f][2]]};
  int parity = 0;
  /* three-element bubble sort, counting swaps for the orientation parity */
  for (int pass = 0; pass < 2; ++pass)
    for (int i = 0; i < 2 - pass; ++i)
      if (v[i] > v[i + 1]) {
        int s = v[i];
        v[i] = v[i + 1];
        v[i + 1] = s;
        parity ^= 1;
      }
  q.k[0] = v[0];
  q.k[1] = v[1];
  q.k[2] = v[2];
  q.tet = e;
  q.f = f;
  q.parity = parity;
  return q;
}

typedef struct edgeKey {
  int a, b; /* a < b */
  int dir;  /* +1 when traversed a→b, −1 when b→a */
} edgeKey;

static int edge_cmp(const void *pa, const void *pb) {
  const edgeKey *x = (const edgeKey *)pa, *y = (const edgeKey *)pb;
  if (x->a != y->a) return x->a < y->a ? -1 : 1;
  if (x->b != y->b) return x->b < y->b ? -1 : 1;
  return (x->dir > y->dir) - (x->dir < y->dir);
}

/* A closed, consistently oriented surface traverses every undirected edge equally often in
 * both directions. */
static isoStatus check_closed(const triMesh *s, const char *what) {
  size_t ne = (size_t)s->ntri * 3;
  edgeKey *ed = (edgeKey *)zalloc(ne, sizeof(edgeKey));
  if (ed == NULL) return iso_fail(ISO_ERR_NOMEM, "%s: out of memory checking the boundary surface", what);
  for (int t = 0; t < s->ntri; ++t)
    for (int k = 0; k < 3; ++k) {
      int u = s->tri[3 * t + k], w = s->tri[3 * t + (k + 1) % 3];
      edgeKey *q = ed + 3 * (size_t)t + k;
      q->a = u < w ? u : w;
      q->b = u < w ? w : u;
      q->dir = u < w ? 1 : -1;
    }
  qsort(ed, ne, sizeof *ed, edge_cmp);
  isoStatus st = ISO_OK;
  for (size_t i = 0; i < ne;) {
    size_t j = i;
    int sum = 0;
    while (j < ne && ed[j].a == ed[i].a && ed[j].b == ed[i].b) sum += ed[j++].dir;
    if (sum != 0) {
      st = iso_fail(ISO_ERR_INVALID, "%s: boundary surface is not closed at edge (%d, %d)", what, ed[i].a, ed[i].b);
      break;
    }
    i = j;
  }
  free(ed);
  return st;
}

int mesh_tet_face_vertex(int f, int k) { return kFaceOut[f][k]; }

isoStatus mesh_tet_boundary_faces(const int *tet, int ntet, unsigned char *once, int *nbnd, const char *what) {
  size_t nf = (size_t)ntet * 4;
  faceKey *faces = (faceKey *)zalloc(nf ? nf : 1, sizeof(faceKey));
  if (!faces) return iso_fail(ISO_ERR_NOMEM, "%s: out of memory extracting the boundary of %d tetrahedra", what, ntet);
  memset(once, 0, nf);
  for (int e = 0; e < ntet; ++e)
    for (int f = 0; f < 4; ++f) faces[4 * (size_t)e + f] = make_face(tet + 4 * (size_t)e, e, f);
  qsort(faces, nf, sizeof *faces, face_cmp);
  /* A face seen once is boundary; twice is interior and must be seen from opposite sides (the
   * two outward triples wind oppositely); more than twice is non-manifold. */
  isoStatus st = ISO_OK;
  int n = 0;
  for (size_t i = 0; i < nf && st == ISO_OK;) {
    size_t j = i + 1;
    while (j < nf && memcmp(faces[j].k, faces[i].k, sizeof faces[i].k) == 0) ++j;
    if (j - i == 1) {
      once[4 * (size_t)faces[i].tet + faces[i].f] = 1;
      ++n;
    } else if (j - i == 2 && faces[i].parity == faces[i + 1].parity) {
      st = iso_fail(ISO_ERR_INVALID, "%s: tetrahedra %d and %d overlap across face (%d, %d, %d) (both lie on its same "
                    "side)", what, faces[i].tet, faces[i + 1].tet, faces[i].k[0], faces[i].k[1], faces[i].k[2]);
    } else if (j - i > 2) {
      st = iso_fail(ISO_ERR_INVALID, "%s: face (%d, %d, %d) is shared by %d tetrahedra (%d, %d, ...); at most two may "
                    "share a face", what, faces[i].k[0], faces[i].k[1], faces[i].k[2], (int)(j - i), faces[i].tet,
                    faces[i + 1].tet);
    }
    i = j;
  }
  free(faces);
  if (nbnd) *nbnd = n;
  return st;
}

isoStatus mesh_tet_boundary(const tetMesh *m, triMesh *out, const char *what) {
  CHECK_NULL(out, "mesh_tet_boundary");
  memset(out, 0, sizeof *out);
  CHECK_NULL(m, "mesh_tet_boundary");
  if (what == NULL) what = "mesh";
  if (m->ntet < 1) return iso_fail(ISO_ERR_INVALID, "%s: tetrahedral mesh has no tetrahedra", what);
  if (m->ntet > MAX_ITEMS / 4) return iso_fail(ISO_ERR_INVALID, "%s: %d tetrahedra are too many", what, m->ntet);
  for (int e = 0; e < m->ntet; ++e)
    for (int k = 0; k < 4; ++k)
      if (m->tet[4 * e + k] < 0 || m->tet[4 * e + k] >= m->nvert)
        return iso_fail(ISO_ERR_INVALID, "%s: tetrahedron %d refers to vertex %d of %d", what, e, m->tet[4 * e + k],
                        m->nvert);

  isoStatus st = ISO_OK;
  size_t nf = (size_t)m->ntet * 4;
  unsigned char *is_bnd = (unsigned char *)zalloc(nf, 1); /* per (tet, face) */
  int *vmap = (int *)zalloc((size_t)m->nvert, sizeof(int));
  int nbnd = 0;
  if (!is_bnd || !vmap) {
    st = iso_fail(ISO_ERR_NOMEM, "%s: out of memory extracting the boundary of %d tetrahedra", what, m->ntet);
    goto fail;
  }
  if ((st = mesh_tet_boundary_faces(m->tet, m->ntet, is_bnd, &nbnd, what)) != ISO_OK) goto fail;

  /* Compact renumbering by increasing original index. */
  for (int v = 0; v < m->nvert; ++v) vmap[v] = -1;
  for (int e = 0; e < m->ntet; ++e)
    for (int f = 0; f < 4; ++f)
      if (is_bnd[4 * (size_t)e + f])
        for (int k = 0; k < 3; ++k) vmap[m->tet[4 * e + kFaceOut[f][k]]] = 0;
  int nv = 0;
  for (int v = 0; v < m->nvert; ++v)
    if (vmap[v] == 0) vmap[v] = nv++;

  TRY(tri_mesh_alloc(out, nv, nbnd));
  for (int v = 0; v < m->nvert; ++v)
    if (vmap[v] >= 0) memcpy(out->vert + 3 * vmap[v], m->vert + 3 * v, 3 * sizeof(real));
  int t = 0;
  for (int e = 0; e < m->ntet; ++e)
    for (int f = 0; f < 4; ++f)
      if (is_bnd[4 * (size_t)e + f]) {
        for (int k = 0; k < 3; ++k) out->tri[3 * t + k] = vmap[m->tet[4 * e + kFaceOut[f][k]]];
        ++t;
      }
  TRY(tri_mesh_normals(out, what));
  TRY(check_closed(out, what));
  free(is_bnd);
  free(vmap);
  return ISO_OK;

fail:
  free(is_bnd);
  free(vmap);
  tri_mesh_free(out);
  return st;
}

void mesh_put_tet(int *t, int a, int b, int c, int d) {
  t[0] = a;
  t[1] = b;
  t[2] = c;
  t[3] = d;
}

int *mesh_prism(int *t, int v0, int v1, int v2, int v3, int v4, int v5) {
  mesh_put_tet(t, v3, v4, v0, v5);
  mesh_put_tet(t + 4, v4, v1, v0, v5);
  mesh_put_tet(t + 8, v1, v2, v0, v5);
  return t + 12;
}

int *mesh_pyramid(int *t, int v0, int v1, int v2, int v3, int v4) {
  mesh_put_tet(t, v3, v4, v0, v2);
  mesh_put_tet(t + 4, v4, v1, v0, v2);
  return t + 8;
}
