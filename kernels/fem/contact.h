/* Deformable bodies in a world's SAP problem (seed 001 §IV; reference §6.3, §6.4): the Schur
 * complement on their participating vertices from each body's one factor, their contacts and
 * welds as SAP constraints, and the update of every vertex after the solve.
 *
 * A step, per world (one kernel item per world at each stage):
 *  1. "fem elements", "fem factor" (kernels/fem/world.h): each body's free motion v*, its factor
 *     L kept;
 *  2. "fem contact" (kernels/fem/detect.h): contacts with half-spaces, with rigid geometries'
 *     compliant pressure fields and between bodies, and the welds; their vertices (held ones
 *     excepted) become participating, listed in ascending vertex order (one order whatever the
 *     contacts' order), each given a slot;
 *  3. "fem schur" (fem_schur_item_at): body d's clique is k = (rigid cliques) + d, of 3·pcap[d]
 *     DoFs, slot i's vertex at DoFs 3i..3i+2. Its block of A is δt·S, S = C − BᵀD⁻¹B the Schur
 *     complement of the non-participating DoFs, found as S = ((T⁻¹)_pp)⁻¹ with 3·np solves on
 *     the factor of the whole T: one ordering per mesh for every world, whatever the
 *     participating set (never reordered per world). A world with fewer than pcap participating
 *     vertices pads the clique: identity rows of A, v* = 0, no constraint on them, so they solve
 *     to 0 and cost the solver one identity block;
 *  4. "constraints" (kernels/sap/step_items.h): the cliques join the world's list and
 *     fem_sap_constraints appends, after the joint constraints, one SAP_CON_DEF_CONTACT per
 *     contact (a gather block on the body's clique, the rigid side's point block: compact for a
 *     free body, through the tree for a jointed one), one SAP_CON_DEF_FIXED per weld and one
 *     SAP_CON_DEF_DD per contact between bodies (a gather block on each);
 *  5. "integrate": fem_finish_world: Δv_p = v_p − v*_p from the solve; the whole body follows
 *     from one more solve, Δv = T⁻¹Pᵀ(S·Δv_p) (its participating rows are Δv_p, the others
 *     −D⁻¹BΔv_p), v = v* + Δv and the Newmark positions.
 *
 * Contact values (§6.4): against a rigid geometry's field of gradient g_rigid along the normal,
 * g = 1/(1/C + 1/g_rigid) with Drake's C = 1e8 Pa/m for the deformable side, k = A·g,
 * φ0 = −p/g; against a half-space (rigid: g = C), the pressure is C·depth; between bodies,
 * k = A·C and fn0 = −k·φ0 with φ0 the signed distance at the centroid. Friction and relaxation
 * time combine as for rigid geometries; the dissipations are weighted by the other side's
 * stiffness, A·C against the face's k (a half-space's is infinite, leaving the deformable's). */
#ifndef ISO_KERNELS_FEM_CONTACT_H
#define ISO_KERNELS_FEM_CONTACT_H

#include <stdint.h>

#include "isobar/world_status.h"
#include "kernels/contact/build.h"
#include "kernels/contact/combine.h"
#include "kernels/core.h"
#include "kernels/fem/contact_rec.h"
#include "kernels/fem/detect.h"
#include "kernels/fem/world.h"
#include "kernels/linalg/block_chol.h"
#include "kernels/linalg/block_chol3.h"
#include "kernels/linalg/cholesky_wide.h"
#include "kernels/linalg/schur.h"
#include "kernels/sap/problem.h"

/* World w's deformable blocks of the SAP problem (after the rigid ones): each body's block of
 * A = δt·S on its participating DoFs (identity on the padding), its v* and its warm start v0
 * (v, vstar, A: the world's rows). H and rhs (the world's Newton storage, at least
 * (3·pcap)² and 3·pcap reals) are scratch here: the solver writes them afresh. Returns ISO_WORLD_NOT_SPD when a Schur complement is not positive definite. */
