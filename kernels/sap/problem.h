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
 * bitwise those of the golden runs. The Newton Hessian's terms JᵀGJ of one constraint are in
 * kernels/sap/hessian.h. */
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

/* One clique of a world: its DoFs v[v0, v0 + nv) and its block of A at a0 (nv·nv reals). Its
 * last npad DoFs are padding (a deformable body's participating slots left empty this step):
 * identity rows and columns of A, v* = 0 and no constraint, so they stay 0 and A·x is x there. */
typedef struct sapClique {
  int nv, v0, a0;
  int npad;
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

/* The same operations on Jacobian data j, its blocks formed where used. */

/* vc = J·x for constraint j and the world's vector x; cl: the world's cliques. */
static inline ISO_HD void sap_con_apply(const sapJac *j, const sapClique *cl, const real *x, real *vc) {
  real storage[2][SAP_BLOCK_MAX];
  sapConJ b;
  sap_jac_blocks(j, storage, &b);
  sap_cj_apply(&b, cl, x, vc);
}

/* (J·x)[2], a contact's normal row alone, by sap_con_apply's operations for that row: a free
 * body's point forms only its row 2 of rigid_point_jacobian (s·[r × C_z, C_z]) and sums it in the
 * same order, so the bits are sap_con_apply's vc[2]; other blocks take the whole product. The
 * constraint build reads vn0 from it once per contact (two thirds of a sliding coin's J·v0 went
 * to rows it never read). */
static inline ISO_HD real sap_con_apply_normal(const sapJac *j, const sapClique *cl, const real *x) {
  if (!sap_free_point_blocks(j->rows, j->clique, j->block[0], j->block[1], cl)) {
    real vc[SAP_MAX_ROWS];
    sap_con_apply(j, cl, x, vc);
    return vc[2];
  }
  real acc = 0;
  const vec3 c = m3_col(j->R_WC, 2);
  for (int q = 1; q >= 0; --q) {
    if (j->clique[q] < 0) continue;
    const real s = q ? (real)1 : (real)-1;
    const vec3 rc = v3_cross(j->r[q], c);
    const real row[6] = {s * rc.x, s * rc.y, s * rc.z, s * c.x, s * c.y, s * c.z};
    const real *xq = x + cl[j->clique[q]].v0;
    for (int k = 0; k < 6; ++k) acc += row[k] * xq[k];
  }
  return acc;
}

/* out += s·Jᵀ·g for constraint j. */
static inline ISO_HD void sap_con_apply_t(const sapJac *j, const sapClique *cl, const real *g, real s, real *out) {
  real storage[2][SAP_BLOCK_MAX];
  sapConJ b;
  sap_jac_blocks(j, storage, &b);
  sap_cj_apply_t(&b, cl, g, s, out);
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
