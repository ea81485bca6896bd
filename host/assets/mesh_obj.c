/* Wavefront OBJ triangle surfaces read at model compile (rigid meshes, and the point sets of
 * convex hulls), drake_algorithms.md §1.7 and §1.9. What the two readers share (whole-file
 * reading, error messages naming file and line, scale and mirroring) is in mesh_read.h.
 *
 * OBJ: `v x y z [w ...]` and `f a b c ...` (each corner `i`, `i/t`, `i//n` or `i/t/n`; a
 * negative index counts back from the last vertex read so far). Polygons are fanned around
 * their first corner. Every other statement (vt, vn, vp, o, g, s, l, usemtl, mtllib, ...) is
 * ignored, as Drake's tinyobj-based reader does. Positive indices may refer forward (checked
 * after the whole file is read); unused vertices are kept so indices match the file. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/assets/mesh.h"
#include "host/assets/mesh_read.h"
#include "kernels/math/vec3.h"

typedef struct objScratch {
  double *v;            /* vertex positions as read (nv, 3) */
  size_t nv, capv;
  int *tri;             /* corner indices, 0-based (nt, 3); positive ones not yet range-checked */
  int *line;            /* source line of each triangle (nt) */
  size_t nt, capt, capl;
  int *poly;            /* corners of the face being read */
  size_t capp;
} objScratch;

static void obj_free(objScratch *s) {
  free(s->v);
  free(s->tri);
  free(s->line);
  free(s->poly);
}

/* One face corner "i", "i/t", "i//n" or "i/t/n" starting at *pp; stores the 0-based vertex
 * index (negative indices resolved against the nv vertices read so far). */
static isoStatus obj_corner(const char *path, int line, const char **pp, size_t nv, int *out) {
  const char *p = *pp, *tok = p;
  while (*p && !is_space(*p)) ++p;
  int toklen = (int)(p - tok);
  errno = 0;
  char *end = NULL;
  long idx = strtol(tok, &end, 10);
  /* after the vertex index only '/'-separated texture and normal indices may follow */
  int ok = end != tok && errno == 0 && (end == p || *end == '/');
  for (const char *q = end; ok && q < p; ++q)
    if (!((*q >= '0' && *q <= '9') || *q == '/' || *q == '-' || *q == '+')) ok = 0;
  if (!ok) return iso_fail(ISO_ERR_PARSE, "%s:%d: malformed face vertex '%.*s'", path, line, toklen, tok);
  if (idx == 0)
    return iso_fail(ISO_ERR_PARSE, "%s:%d: face index 0 is invalid (OBJ indices start at 1)", path, line);
  if (idx < 0) {
    /* relative: -1 is the last vertex defined above this line */
    if ((size_t)(-(idx + 1)) >= nv)
      return iso_fail(ISO_ERR_PARSE, "%s:%d: face index %ld out of range (%zu vertices so far)", path, line, idx, nv);
    *out = (int)((long)nv + idx);
  } else {
    if (idx > MESH_MAX_ITEMS)
      return iso_fail(ISO_ERR_PARSE, "%s:%d: face index %ld out of range", path, line, idx);
    *out = (int)(idx - 1);
  }
  *pp = p;
  return ISO_OK;
}

static isoStatus obj_vertex(const char *path, int line, const char *p, objScratch *s) {
  if (!mesh_read_reserve((void **)&s->v, &s->capv, 3 * (s->nv + 1), sizeof(double)))
    return iso_fail(ISO_ERR_NOMEM, "%s: out of memory for %zu vertices", path, s->nv + 1);
  for (int k = 0; k < 3; ++k) {
    while (is_space(*p)) ++p;
    const char *tok = p;
    while (*p && !is_space(*p)) ++p;
    if (p == tok) return iso_fail(ISO_ERR_PARSE, "%s:%d: vertex has %d coordinates, needs 3", path, line, k);
    char *end = NULL;
    double x = strtod(tok, &end);
    if (end != p)
      return iso_fail(ISO_ERR_PARSE, "%s:%d: malformed number '%.*s'", path, line, (int)(p - tok), tok);
    if (!isfinite(x))
      return iso_fail(ISO_ERR_PARSE, "%s:%d: coordinate '%.*s' is not finite", path, line, (int)(p - tok), tok);
    s->v[3 * s->nv + (size_t)k] = x;
  }
  /* a 4th (w) or further values (vertex colours some exporters add) are ignored */
  s->nv++;
  if (s->nv > MESH_MAX_ITEMS) return iso_fail(ISO_ERR_PARSE, "%s:%d: too many vertices", path, line);
  return ISO_OK;
}