static inline ISO_HD uint32_t fem_sap_cliques(const femSapArgs *a, int w, real *v, real *vstar, real *A, real *H,
                                              real *rhs) {
  const femArgs *F = &a->F;
  const int *np = a->np + (long)w * F->ndef;
  for (int d = 0; d < F->ndef; ++d) {
    const int n3 = 3 * a->pcap[d], m = 3 * np[d];
    const int v0 = a->nv0 + 3 * a->pslot0[d];
    real *Ab = A + a->a0 + a->aoff[d];
    const int *pv = a->pv + (long)w * a->pslot0[F->ndef] + a->pslot0[d];
    const int V0 = F->vert0[d], nvert = F->vert0[d + 1] - V0;
    for (int i = 0; i < n3 * n3; ++i) Ab[i] = 0;
    for (int i = m; i < n3; ++i) Ab[(long)i * n3 + i] = 1; /* padding */
    for (int i = 0; i < n3; ++i) { /* free motion and warm start (the step's start) of each slot */
      const int s = i / 3, ax = i % 3;
      const long g = (long)w * F->ndv3 + 3L * (V0 + (s < np[d] ? pv[s] : 0)) + ax;
      vstar[v0 + i] = s < np[d] ? F->vs[g] : 0;
      v[v0 + i] = s < np[d] ? F->vd[g] : 0;
    }
    if (m == 0) continue;
    const int *head = F->pat_head + (long)FEM_PAT_HEAD * d;
    const bcholView Vw = fem_body_view(head, F->pat + F->pat0[d]);
    const real *Lv = F->L + (long)w * F->nL + 9L * F->slot0[d];
    if (m == 3 * nvert) {
      /* every vertex participates: nothing to eliminate, S = T, given back by the factor at a
       * fraction of the general path's 3n solves, dense factor and inverse (an arch's stone
       * blocks: every vertex in contact). The slot of vertex i is i (ascending order). */
      bchol_unfactor(&Vw, Lv, H);
      for (int c = 0; c < m; ++c)
        for (int r = c; r < m; ++r) Ab[(long)r * n3 + c] = Ab[(long)c * n3 + r] = F->dt * H[(long)c * m + r];
      continue;
    }
    /* W = (T⁻¹)_pp. L⁻¹P e_c, for participating DoF c, is nonzero only on the elimination-tree
     * path above c's vertex, so its forward solve runs on that path alone (schur_forward_unit:
     * the whole forward solve's bits, its exact zeros skipped), and the paths' union U holds
     * every block W reads. U's list, descending, is kept in rhs, which nothing reads between the
     * factor and the update after the solve (fem_finish_world writes it afresh): n ints of
     * marks (then each position's index in U), then the list. Where H has room past W for the
     * solves' blocks on their paths, W = YᵀY from them (schur_gram); else each column of T⁻¹ on
     * U by a back solve (bchol_upper_solve_on: the whole solve's bits there), W its rows at the
     * participating positions. */
    real *work = F->work + (long)w * F->ndv3 + 3L * V0;
    int *mark = (int *)(F->rhs + (long)w * F->ndv3 + 3L * V0), *path = mark + nvert;
    const int npath = schur_path_union(&Vw, pv, np[d], mark, path);
    const long room = (long)a->sap_nv * a->sap_nv - (long)m * m;
    if (room >= schur_gram_room(nvert, np[d], npath)) {
      schur_gram(&Vw, Lv, np[d], pv, path, npath, mark, H + (long)m * m, H);
    } else {
      /* a vertex's three columns at once where H has room past W for them (3n × 3 reals): each
       * block of L read once for three solves, the same bits as one at a time */
      real *Y3 = room >= 9L * nvert ? H + (long)m * m : (real *)0;
      for (int s = 0; s < np[d]; ++s) {
        if (Y3) {
          schur_forward_unit3(&Vw, Lv, Vw.iperm[pv[s]], Y3);
          bchol_upper_solve_on3(&Vw, Lv, path, npath, Y3);
          for (int c = 0; c < 3; ++c)
            for (int r = 0; r < m; ++r) H[(long)(3 * s + c) * m + r] = Y3[9 * Vw.iperm[pv[r / 3]] + 3 * (r % 3) + c];
          continue;
        }
        for (int c = 3 * s; c < 3 * s + 3; ++c) {
          schur_forward_unit(&Vw, Lv, Vw.iperm[pv[s]], c % 3, work);
          bchol_upper_solve_on(&Vw, Lv, path, npath, work);
          for (int r = 0; r < m; ++r) H[(long)c * m + r] = work[3 * Vw.iperm[pv[r / 3]] + r % 3];
        }
      }
    }
    if (chol_factor_env_fast(m, H) != 0) return ISO_WORLD_NOT_SPD; /* W is dense: chol_factor's bits */
    /* S = W⁻¹, column by column, rows c.. only; A = δt·S from its lower triangle, mirrored
     * (exactly symmetric) */
    /* four columns at a time where H has room past the factor for them (the same bits) */
    real *B4 = (long)a->sap_nv * a->sap_nv - (long)m * m >= 4L * m ? H + (long)m * m : (real *)0;
    int c = 0;
    for (; B4 && c + 3 < m; c += 4) {
      chol_solve_unit_tail4_fast(m, H, c, B4);
      for (int q = 0; q < 4; ++q) {
        const int cq = c + q;
        for (int r = cq; r < m; ++r) Ab[(long)r * n3 + cq] = Ab[(long)cq * n3 + r] = F->dt * B4[(long)q * m + r];
      }
    }
    for (; c < m; ++c) {
      chol_solve_unit_tail(m, H, c, rhs);
      for (int r = c; r < m; ++r) Ab[(long)r * n3 + c] = Ab[(long)c * n3 + r] = F->dt * rhs[r];
    }
  }
  return 0;
}

