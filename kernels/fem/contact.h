/* Deformable bodies in a world's SAP problem (seed 001 §IV; reference §6.3, §6.4): their
 * contacts with rigid half-spaces, the participating vertices, the Schur complement on them
 * from the body's one factor, and the update of every vertex after the solve.
 *
 * A step, per world:
 *  1. deformable stage (kernels/fem/world.h): each body's free motion v* (its factor L kept),
 *     then fem_detect_world: every surface triangle at the step's start clipped by every
 *     half-space; each polygon is one contact at its area centroid; the triangles' free
 *     vertices become participating, listed in ascending vertex order (one order whatever the
 *     contacts' order), each given a slot.
 *  2. constraints stage (kernels/sap/step_items.h): fem_sap_cliques gives body d the clique
 *     k = (rigid cliques) + d of 3·pcap[d] DoFs, slot i's vertex at DoFs 3i..3i+2. Its block of
 *     A is δt·S, S = C − BᵀD⁻¹B the Schur complement of the non-participating DoFs, found as
 *     S = ((T⁻¹)_pp)⁻¹ with 3·np solves on the factor of the whole T: one ordering per mesh for
 *     every world, whatever the participating set (never reordered per world). A world with
 *     fewer than pcap participating vertices pads its clique: identity rows of A, v* = 0, no
 *     constraint on them, so they solve to 0 and cost the solver one identity block. Then
 *     fem_sap_constraints appends one SAP_CON_DEF_CONTACT per contact after the joint
 *     constraints.
 *  3. integrate stage: fem_finish_world: Δv_p = v_p − v*_p from the solve; the whole body
 *     follows from one more solve, Δv = T⁻¹Pᵀ(S·Δv_p) (its participating rows are Δv_p, the
 *     others −D⁻¹BΔv_p), v = v* + Δv and the Newmark positions.
 *
 * Contact with a rigid half-space: the half-space is rigid, so the combined pressure gradient
 * is the deformable side's alone, Drake's C = 1e8 Pa/m (reference §6.4), and the polygon's
 * pressure is C·depth at its centroid; k = A·C, φ0 = −depth, friction and relaxation time
 * combined as for rigid geometries, the dissipation the deformable's (the rigid side's weight
 * is infinite). Drake drops deformable–half-space contact with a warning; this is what its
 * deformable–rigid rule gives for a rigid side of infinite stiffness. Triangles facing away
 * from the half-space (more than 5π/8 from its inward normal, Drake's normal filter of §6.4)
 * make no contact. */
#ifndef ISO_KERNELS_FEM_CONTACT_H
#define ISO_KERNELS_FEM_CONTACT_H

#include <stdint.h>

#include "isobar/world_status.h"
#include "kernels/collide/box.h"
#include "kernels/collide/bvh.h"
#include "kernels/contact/build.h"
#include "kernels/contact/combine.h"
#include "kernels/core.h"
#include "kernels/fem/contact_rec.h"
#include "kernels/fem/dd_contact.h"
#include "kernels/fem/world.h"
#include "kernels/hydro/clip.h"
#include "kernels/hydro/narrow.h"
#include "kernels/hydro/polygon.h"
#include "kernels/linalg/cholesky.h"
#include "kernels/math/transform.h"
#include "kernels/sap/problem.h"

/* Drake's pressure gradient of a deformable body's surface, Pa/m (reference §6.4). */
#define FEM_CONTACT_GRADIENT 1e8
/* cos(5π/8): Drake's normal filter of deformable contact. */
#define FEM_NORMAL_FILTER_COS (-0.38268343236508984)