static isoStatus obj_face(const char *path, int line, const char *p, objScratch *s) {
  size_t nc = 0;
  for (;;) {
    while (is_space(*p)) ++p;
    if (*p == '\0') break;
    if (!mesh_read_reserve((void **)&s->poly, &s->capp, nc + 1, sizeof(int)))
      return iso_fail(ISO_ERR_NOMEM, "%s: out of memory", path);
    isoStatus st = obj_corner(path, line, &p, s->nv, &s->poly[nc]);
    if (st != ISO_OK) return st;
    ++nc;
  }
  if (nc < 3) return iso_fail(ISO_ERR_PARSE, "%s:%d: face has %zu vertices, needs at least 3", path, line, nc);
  size_t add = nc - 2;
  if (s->nt + add > MESH_MAX_ITEMS) return iso_fail(ISO_ERR_PARSE, "%s:%d: too many triangles", path, line);
  if (!mesh_read_reserve((void **)&s->tri, &s->capt, 3 * (s->nt + add), sizeof(int)) ||
      !mesh_read_reserve((void **)&s->line, &s->capl, s->nt + add, sizeof(int)))
    return iso_fail(ISO_ERR_NOMEM, "%s: out of memory for %zu triangles", path, s->nt + add);
  for (size_t k = 1; k + 1 < nc; ++k) { /* fan around the first corner */
    int *t = s->tri + 3 * s->nt;
    t[0] = s->poly[0];
    t[1] = s->poly[k];
    t[2] = s->poly[k + 1];
    s->line[s->nt++] = line;
  }
  return ISO_OK;
}

typedef struct edgeUse {
  int a, b; /* a < b */
  int tri;
} edgeUse;

static int edge_use_cmp(const void *pa, const void *pb) {
  const edgeUse *x = (const edgeUse *)pa, *y = (const edgeUse *)pb;
  if (x->a != y->a) return x->a < y->a ? -1 : 1;
  if (x->b != y->b) return x->b < y->b ? -1 : 1;
  return (x->tri > y->tri) - (x->tri < y->tri);
}

/* Closed: every undirected edge is used by exactly two triangles. Vertices are named as in
 * the file (1-based) with the line of the first triangle using the edge. */
static isoStatus obj_check_closed(const char *path, const triMesh *m, const int *line) {
  size_t ne = (size_t)m->ntri * 3;
  edgeUse *e = (edgeUse *)malloc(ne * sizeof *e);
  if (e == NULL) return iso_fail(ISO_ERR_NOMEM, "%s: out of memory checking closedness", path);
  for (int t = 0; t < m->ntri; ++t)
    for (int k = 0; k < 3; ++k) {
      int u = m->tri[3 * t + k], w = m->tri[3 * t + (k + 1) % 3];
      edgeUse *q = e + 3 * (size_t)t + k;
      q->a = u < w ? u : w;
      q->b = u < w ? w : u;
      q->tri = t;
    }
  qsort(e, ne, sizeof *e, edge_use_cmp);
  isoStatus st = ISO_OK;
  for (size_t i = 0; i < ne;) {
    size_t j = i;
    while (j < ne && e[j].a == e[i].a && e[j].b == e[i].b) ++j;
    if (j - i != 2) {
      st = iso_fail(ISO_ERR_INVALID,
                    "%s:%d: mesh is not closed: the edge between vertices %d and %d is used by %zu "
                    "triangle(s), a closed surface uses every edge exactly twice",
                    path, line[e[i].tri], e[i].a + 1, e[i].b + 1, j - i);
      break;
    }
    i = j;
  }
  free(e);
  return st;
}