/* World w's deformable cliques after its rigid ones (their blocks: fem_schur_item_at). */
static inline ISO_HD void fem_sap_clique_list(const femSapArgs *a, int w, sapClique *cl, real *origin,
                                              int *nclique) {
  const int *np = a->np + (long)w * a->F.ndef;
  for (int d = 0; d < a->F.ndef; ++d) {
    const int k = a->nclique0 + d, n3 = 3 * a->pcap[d];
    cl[k].nv = n3, cl[k].v0 = a->nv0 + 3 * a->pslot0[d], cl[k].a0 = a->a0 + a->aoff[d];
    cl[k].npad = n3 - 3 * np[d];
    origin[3 * k] = origin[3 * k + 1] = origin[3 * k + 2] = 0;
  }
  *nclique = a->nclique0 + a->F.ndef;
}

/* World w's deformable contacts as SAP constraints, appended at con[n0..) (at most max_con in
 * all): each on its body's clique with its gather block (the half-space is anchored: no second
 * block). M: the geometries' contact materials; v: the world's warm start (for vn0). Returns
 * the new count, or −1 when the constraints do not fit. */
/* The rigid side of record r as constraint c's block 1: a free body's compact point block, or a
 * jointed body's point Jacobian through its tree into the pool (at the constraint's offset).
 * Returns 0 when the pool is full. */
static inline ISO_HD int fem_rigid_side(const femContact *r, sapCon *c, int ci, sapJac *j, const treeSet *TS,
                                        const svec *Sw, const xform *X_w, sapPool *pool) {
  if (r->rbody < 0 || r->clique < 0 || TS->tree_free[TS->body_tree[r->rbody]]) return 1;
  int b0, b1, v0, nt;
  tree_range(TS, TS->body_tree[r->rbody], &b0, &b1, &v0, &nt);
  pool->con_jac[ci] = pool->used;
  real *J = sap_pool_take(pool, 3 * nt);
  if (!J) return 0;
  sap_tree_block(TS, Sw, X_w, r->rbody, r->point, j->R_WC, (real)1, J);
  c->block[1] = SAP_BLOCK_DENSE;
  j->block[1] = SAP_BLOCK_DENSE;
  j->Jd[1] = J;
  return 1;
}

