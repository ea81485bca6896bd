/* Deformable bodies' contacts and welds, per world (the stage "fem contact"): what a body's
 * surface touches — half-spaces, rigid geometries' compliant pressure fields (through the
 * surface's BVH refit to the world), other deformable bodies — and the vertices that take part
 * (kernels/fem/contact.h puts them into the solver; its header comment is the method). */
#ifndef ISO_KERNELS_FEM_DETECT_H
#define ISO_KERNELS_FEM_DETECT_H

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
  const int *snode0;         /* (ndef + 1) each body's surface BVH nodes */
  const bvhNode *snode_rest; /* (Σ nodes) their topology (the model's, boxes at rest) */
  const int *stri;           /* (ndtri) their triangles in leaf order, body-local */
  bvhNode *snode;            /* (nworld, nsnode) the trees refit to each world's positions */
  real *sbox;                /* (nworld, 6·ndtri) their triangles' padded boxes, leaf order */
  long nsnode, ndtri;
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

/* Body d's surface BVH refit to world w's positions: each triangle's padded box in leaf order,
 * then every node, children before parents (the nodes are in pre-order: a reverse sweep). */
static inline ISO_HD bvhTree fem_surface_refit(const femSapArgs *a, int w, int d, const real *x) {
  const int n0 = a->snode0[d], nn = a->snode0[d + 1] - n0, t0 = a->tri0[d];
  bvhNode *node = a->snode + (long)w * a->nsnode + n0;
  real *box = a->sbox + 6L * ((long)w * a->ndtri + t0);
  for (int k = 0; k < a->tri0[d + 1] - t0; ++k) {
    const int *tv = a->tri + 3L * (t0 + a->stri[t0 + k]);
    real *b = box + 6L * k;
    for (int c = 0; c < 3; ++c) {
      const real p0 = x[3 * tv[0] + c], p1 = x[3 * tv[1] + c], p2 = x[3 * tv[2] + c];
      b[c] = fmin(p0, fmin(p1, p2)), b[3 + c] = fmax(p0, fmax(p1, p2));
    }
    box_pad(b, b + 3, b, b + 3);
  }
  for (int k = nn - 1; k >= 0; --k) {
    bvhNode *nd = node + k;
    *nd = a->snode_rest[n0 + k];
    const int leaf = bvh_is_leaf(nd);
    const int lo = leaf ? bvh_leaf_begin(nd) : 0, hi = leaf ? bvh_leaf_end(nd) : 0;
    for (int c = 0; c < 3; ++c) {
      nd->lo[c] = leaf ? box[6L * lo + c] : fmin(node[nd->a].lo[c], node[nd->b].lo[c]);
      nd->hi[c] = leaf ? box[6L * lo + 3 + c] : fmax(node[nd->a].hi[c], node[nd->b].hi[c]);
    }
    for (int e = lo + 1; e < hi; ++e)
      for (int c = 0; c < 3; ++c) nd->lo[c] = fmin(nd->lo[c], box[6L * e + c]), nd->hi[c] = fmax(nd->hi[c], box[6L * e + 3 + c]);
  }
  return bvh_tree_make(node, a->stri + t0, box, nn);
}

/* Body d's surface (its tree S refit to this world, positions x) against geometry `geom`'s
 * compliant pressure field (its asset, posed at X, modulus E this world), reference §6.4: the
 * two trees walked together (the surface's boxes in the world, the asset's in its frame, tested
 * under X on the face axes, as kernels/collide/bvh.h's walk), and each triangle–tet pair whose
 * boxes meet there clipped (hydro_tri_tet_prepared in the geometry's frame, with Drake's normal
 * filter on the triangle's outward normal against the tet's pressure gradient). The walk's order
 * is fixed by the trees, so the contacts' is. */
