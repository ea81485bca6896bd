/* Convex hulls of point sets (drake_algorithms.md §1.6); the compliant mesh made from a hull
 * is in mesh_convex.c.
 *
 * mesh_convex_hull is a 3D quickhull (Barber, Dobkin & Huhdanpaa 1996) without facet merging:
 *  - points are taken relative to their bounding-box centre, so the plane tests lose no digits
 *    to a far-away origin;
 *  - one tolerance decides every test: tol = 1e-10·D + 64·ε·M, D the bounding-box diagonal, M
 *    the largest absolute input coordinate. A point is "outside" a face when it is more than
 *    tol above the face's plane; points within tol of the surface count as on it and never
 *    become vertices, so coplanar and duplicate points are handled by never adding them;
 *  - the initial simplex is two extreme points, the point farthest from their line and the
 *    point farthest from their plane; if any of those distances is below 1e3·tol (about 1e-7
 *    of the extent) the input is coincident, collinear or coplanar and the call fails. Flatter
 *    (but not flat) clouds would make sliver faces whose planes, rounded to ε·L/h radians,
 *    miss points by more than tol: we refuse them rather than return a wrong hull;
 *  - each step takes the face of lowest index that still has outside points, its farthest
 *    point (the "eye"), the connected set of faces the eye sees (breadth-first from that
 *    face), and replaces it by a cone of new faces from the eye to the horizon;
 *  - tolerance-level noise can make that set wrong in two ways, both repaired before the cone
 *    is built: (1) a face beyond the horizon, unseen within tol, that a new face would fold
 *    over (its far vertex above the new face, or level with it and facing the other way) is
 *    taken as seen (absorb_folds); (2) if the seen faces then do not form a disc (the horizon
 *    is not one simple loop), every unseen face cut off from the one farthest below the eye
 *    is taken as seen too (fill_holes). Only if the loop is still not simple does the call
 *    fail;
 *  - the outside points of removed faces go to the new face they are farthest above (none:
 *    inside the new hull, by the quickhull lemma);
 *  - at the end every non-vertex point is checked against the finished hull, and any more
 *    than tol outside (left there by noise-tilted faces built after it was dropped) is
 *    handed back and the hull grown again, at most kVerifyRounds times. A point inside the
 *    ball inscribed about the vertex mean skips the face loop, so this costs little more than
 *    the hull itself for compact clouds (1e6 points in a ball: about 1 s, 0.4 s without it).
 * Every choice is by index order, so the output is deterministic. Faces may lean by up to
 * about tol (the hull is convex within tol and contains every input point within about
 * 2·tol: checked on thousands of random, spherical, lattice, noisy-coplanar and thin inputs
 * in development); coplanar input faces come out split into triangles in no particular
 * pattern. The output keeps only hull vertices, numbered in increasing input order, with
 * the input coordinates bit for bit; triangles are counter-clockwise seen from outside. */
#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/assets/mesh.h"
#include "kernels/math/vec3.h"

#define kFlat 1e3        /* flatness threshold of the input, in units of tol */
#define kVerifyRounds 3 /* verification passes after the first hull (see mesh_convex_hull) */

typedef struct hFace {
  int v[3];   /* point indices, counter-clockwise seen from outside */
  int nb[3];  /* face across edge (v[i], v[i+1]) */
  vec3 n;     /* unit outward normal */
  real off;   /* plane offset: signed distance of x is n·x − off */
  int head;   /* first point of the outside list, −1 when empty */
  int alive;
  int stamp;  /* the step that last tested this face against its eye */
  int seen;   /* that test's result: 1 when visible */
} hFace;

typedef struct hullState {
  const char *what;
  int n;
  vec3 *p;       /* points relative to the bounding-box centre (n) */
  int *next;     /* outside-list link per point (n) */
  int *vstamp;   /* per point: step whose horizon starts an edge here (n) */
  int *vedge;    /* per point: that horizon edge (n) */
  hFace *f;      /* faces, dead ones included; new faces are appended (nf) */
  size_t nf, capf;
  int *vis;      /* faces seen by the current eye */
  size_t nvis, capvis;
  int *hor;      /* horizon edges as face * 3 + edge, then in loop order */
  int *order;
  size_t nhor, caphor, caporder;
  real tol;
  int step;
} hullState;