static inline ISO_HD int fem_sap_constraints(const femSapArgs *a, int w, const sapMaterials *M, const sapClique *cl,
                                             const real *origin, const real *A_world, const real *v, sapCon *con,
                                             int n0, int max_con, const treeSet *TS, const svec *Sw,
                                             const xform *X_w, sapPool *pool) {
  const femContact *list = a->con + (long)w * a->max_con;
  const int nc = a->ncon[w];
  const real C = (real)FEM_CONTACT_GRADIENT;
  int n = n0;
  for (int i = 0; i < nc; ++i) {
    const femContact *r = list + i;
    if (r->kind == FEM_REC_WELD) {
      if (n >= max_con) return -1;
      sapCon *c = con + n++;
      c->kind = SAP_CON_DEF_FIXED;
      c->rows = 3;
      c->clique[0] = a->nclique0 + r->body, c->clique[1] = r->clique;
      c->block[0] = SAP_BLOCK_GATHER, c->block[1] = SAP_BLOCK_RIGID_POINT;
      c->contact = i;
      const real *ob = origin + 3L * (r->clique >= 0 ? r->clique : 0);
      const vec3 o[2] = {v3_zero(), r->clique >= 0 ? v3(ob[0], ob[1], ob[2]) : v3_zero()};
      sapJac j = sap_jac_make(c, r->point, r->normal, o);
      j.Jd[0] = r->J, j.cols[0] = r->cols, j.ncols[0] = 9, j.coef[0] = r->coef; /* R_WC: detect's */
      if (!fem_rigid_side(r, c, n - 1, &j, TS, Sw, X_w, pool)) return -1;
      sap_fixed_make(r->gap, a->F.dt, sap_con_delassus(c, &j, cl, A_world), &c->jdata.fixed);
      continue;
    }
    real k, phi0, fe0;
    if (!sap_hydro_face_params(r->area, r->p0, C, r->g, &k, &phi0, &fe0)) continue;
    if (n >= max_con) return -1;
    sapCon *c = con + n++;
    c->kind = SAP_CON_DEF_CONTACT;
    c->rows = 3;
    c->clique[0] = a->nclique0 + r->body, c->clique[1] = r->clique;
    c->block[0] = SAP_BLOCK_GATHER, c->block[1] = SAP_BLOCK_RIGID_POINT;
    const real *ob = origin + 3L * (r->clique >= 0 ? r->clique : 0);
    const vec3 o[2] = {v3_zero(), r->clique >= 0 ? v3(ob[0], ob[1], ob[2]) : v3_zero()};
    sapJac j = sap_jac_make(c, r->point, r->normal, o);
    j.Jd[0] = r->J, j.cols[0] = r->cols, j.ncols[0] = 9, j.coef[0] = r->coef;
    if (!fem_rigid_side(r, c, n - 1, &j, TS, Sw, X_w, pool)) return -1;
    const real *dc = a->def_contact + (long)DEF_NCON * r->body;
    sapContactParams p = sap_contact_params_default();
    p.model = M->model;
    p.stiction_tolerance = M->stiction_tolerance, p.beta = M->beta, p.sigma = M->sigma;
    p.mu = sap_combine_friction(dc[DEF_CON_MU_D], sap_mat(M->mu, w, r->geom, 2, 1));
    p.tau = sap_combine_relaxation_time(dc[DEF_CON_TAU], sap_mat(M->tau, w, r->geom, 1, 0));
    /* the two sides' dissipations weighted by the other's stiffness, A·C against k = A·g (a
     * half-space's is infinite, leaving the deformable's) */
    p.d = sap_combine_deformable_rigid_dissipation(r->area, C, k, r->g, dc[DEF_CON_D],
                                                   sap_mat(M->d, w, r->geom, 1, 0));
    real vc[3];
    sap_con_apply(&j, cl, v, vc);
    p.vn0 = vc[2];
    p.k = k, p.phi0 = phi0, p.fe0 = fe0;
    sap_con_finish(c, &j, i, &p, cl, A_world, a->F.dt, (sapDiagInv *)0);
  }
  if (!a->has_dd) return n;
  const femDDContact *dl = a->dd.con + (long)w * a->dd.max_con;
  const femDDJac *jl = a->ddj + (long)w * a->dd.max_con;
  for (int i = 0; i < a->dd.ncon[w]; ++i) {
    if (n >= max_con) return -1;
    sapCon *c = con + n++;
    c->kind = SAP_CON_DEF_DD;
    c->rows = 3;
    c->clique[0] = a->nclique0 + dl[i].body_a, c->clique[1] = a->nclique0 + dl[i].body_b;
    c->block[0] = c->block[1] = SAP_BLOCK_GATHER;
    const vec3 o[2] = {v3_zero(), v3_zero()};
    sapJac j = sap_jac_make(c, dl[i].point, dl[i].normal, o);
    /* the vertex coefficients let the Delassus estimate take its vertex route; R_WC is the one
     * the blocks were formed with (sap_frame_from_z of the same normal, kernels/fem/detect.h) */
    for (int q = 0; q < 2; ++q)
      j.Jd[q] = jl[i].J[q], j.cols[q] = jl[i].cols[q], j.ncols[q] = 12, j.coef[q] = jl[i].coef[q];
    const real *ca = a->def_contact + (long)DEF_NCON * dl[i].body_a, *cb = a->def_contact + (long)DEF_NCON * dl[i].body_b;
    sapContactParams p = sap_contact_params_default();
    p.model = M->model;
    p.stiction_tolerance = M->stiction_tolerance, p.beta = M->beta, p.sigma = M->sigma;
    p.mu = sap_combine_friction(ca[DEF_CON_MU_D], cb[DEF_CON_MU_D]);
    p.tau = sap_combine_relaxation_time(ca[DEF_CON_TAU], cb[DEF_CON_TAU]);
    p.d = sap_combine_hydro_dissipation((real)FEM_CONTACT_GRADIENT, (real)FEM_CONTACT_GRADIENT, ca[DEF_CON_D],
                                        cb[DEF_CON_D]);
    real vc[3];
    sap_con_apply(&j, cl, v, vc);
    p.vn0 = vc[2];
    p.k = dl[i].k, p.phi0 = dl[i].phi0, p.fe0 = -dl[i].k * dl[i].phi0; /* §6.4: k = A·C, fn0 = −k·φ0 */
    c->contact = i;
    sap_con_finish(c, &j, i, &p, cl, A_world, a->F.dt, (sapDiagInv *)0);
  }
  return n;
}