static inline ISO_HD int fem_mesh_contacts(const femSapArgs *a, int w, int d, const real *x, bvhTree S, xform X,
                                           int geom, int clique, femContact *list, int n, int *slot,
                                           uint32_t *bits) {
  const int as = a->geom_def_asset[geom], v0 = a->asset_vert0[as], e0 = a->asset_elem0[as];
  const bvhTree G = bvh_tree_make(a->node + a->asset_node0[as], a->bvh_elem + e0, a->bvh_box + 6L * e0,
                                  a->asset_nnode[as]);
  const real E = wf_at(a->geom_E, w, geom, 1)[0];
  if (S.nnode <= 0 || G.nnode <= 0) return n;
  const boxRel rel = box_rel_make(X); /* the asset's frame in the world: G posed in S's frame */
#if ISO_CPU_SCRATCH
  /* the geometry's tets sit still in its frame, so each one's planes and normalised gradient are
   * formed once for all the surface triangles it meets (a finger's 32 tets met ~220 candidates a
   * step of the soft grasp, each forming its four planes again) */
  hydroTetCache cache, *tc = &cache;
  hydro_tet_cache_reset(tc);
#else
  hydroTetCache *tc = (hydroTetCache *)0;
#endif
  int sa[BVH_STACK], sb[BVH_STACK], sp = 1;
  sa[0] = sb[0] = 0;
  while (sp > 0) {
    --sp;
    const bvhNode *na = S.node + sa[sp], *nb = G.node + sb[sp];
    if (!box_overlap_rel_faces(na->lo, na->hi, nb->lo, nb->hi, &rel)) continue; /* as bvh_pairs_walk */
    const int la = bvh_is_leaf(na), lb = bvh_is_leaf(nb);
    if (!(la && lb)) {
      if (sp + 2 > BVH_STACK) {
        *bits |= ISO_WORLD_OVERFLOW; /* deeper than the build allows: never, by construction */
        return n;
      }
      const int ia = sa[sp], ib = sb[sp];
      if (lb || (!la && bvh_node_size(na) >= bvh_node_size(nb)))
        sa[sp] = na->b, sb[sp] = ib, sa[sp + 1] = na->a, sb[sp + 1] = ib;
      else
        sa[sp] = ia, sb[sp] = nb->b, sa[sp + 1] = ia, sb[sp + 1] = nb->a;
      sp += 2;
      continue;
    }
    for (int ka = bvh_leaf_begin(na); ka < bvh_leaf_end(na); ++ka) {
      const int t = a->tri0[d] + S.elem[ka];
      const int *tv = a->tri + 3L * t;
      vec3 pw[3], pg[3];
      for (int k = 0; k < 3; ++k) {
        pw[k] = v3(x[3 * tv[k]], x[3 * tv[k] + 1], x[3 * tv[k] + 2]);
        pg[k] = xf_inv_point(X, pw[k]);
      }
      const vec3 tn = v3_cross(v3_sub(pg[1], pg[0]), v3_sub(pg[2], pg[0]));
      if (!(v3_norm2(tn) > 0)) continue;
      for (int kb = bvh_leaf_begin(nb); kb < bvh_leaf_end(nb); ++kb) {
        const real *ba = S.box + 6L * ka, *bb = G.box + 6L * kb;
        if (!box_overlap_rel_faces(ba, ba + 3, bb, bb + 3, &rel)) continue;
        const int e = G.elem[kb];
        hydroTet local, *T = &local;
        int hit = 0;
        if (tc) T = hydro_tet_cache_slot(tc, geom, e, &hit);
        if (!hit) {
          const int *te = a->elem + 4L * (e0 + e);
          vec3 tet[4];
          for (int q = 0; q < 4; ++q) {
            const real *pv = a->vert + 3L * (v0 + te[q]);
            tet[q] = v3(pv[0], pv[1], pv[2]);
          }
          const real *gr = a->grad + 3L * (e0 + e);
          hydro_tet_make(T, tet, v3(E * gr[0], E * gr[1], E * gr[2]), E * a->porig[e0 + e]);
        }
        hydroFace f;
        if (!hydro_tri_tet_prepared(pg, tn, T, &f)) continue;
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
    const bvhTree S = a->ntouch > 0 ? fem_surface_refit(a, w, d, x) : bvh_tree_make((const bvhNode *)0, (const int *)0,
                                                                                   (const real *)0, 0);
    for (int h = 0; h < a->ntouch; ++h) {
      const int geom = a->touch_geom[h], gb = a->geom_body[geom];
      const xform X = gb < 0 ? a->X_BG[geom] : xf_mul(a->X_WB[(long)w * a->nbody + gb], a->X_BG[geom]);
      const int clique = gb < 0 ? -1 : a->tree_clique[a->body_tree[gb]];
      if (a->geom_shape[geom] == FEM_SHAPE_HALFSPACE)
        n = fem_halfspace_contacts(a, d, x, X, geom, clique, list, n, slot + v0, &bits);
      else
        n = fem_mesh_contacts(a, w, d, x, S, X, geom, clique, list, n, slot + v0, &bits);
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
      r->coef[k] = -b;
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
      for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k) jl[c].R[3 * i + k] = R.m[i][k];
      for (int q = 0; q < 2; ++q) {
        const int body = q ? dl[c].body_b : dl[c].body_a, t = q ? dl[c].tet_b : dl[c].tet_a;
        const int *tv = F->tet + 4L * (F->tet0[body] + t), v0 = F->vert0[body];
        const real *bary = q ? dl[c].bary_b : dl[c].bary_a, sign = q ? (real)1 : (real)-1;
        for (int k = 0; k < 4; ++k) {
          const int s = slot[v0 + tv[k]];
          const real b = s >= 0 ? bary[k] : (real)0;
          jl[c].coef[q][k] = sign * b;
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

#endif
