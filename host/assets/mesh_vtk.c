/* Legacy ASCII VTK tetrahedral meshes read at model compile (compliant meshes),
 * drake_algorithms.md §7.1. What the two readers share (whole-file reading, error messages
 * naming file and line, scale and mirroring) is in mesh_read.h.
 *
 * VTK: header `# vtk DataFile Version x.y`, a title line, `ASCII`, `DATASET
 * UNSTRUCTURED_GRID`, then POINTS, CELLS (legacy rows `4 i j k l`, or the 5.1 form with
 * OFFSETS and CONNECTIVITY arrays) and CELL_TYPES, all 10 (VTK_TETRA). FIELD and METADATA
 * blocks are skipped; reading stops at POINT_DATA or CELL_DATA (Drake ignores both). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/assets/mesh.h"
#include "host/assets/mesh_read.h"
#include "kernels/math/vec3.h"

/* Whitespace-separated tokens with the line each starts on. */
typedef struct lexer {
  const char *p, *end;
  int line;
  const char *path;
} lexer;

/* Next token into (*tok, *len); returns 0 at the end of the file. */
static int lex(lexer *L, const char **tok, size_t *len) {
  while (L->p < L->end && (is_space(*L->p) || *L->p == '\n')) {
    if (*L->p == '\n') ++L->line;
    ++L->p;
  }
  if (L->p >= L->end) return 0;
  *tok = L->p;
  while (L->p < L->end && !is_space(*L->p) && *L->p != '\n') ++L->p;
  *len = (size_t)(L->p - *tok);
  return 1;
}

/* 1 when the next token equals `kw` (case-insensitive); consumes it only then. */
static int lex_accept(lexer *L, const char *kw) {
  lexer save = *L;
  const char *t;
  size_t n;
  if (lex(L, &t, &n) && ieq(t, n, kw)) return 1;
  *L = save;
  return 0;
}

static isoStatus lex_eof(const lexer *L, const char *where) {
  return iso_fail(ISO_ERR_PARSE, "%s:%d: unexpected end of file in %s (truncated?)", L->path, L->line, where);
}

static isoStatus lex_long(lexer *L, long *out, const char *where) {
  const char *t;
  size_t n;
  if (!lex(L, &t, &n)) return lex_eof(L, where);
  char *end = NULL;
  errno = 0;
  long v = strtol(t, &end, 10);
  if (end != t + n || errno != 0)
    return iso_fail(ISO_ERR_PARSE, "%s:%d: expected an integer in %s, found '%.*s'", L->path, L->line, where,
                    (int)n, t);
  *out = v;
  return ISO_OK;
}

static isoStatus lex_real(lexer *L, double *out, const char *where) {
  const char *t;
  size_t n;
  if (!lex(L, &t, &n)) return lex_eof(L, where);
  char *end = NULL;
  double v = strtod(t, &end);
  if (end != t + n)
    return iso_fail(ISO_ERR_PARSE, "%s:%d: expected a number in %s, found '%.*s'", L->path, L->line, where,
                    (int)n, t);
  if (!isfinite(v))
    return iso_fail(ISO_ERR_PARSE, "%s:%d: %s value '%.*s' is not finite", L->path, L->line, where, (int)n, t);
  *out = v;
  return ISO_OK;
}

/* A count that declares `per` numbers per item: in range, and the rest of the file long enough
 * to hold them (each number takes at least one character and one separator), so a corrupt
 * count cannot make us allocate gigabytes. */
static isoStatus lex_count(lexer *L, long n, long min, long per, const char *what) {
  if (n < min || n > MESH_MAX_ITEMS)
    return iso_fail(ISO_ERR_PARSE, "%s:%d: %s count %ld is out of range", L->path, L->line, what, n);
  if ((double)n * (double)per * 2 - 1 > (double)(L->end - L->p))
    return iso_fail(ISO_ERR_PARSE, "%s:%d: %s declares %ld entries but the file ends before them (truncated?)",
                    L->path, L->line, what, n);
  return ISO_OK;
}

/* Skip the rest of the current line and every following line up to a blank one (a METADATA
 * block of the 5.1 format ends with an empty line). */
