/* The SAP problem of one world (DESIGN.md "The SAP problem"; reference §5.1): its unknowns in
 * cliques, its constraints with a kind, a row count and Jacobian blocks on one or two cliques,
 * and the clique-block operations the Newton solver (kernels/sap/solve.h) is made of.
 *
 * Cliques. v is the concatenation of the world's cliques: clique k owns v[v0, v0 + nv) and a
 * dense nv × nv block of A, row-major at a0 in the world's A storage; A is block diagonal over
 * cliques. The solver reads sizes and offsets only, never a kind: a free body is a clique of
 * 6 DoFs ([ω_W, v_WBo], kernels/rigid/free_body.h, clique b = body b); a joint tree (its DoFs)
 * and a deformable (its participating vertex DoFs) will be cliques of other sizes. Cliques lie
 * in v order (v0 ascending, contiguous), so a loop over cliques visits v in order.
 *
 * Constraints. kind (SAP_CON_*) picks the law and the row count; clique[q] the one or two
 * cliques it couples (−1: none, the world); block[q] the kind of its Jacobian block on clique[q]
 * (rows × that clique's nv). Blocks are not stored dense — 2·3·6 reals per contact would be most
 * of a world's memory — but formed where used from compact data, by a switch on the block kind
 * (no function pointers, so the same code runs on the GPU):
 *   SAP_BLOCK_RIGID_POINT  a free-body clique: the velocity of a point of the body in the
 *                          constraint frame, J = s·R_WCᵀ[−[r]× | I] (kernels/rigid/free_body.h),
 *                          from the frame and the offset r of the point from the body origin;
 *   SAP_BLOCK_POINT_MASS   a 3-DoF clique whose DoFs are a point's velocity (a point mass; the
 *                          shape a deformable vertex's block takes): J = s·R_WCᵀ.
 * s = −1 on clique[0] (A) and +1 on clique[1] (B), so that Jv = R_WCᵀ(v_Bc − v_Ac). A dense kind
 * for joint trees will point into a per-world pool of J reals, addressed beside the constraints
 * so that free-body worlds do not pay for it.
 *
 * A contact (SAP_CON_CONTACT, 3 rows) keeps the index of its record in the world's contact list
 * (kernels/contact/list.h): its point and normal give the frame and, with the step's clique
 * origins, the offsets (sap_con_jac); the rest of the record (geometries, area, source face) is
 * what the results report, beside the problem, never read by the solver. Its law is one of the
 * three contact approximations (kernels/sap/contact.h), dispatched by kind in sap_con_law.
 *
 * Every loop over rows, cliques and DoFs adds in the order the free-body solver did before the
 * problem was cut in cliques (block B before block A in Jv and Jᵀγ, A before B in JᵀGJ and the
 * Delassus estimate; signs folded into J, which negation leaves exact), so trajectories are
 * bitwise those of the golden runs. */
#ifndef ISO_KERNELS_SAP_PROBLEM_H
#define ISO_KERNELS_SAP_PROBLEM_H

#include "kernels/contact/list.h"
#include "kernels/core.h"
#include "kernels/math/mat3.h"
#include "kernels/math/vec3.h"
#include "kernels/rigid/free_body.h"
#include "kernels/sap/contact.h"
#include "kernels/sap/joint_laws.h"

/* Constraint kinds (reference §5.3–5.7), in the order a world's constraints are built (§5.8):
 * contacts, then joint limits, PD actuators, couplers. Welds and fixed vertices will join. */
#define SAP_CON_CONTACT 0 /* 3 rows [t_x, t_y, n]; law: sapContactData (convex, lagged, similar) */
#define SAP_CON_LIMIT 1   /* 1–2 rows [lower, upper] of a 1-DoF joint; law: sapLimitData */
#define SAP_CON_PD 2      /* 1 row, the actuated DoF's velocity; law: sapPdData */
#define SAP_CON_COUPLER 3 /* 1 row, v_follower − ρ·v_leader; law: sapCouplerData */
#define SAP_CON_DEF_CONTACT 4 /* 3 rows [t_x, t_y, n] of a contact on a deformable body's surface;
                                 law: sapContactData, as SAP_CON_CONTACT; its Jacobian is a
                                 gather block on the body's clique (kernels/fem/contact.h),
                                 `contact` the index of its record in the world's deformable
                                 contact list; built after the joint constraints */
#define SAP_CON_DEF_FIXED 5   /* 3 rows: a deformable vertex welded to a rigid body's point; law:
                                 sapFixedData; blocks as SAP_CON_DEF_CONTACT's, its record in the
                                 same list */
#define SAP_CON_DEF_DD 6      /* 3 rows: a contact between two deformable bodies; law: sapContactData;
                                 a gather block on each body's clique (femDDJac), `contact` the
                                 index of its record in the world's deformable–deformable list */