/* What the contact and SAP parts read and write, beyond femArgs (the free motion's). */
typedef struct femSapArgs {
  femArgs F;
  const int *tri0, *tri;     /* (ndef + 1), (ndtri, 3) surface triangles, body-local */
  const real *def_contact;   /* (ndef, DEF_NCON): dissipation, relaxation time, μ_s, μ_d */
  int ntouch;                /* geometries the bodies can touch (host/sim/sim_fem.c) */
  const int *touch_geom;     /* (ntouch) */
  const int *geom_shape, *geom_body, *geom_def_asset; /* (ngeom) the model's */
  const xform *X_BG;         /* (ngeom) each geometry's pose in its body (or the world) */
  const xform *X_WB;         /* (nworld, nbody) body poses of stage 1 */
  int nbody;
  const int *body_tree, *tree_clique; /* (nbody), (ntree): a free body's clique */
  wfield geom_E;             /* (ngeom) hydroelastic moduli, per world */
  /* the compiled model's assets (host/model/model_flat.h) */
  const int *asset_vert0, *asset_elem0, *asset_node0, *asset_nnode;
  const real *vert, *grad, *porig, *bvh_box;
  const int *elem, *bvh_elem;
  const bvhNode *node;
  const int *weld0, *weld_vert, *weld_body; /* (ndef + 1), (nweld), (nweld): welded vertices */
  const real *weld_p;        /* (nweld, 3) the body point each is held at, body frame */
  int has_dd;                /* two or more bodies: their contacts with each other */
  femDDArgs dd;              /* the deformable–deformable detection (kernels/fem/dd_contact.h) */
  femDDJac *ddj;             /* (nworld, dd.max_con) their blocks */
  const int *pcap;           /* (ndef) participating vertices a body may have per world */
  const int *pslot0;         /* (ndef + 1) each body's first slot in a world's lists */
  const int *aoff;           /* (ndef + 1) each body's block in a world's A, past the rigid ones */
  int nclique0, nv0, a0;     /* the rigid cliques, DoFs and A reals that come first */
  int max_con;               /* deformable contacts per world */
  long nvert;                /* deformable vertices, all bodies */
  int *np;                   /* (nworld, ndef) participating vertices */
  int *pv;                   /* (nworld, Σ pcap) their vertices, ascending, per body */
  int *slot;                 /* (nworld, nvert) each vertex's slot, −1 when not participating */
  femContact *con;           /* (nworld, max_con) */
  int *ncon;                 /* (nworld) */
  int touch;                 /* 1: the solver holds the deformable cliques (a half-space exists) */
  real *v_state;             /* (nworld, nv0) the state's rigid velocities, when touch: the solver
                                iterates apart from them */
  /* the solver's per-world rows: the Schur complement's (fem_schur_item_at) and the update
   * after the solve (fem_finish_world) */
  real *sap_v, *sap_vstar, *sap_A;
  real *sap_H, *sap_rhs;     /* (nworld, sap_nv²), (nworld, sap_nv): the Schur's scratch */
  real *sap_tmp;             /* (nworld, sap_nv) scratch */
  int sap_nv, sap_max_A;
  uint32_t *status;          /* (nworld) */
} femSapArgs;


/* isoShape's half-space (include/isobar/geometry.h), which kernels do not include. */
#define FEM_SHAPE_HALFSPACE 5

/* Append one contact of body d's surface triangle t (vertices p, world) at centroid c with the
 * rigid side's pressure p0 and gradient g; its vertices become participating (held ones stay
 * out). Returns the new count; a full list sets ISO_WORLD_OVERFLOW. */
static inline ISO_HD int fem_contact_add(const femSapArgs *a, int d, int t, const vec3 p[3], vec3 c, vec3 nhat_BA,
                                         real area, real p0, real g, int geom, int clique, femContact *list, int n,
                                         int *slot, uint32_t *bits) {
  if (n >= a->max_con) {
    *bits |= ISO_WORLD_OVERFLOW;
    return n;
  }
  femContact *r = list + n;
  r->kind = FEM_REC_CONTACT;
  r->gap[0] = r->gap[1] = r->gap[2] = 0;
  r->point = c, r->normal = nhat_BA, r->area = area, r->p0 = p0, r->g = g;
  r->body = d, r->tri = t - a->tri0[d], r->geom = geom, r->clique = clique, r->rbody = a->geom_body[geom];
  /* barycentric coordinates of c in the triangle, from the sub-triangle areas */
  const vec3 tn = v3_cross(v3_sub(p[1], p[0]), v3_sub(p[2], p[0]));
  const real inv = (real)1 / v3_dot(tn, tn);
  r->bary[0] = v3_dot(v3_cross(v3_sub(p[1], c), v3_sub(p[2], c)), tn) * inv;
  r->bary[1] = v3_dot(v3_cross(v3_sub(p[2], c), v3_sub(p[0], c)), tn) * inv;
  r->bary[2] = (real)1 - r->bary[0] - r->bary[1];
  const int *tv = a->tri + 3L * t;
  const unsigned char *held = a->F.held + a->F.vert0[d];
  for (int k = 0; k < 3; ++k)
    if (!held[tv[k]]) slot[tv[k]] = 0; /* participating; numbered once all contacts are in */
  return n + 1;
}