static void lex_skip_metadata(lexer *L) {
  int blank = 0;
  while (L->p < L->end && *L->p != '\n') ++L->p;
  while (L->p < L->end && !blank) {
    ++L->p; /* the '\n' */
    ++L->line;
    blank = 1;
    while (L->p < L->end && *L->p != '\n') {
      if (!is_space(*L->p)) blank = 0;
      ++L->p;
    }
  }
}

static int numeric_type(const char *t, size_t n) {
  static const char *const names[] = {"float", "double", "int", "unsigned_int", "long", "unsigned_long",
                                      "short", "unsigned_short", "char", "unsigned_char", "vtktypeint64",
                                      "vtktypeuint64", "vtkidtype"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
    if (ieq(t, n, names[i])) return 1;
  return 0;
}

typedef struct vtkScratch {
  double *pt;       /* points (npt, 3) */
  long npt;
  long *start;      /* cell c's vertices are conn[start[c] .. start[c+1]) (ncell + 1) */
  int *conn;        /* vertex indices */
  int *cline;       /* line each legacy cell row starts on (ncell); the CELLS line for 5.1 */
  long ncell;
  int *type;        /* cell types (ncell) */
  int have_points, have_cells, have_types;
} vtkScratch;

static void vtk_free(vtkScratch *s) {
  free(s->pt);
  free(s->start);
  free(s->conn);
  free(s->cline);
  free(s->type);
}

static isoStatus vtk_points(lexer *L, vtkScratch *s) {
  long n;
  const char *t;
  size_t tl;
  isoStatus st = lex_long(L, &n, "POINTS");
  if (st != ISO_OK) return st;
  if (!lex(L, &t, &tl)) return lex_eof(L, "POINTS");
  if (!numeric_type(t, tl))
    return iso_fail(ISO_ERR_PARSE, "%s:%d: POINTS has data type '%.*s', expected float or double", L->path, L->line,
                    (int)tl, t);
  if ((st = lex_count(L, n, 1, 3, "POINTS")) != ISO_OK) return st;
  s->pt = (double *)malloc((size_t)n * 3 * sizeof(double));
  if (s->pt == NULL) return iso_fail(ISO_ERR_NOMEM, "%s: out of memory for %ld points", L->path, n);
  for (long i = 0; i < 3 * n; ++i)
    if ((st = lex_real(L, &s->pt[i], "POINTS")) != ISO_OK) return st;
  s->npt = n;
  s->have_points = 1;
  return ISO_OK;
}

/* A vertex index of cell c, range-checked against the points. */
static isoStatus vtk_index(lexer *L, const vtkScratch *s, long c, int *out) {
  long v;
  isoStatus st = lex_long(L, &v, "CELLS");
  if (st != ISO_OK) return st;
  if (v < 0 || v >= s->npt)
    return iso_fail(ISO_ERR_PARSE, "%s:%d: cell %ld has vertex index %ld out of range (%ld points)", L->path, L->line,
                    c, v, s->npt);
  *out = (int)v;
  return ISO_OK;
}

/* CELLS in the 5.1 form: "CELLS noffsets nconn", "OFFSETS type" + noffsets values,
 * "CONNECTIVITY type" + nconn values. */
static isoStatus vtk_cells51(lexer *L, vtkScratch *s, long noff, long nconn, int cells_line) {
  isoStatus st;
  const char *t;
  size_t tl;
  if (!lex(L, &t, &tl)) return lex_eof(L, "OFFSETS");
  if ((st = lex_count(L, noff, 2, 1, "OFFSETS")) != ISO_OK) return st;
  s->ncell = noff - 1;
  s->start = (long *)malloc((size_t)noff * sizeof(long));
  s->cline = (int *)malloc((size_t)s->ncell * sizeof(int));
  if (!s->start || !s->cline) return iso_fail(ISO_ERR_NOMEM, "%s: out of memory for %ld cells", L->path, s->ncell);
  for (long i = 0; i < noff; ++i) {
    if ((st = lex_long(L, &s->start[i], "OFFSETS")) != ISO_OK) return st;
    if ((i == 0 && s->start[i] != 0) || (i > 0 && s->start[i] < s->start[i - 1]) || s->start[i] > nconn)
      return iso_fail(ISO_ERR_PARSE, "%s:%d: OFFSETS entry %ld = %ld is not a valid offset into %ld indices", L->path,
                      L->line, i, s->start[i], nconn);
  }
  if (s->start[noff - 1] != nconn)
    return iso_fail(ISO_ERR_PARSE, "%s:%d: OFFSETS end at %ld but CELLS declares %ld indices", L->path, L->line,
                    s->start[noff - 1], nconn);
  if (!lex_accept(L, "CONNECTIVITY"))
    return iso_fail(ISO_ERR_PARSE, "%s:%d: expected CONNECTIVITY after OFFSETS", L->path, L->line);
  if (!lex(L, &t, &tl)) return lex_eof(L, "CONNECTIVITY");
  if ((st = lex_count(L, nconn, 0, 1, "CONNECTIVITY")) != ISO_OK) return st;
  s->conn = (int *)malloc((size_t)(nconn > 0 ? nconn : 1) * sizeof(int));
  if (s->conn == NULL) return iso_fail(ISO_ERR_NOMEM, "%s: out of memory for %ld cell indices", L->path, nconn);
  for (long c = 0; c < s->ncell; ++c) {
    s->cline[c] = cells_line;
    for (long i = s->start[c]; i < s->start[c + 1]; ++i)
      if ((st = vtk_index(L, s, c, &s->conn[i])) != ISO_OK) return st;
  }
  return ISO_OK;
}

static isoStatus vtk_cells(lexer *L, vtkScratch *s) {
  isoStatus st;
  if (!s->have_points) return iso_fail(ISO_ERR_PARSE, "%s:%d: CELLS before POINTS", L->path, L->line);
  int cells_line = L->line;
  long m, size;
  if ((st = lex_long(L, &m, "CELLS")) != ISO_OK) return st;
  if ((st = lex_long(L, &size, "CELLS")) != ISO_OK) return st;
  if (lex_accept(L, "OFFSETS")) {
    st = vtk_cells51(L, s, m, size, cells_line);
    if (st == ISO_OK) s->have_cells = 1;
    return st;
  }
  if ((st = lex_count(L, m, 1, 1, "CELLS")) != ISO_OK) return st;
  if ((st = lex_count(L, size, m, 1, "CELLS size")) != ISO_OK) return st;
  s->ncell = m;
  s->start = (long *)malloc((size_t)(m + 1) * sizeof(long));
  s->cline = (int *)malloc((size_t)m * sizeof(int));
  s->conn = (int *)malloc((size_t)size * sizeof(int));
  if (!s->start || !s->cline || !s->conn)
    return iso_fail(ISO_ERR_NOMEM, "%s: out of memory for %ld cells", L->path, m);
  long used = 0; /* values consumed, counts included, to compare with `size` */
  long nconn = 0;
  s->start[0] = 0;
  for (long c = 0; c < m; ++c) {
    long k;
    if ((st = lex_long(L, &k, "CELLS")) != ISO_OK) return st;
    s->cline[c] = L->line;
    if (k < 1 || used + 1 + k > size)
      return iso_fail(ISO_ERR_PARSE, "%s:%d: cell %ld with %ld vertices does not fit CELLS size %ld", L->path,
                      L->line, c, k, size);
    for (long i = 0; i < k; ++i)
      if ((st = vtk_index(L, s, c, &s->conn[nconn + i])) != ISO_OK) return st;
    used += 1 + k;
    nconn += k;
    s->start[c + 1] = nconn;
  }
  if (used != size)
    return iso_fail(ISO_ERR_PARSE, "%s:%d: CELLS declares size %ld but its %ld rows hold %ld values", L->path,
                    cells_line, size, m, used);
  s->have_cells = 1;
  return ISO_OK;
}

static isoStatus vtk_cell_types(lexer *L, vtkScratch *s) {
  isoStatus st;
  if (!s->have_cells) return iso_fail(ISO_ERR_PARSE, "%s:%d: CELL_TYPES before CELLS", L->path, L->line);
  long m;
  if ((st = lex_long(L, &m, "CELL_TYPES")) != ISO_OK) return st;
  if (m != s->ncell)
    return iso_fail(ISO_ERR_PARSE, "%s:%d: CELL_TYPES has %ld entries but CELLS has %ld cells", L->path, L->line, m,
                    s->ncell);
  if ((st = lex_count(L, m, 1, 1, "CELL_TYPES")) != ISO_OK) return st;
  s->type = (int *)malloc((size_t)m * sizeof(int));
  if (s->type == NULL) return iso_fail(ISO_ERR_NOMEM, "%s: out of memory for %ld cell types", L->path, m);
  for (long c = 0; c < m; ++c) {
    long ty;
    if ((st = lex_long(L, &ty, "CELL_TYPES")) != ISO_OK) return st;
    if (ty != 10)
      return iso_fail(ISO_ERR_UNSUPPORTED, "%s:%d: cell %ld has type %ld, only tetrahedra (10) are supported",
                      L->path, L->line, c, ty);
    if (s->start[c + 1] - s->start[c] != 4)
      return iso_fail(ISO_ERR_PARSE, "%s:%d: cell %ld has type 10 (tetrahedron) but %ld vertices", L->path,
                      s->cline[c], c, s->start[c + 1] - s->start[c]);
    s->type[c] = (int)ty;
  }
  s->have_types = 1;
  return ISO_OK;
}

/* FIELD name n, then n arrays "name ncomp ntuples type" + ncomp·ntuples values; all skipped. */
static isoStatus vtk_skip_field(lexer *L) {
  const char *t;
  size_t tl;
  long narr;
  isoStatus st;
  if (!lex(L, &t, &tl)) return lex_eof(L, "FIELD");
  if ((st = lex_long(L, &narr, "FIELD")) != ISO_OK) return st;
  for (long a = 0; a < narr; ++a) {
    long nc, nt;
    if (!lex(L, &t, &tl)) return lex_eof(L, "FIELD");
    if ((st = lex_long(L, &nc, "FIELD")) != ISO_OK) return st;
    if ((st = lex_long(L, &nt, "FIELD")) != ISO_OK) return st;
    if (!lex(L, &t, &tl)) return lex_eof(L, "FIELD");
    if (nc < 0 || nt < 0 || (double)nc * (double)nt > (double)(L->end - L->p))
      return iso_fail(ISO_ERR_PARSE, "%s:%d: FIELD array of %ld x %ld values does not fit the file", L->path, L->line,
                      nc, nt);
    for (long i = 0; i < nc * nt; ++i)
      if (!lex(L, &t, &tl)) return lex_eof(L, "FIELD");
    if (lex_accept(L, "METADATA")) lex_skip_metadata(L);
  }
  return ISO_OK;
}

/* The three header lines: magic, title, ASCII. Leaves L after the third line. */
static isoStatus vtk_header(lexer *L) {
  static const char magic[] = "# vtk DataFile Version";
  const char *p = L->p;
  size_t n = strlen(magic);
  if ((size_t)(L->end - p) < n || !ieq(p, n, magic))
    return iso_fail(ISO_ERR_PARSE, "%s:1: not a legacy VTK file (the first line must be '%s x.y')", L->path, magic);
  for (int k = 0; k < 2; ++k) { /* skip the magic and title lines */
    while (L->p < L->end && *L->p != '\n') ++L->p;
    if (L->p >= L->end) return lex_eof(L, "the header");
    ++L->p;
    ++L->line;
  }
  const char *t = L->p;
  while (L->p < L->end && *L->p != '\n') ++L->p;
  const char *e = L->p;
  while (t < e && is_space(*t)) ++t;
  while (e > t && is_space(e[-1])) --e;
  if (ieq(t, (size_t)(e - t), "BINARY"))
    return iso_fail(ISO_ERR_UNSUPPORTED, "%s:3: BINARY legacy VTK is not supported; write the file as ASCII", L->path);
  if (!ieq(t, (size_t)(e - t), "ASCII"))
    return iso_fail(ISO_ERR_PARSE, "%s:3: expected ASCII, found '%.*s'", L->path, (int)(e - t), t);
  return ISO_OK;
}

static isoStatus vtk_parse(lexer *L, vtkScratch *s) {
  isoStatus st = vtk_header(L);
  if (st != ISO_OK) return st;
  const char *t;
  size_t n;
  if (!lex(L, &t, &n)) return lex_eof(L, "the header");
  if (!ieq(t, n, "DATASET"))
    return iso_fail(ISO_ERR_PARSE, "%s:%d: expected DATASET, found '%.*s'", L->path, L->line, (int)n, t);
  if (!lex(L, &t, &n)) return lex_eof(L, "DATASET");
  if (!ieq(t, n, "UNSTRUCTURED_GRID"))
    return iso_fail(ISO_ERR_UNSUPPORTED,
                    "%s:%d: DATASET %.*s is not supported; a tetrahedral mesh is an UNSTRUCTURED_GRID", L->path,
                    L->line, (int)n, t);
  while (lex(L, &t, &n)) {
    if (ieq(t, n, "POINTS") && !s->have_points)
      st = vtk_points(L, s);
    else if (ieq(t, n, "CELLS") && !s->have_cells)
      st = vtk_cells(L, s);
    else if (ieq(t, n, "CELL_TYPES") && !s->have_types)
      st = vtk_cell_types(L, s);
    else if (ieq(t, n, "FIELD"))
      st = vtk_skip_field(L);
    else if (ieq(t, n, "METADATA"))
      lex_skip_metadata(L);
    else if (ieq(t, n, "POINT_DATA") || ieq(t, n, "CELL_DATA"))
      break; /* attributes: ignored, like Drake */
    else
      return iso_fail(ISO_ERR_PARSE, "%s:%d: unexpected '%.*s'", L->path, L->line, (int)n, t);
    if (st != ISO_OK) return st;
  }
  if (!s->have_points) return iso_fail(ISO_ERR_PARSE, "%s: no POINTS section", L->path);
  if (!s->have_cells) return iso_fail(ISO_ERR_PARSE, "%s: no CELLS section", L->path);
  if (!s->have_types) return iso_fail(ISO_ERR_PARSE, "%s: no CELL_TYPES section", L->path);
  return ISO_OK;
}

isoStatus mesh_read_vtk(const char *path, const double scale[3], tetMesh *out) {
  CHECK_NULL(path, "mesh_read_vtk");
  CHECK_NULL(out, "mesh_read_vtk");
  double s[3];
  int mirror = 0;
  isoStatus st = mesh_read_scale(path, scale, s, &mirror);
  if (st != ISO_OK) return st;
  char *text = NULL;
  size_t len = 0;
  st = mesh_read_slurp(path, &text, &len);
  if (st != ISO_OK) return st;
  vtkScratch sc;
  memset(&sc, 0, sizeof sc);
  tetMesh m;
  memset(&m, 0, sizeof m);
  lexer L;
  L.p = text;
  L.end = text + len;
  L.line = 1;
  L.path = path;
  TRY(vtk_parse(&L, &sc));

  TRY(tet_mesh_alloc(&m, (int)sc.npt, (int)sc.ncell));
  /* no field yet (host/assets/mesh.h: pressure is NULL until a field is made) */
  free(m.pressure);
  m.pressure = NULL;
  for (long i = 0; i < 3 * sc.npt; ++i) {
    m.vert[i] = sc.pt[i] * s[i % 3];
    if (!isfinite(m.vert[i])) {
      st = iso_fail(ISO_ERR_INVALID, "%s: point %ld overflows when scaled", path, i / 3);
      goto fail;
    }
  }
  for (long c = 0; c < sc.ncell; ++c) {
    const int *v = sc.conn + sc.start[c];
    int *t = m.tet + 4 * c;
    /* §7.1: a mirroring scale is undone by swapping two vertices, keeping 6V > 0 */
    t[0] = v[mirror ? 1 : 0];
    t[1] = v[mirror ? 0 : 1];
    t[2] = v[2];
    t[3] = v[3];
    vec3 p[4];
    for (int k = 0; k < 4; ++k) p[k] = v3(m.vert[3 * t[k]], m.vert[3 * t[k] + 1], m.vert[3 * t[k] + 2]);
    real v6 = v3_dot(v3_cross(v3_sub(p[1], p[0]), v3_sub(p[2], p[0])), v3_sub(p[3], p[0]));
    /* Drake (and every hydroelastic routine) needs positive volume: ((b−a)×(c−a))·(d−a) > 0 */
    if (!(v6 > 0)) {
      st = iso_fail(ISO_ERR_INVALID,
                    "%s:%d: tetrahedron %ld has non-positive volume (6V = %.3g); vertices must be ordered so "
                    "that ((b-a)x(c-a)).(d-a) > 0",
                    path, sc.cline[c], c, v6);
      goto fail;
    }
  }
  vtk_free(&sc);
  free(text);
  *out = m;
  return ISO_OK;

fail:
  tet_mesh_free(&m);
  vtk_free(&sc);
  free(text);
  return st;
}