#define SAP_MAX_ROWS 3    /* the most rows of any kind */

/* Jacobian block kinds (see the top of the file). */
#define SAP_BLOCK_RIGID_POINT 0
#define SAP_BLOCK_POINT_MASS 1
#define SAP_BLOCK_DENSE 2 /* rows × nv stored in the world's pool of Jacobian reals (a jointed
                             tree's block: the point Jacobian through the tree, or unit rows of
                             DoFs), at the constraint's offset (sapBatch.con_jac), block 0 first */
#define SAP_BLOCK_GATHER 3 /* rows × ncols stored with its constraint's record, on the columns
                             cols[0..ncols) of its clique (the other columns are zero): a
                             deformable contact's three vertices in the body's clique */
#define SAP_BLOCK_MAX RIGID_POINT_JAC_LEN /* reals of the largest block a compact kind forms */

/* One clique of a world: its DoFs v[v0, v0 + nv) and its block of A at a0 (nv·nv reals). */
typedef struct sapClique {
  int nv, v0, a0;
} sapClique;

/* Whether a constraint of `rows` rows on cliques c[0], c[1] (−1: the world) with block kinds
 * b0, b1 is a point of free bodies on every side it has (3 rows, SAP_BLOCK_RIGID_POINT on 6-DoF
 * cliques, at least one side): the case kernels/sap/hessian_rigid.h and the Delassus estimate
 * (kernels/sap/delassus.h) take through its structure. */
static inline ISO_HD int sap_free_point_blocks(int rows, const int c[2], int b0, int b1, const sapClique *cl) {
  if (rows != 3 || (c[0] < 0 && c[1] < 0)) return 0;
  const int b[2] = {b0, b1};
  for (int q = 0; q < 2; ++q)
    if (c[q] >= 0 && (b[q] != SAP_BLOCK_RIGID_POINT || cl[c[q]].nv != 6)) return 0;
  return 1;
}

/* A constraint: what the solver needs; 16 bytes beside its law's data, so that the contact
 * list and the constraints of the five-box stack stay within its memory budget. */
typedef struct sapCon {
  unsigned char kind;     /* SAP_CON_* */
  unsigned char rows;     /* ≤ SAP_MAX_ROWS */
  unsigned char block[2]; /* SAP_BLOCK_* of the block on clique[q] */
  int clique[2];          /* −1: none (the world) */
  int contact;            /* SAP_CON_CONTACT: index of its record in the world's contact list;
                             a joint kind: the DoF or actuator it acts on (results) */
  union {
    sapContactData data;    /* SAP_CON_CONTACT: the law's data */
    sapJointLawData jdata;  /* the joint kinds' */
  };
} sapCon;

/* A constraint's Jacobian data at this step, formed from its compact data where it is needed. */
typedef struct sapJac {
  /* the reals first: where a sapJac is still returned by value (sap_con_jac, sap_jac_make), the
   * copy then reads pairs of reals where they were written as pairs (no store-forwarding stall) */
  mat3 R_WC;  /* the constraint frame; columns Cx, Cy, Cz = n̂_AB for a contact */
  vec3 r[2];  /* RIGID_POINT: the point minus the clique's origin, world frame */
  int rows;
  int block[2], clique[2];
  const real *Jd[2]; /* DENSE: the block in the world's pool; GATHER: its rows × ncols reals */
  const int *cols[2]; /* GATHER: the clique's columns of the block's columns; NULL otherwise */
  int ncols[2];
  const real *coef[2]; /* GATHER of a point on vertices: its vertex k's 3 columns, consecutive
                          (cols[3k + i] = cols[3k] + i), are coef[q][k]·R_WCᵀ (ncols/3
                          vertices); NULL: no such structure known */
} sapJac;

/* A right-handed frame whose z axis is n (unit); the tangents are any fixed function of n
 * (Drake leaves them arbitrary, §3), here built from the world axis least aligned with n. */
static inline ISO_HD mat3 sap_frame_from_z(vec3 n) {
  vec3 a = fabs(n.x) <= fabs(n.y) && fabs(n.x) <= fabs(n.z) ? v3(1, 0, 0)
           : fabs(n.y) <= fabs(n.z)                          ? v3(0, 1, 0)
                                                              : v3(0, 0, 1);
  vec3 t1 = v3_normalize(v3_cross(a, n));
  vec3 t2 = v3_cross(n, t1);
  return m3_from_cols(t1, t2, n);
}

/* The Jacobian data of contact constraint c at p_WC with normal n̂_BA (Cz = n̂_AB = −n̂_BA);
 * o[q]: the origin of clique[q] (zero for the world). Written into *j: a sapJac built in a
 * temporary and copied out is read back in wider pieces than it was written (a store-forwarding
 * stall per constraint on the CPU), so the per-step paths fill theirs in place. */