/* Body d's surface (positions x, world) against the half-space of pose X: every triangle facing
 * it clipped by it; the pressure is C·depth at the polygon's centroid. */
static inline ISO_HD int fem_halfspace_contacts(const femSapArgs *a, int d, const real *x, xform X, int geom,
                                                int clique, femContact *list, int n, int *slot, uint32_t *bits) {
  const vec3 nrm = quat_rotate(X.q, v3(0, 0, 1)), o = X.p;
  for (int t = a->tri0[d]; t < a->tri0[d + 1]; ++t) {
    const int *tv = a->tri + 3L * t;
    vec3 p[3];
    for (int k = 0; k < 3; ++k) p[k] = v3(x[3 * tv[k]], x[3 * tv[k] + 1], x[3 * tv[k] + 2]);
    const vec3 tn = v3_cross(v3_sub(p[1], p[0]), v3_sub(p[2], p[0]));
    const real tl = v3_norm(tn);
    if (!(tl > 0) || v3_dot(tn, nrm) > -FEM_NORMAL_FILTER_COS * tl) continue; /* facing away */
    vec3 poly[HYDRO_CLIP_CAP];
    const int m = hydro_clip_halfspace(p, 3, nrm, o, poly, HYDRO_CLIP_CAP);
    if (m < 3) continue;
    real area;
    vec3 pn, c;
    hydro_polygon_props(poly, m, &area, &pn, &c);
    const real depth = -v3_dot(nrm, v3_sub(c, o));
    if (!(area > (real)SAP_FACE_MIN_AREA) || !(depth > 0)) continue;
    n = fem_contact_add(a, d, t, p, c, nrm, area, (real)FEM_CONTACT_GRADIENT * depth, (real)INFINITY, geom, clique,
                        list, n, slot, bits);
  }
  return n;
}

/* Body d's surface against geometry `geom`'s compliant pressure field (its asset, posed at X,
 * modulus E this world), reference §6.4: each triangle, in the geometry's frame, against the
 * tets of the asset's BVH its box overlaps, clipped by each (hydro_tri_tet, with Drake's normal
 * filter on the triangle's outward normal against the tet's pressure gradient). */
