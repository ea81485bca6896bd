/* Stage 5: contact constraints of one world from its contact list (kernels/contact/list.h):
 * hydroelastic faces (reference §3) and point contacts (§4.2), in list order (faces in surface
 * order, then point pairs in pair order), so the constraint list — and every sum over it — is
 * reproducible. The point contacts join the list here, after the point queries. */
#ifndef ISO_KERNELS_SAP_BUILD_H
#define ISO_KERNELS_SAP_BUILD_H

#include <stdint.h>

#include "isobar/world_status.h"
#include "kernels/contact/list.h"
#include "kernels/contact/combine.h"
#include "kernels/math/transform.h"
#include "kernels/sap/solve.h"
#include "kernels/sap/tree_build.h"
#include "kernels/world_field.h"

/* Contact materials per geometry (world-stride fields, backend memory). */
typedef struct sapMaterials {
  wfield E;         /* (ngeom) hydroelastic modulus */
  wfield d;         /* (ngeom) Hunt–Crossley dissipation */
  wfield mu;        /* (ngeom, 2) static, dynamic friction */
  wfield k;         /* (ngeom) point stiffness */
  wfield tau;       /* (ngeom) relaxation time */
  const int *geom_body; /* (ngeom) */
  int model;        /* SAP_MODEL_* */
  int legacy;       /* 1: point pairs follow the legacy model (isoPointModel ISO_POINT_LEGACY):
                       E is Young's modulus, k is not read */
  real radius;      /* legacy characteristic radius R, m */
  real stiction_tolerance, beta, sigma;
} sapMaterials;

/* One point contact found for a geometry pair this step (§4.1 output). */
typedef struct sapPointHit {
  int valid;
  int geom_a, geom_b; /* A, B as in the pair table */
  real depth;
  vec3 nhat_BA, p_WCa, p_WCb;
} sapPointHit;


static inline ISO_HD real sap_mat(wfield f, int world, int g, int width, int k) {
  return wf_at(f, world, g, width)[k];
}

/* sap_pair_params with the pair's combined friction and relaxation time already formed. */
static inline ISO_HD sapContactParams sap_pair_params_kept(const sapMaterials *M, real mu, real tau, const sapJac *j,
                                                           const sapClique *cl, const real *v0) {
  sapContactParams p = sap_contact_params_default();
  p.model = M->model;
  p.stiction_tolerance = M->stiction_tolerance;
  p.beta = M->beta;
  p.sigma = M->sigma;
  p.mu = mu;
  p.tau = tau;
  p.vn0 = sap_con_apply_normal(j, cl, v0);
  return p;
}

/* The parameters two geometries share whatever the contact kind (reference §3, §4.2):
 * approximation settings, combined friction and relaxation time, and vn0 for the pair's frame. */
static inline ISO_HD sapContactParams sap_pair_params(const sapMaterials *M, int w, int ga, int gb, const sapJac *j,
                                                      const sapClique *cl, const real *v0) {
  return sap_pair_params_kept(M, sap_combine_friction(sap_mat(M->mu, w, ga, 2, 1), sap_mat(M->mu, w, gb, 2, 1)),
                              sap_combine_relaxation_time(sap_mat(M->tau, w, ga, 1, 0), sap_mat(M->tau, w, gb, 1, 0)),
                              j, cl, v0);
}

/* A face's pair materials: combined friction, relaxation time and Hunt–Crossley dissipation
 * (§3), kept by a loop over a world's faces for the faces after it with the same geometries and
 * the same rigid sides (faces come pair by pair: the five-box stack's 140 are four pairs'). The
 * same combinations of the same values, so the same bits; ga = −1: none kept. */
typedef struct sapFacePair {
  int ga, gb, rigid; /* rigid: bit 0 when M's side is rigid (g_M = ∞), bit 1 for N's */
  real mu, tau, d;
} sapFacePair;

static inline ISO_HD void sap_face_pair_reset(sapFacePair *k) {
  k->ga = k->gb = k->rigid = -1;
  k->mu = k->tau = k->d = (real)0;
}

/* *k made the materials of face r of world w, formed unless *k already holds them. */
static inline ISO_HD void sap_face_pair(const sapMaterials *M, int w, const contactRec *r, sapFacePair *k) {
  const int ga = r->geom_m, gb = r->geom_n, rigid = (isinf(r->gM) ? 1 : 0) | (isinf(r->gN) ? 2 : 0);
  if (ga == k->ga && gb == k->gb && rigid == k->rigid) return;
  k->ga = ga, k->gb = gb, k->rigid = rigid;
  k->mu = sap_combine_friction(sap_mat(M->mu, w, ga, 2, 1), sap_mat(M->mu, w, gb, 2, 1));
  k->tau = sap_combine_relaxation_time(sap_mat(M->tau, w, ga, 1, 0), sap_mat(M->tau, w, gb, 1, 0));
  const real EM = (rigid & 1) ? (real)INFINITY : sap_mat(M->E, w, ga, 1, 0);
  const real EN = (rigid & 2) ? (real)INFINITY : sap_mat(M->E, w, gb, 1, 0);
  k->d = sap_combine_hydro_dissipation(EM, EN, sap_mat(M->d, w, ga, 1, 0), sap_mat(M->d, w, gb, 1, 0));
}

/* Append world w's point contacts (npoint hits, in pair order) to its contact list after its
 * faces (face_count; NULL when the model has no hydroelastic pair). The list has room for one
 * record per point pair beyond max_contacts faces, so this never overflows. */