static inline ISO_HD ISO_INLINE void sap_jac_make_to(const sapCon *c, vec3 p_WC, vec3 nhat_BA, const vec3 o[2],
                                                     sapJac *j) {
  j->rows = c->rows;
  for (int q = 0; q < 2; ++q) {
    j->block[q] = c->block[q];
    j->clique[q] = c->clique[q];
  }
  j->R_WC = sap_frame_from_z(v3_neg(nhat_BA));
  j->r[0] = v3_sub(p_WC, o[0]);
  j->r[1] = v3_sub(p_WC, o[1]);
  j->Jd[0] = j->Jd[1] = (const real *)0;
  j->cols[0] = j->cols[1] = (const int *)0;
  j->ncols[0] = j->ncols[1] = 0;
  j->coef[0] = j->coef[1] = (const real *)0;
}

/* sap_jac_make_to as a value, for the paths that run once per result query or contact. */
static inline ISO_HD ISO_INLINE sapJac sap_jac_make(const sapCon *c, vec3 p_WC, vec3 nhat_BA, const vec3 o[2]) {
  sapJac j;
  sap_jac_make_to(c, p_WC, nhat_BA, o, &j);
  return j;
}

/* Block q of j, dense rows × n row-major (n: its clique's nv): a compact kind forms it into
 * scratch (SAP_BLOCK_MAX reals) and returns scratch; a stored dense kind will return its place in
 * the pool instead, so nothing below copies a block or sizes a buffer by a clique. */
static inline ISO_HD const real *sap_block_get(const sapJac *j, int q, real *scratch) {
  const real s = q ? (real)1 : (real)-1;
  switch (j->block[q]) {
    case SAP_BLOCK_POINT_MASS:
      for (int i = 0; i < 3; ++i) {
        vec3 c = m3_col(j->R_WC, i);
        scratch[3 * i + 0] = s * c.x, scratch[3 * i + 1] = s * c.y, scratch[3 * i + 2] = s * c.z;
      }
      return scratch;
    case SAP_BLOCK_DENSE:
    case SAP_BLOCK_GATHER:
      return j->Jd[q];
    case SAP_BLOCK_RIGID_POINT:
    default:
      rigid_point_jacobian(j->R_WC, j->r[q], s, scratch);
      return scratch;
  }
}

/* A constraint's Jacobian blocks ready to use: its rows, its cliques and each block's dense
 * rows × nv reals (row-major, the sign s folded in). The blocks are formed once (sap_jac_blocks)
 * and then applied by every pass that needs them; where they live is the caller's: scratch on
 * the stack, the solver's workspace (kernels/sap/solve.h), or a dense kind's pool. */
typedef struct sapConJ {
  mat3 R;              /* R_WC, read where coef is set (first, as in sapJac) */
  int rows;
  int clique[2];    /* −1: none (the world); then J[q] is NULL */
  const real *J[2]; /* block q: rows × (its clique's nv, or ncols[q] gathered columns) */
  const int *cols[2]; /* NULL, or the clique columns of a gather block's columns */
  int ncols[2];
  const real *coef[2]; /* sapJac's: a gather block's vertex coefficients, or NULL */
} sapConJ;

/* The blocks of j into *b, formed into storage[q] where j's kind is compact (see
 * sap_block_get). Written in place, not returned: a returned sapConJ was built in a temporary
 * and copied with wider loads than its stores, a store-forwarding stall per constraint. */
static inline ISO_HD ISO_INLINE void sap_jac_blocks(const sapJac *j, real storage[2][SAP_BLOCK_MAX], sapConJ *b) {
  b->R = j->R_WC;
  b->rows = j->rows;
  for (int q = 0; q < 2; ++q) {
    b->clique[q] = j->clique[q];
    b->J[q] = j->clique[q] >= 0 ? sap_block_get(j, q, storage[q]) : (const real *)0;
    b->cols[q] = j->cols[q];
    b->ncols[q] = j->ncols[q];
    b->coef[q] = j->clique[q] >= 0 ? j->coef[q] : (const real *)0;
  }
}

/* The loops below with the sizes as arguments: called with literal sizes for the common case (a
 * 3-row contact on a 6-DoF clique), so the compiler unrolls them; the order of every sum is the
 * same either way, so so are the bits. The J·x loops run k outside and the rows inside: each
 * row's sum still takes its terms in k order, but the rows' chains are independent, so they
 * overlap instead of each waiting on its own adds. */