static inline ISO_HD int fem_mesh_contacts(const femSapArgs *a, int w, int d, const real *x, xform X, int geom,
                                           int clique, femContact *list, int n, int *slot, uint32_t *bits) {
  const int as = a->geom_def_asset[geom], v0 = a->asset_vert0[as], e0 = a->asset_elem0[as];
  const bvhNode *node = a->node + a->asset_node0[as];
  const int nnode = a->asset_nnode[as];
  const real E = wf_at(a->geom_E, w, geom, 1)[0];
  for (int t = a->tri0[d]; t < a->tri0[d + 1]; ++t) {
    const int *tv = a->tri + 3L * t;
    vec3 pw[3], pg[3];
    real lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int k = 0; k < 3; ++k) {
      pw[k] = v3(x[3 * tv[k]], x[3 * tv[k] + 1], x[3 * tv[k] + 2]);
      pg[k] = xf_inv_point(X, pw[k]);
      lo[0] = fmin(lo[0], pg[k].x), lo[1] = fmin(lo[1], pg[k].y), lo[2] = fmin(lo[2], pg[k].z);
      hi[0] = fmax(hi[0], pg[k].x), hi[1] = fmax(hi[1], pg[k].y), hi[2] = fmax(hi[2], pg[k].z);
    }
    const vec3 tn = v3_cross(v3_sub(pg[1], pg[0]), v3_sub(pg[2], pg[0]));
    if (!(v3_norm2(tn) > 0) || nnode <= 0) continue;
    int stack[BVH_STACK1], sp = 1;
    stack[0] = 0;
    while (sp > 0) {
      const bvhNode *nd = node + stack[--sp];
      if (!box_overlap_aabb(lo, hi, nd->lo, nd->hi)) continue;
      if (!bvh_is_leaf(nd)) {
        if (sp + 2 > BVH_STACK1) {
          *bits |= ISO_WORLD_OVERFLOW; /* a tree deeper than its build allows: never, by construction */
          break;
        }
        stack[sp++] = nd->b, stack[sp++] = nd->a;
        continue;
      }
      for (int k = bvh_leaf_begin(nd); k < bvh_leaf_end(nd); ++k) {
        const real *bx = a->bvh_box + 6L * (e0 + k);
        if (!box_overlap_aabb(lo, hi, bx, bx + 3)) continue;
        const int e = a->bvh_elem[e0 + k];
        const int *te = a->elem + 4L * (e0 + e);
        vec3 tet[4];
        for (int q = 0; q < 4; ++q) {
          const real *pv = a->vert + 3L * (v0 + te[q]);
          tet[q] = v3(pv[0], pv[1], pv[2]);
        }
        const real *gr = a->grad + 3L * (e0 + e);
        hydroFace f;
        if (!hydro_tri_tet(pg, tn, tet, v3(E * gr[0], E * gr[1], E * gr[2]), E * a->porig[e0 + e], &f)) continue;
        /* f.normal is the triangle's, out of the deformable: n̂_BA is its opposite */
        n = fem_contact_add(a, d, t, pw, xf_point(X, f.centroid), v3_neg(xf_vector(X, f.normal)), f.area, f.p0, f.gM,
                            geom, clique, list, n, slot, bits);
      }
    }
  }
  return n;
}

/* World w: contacts of every body with every half-space, the participating vertices and their
 * slots, and each contact's gather block. A full list or too many participating vertices sets
 * ISO_WORLD_OVERFLOW (the caller freezes the world). */