/* World w after the solve: each body's velocities v = v* + T⁻¹Pᵀ(S·Δv_p), Δv_p the solve's change
 * of its participating DoFs (S = A_block/δt), and Newmark's positions x = x_n + δt(½v + ½v_n).
 * A world without deformable cliques (no half-space) has no participating vertex: v = v*. */
static inline ISO_HD uint32_t fem_finish_world(const femSapArgs *a, int w) {
  const femArgs *F = &a->F;
  const int *np = a->np + (long)w * F->ndef;
  int finite = 1;
  for (int d = 0; d < F->ndef; ++d) {
    const int V0 = F->vert0[d], n = F->vert0[d + 1] - V0, m = 3 * np[d], n3 = 3 * a->pcap[d];
    real *x = F->xd + (long)w * F->ndv3 + 3L * V0, *v = F->vd + (long)w * F->ndv3 + 3L * V0;
    const real *vs = F->vs + (long)w * F->ndv3 + 3L * V0;
    real *e = F->rhs + (long)w * F->ndv3 + 3L * V0, *work = F->work + (long)w * F->ndv3 + 3L * V0;
    for (int i = 0; i < 3 * n; ++i) e[i] = 0;
    if (m > 0) {
      const long row = (long)w * a->sap_nv + a->nv0 + 3L * a->pslot0[d];
      const real *Ab = a->sap_A + (long)w * a->sap_max_A + a->a0 + a->aoff[d];
      const int *pv = a->pv + (long)w * a->pslot0[F->ndef] + a->pslot0[d];
      real *dvp = a->sap_tmp + (long)w * a->sap_nv;
      for (int i = 0; i < m; ++i) dvp[i] = a->sap_v[row + i] - a->sap_vstar[row + i];
      for (int r = 0; r < m; ++r) {
        real t = 0;
        for (int c = 0; c < m; ++c) t += Ab[(long)r * n3 + c] * dvp[c];
        e[3 * pv[r / 3] + r % 3] = t / F->dt;
      }
      const bcholView Vw = fem_body_view(F->pat_head + (long)FEM_PAT_HEAD * d, F->pat + F->pat0[d]);
      bchol_solve(&Vw, F->L + (long)w * F->nL + 9L * F->slot0[d], e, work);
    }
    const unsigned char *held = F->held + V0;
    for (int i = 0; i < n; ++i)
      for (int c = 0; c < 3; ++c) {
        const int k = 3 * i + c;
        const real vn = v[k], vk = held[i] ? (real)0 : vs[k] + e[k];
        x[k] += F->dt * ((real)0.5 * vk + (real)0.5 * vn);
        v[k] = vk;
        finite &= (isfinite(x[k]) && isfinite(vk)) ? 1 : 0;
      }
  }
  return finite ? 0u : ISO_WORLD_NONFINITE;
}