static inline ISO_HD void sap_block_apply_n(const real *J, int m, int n, const real *xq, real *vc) {
  real acc[SAP_MAX_ROWS]; /* local, so the rows' sums stay in registers (vc may alias J) */
  for (int i = 0; i < m; ++i) acc[i] = vc[i];
  for (int k = 0; k < n; ++k) {
    const real x = xq[k];
    for (int i = 0; i < m; ++i) acc[i] += J[n * i + k] * x;
  }
  for (int i = 0; i < m; ++i) vc[i] = acc[i];
}

static inline ISO_HD void sap_block_apply_t_n(const real *J, int m, int n, const real *g, real s, real *oq) {
  for (int k = 0; k < n; ++k) {
    real t = J[k] * g[0];
    for (int i = 1; i < m; ++i) t += J[n * i + k] * g[i];
    oq[k] += s * t;
  }
}

/* The same two on a gather block: n columns at the clique's columns cols. */
static inline ISO_HD void sap_gather_apply(const real *J, int m, int n, const int *cols, const real *xq, real *vc) {
  real acc[SAP_MAX_ROWS]; /* local, so the rows' sums stay in registers (vc may alias J) */
  for (int i = 0; i < m; ++i) acc[i] = vc[i];
  for (int k = 0; k < n; ++k) {
    const real x = xq[cols[k]];
    for (int i = 0; i < m; ++i) acc[i] += J[n * i + k] * x;
  }
  for (int i = 0; i < m; ++i) vc[i] = acc[i];
}

static inline ISO_HD void sap_gather_apply_t(const real *J, int m, int n, const int *cols, const real *g, real s,
                                             real *oq) {
  for (int k = 0; k < n; ++k) {
    real t = J[k] * g[0];
    for (int i = 1; i < m; ++i) t += J[n * i + k] * g[i];
    oq[cols[k]] += s * t;
  }
}

/* The same two on a block of vertex columns (3 rows; vertex u's columns cols[3u..3u+2] are
 * coef[u]·R_WCᵀ): J·x = Rᵀ·Σ_u coef_u·x_u, and Jᵀ·g's vertex u is coef_u·R·g. Two products
 * per column where the gather loops take three or four; the sums are regrouped, so the bits
 * are the general loops' to round-off (tests/test_sap_cliques.c). */
static inline ISO_HD void sap_vertex_apply(const real *coef, int nvert, const int *cols, const mat3 *R,
                                           const real *xq, real *vc) {
  real y[3] = {0, 0, 0};
  for (int u = 0; u < nvert; ++u)
    for (int i = 0; i < 3; ++i) y[i] += coef[u] * xq[cols[3 * u + i]];
  for (int a = 0; a < 3; ++a) vc[a] += R->m[0][a] * y[0] + R->m[1][a] * y[1] + R->m[2][a] * y[2];
}

static inline ISO_HD void sap_vertex_apply_t(const real *coef, int nvert, const int *cols, const mat3 *R,
                                             const real *g, real s, real *oq) {
  real rg[3];
  for (int i = 0; i < 3; ++i) rg[i] = s * (R->m[i][0] * g[0] + R->m[i][1] * g[1] + R->m[i][2] * g[2]);
  for (int u = 0; u < nvert; ++u)
    for (int i = 0; i < 3; ++i) oq[cols[3 * u + i]] += coef[u] * rg[i];
}

/* vc = J·x for constraint b (m rows) and the world's vector x; cl: the world's cliques. Block B
 * before block A. */
static inline ISO_HD void sap_cj_apply_m(const sapConJ *b, int m, const sapClique *cl, const real *x, real *vc) {
  for (int i = 0; i < m; ++i) vc[i] = 0;
  for (int q = 1; q >= 0; --q) {
    if (b->clique[q] < 0) continue;
    const sapClique *c = cl + b->clique[q];
    if (b->coef[q] && m == 3) sap_vertex_apply(b->coef[q], b->ncols[q] / 3, b->cols[q], &b->R, x + c->v0, vc);
    else if (b->cols[q]) sap_gather_apply(b->J[q], m, b->ncols[q], b->cols[q], x + c->v0, vc);
    else if (m == 3 && c->nv == 6) sap_block_apply_n(b->J[q], 3, 6, x + c->v0, vc);
    else sap_block_apply_n(b->J[q], m, c->nv, x + c->v0, vc);
  }
}

static inline ISO_HD void sap_cj_apply(const sapConJ *b, const sapClique *cl, const real *x, real *vc) {
  if (b->rows == 3) sap_cj_apply_m(b, 3, cl, x, vc);
  else sap_cj_apply_m(b, b->rows, cl, x, vc);
}