static inline ISO_HD void sap_point_list_world(const sapMaterials *M, const sapPointHit *hits, int npoint, int w,
                                               contactRec *list, const int *face_count, int *list_count) {
  int n = face_count ? face_count[w] : 0;
  for (int i = 0; i < npoint; ++i) {
    const sapPointHit *h = hits + i;
    if (!h->valid) continue;
    const int ga = h->geom_a, gb = h->geom_b;
    real wa, wb;
    if (M->legacy)
      sap_legacy_point_weights(sap_mat(M->E, w, ga, 1, 0), sap_mat(M->E, w, gb, 1, 0), &wa, &wb);
    else
      sap_point_contact_weights(sap_mat(M->k, w, ga, 1, 0), sap_mat(M->k, w, gb, 1, 0), &wa, &wb);
    contactRec *r = list + n++;
    r->point = v3_add(v3_scale(h->p_WCa, wa), v3_scale(h->p_WCb, wb));
    r->normal = h->nhat_BA;
    r->area = 0;
    r->p0 = h->depth;
    r->gM = r->gN = 0;
    r->pair = i;
    r->geom_m = ga;
    r->geom_n = gb;
    r->elem_m = r->elem_n = -1;
    r->part = CONTACT_PART_POINT;
  }
  list_count[w] = n;
}

/* The rest of constraint c once its pair parameters are known: its record, and the data its
 * law evaluates (from the Delassus estimate on the world's A, §5.1). kept: NULL, or the
 * reciprocals a loop over the world's constraints keeps (sapDiagInv). */
static inline ISO_HD void sap_con_finish(sapCon *c, const sapJac *j, int contact, const sapContactParams *p,
                                         const sapClique *cl, const real *A_world, real dt, sapDiagInv *kept) {
  c->contact = contact;
  real wd = sap_con_delassus_kept(c, j, cl, A_world, kept);
  real w3[3] = {wd, wd, wd};
  sap_contact_make_data(p, w3, dt, &c->data);
}

/* Build world w's constraints from its contact list (nrec records). v0: current velocities (for
 * vn0); cl, A_world: the world's cliques and free-motion A. Overflow of max_con sets the world's bits and leaves
 * it with no constraints. */
static inline ISO_HD void sap_build_world(const sapMaterials *M, const contactRec *list, int nrec, int w,
                                          const xform *X_WB, const real *v0, const sapClique *cl,
                                          const real *A_world, real dt, const treeSet *TS, const svec *Sw,
                                          sapPool *pool, sapCon *con, int max_con, int *ncon, int *needed,
                                          uint32_t *status) {
  int n = 0, pool_ok = 1;
  *ncon = 0;
  if (status[w] & ISO_WORLD_FROZEN) return; /* *needed keeps what an overflow needed until reset */
  sapDiagInv kept;
  sapFacePair pair;
  sap_diag_inv_reset(&kept);
  sap_face_pair_reset(&pair);
  for (int i = 0; i < nrec; ++i) {
    const contactRec *r = list + i;
    const int ga = r->geom_m, gb = r->geom_n;
    if (!contact_is_point(r)) { /* hydroelastic face (§3) */
      real k, phi0, fe0;
      if (!sap_hydro_face_params(r->area, r->p0, r->gM, r->gN, &k, &phi0, &fe0)) continue;
      if (n < max_con) {
        sapCon *c = con + n;
        sapJac j;
        pool_ok &= sap_con_geometry_tree(c, n, M->geom_body[ga], M->geom_body[gb], r->point, r->normal, X_WB, TS, Sw,
                                         pool, &j);
        if (!pool_ok) break;
        sap_face_pair(M, w, r, &pair);
        sapContactParams p = sap_pair_params_kept(M, pair.mu, pair.tau, &j, cl, v0);
        p.d = pair.d;
        p.k = k, p.phi0 = phi0, p.fe0 = fe0;
        sap_con_finish(c, &j, i, &p, cl, A_world, dt, &kept);
      }
    } else if (n < max_con) { /* point contact (§4.2) */
      sapCon *c = con + n;
      sapJac j;
      pool_ok &= sap_con_geometry_tree(c, n, M->geom_body[ga], M->geom_body[gb], r->point, r->normal, X_WB, TS, Sw,
                                       pool, &j);
      if (!pool_ok) break;
      sapContactParams p = sap_pair_params(M, w, ga, gb, &j, cl, v0);
      const real dA = sap_mat(M->d, w, ga, 1, 0), dB = sap_mat(M->d, w, gb, 1, 0);
      if (M->legacy) { /* seed 004: k = 2·E·R from the squish-weighted Young's moduli */
        const real EA = sap_mat(M->E, w, ga, 1, 0), EB = sap_mat(M->E, w, gb, 1, 0);
        p.k = sap_legacy_stiffness(EA, EB, M->radius);
        p.d = sap_legacy_dissipation(EA, EB, dA, dB);
      } else {
        const real kA = sap_mat(M->k, w, ga, 1, 0), kB = sap_mat(M->k, w, gb, 1, 0);
        p.k = sap_combine_stiffness(kA, kB);
        p.d = sap_combine_point_dissipation(kA, kB, dA, dB);
      }
      sap_point_pair_config(r->p0, p.k, &p.phi0, &p.fe0);
      sap_con_finish(c, &j, i, &p, cl, A_world, dt, &kept);
    }
    n++;
  }
  *needed = n;
  if (n > max_con || !pool_ok) { /* a full pool of dense blocks is an overflow of the same kind */
    status[w] |= ISO_WORLD_OVERFLOW | ISO_WORLD_FROZEN;
    n = 0;
  }
  *ncon = n;
}

#endif