/* The deformable stages, one item per world each (a world's fault freezes it for the rest):
 * i = world: every body's element work, assembled into its factor storage. */
static inline ISO_HD void fem_elements_item_at(const femSapArgs *a, long i) {
  const int w = (int)i;
  if (a->status[w] & ISO_WORLD_FROZEN) return;
  for (int d = 0; d < a->F.ndef; ++d) fem_body_assemble(&a->F, w, d);
}

/* i = world: every body's factorisation and free motion v*. */
static inline ISO_HD void fem_factor_item_at(const femSapArgs *a, long i) {
  const int w = (int)i;
  if (a->status[w] & ISO_WORLD_FROZEN) return;
  uint32_t bits = 0;
  for (int d = 0; d < a->F.ndef && !bits; ++d) bits = fem_body_factor(&a->F, w, d);
  if (bits) a->status[w] |= bits | ISO_WORLD_FROZEN;
}

/* i = world: the contacts and welds, and the participating vertices. */
static inline ISO_HD void fem_contact_item_at(const femSapArgs *a, long i) {
  const int w = (int)i;
  if (a->status[w] & ISO_WORLD_FROZEN) return;
  const uint32_t bits = fem_detect_world(a, w);
  if (bits) a->status[w] |= bits | ISO_WORLD_FROZEN;
}

/* i = world: each body's Schur complement into its block of the solver's A, with its v* and warm
 * start (fem_sap_cliques; the constraints stage then adds the cliques to the world's list). */
static inline ISO_HD void fem_schur_item_at(const femSapArgs *a, long i) {
  const int w = (int)i;
  if (!a->touch || (a->status[w] & ISO_WORLD_FROZEN)) return;
  const uint32_t bits = fem_sap_cliques(a, w, a->sap_v + (long)w * a->sap_nv, a->sap_vstar + (long)w * a->sap_nv,
                                        a->sap_A + (long)w * a->sap_max_A, a->sap_H + (long)w * a->sap_nv * a->sap_nv,
                                        a->sap_rhs + (long)w * a->sap_nv);
  if (bits) a->status[w] |= bits | ISO_WORLD_FROZEN;
}

/* i = world: every vertex after the solve (run after the rigid integration). */
static inline ISO_HD void fem_finish_item_at(const femSapArgs *a, long i) {
  const int w = (int)i;
  if (a->status[w] & ISO_WORLD_FROZEN) return;
  const uint32_t bits = fem_finish_world(a, w);
  if (bits) a->status[w] |= bits | ISO_WORLD_FROZEN;
}

#endif