/* out += s·Jᵀ·g for constraint b (the generalized impulse of γ = g on the world's cliques). */
static inline ISO_HD void sap_cj_apply_t(const sapConJ *b, const sapClique *cl, const real *g, real s, real *out) {
  for (int q = 1; q >= 0; --q) {
    if (b->clique[q] < 0) continue;
    const sapClique *c = cl + b->clique[q];
    if (b->coef[q] && b->rows == 3) sap_vertex_apply_t(b->coef[q], b->ncols[q] / 3, b->cols[q], &b->R, g, s, out + c->v0);
    else if (b->cols[q]) sap_gather_apply_t(b->J[q], b->rows, b->ncols[q], b->cols[q], g, s, out + c->v0);
    else if (b->rows == 3 && c->nv == 6) sap_block_apply_t_n(b->J[q], 3, 6, g, s, out + c->v0);
    else sap_block_apply_t_n(b->J[q], b->rows, c->nv, g, s, out + c->v0);
  }
}

/* H += JᵀGJ for constraint j into the lower triangle of the column-major nv × nv matrix H (all
 * the Cholesky reads; the strict upper triangle is not written): block (p, q) of cliques
 * clique[p], clique[q] gets J_pᵀ·(G·J_q) where it lies below the diagonal (cliques lie in v
 * order, so a block is wholly below, wholly above, or on it), its lower triangle where it lies on
 * it. G: rows × rows, row-major. Each entry is the same sum either way: column b of G·J_q,
 * gj[i] = Σ_l G[i][l]·J_q[l][b], then H[a][b] += Σ_i J_p[i][a]·gj[i]. */

/* gj = column b of G·J_q (G: m × m row-major, J_q: m × nq). */
static inline ISO_HD void sap_gj_n(const real *G, int m, const real *Jq, int nq, int b, real *gj) {
  for (int i = 0; i < m; ++i) {
    real t = G[m * i] * Jq[b];
    for (int l = 1; l < m; ++l) t += G[m * i + l] * Jq[nq * l + b];
    gj[i] = t;
  }
}

/* Block (p, q) into H at Hpq (its row 0, column 0; leading dimension nv) from J_p (m × np) and
 * GJ = G·J_q (m × nq, row-major): the whole block, or (diag, np = nq) its lower triangle. */
static inline ISO_HD void sap_hessian_block_n(const real *Jp, const real *GJ, int m, int np, int nq, int diag, int nv,
                                              real *Hpq) {
  for (int b = 0; b < nq; ++b) {
    real *Hb = Hpq + (long)b * nv;
    for (int a = diag ? b : 0; a < np; ++a) {
      real t = Jp[a] * GJ[b];
      for (int i = 1; i < m; ++i) t += Jp[np * i + a] * GJ[nq * i + b];
      Hb[a] += t;
    }
  }
}

/* sap_hessian_block_n for m = 3, the same sums in the same order; H does not overlap J_p or GJ,
 * which lets the compiler keep the column's three G·J values in registers without overlap checks. */
static inline ISO_HD void sap_hessian_block_3(const real *ISO_RESTRICT Jp, const real *ISO_RESTRICT GJ, int np, int nq,
                                              int diag, int nv, real *ISO_RESTRICT Hpq) {
  for (int b = 0; b < nq; ++b) {
    real *ISO_RESTRICT Hb = Hpq + (long)b * nv;
    const real g0 = GJ[b], g1 = GJ[nq + b], g2 = GJ[2 * nq + b];
    for (int a = diag ? b : 0; a < np; ++a) Hb[a] += Jp[a] * g0 + Jp[np + a] * g1 + Jp[2 * np + a] * g2;
  }
}

/* The common case, a 3-row constraint on 6-DoF cliques, with literal sizes and G·J_q formed
 * whole (3 × 6). */
static inline ISO_HD void sap_cj_add_hessian_36(const sapConJ *j, const sapClique *cl, const real *G, int nv, real *H) {
  for (int q = 0; q < 2; ++q) {
    if (j->clique[q] < 0) continue;
    const sapClique *cq = cl + j->clique[q];
    real GJ[18];
    for (int b = 0; b < 6; ++b) {
      real gj[3];
      sap_gj_n(G, 3, j->J[q], 6, b, gj);
      GJ[b] = gj[0], GJ[6 + b] = gj[1], GJ[12 + b] = gj[2];
    }
    for (int p = 0; p < 2; ++p) {
      if (j->clique[p] < 0) continue;
      const sapClique *cp = cl + j->clique[p];
      real *Hpq = H + (long)cq->v0 * nv + cp->v0;
      if (cp->v0 > cq->v0) sap_hessian_block_n(j->J[p], GJ, 3, 6, 6, 0, nv, Hpq);
      else if (cp->v0 == cq->v0) sap_hessian_block_n(j->J[p], GJ, 3, 6, 6, 1, nv, Hpq);
    }
  }
}

/* H += JᵀGJ for a constraint with a gather block: each block's columns are its own (ncols at
 * cols) or its clique's, and an entry is added where it lies on or below H's diagonal. */