isoStatus mesh_read_obj(const char *path, const double scale[3], int require_closed, triMesh *out) {
  CHECK_NULL(path, "mesh_read_obj");
  CHECK_NULL(out, "mesh_read_obj");
  double s[3];
  int mirror = 0;
  isoStatus st = mesh_read_scale(path, scale, s, &mirror);
  if (st != ISO_OK) return st;

  char *text = NULL;
  size_t len = 0;
  st = mesh_read_slurp(path, &text, &len);
  if (st != ISO_OK) return st;
  objScratch sc;
  memset(&sc, 0, sizeof sc);
  triMesh m;
  memset(&m, 0, sizeof m);

  int line = 0;
  for (char *p = text; p < text + len;) {
    char *eol = (char *)memchr(p, '\n', (size_t)(text + len - p));
    if (eol == NULL) eol = text + len;
    *eol = '\0';
    ++line;
    char *hash = strchr(p, '#');
    if (hash) *hash = '\0';
    char *q = p;
    while (is_space(*q)) ++q;
    char *kw = q;
    while (*q && !is_space(*q)) ++q;
    size_t kwlen = (size_t)(q - kw);
    if (kwlen == 1 && kw[0] == 'v')
      st = obj_vertex(path, line, q, &sc);
    else if (kwlen == 1 && kw[0] == 'f')
      st = obj_face(path, line, q, &sc);
    /* anything else is a statement isobar has no use for */
    if (st != ISO_OK) goto fail;
    p = eol + 1;
  }

  if (sc.nt == 0) {
    st = iso_fail(ISO_ERR_PARSE, "%s: no faces (f lines); a mesh needs at least one triangle", path);
    goto fail;
  }
  for (size_t t = 0; t < sc.nt; ++t)
    for (int k = 0; k < 3; ++k)
      if ((size_t)sc.tri[3 * t + (size_t)k] >= sc.nv) {
        st = iso_fail(ISO_ERR_PARSE, "%s:%d: face index %d out of range (%zu vertices)", path, sc.line[t],
                      sc.tri[3 * t + (size_t)k] + 1, sc.nv);
        goto fail;
      }

  TRY(tri_mesh_alloc(&m, (int)sc.nv, (int)sc.nt));
  for (size_t i = 0; i < sc.nv; ++i)
    for (int k = 0; k < 3; ++k) {
      double x = sc.v[3 * i + (size_t)k] * s[k];
      if (!isfinite(x)) {
        st = iso_fail(ISO_ERR_INVALID, "%s: vertex %zu overflows when scaled", path, i + 1);
        goto fail;
      }
      m.vert[3 * i + (size_t)k] = x;
    }
  for (size_t t = 0; t < sc.nt; ++t) {
    int *f = m.tri + 3 * t;
    f[0] = sc.tri[3 * t];
    /* a mirroring scale reverses the winding; swapping two corners restores outward normals */
    f[1] = sc.tri[3 * t + (mirror ? 2 : 1)];
    f[2] = sc.tri[3 * t + (mirror ? 1 : 2)];
    /* tri_mesh_normals would reject the same triangle, but only by index; here the line is known */
    vec3 a = v3(m.vert[3 * f[0]], m.vert[3 * f[0] + 1], m.vert[3 * f[0] + 2]);
    vec3 b = v3(m.vert[3 * f[1]], m.vert[3 * f[1] + 1], m.vert[3 * f[1] + 2]);
    vec3 c = v3(m.vert[3 * f[2]], m.vert[3 * f[2] + 1], m.vert[3 * f[2] + 2]);
    if (!(v3_norm(v3_cross(v3_sub(b, a), v3_sub(c, a))) > 0)) {
      st = iso_fail(ISO_ERR_INVALID, "%s:%d: face has zero area (triangle %zu of the fan-triangulated mesh)", path,
                    sc.line[t], t);
      goto fail;
    }
  }
  if (require_closed) TRY(obj_check_closed(path, &m, sc.line));
  TRY(tri_mesh_normals(&m, path));

  obj_free(&sc);
  free(text);
  *out = m;
  return ISO_OK;

fail:
  tri_mesh_free(&m);
  obj_free(&sc);
  free(text);
  return st;
}