static int grow(void **p, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return 1;
  size_t c = *cap ? *cap : 64;
  while (c < need) c *= 2;
  if (c > SIZE_MAX / size) return 0;
  void *q = realloc(*p, c * size);
  if (q == NULL) return 0;
  *p = q;
  *cap = c;
  return 1;
}

static real fdist(const hFace *f, vec3 x) { return v3_dot(f->n, x) - f->off; }

static void set_plane(const hullState *h, hFace *f) {
  vec3 a = h->p[f->v[0]], b = h->p[f->v[1]], c = h->p[f->v[2]];
  f->n = v3_normalize(v3_cross(v3_sub(b, a), v3_sub(c, a)));
  /* offset through the centroid: no vertex is favoured by rounding */
  f->off = v3_dot(f->n, v3_scale(v3_add(v3_add(a, b), c), (real)1 / 3));
}

/* Append a face (a, b, c); returns its index or −1 when out of memory. */
static int add_face(hullState *h, int a, int b, int c) {
  if (!grow((void **)&h->f, &h->capf, h->nf + 1, sizeof(hFace))) return -1;
  hFace *f = &h->f[h->nf];
  f->v[0] = a;
  f->v[1] = b;
  f->v[2] = c;
  f->nb[0] = f->nb[1] = f->nb[2] = -1;
  f->head = -1;
  f->alive = 1;
  f->stamp = 0;
  f->seen = 0;
  set_plane(h, f);
  return (int)h->nf++;
}

/* Hand point q to the face among [first, last) it is farthest above, if more than tol;
 * returns 1 when it was handed on. */
static int assign(hullState *h, int q, size_t first, size_t last) {
  real best = h->tol;
  size_t bf = SIZE_MAX;
  for (size_t i = first; i < last; ++i) {
    if (!h->f[i].alive) continue;
    real d = fdist(&h->f[i], h->p[q]);
    if (d > best) {
      best = d;
      bf = i;
    }
  }
  if (bf == SIZE_MAX) return 0;
  h->next[q] = h->f[bf].head;
  h->f[bf].head = q;
  return 1;
}

static isoStatus nomem(const hullState *h) {
  return iso_fail(ISO_ERR_NOMEM, "%s: out of memory computing the convex hull of %d points", h->what, h->n);
}