static inline ISO_HD void sap_cj_add_hessian_gather(const sapConJ *j, const sapClique *cl, const real *G, int nv,
                                                    real *H) {
  const int m = j->rows;
  for (int q = 0; q < 2; ++q) {
    if (j->clique[q] < 0) continue;
    const sapClique *cq = cl + j->clique[q];
    const int nq = j->cols[q] ? j->ncols[q] : cq->nv;
    for (int b = 0; b < nq; ++b) {
      real gj[SAP_MAX_ROWS];
      sap_gj_n(G, m, j->J[q], nq, b, gj);
      const int col = cq->v0 + (j->cols[q] ? j->cols[q][b] : b);
      for (int p = 0; p < 2; ++p) {
        if (j->clique[p] < 0) continue;
        const sapClique *cp = cl + j->clique[p];
        const int np = j->cols[p] ? j->ncols[p] : cp->nv;
        for (int a = 0; a < np; ++a) {
          const int row = cp->v0 + (j->cols[p] ? j->cols[p][a] : a);
          if (row < col) continue;
          real t = j->J[p][a] * gj[0];
          for (int i = 1; i < m; ++i) t += j->J[p][np * i + a] * gj[i];
          H[(long)col * nv + row] += t;
        }
      }
    }
  }
}

/* H += JᵀGJ for a 3-row constraint with at least one block of a point on vertices (coef[q] set:
 * its vertex k's three columns are coef[q][k]·R_WCᵀ, a deformable contact's barycentric
 * point). With Γ = R·G·Rᵀ, the block of vertices u (of p) and v (of q) is coef_p[u]·coef_q[v]·Γ
 * (3 × 3); against a general block of q, column b of JᵀGJ is coef_p[u]·R·(G·J_q[:, b]). A
 * deformable–deformable contact's 24 columns then cost Γ and one product per entry, where
 * the general loop forms each entry as a 3-term dot product. Entries where row >= col only. */
static inline ISO_HD void sap_cj_add_hessian_vertex(const sapConJ *j, const sapClique *cl, const real *G, int nv,
                                                   real *H) {
  real RG[9], Gam[9];
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) RG[3 * i + k] = j->R.m[i][0] * G[k] + j->R.m[i][1] * G[3 + k] + j->R.m[i][2] * G[6 + k];
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k)
      Gam[3 * i + k] = RG[3 * i] * j->R.m[k][0] + RG[3 * i + 1] * j->R.m[k][1] + RG[3 * i + 2] * j->R.m[k][2];
  for (int q = 0; q < 2; ++q) {
    if (j->clique[q] < 0) continue;
    const sapClique *cq = cl + j->clique[q];
    const int nq = j->cols[q] ? j->ncols[q] : cq->nv;
    for (int p = 0; p < 2; ++p) {
      if (j->clique[p] < 0) continue;
      const sapClique *cp = cl + j->clique[p];
      const int np = j->cols[p] ? j->ncols[p] : cp->nv;
      /* a block of two cliques lies wholly above the diagonal (nothing to add), or wholly on or
       * below it (no entry to test) */
      if (p != q && cp->v0 + cp->nv <= cq->v0) continue;
      const int below = p != q && cp->v0 >= cq->v0 + cq->nv;
      if (j->coef[p] && j->coef[q]) { /* vertex blocks both sides: coef·coef·Γ */
        for (int v = 0; v < nq / 3; ++v)
          for (int u = 0; u < np / 3; ++u) {
            const int r0 = cp->v0 + j->cols[p][3 * u], c0 = cq->v0 + j->cols[q][3 * v];
            if (r0 + 2 < c0) continue; /* above the diagonal */
            const real cc = j->coef[p][u] * j->coef[q][v];
            real *Hb = H + (long)c0 * nv + r0;
            if (r0 >= c0 + 2) { /* wholly on or below the diagonal: no entry to test */
              for (int k = 0; k < 3; ++k)
                for (int i = 0; i < 3; ++i) Hb[(long)k * nv + i] += cc * Gam[3 * i + k];
              continue;
            }
            for (int k = 0; k < 3; ++k)
              for (int i = 0; i < 3; ++i)
                if (r0 + i >= c0 + k) Hb[(long)k * nv + i] += cc * Gam[3 * i + k];
          }
      } else if (j->coef[p]) { /* rows of vertices, a general column: coef_p[u]·R·(G·J_q[:, b]) */
        for (int b = 0; b < nq; ++b) {
          real gj[3], rg[3];
          sap_gj_n(G, 3, j->J[q], nq, b, gj);
          for (int i = 0; i < 3; ++i) rg[i] = j->R.m[i][0] * gj[0] + j->R.m[i][1] * gj[1] + j->R.m[i][2] * gj[2];
          const int col = cq->v0 + (j->cols[q] ? j->cols[q][b] : b);
          real *Hc = H + (long)col * nv + cp->v0;
          for (int u = 0; u < np / 3; ++u)
            for (int i = 0; i < 3; ++i) {
              const int r = j->cols[p][3 * u + i];
              if (below || cp->v0 + r >= col) Hc[r] += j->coef[p][u] * rg[i];
            }
        }
      } else if (j->coef[q]) { /* general rows, a column of vertex v: coef_q[v]·J_p[:, a]ᵀ·(G·Rᵀ)[:, k] */
        real GRt[9];
        for (int i = 0; i < 3; ++i)
          for (int k = 0; k < 3; ++k)
            GRt[3 * i + k] = G[3 * i] * j->R.m[k][0] + G[3 * i + 1] * j->R.m[k][1] + G[3 * i + 2] * j->R.m[k][2];
        for (int v = 0; v < nq / 3; ++v)
          for (int k = 0; k < 3; ++k) {
            const int col = cq->v0 + j->cols[q][3 * v + k];
            for (int a = 0; a < np; ++a) {
              const int row = cp->v0 + (j->cols[p] ? j->cols[p][a] : a);
              if (row < col) continue;
              const real t = j->J[p][a] * GRt[k] + j->J[p][np + a] * GRt[3 + k] + j->J[p][2 * np + a] * GRt[6 + k];
              H[(long)col * nv + row] += j->coef[q][v] * t;
            }
          }
      } else { /* general both sides */
        for (int b = 0; b < nq; ++b) {
          real gj[3];
          sap_gj_n(G, 3, j->J[q], nq, b, gj);
          const int col = cq->v0 + (j->cols[q] ? j->cols[q][b] : b);
          for (int a = 0; a < np; ++a) {
            const int row = cp->v0 + (j->cols[p] ? j->cols[p][a] : a);
            if (row < col) continue;
            H[(long)col * nv + row] += j->J[p][a] * gj[0] + j->J[p][np + a] * gj[1] + j->J[p][2 * np + a] * gj[2];
          }
        }
      }
    }
  }
}