static inline ISO_HD uint32_t fem_detect_world(const femSapArgs *a, int w) {
  const femArgs *F = &a->F;
  femContact *list = a->con + (long)w * a->max_con;
  int *slot = a->slot + (long)w * a->nvert, *np = a->np + (long)w * F->ndef;
  int n = 0;
  uint32_t bits = 0;
  for (long i = 0; i < a->nvert; ++i) slot[i] = -1;
  for (int d = 0; d < F->ndef; ++d) {
    const int v0 = F->vert0[d];
    const real *x = F->xd + (long)w * F->ndv3 + 3L * v0;
    np[d] = 0;
    for (int h = 0; h < a->ntouch; ++h) {
      const int geom = a->touch_geom[h], gb = a->geom_body[geom];
      const xform X = gb < 0 ? a->X_BG[geom] : xf_mul(a->X_WB[(long)w * a->nbody + gb], a->X_BG[geom]);
      const int clique = gb < 0 ? -1 : a->tree_clique[a->body_tree[gb]];
      if (a->geom_shape[geom] == FEM_SHAPE_HALFSPACE)
        n = fem_halfspace_contacts(a, d, x, X, geom, clique, list, n, slot + v0, &bits);
      else
        n = fem_mesh_contacts(a, w, d, x, X, geom, clique, list, n, slot + v0, &bits);
    }
    for (int k = a->weld0[d]; k < a->weld0[d + 1]; ++k)
      if (!F->held[v0 + a->weld_vert[k]]) slot[v0 + a->weld_vert[k]] = 0; /* always participating */
  }
  if (a->has_dd) { /* contacts between bodies: both tets' free vertices take part */
    bits |= fem_dd_detect_world(&a->dd, w);
    const femDDContact *dl = a->dd.con + (long)w * a->dd.max_con;
    for (int c = 0; c < a->dd.ncon[w]; ++c)
      for (int q = 0; q < 2; ++q) {
        const int body = q ? dl[c].body_b : dl[c].body_a, t = q ? dl[c].tet_b : dl[c].tet_a;
        const int *tv = F->tet + 4L * (F->tet0[body] + t), v0 = F->vert0[body];
        for (int k = 0; k < 4; ++k)
          if (!F->held[v0 + tv[k]]) slot[v0 + tv[k]] = 0;
      }
  }
  /* slots in ascending vertex order per body */
  for (int d = 0; d < F->ndef; ++d) {
    int *pv = a->pv + (long)w * a->pslot0[F->ndef] + a->pslot0[d], k = 0;
    for (int i = F->vert0[d]; i < F->vert0[d + 1]; ++i) {
      if (slot[i] < 0) continue;
      if (k >= a->pcap[d]) {
        bits |= ISO_WORLD_OVERFLOW;
        slot[i] = -1;
        continue;
      }
      slot[i] = k;
      pv[k++] = i - F->vert0[d];
    }
    np[d] = k;
  }
  /* the welds, after the contacts: Q on its body, P the vertex, the gap in the record's frame */
  for (int d = 0; d < F->ndef; ++d)
    for (int k = a->weld0[d]; k < a->weld0[d + 1]; ++k) {
      if (n >= a->max_con) {
        bits |= ISO_WORLD_OVERFLOW;
        break;
      }
      const int b = a->weld_body[k], v = F->vert0[d] + a->weld_vert[k];
      if (F->held[v]) continue; /* held in place already: nothing to weld */
      const xform X = a->X_WB[(long)w * a->nbody + b];
      const real *pb = a->weld_p + 3L * k, *xp = F->xd + (long)w * F->ndv3 + 3L * v;
      femContact *r = list + n++;
      r->kind = FEM_REC_WELD;
      r->point = xf_point(X, v3(pb[0], pb[1], pb[2]));
      r->normal = v3(0, 0, 1); /* any frame: the three rows are alike */
      r->area = r->p0 = r->g = 0;
      r->bary[0] = 1, r->bary[1] = r->bary[2] = 0;
      r->body = d, r->tri = k, r->geom = -1;
      r->clique = a->tree_clique[a->body_tree[b]], r->rbody = b;
      const mat3 R = sap_frame_from_z(v3_neg(r->normal));
      const vec3 gap = m3_tmulv(R, v3_sub(r->point, v3(xp[0], xp[1], xp[2])));
      r->gap[0] = gap.x, r->gap[1] = gap.y, r->gap[2] = gap.z;
    }
  /* each record's block: row i of −R_WCᵀ times b_k at its vertex's three DoFs */
  for (int c = 0; c < n; ++c) {
    femContact *r = list + c;
    const int v0 = F->vert0[r->body];
    int tv[3];
    if (r->kind == FEM_REC_WELD) tv[0] = tv[1] = tv[2] = a->weld_vert[r->tri];
    else
      for (int k = 0; k < 3; ++k) tv[k] = a->tri[3L * (a->tri0[r->body] + r->tri) + k];
    const mat3 R = sap_frame_from_z(v3_neg(r->normal));
    for (int k = 0; k < 3; ++k) {
      const int s = slot[v0 + tv[k]];
      const real b = s >= 0 ? r->bary[k] : (real)0; /* a held vertex does not move */
      for (int ax = 0; ax < 3; ++ax) {
        r->cols[3 * k + ax] = 3 * (s >= 0 ? s : 0) + ax;
        for (int i = 0; i < 3; ++i) r->J[9 * i + 3 * k + ax] = -b * R.m[ax][i];
      }
    }
  }
  /* the deformable–deformable blocks: −b_k·R_WCᵀ on A's tet, +b_k·R_WCᵀ on B's */
  if (a->has_dd) {
    const femDDContact *dl = a->dd.con + (long)w * a->dd.max_con;
    femDDJac *jl = a->ddj + (long)w * a->dd.max_con;
    for (int c = 0; c < a->dd.ncon[w]; ++c) {
      const mat3 R = sap_frame_from_z(v3_neg(dl[c].normal));
      for (int q = 0; q < 2; ++q) {
        const int body = q ? dl[c].body_b : dl[c].body_a, t = q ? dl[c].tet_b : dl[c].tet_a;
        const int *tv = F->tet + 4L * (F->tet0[body] + t), v0 = F->vert0[body];
        const real *bary = q ? dl[c].bary_b : dl[c].bary_a, sign = q ? (real)1 : (real)-1;
        for (int k = 0; k < 4; ++k) {
          const int s = slot[v0 + tv[k]];
          const real b = s >= 0 ? bary[k] : (real)0;
          for (int ax = 0; ax < 3; ++ax) {
            jl[c].cols[q][3 * k + ax] = 3 * (s >= 0 ? s : 0) + ax;
            for (int i = 0; i < 3; ++i) jl[c].J[q][12 * i + 3 * k + ax] = sign * b * R.m[ax][i];
          }
        }
      }
    }
  }
  a->ncon[w] = n;
  return bits;
}

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
    /* W = (T⁻¹)_pp column by column: one solve of T per participating DoF */
    const int *head = F->pat_head + (long)FEM_PAT_HEAD * d;
    const bcholView Vw = fem_body_view(head, F->pat + F->pat0[d]);
    const real *Lv = F->L + (long)w * F->nL + 9L * F->slot0[d];
    real *e = F->rhs + (long)w * F->ndv3 + 3L * V0, *work = F->work + (long)w * F->ndv3 + 3L * V0;
    for (int c = 0; c < m; ++c) {
      for (int i = 0; i < 3 * nvert; ++i) e[i] = 0;
      e[3 * pv[c / 3] + c % 3] = 1;
      bchol_solve(&Vw, Lv, e, work);
      for (int r = 0; r < m; ++r) H[(long)c * m + r] = e[3 * pv[r / 3] + r % 3];
    }
    if (chol_factor(m, H) != 0) return ISO_WORLD_NOT_SPD;
    /* S = W⁻¹, column by column; A = δt·S from its lower triangle, mirrored (exactly symmetric) */
    for (int c = 0; c < m; ++c) {
      for (int r = 0; r < m; ++r) rhs[r] = r == c ? (real)1 : (real)0;
      chol_solve(m, H, rhs);
      for (int r = c; r < m; ++r) Ab[(long)r * n3 + c] = Ab[(long)c * n3 + r] = F->dt * rhs[r];
    }
  }
  return 0;
}