/* The starting tetrahedron; fails for coincident, collinear or coplanar input. */
static isoStatus initial_simplex(hullState *h) {
  int ext[6];
  for (int k = 0; k < 3; ++k) {
    ext[2 * k] = ext[2 * k + 1] = 0;
    for (int i = 1; i < h->n; ++i) {
      if (v3_get(h->p[i], k) < v3_get(h->p[ext[2 * k]], k)) ext[2 * k] = i;
      if (v3_get(h->p[i], k) > v3_get(h->p[ext[2 * k + 1]], k)) ext[2 * k + 1] = i;
    }
  }
  int i0 = ext[0], i1 = ext[1];
  real best = -1;
  for (int a = 0; a < 6; ++a)
    for (int b = a + 1; b < 6; ++b) {
      real d = v3_norm2(v3_sub(h->p[ext[a]], h->p[ext[b]]));
      if (d > best) {
        best = d;
        i0 = ext[a];
        i1 = ext[b];
      }
    }
  real flat = kFlat * h->tol;
  if (!(sqrt(best) > flat))
    return iso_fail(ISO_ERR_INVALID, "%s: the %d points of the convex hull all coincide", h->what, h->n);

  vec3 u = v3_normalize(v3_sub(h->p[i1], h->p[i0]));
  int i2 = -1;
  best = -1;
  for (int i = 0; i < h->n; ++i) {
    real d = v3_norm(v3_cross(v3_sub(h->p[i], h->p[i0]), u));
    if (d > best) {
      best = d;
      i2 = i;
    }
  }
  if (!(best > flat))
    return iso_fail(ISO_ERR_INVALID, "%s: the %d points of the convex hull are collinear (within %.3g)", h->what,
                    h->n, flat);

  vec3 nrm = v3_normalize(v3_cross(v3_sub(h->p[i1], h->p[i0]), v3_sub(h->p[i2], h->p[i0])));
  int i3 = -1;
  best = -1;
  for (int i = 0; i < h->n; ++i) {
    real d = fabs(v3_dot(nrm, v3_sub(h->p[i], h->p[i0])));
    if (d > best) {
      best = d;
      i3 = i;
    }
  }
  if (!(best > flat))
    return iso_fail(ISO_ERR_INVALID,
                    "%s: the %d points of the convex hull are coplanar (thickness %.3g, below %.3g)",
                    h->what, h->n, best, flat);

  /* order the tet positively, then its faces opposite each vertex wind outward */
  if (v3_dot(nrm, v3_sub(h->p[i3], h->p[i0])) < 0) {
    int s = i1;
    i1 = i2;
    i2 = s;
  }
  int t[4] = {i0, i1, i2, i3};
  static const int out[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
  for (int k = 0; k < 4; ++k)
    if (add_face(h, t[out[k][0]], t[out[k][1]], t[out[k][2]]) < 0) return nomem(h);
  for (int a = 0; a < 4; ++a) /* link each edge to the face holding it reversed */
    for (int e = 0; e < 3; ++e)
      for (int b = 0; b < 4; ++b)
        for (int g = 0; g < 3; ++g)
          if (h->f[b].v[g] == h->f[a].v[(e + 1) % 3] && h->f[b].v[(g + 1) % 3] == h->f[a].v[e]) h->f[a].nb[e] = b;
  for (int i = 0; i < h->n; ++i)
    if (i != i0 && i != i1 && i != i2 && i != i3) assign(h, i, 0, 4);
  return ISO_OK;
}

static int is_seen(const hullState *h, int f) { return h->f[f].stamp == h->step && h->f[f].seen; }

/* Collect the horizon (edges from a seen face to an unseen one) and chain it into one loop in
 * h->order. Returns 0 when the edges do not form a single simple loop. */
static int horizon(hullState *h) {
  h->nhor = 0;
  for (size_t i = 0; i < h->nvis; ++i)
    for (int e = 0; e < 3; ++e)
      if (!is_seen(h, h->f[h->vis[i]].nb[e])) {
        if (!grow((void **)&h->hor, &h->caphor, h->nhor + 1, sizeof(int))) return -1;
        h->hor[h->nhor++] = h->vis[i] * 3 + e;
      }
  if (h->nhor < 3) return 0;
  if (!grow((void **)&h->order, &h->caporder, h->nhor, sizeof(int))) return -1;
  /* each loop vertex starts exactly one edge; a second one means the loop touches itself */
  for (size_t i = 0; i < h->nhor; ++i) {
    int a = h->f[h->hor[i] / 3].v[h->hor[i] % 3];
    if (h->vstamp[a] == h->step) return 0;
    h->vstamp[a] = h->step;
    h->vedge[a] = (int)i;
  }
  size_t cnt = 0;
  int cur = 0;
  do {
    if (cnt == h->nhor) return 0;
    h->order[cnt++] = h->hor[cur];
    const hFace *F = &h->f[h->hor[cur] / 3];
    int b = F->v[(h->hor[cur] % 3 + 1) % 3];
    if (h->vstamp[b] != h->step) return 0;
    cur = h->vedge[b];
  } while (cur != 0);
  return cnt == h->nhor;
}

/* The visible region has a hole: take as seen every unseen face not connected (through
 * unseen faces) to the one farthest below the eye. */
static int fill_holes(hullState *h, vec3 eye) {
  int seed = -1;
  real low = 0;
  for (size_t i = 0; i < h->nf; ++i) {
    if (!h->f[i].alive || is_seen(h, (int)i)) continue;
    real d = fdist(&h->f[i], eye);
    if (seed < 0 || d < low) {
      low = d;
      seed = (int)i;
    }
  }
  if (seed < 0) return 0;
  /* flood the unseen faces from the seed; `seen == 2` marks reached ones */
  int *queue = (int *)malloc(h->nf * sizeof(int));
  if (queue == NULL) return -1;
  size_t qh = 0, qt = 0;
  queue[qt++] = seed;
  h->f[seed].stamp = h->step;
  h->f[seed].seen = 2;
  while (qh < qt) {
    const hFace *F = &h->f[queue[qh++]];
    for (int e = 0; e < 3; ++e) {
      hFace *G = &h->f[F->nb[e]];
      if (G->stamp == h->step && G->seen) continue;
      G->stamp = h->step;
      G->seen = 2;
      queue[qt++] = F->nb[e];
    }
  }
  free(queue);
  for (size_t i = 0; i < h->nf; ++i) {
    hFace *F = &h->f[i];
    if (!F->alive) continue;
    if (F->stamp == h->step && F->seen == 2) {
      F->seen = 0;
    } else if (!is_seen(h, (int)i)) {
      F->stamp = h->step;
      F->seen = 1;
      if (!grow((void **)&h->vis, &h->capvis, h->nvis + 1, sizeof(int))) return -1;
      h->vis[h->nvis++] = (int)i;
    }
  }
  return 1;
}

/* Start a fresh stamp for the horizon's vertex marks, keeping the seen faces seen (faces
 * tested and found unseen simply fall back to untested, which reads the same). */
static void restamp(hullState *h) {
  ++h->step;
  for (size_t i = 0; i < h->nvis; ++i) h->f[h->vis[i]].stamp = h->step;
}

/* A face G beyond the horizon that the eye does not see (within tol) may still lie under
 * the new face (a, b, eye) built on their shared edge: the new face would fold back over G,
 * wound inward. That happens when F and G meet at a nearly flat edge and the eye is near
 * G's plane over G; in exact arithmetic G would be seen. Such a G — its third vertex more
 * than tol above the new face, or within tol of it with the two normals opposed (a flat
 * fold) — is taken as seen. Returns how many were added (−1: no memory). */
static int absorb_folds(hullState *h, vec3 x) {
  int grew = 0;
  for (size_t k = 0; k < h->nhor; ++k) {
    int fe = h->order[k];
    const hFace *F = &h->f[fe / 3];
    int a = F->v[fe % 3], b = F->v[(fe % 3 + 1) % 3], g = F->nb[fe % 3];
    hFace *G = &h->f[g];
    if (is_seen(h, g)) continue; /* added earlier in this pass */
    int c = G->v[0];
    for (int j = 0; j < 3; ++j)
      if (G->v[j] != a && G->v[j] != b) c = G->v[j];
    vec3 n = v3_normalize(v3_cross(v3_sub(h->p[b], h->p[a]), v3_sub(x, h->p[a])));
    real dc = v3_dot(n, v3_sub(h->p[c], h->p[a]));
    /* above: a concave edge; level with it and facing the other way: folded flat over G */
    if (dc > h->tol || (dc >= -h->tol && v3_dot(n, G->n) < 0)) {
      G->stamp = h->step;
      G->seen = 1;
      if (!grow((void **)&h->vis, &h->capvis, h->nvis + 1, sizeof(int))) return -1;
      h->vis[h->nvis++] = g;
      ++grew;
    }
  }
  return grew;
}

/* One quickhull step: add point `eye`, outside face f0. */
static isoStatus add_point(hullState *h, int f0, int eye) {
  vec3 x = h->p[eye];
  ++h->step;
  h->nvis = 0;
  if (!grow((void **)&h->vis, &h->capvis, 1, sizeof(int))) return nomem(h);
  h->vis[h->nvis++] = f0;
  h->f[f0].stamp = h->step;
  h->f[f0].seen = 1;
  for (size_t i = 0; i < h->nvis; ++i) /* breadth-first over the faces the eye sees */
    for (int e = 0; e < 3; ++e) {
      int g = h->f[h->vis[i]].nb[e];
      hFace *G = &h->f[g];
      if (G->stamp == h->step) continue;
      G->stamp = h->step;
      G->seen = fdist(G, x) > h->tol;
      if (G->seen) {
        if (!grow((void **)&h->vis, &h->capvis, h->nvis + 1, sizeof(int))) return nomem(h);
        h->vis[h->nvis++] = g;
      }
    }
  int ok;
  for (;;) {
    ok = horizon(h);
    if (ok == 0) {
      restamp(h);
      ok = fill_holes(h, x);
      if (ok > 0) ok = horizon(h);
    }
    if (ok <= 0) break;
    int grew = absorb_folds(h, x);
    if (grew < 0) ok = -1;
    if (grew <= 0) break;
    restamp(h);
  }
  if (ok < 0) return nomem(h);
  if (ok == 0)
    return iso_fail(ISO_ERR_INVALID,
                    "%s: convex hull failed at point %d: the faces it sees do not form a disc (input too close "
                    "to degenerate for tolerance %.3g)",
                    h->what, eye, h->tol);

  /* the cone: new face k = (a_k, b_k, eye) across the horizon edge a_k→b_k */
  size_t nh = h->nhor, base = h->nf;
  if (!grow((void **)&h->f, &h->capf, h->nf + nh, sizeof(hFace))) return nomem(h);
  for (size_t k = 0; k < nh; ++k) {
    int fe = h->order[k];
    const hFace *F = &h->f[fe / 3];
    int a = F->v[fe % 3], b = F->v[(fe % 3 + 1) % 3], g = F->nb[fe % 3];
    int id = add_face(h, a, b, eye);
    hFace *N = &h->f[id];
    N->nb[0] = g;
    N->nb[1] = (int)(base + (k + 1) % nh);
    N->nb[2] = (int)(base + (k + nh - 1) % nh);
    hFace *G = &h->f[g];
    for (int j = 0; j < 3; ++j)
      if (G->v[j] == b && G->v[(j + 1) % 3] == a) G->nb[j] = id;
  }
  /* retire the seen faces and re-home their outside points */
  for (size_t i = 0; i < h->nvis; ++i) {
    hFace *V = &h->f[h->vis[i]];
    int q = V->head;
    V->alive = 0;
    V->head = -1;
    while (q >= 0) {
      int nq = h->next[q];
      if (q != eye) assign(h, q, base, h->nf);
      q = nq;
    }
  }
  return ISO_OK;
}

/* Add outside points until no face has any; faces before the cursor never gain points
 * again, since points only move to new faces. */
static isoStatus expand(hullState *h) {
  for (size_t cur = 0; cur < h->nf; ++cur) {
    while (h->f[cur].alive && h->f[cur].head >= 0) {
      int eye = -1;
      real far = -1;
      for (int q = h->f[cur].head; q >= 0; q = h->next[q]) {
        real d = fdist(&h->f[cur], h->p[q]);
        if (d > far) {
          far = d;
          eye = q;
        }
      }
      isoStatus st = add_point(h, (int)cur, eye);
      if (st != ISO_OK) return st;
    }
  }
  return ISO_OK;
}

/* Hand every non-vertex point that lies more than tol outside the hull back to a face;
 * returns how many (−1: no memory). `mark` is scratch (n). Points inside the ball about the
 * vertex mean that touches the nearest face plane are skipped without a face loop, which for
 * a compact cloud leaves only a thin shell of points to test against every face. */
static int reopen(hullState *h, int *mark) {
  int *live = (int *)malloc(h->nf * sizeof(int));
  if (live == NULL) return -1;
  size_t nlive = 0;
  for (int i = 0; i < h->n; ++i) mark[i] = 0;
  for (size_t f = 0; f < h->nf; ++f)
    if (h->f[f].alive) {
      live[nlive++] = (int)f;
      for (int k = 0; k < 3; ++k) mark[h->f[f].v[k]] = 1;
    }
  vec3 c = v3_zero();
  int nv = 0;
  for (int i = 0; i < h->n; ++i)
    if (mark[i]) {
      c = v3_add(c, h->p[i]);
      ++nv;
    }
  c = v3_scale(c, (real)1 / nv);
  real rin = INFINITY;
  for (size_t k = 0; k < nlive; ++k) rin = fmin(rin, -fdist(&h->f[live[k]], c));
  real r2 = rin > h->tol ? (rin - h->tol) * (rin - h->tol) : 0;
  int again = 0;
  for (int i = 0; i < h->n; ++i) {
    if (mark[i] || v3_norm2(v3_sub(h->p[i], c)) < r2) continue;
    real best = h->tol;
    int bf = -1;
    for (size_t k = 0; k < nlive; ++k) {
      real d = fdist(&h->f[live[k]], h->p[i]);
      if (d > best) {
        best = d;
        bf = live[k];
      }
    }
    if (bf < 0) continue;
    h->next[i] = h->f[bf].head;
    h->f[bf].head = i;
    ++again;
  }
  free(live);
  return again;
}

static void hull_free(hullState *h) {
  free(h->p);
  free(h->next);
  free(h->vstamp);
  free(h->vedge);
  free(h->f);
  free(h->vis);
  free(h->hor);
  free(h->order);
}

isoStatus mesh_convex_hull(const real *pts, int n, triMesh *out, const char *what) {
  CHECK_NULL(out, "mesh_convex_hull");
  if (what == NULL) what = "convex hull";
  if (n < 4) return iso_fail(ISO_ERR_INVALID, "%s: a convex hull needs at least 4 points, got %d", what, n);
  if (n > MESH_MAX_ITEMS) return iso_fail(ISO_ERR_INVALID, "%s: %d points are too many for a convex hull", what, n);
  CHECK_NULL(pts, "mesh_convex_hull");
  vec3 lo = v3(pts[0], pts[1], pts[2]), hi = lo;
  real M = 0;
  for (int i = 0; i < n; ++i) {
    vec3 x = v3(pts[3 * i], pts[3 * i + 1], pts[3 * i + 2]);
    if (!v3_isfinite(x)) return iso_fail(ISO_ERR_INVALID, "%s: point %d is not finite", what, i);
    lo = v3(fmin(lo.x, x.x), fmin(lo.y, x.y), fmin(lo.z, x.z));
    hi = v3(fmax(hi.x, x.x), fmax(hi.y, x.y), fmax(hi.z, x.z));
    if (v3_max_abs(x) > M) M = v3_max_abs(x);
  }

  hullState h;
  memset(&h, 0, sizeof h);
  h.what = what;
  h.n = n;
  h.tol = (real)1e-10 * v3_norm(v3_sub(hi, lo)) + 64 * DBL_EPSILON * M;
  triMesh m;
  memset(&m, 0, sizeof m);
  int *vmap = NULL;
  isoStatus st = ISO_OK;
  h.p = (vec3 *)malloc((size_t)n * sizeof(vec3));
  h.next = (int *)malloc((size_t)n * sizeof(int));
  h.vstamp = (int *)calloc((size_t)n, sizeof(int));
  h.vedge = (int *)malloc((size_t)n * sizeof(int));
  vmap = (int *)malloc((size_t)n * sizeof(int));
  if (!h.p || !h.next || !h.vstamp || !h.vedge || !vmap) {
    st = nomem(&h);
    goto fail;
  }
  vec3 c = v3_scale(v3_add(lo, hi), 0.5);
  for (int i = 0; i < n; ++i) {
    h.p[i] = v3_sub(v3(pts[3 * i], pts[3 * i + 1], pts[3 * i + 2]), c);
    h.next[i] = -1;
  }
  TRY(initial_simplex(&h));

  for (int round = 0;; ++round) {
    TRY(expand(&h));
    /* Verification: quickhull drops a point once it is within tol below the new faces of the
     * moment, but later faces, tilted by tolerance-level noise, can leave it outside after
     * all. Every non-vertex point is checked against the finished hull (O(n·F)); those more
     * than tol outside go back to the face they are farthest above and the hull grows again.
     * Rounds are capped: points still outside after that are left, and are outside by a few
     * tol at most. */
    if (round == kVerifyRounds) break;
    int again = reopen(&h, vmap);
    if (again < 0) {
      st = nomem(&h);
      goto fail;
    }
    if (again == 0) break;
  }

  /* compact: hull vertices in increasing input order */
  int nv = 0, nt = 0;
  for (int i = 0; i < n; ++i) vmap[i] = -1;
  for (size_t i = 0; i < h.nf; ++i)
    if (h.f[i].alive) {
      ++nt;
      for (int k = 0; k < 3; ++k) vmap[h.f[i].v[k]] = 0;
    }
  for (int i = 0; i < n; ++i)
    if (vmap[i] == 0) vmap[i] = nv++;
  /* a closed triangulated sphere has V − E + F = 2 with E = 3F/2 */
  if (2 * nv != nt + 4) {
    st = iso_fail(ISO_ERR_INVALID, "%s: convex hull is not a closed surface (%d vertices, %d triangles)", what, nv,
                  nt);
    goto fail;
  }
  TRY(tri_mesh_alloc(&m, nv, nt));
  for (int i = 0; i < n; ++i)
    if (vmap[i] >= 0) memcpy(m.vert + 3 * vmap[i], pts + 3 * i, 3 * sizeof(real));
  int t = 0;
  for (size_t i = 0; i < h.nf; ++i)
    if (h.f[i].alive) {
      for (int k = 0; k < 3; ++k) m.tri[3 * t + k] = vmap[h.f[i].v[k]];
      ++t;
    }
  TRY(tri_mesh_normals(&m, what));
  hull_free(&h);
  free(vmap);
  *out = m;
  return ISO_OK;

fail:
  tri_mesh_free(&m);
  hull_free(&h);
  free(vmap);
  return st;
}