/* The most DoFs of a clique whose G·J_q sap_cj_add_hessian_3small forms whole (3 × 12 reals of
 * scratch): a jointed tree of a robot arm and its hand, or a free body. */
#define SAP_HESS_SMALL 12

/* A 3-row constraint on dense blocks of at most SAP_HESS_SMALL columns (a tree's contact beside
 * a free body's, as in a grasp): G·J_q formed whole, then each block of H as in
 * sap_cj_add_hessian_36, the same sums in the same order as sap_cj_add_hessian_m. The general
 * loop re-derives its pointers and tests its bounds per entry (vectorised in pairs with overlap
 * checks that cost more than they save at 3 to 12 rows); here each block is one tight loop. */
static inline ISO_HD void sap_cj_add_hessian_3small(const sapConJ *j, const sapClique *cl, const real *G, int nv,
                                                    real *H) {
  for (int q = 0; q < 2; ++q) {
    if (j->clique[q] < 0) continue;
    const sapClique *cq = cl + j->clique[q];
    const int nq = cq->nv;
    real GJ[3 * SAP_HESS_SMALL];
    for (int b = 0; b < nq; ++b) {
      real gj[3];
      sap_gj_n(G, 3, j->J[q], nq, b, gj);
      GJ[b] = gj[0], GJ[nq + b] = gj[1], GJ[2 * nq + b] = gj[2];
    }
    for (int p = 0; p < 2; ++p) {
      if (j->clique[p] < 0) continue;
      const sapClique *cp = cl + j->clique[p];
      real *Hpq = H + (long)cq->v0 * nv + cp->v0;
      if (cp->v0 > cq->v0) sap_hessian_block_3(j->J[p], GJ, cp->nv, nq, 0, nv, Hpq);
      else if (cp->v0 == cq->v0) sap_hessian_block_3(j->J[p], GJ, cp->nv, nq, 1, nv, Hpq);
    }
  }
}

/* H += JᵀGJ for blocks of any sizes (m rows: called with a literal 3 for a contact, so the row
 * loops unroll; the same sums in the same order either way): one column of G·J_q at a time, so
 * no scratch grows with a clique. */