/* World w's deformable cliques after its rigid ones (their blocks: fem_schur_item_at). */
static inline ISO_HD void fem_sap_clique_list(const femSapArgs *a, sapClique *cl, real *origin, int *nclique) {
  for (int d = 0; d < a->F.ndef; ++d) {
    const int k = a->nclique0 + d, n3 = 3 * a->pcap[d];
    cl[k].nv = n3, cl[k].v0 = a->nv0 + 3 * a->pslot0[d], cl[k].a0 = a->a0 + a->aoff[d];
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
      j.Jd[0] = r->J, j.cols[0] = r->cols, j.ncols[0] = 9;
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
    j.Jd[0] = r->J, j.cols[0] = r->cols, j.ncols[0] = 9;
    if (!fem_rigid_side(r, c, n - 1, &j, TS, Sw, X_w, pool)) return -1;
    const real *dc = a->def_contact + (long)DEF_NCON * r->body;
    sapContactParams p = sap_contact_params_default();
    p.model = M->model;
    p.stiction_tolerance = M->stiction_tolerance, p.beta = M->beta, p.sigma = M->sigma;
    p.mu = sap_combine_friction(dc[DEF_CON_MU_D], sap_mat(M->mu, w, r->geom, 2, 1));
    p.tau = sap_combine_relaxation_time(dc[DEF_CON_TAU], sap_mat(M->tau, w, r->geom, 1, 0));
    /* the two sides' dissipations weighted by the other's stiffness (C against the rigid side's
     * gradient along the normal; a half-space's is infinite, leaving the deformable's) */
    p.d = sap_combine_hydro_dissipation(C, r->g, dc[DEF_CON_D], sap_mat(M->d, w, r->geom, 1, 0));
    real vc[3];
    sap_con_apply(&j, cl, v, vc);
    p.vn0 = vc[2];
    p.k = k, p.phi0 = phi0, p.fe0 = fe0;
    sap_con_finish(c, &j, i, &p, cl, A_world, a->F.dt);
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
    for (int q = 0; q < 2; ++q) j.Jd[q] = jl[i].J[q], j.cols[q] = jl[i].cols[q], j.ncols[q] = 12;
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
    sap_con_finish(c, &j, i, &p, cl, A_world, a->F.dt);
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