static inline ISO_HD void sap_cj_add_hessian_m(const sapConJ *j, int m, const sapClique *cl, const real *G, int nv,
                                               real *H) {
  for (int q = 0; q < 2; ++q) {
    if (j->clique[q] < 0) continue;
    const sapClique *cq = cl + j->clique[q];
    const int nq = cq->nv;
    for (int b = 0; b < nq; ++b) {
      real gj[SAP_MAX_ROWS];
      sap_gj_n(G, m, j->J[q], nq, b, gj);
      for (int p = 0; p < 2; ++p) {
        if (j->clique[p] < 0) continue;
        const sapClique *cp = cl + j->clique[p];
        if (cp->v0 < cq->v0) continue; /* above the diagonal */
        /* column b of block (p, q), from its diagonal row down where the block is on it */
        real *Hb = H + (long)(cq->v0 + b) * nv + cp->v0;
        for (int a = cp->v0 == cq->v0 ? b : 0; a < cp->nv; ++a) {
          real t = j->J[p][a] * gj[0];
          for (int i = 1; i < m; ++i) t += j->J[p][cp->nv * i + a] * gj[i];
          Hb[a] += t;
        }
      }
    }
  }
}

static inline ISO_HD void sap_cj_add_hessian(const sapConJ *j, const sapClique *cl, const real *G, int nv, real *H) {
  const int m = j->rows;
  if (m == 3 && (j->coef[0] || j->coef[1])) {
    sap_cj_add_hessian_vertex(j, cl, G, nv, H);
    return;
  }
  if (j->cols[0] || j->cols[1]) {
    sap_cj_add_hessian_gather(j, cl, G, nv, H);
    return;
  }
  if (m == 3 && (j->clique[0] < 0 || cl[j->clique[0]].nv == 6) && (j->clique[1] < 0 || cl[j->clique[1]].nv == 6)) {
    sap_cj_add_hessian_36(j, cl, G, nv, H);
    return;
  }
  if (m == 3 && (j->clique[0] < 0 || cl[j->clique[0]].nv <= SAP_HESS_SMALL) &&
      (j->clique[1] < 0 || cl[j->clique[1]].nv <= SAP_HESS_SMALL)) {
    sap_cj_add_hessian_3small(j, cl, G, nv, H);
    return;
  }
  if (m == 3) sap_cj_add_hessian_m(j, 3, cl, G, nv, H);
  else sap_cj_add_hessian_m(j, m, cl, G, nv, H);
}

/* The same operations on Jacobian data j, its blocks formed where used. */

/* vc = J·x for constraint j and the world's vector x; cl: the world's cliques. */
static inline ISO_HD void sap_con_apply(const sapJac *j, const sapClique *cl, const real *x, real *vc) {
  real storage[2][SAP_BLOCK_MAX];
  sapConJ b;
  sap_jac_blocks(j, storage, &b);
  sap_cj_apply(&b, cl, x, vc);
}

/* out += s·Jᵀ·g for constraint j. */
static inline ISO_HD void sap_con_apply_t(const sapJac *j, const sapClique *cl, const real *g, real s, real *out) {
  real storage[2][SAP_BLOCK_MAX];
  sapConJ b;
  sap_jac_blocks(j, storage, &b);
  sap_cj_apply_t(&b, cl, g, s, out);
}

/* H += JᵀGJ for constraint j. */
static inline ISO_HD void sap_con_add_hessian(const sapJac *j, const sapClique *cl, const real *G, int nv, real *H) {
  real storage[2][SAP_BLOCK_MAX];
  sapConJ b;
  sap_jac_blocks(j, storage, &b);
  sap_cj_add_hessian(&b, cl, G, nv, H);
}

/* The law of constraint c at constraint velocities vc (c->rows): γ and G (either may be NULL),
 * returns ℓᵢ. */
static inline ISO_HD real sap_con_law(const sapCon *c, const real *vc, real *gamma, real *G) {
  if (c->kind == SAP_CON_CONTACT) return sap_contact_eval(&c->data, vc, gamma, G); /* the hot case first */
  switch (c->kind) {
    case SAP_CON_LIMIT:
      return sap_limit_eval(&c->jdata.limit, vc, gamma, G);
    case SAP_CON_PD:
      return sap_pd_eval(&c->jdata.pd, vc, gamma, G);
    case SAP_CON_COUPLER:
      return sap_coupler_eval(&c->jdata.coupler, vc, gamma, G);
    case SAP_CON_DEF_FIXED:
      return sap_fixed_eval(&c->jdata.fixed, vc, gamma, G);
    case SAP_CON_CONTACT:
    default:
      return sap_contact_eval(&c->data, vc, gamma, G);
  }
}

/* γ (and G when not NULL) of constraint c with Jacobian data j at the world's velocities v;
 * returns ℓᵢ. The impulses the queries report are this at the solved velocities. */
static inline ISO_HD real sap_con_eval(const sapCon *c, const sapJac *j, const sapClique *cl, const real *v,
                                       real *gamma, real *G) {
  real vc[SAP_MAX_ROWS];
  sap_con_apply(j, cl, v, vc);
  return sap_con_law(c, vc, gamma, G);
}

#endif
