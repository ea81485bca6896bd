/* Stage 5: contact constraints of one world from its hydroelastic faces (reference §3) and its
 * point contacts (§4.2), in a fixed order (faces in surface order, then point pairs in pair
 * order), so the constraint list — and every sum over it — is reproducible. */
#ifndef ISO_KERNELS_SAP_BUILD_H
#define ISO_KERNELS_SAP_BUILD_H

#include <stdint.h>

#include "isobar/world_status.h"
#include "kernels/hydro/surface.h"
#include "kernels/contact/combine.h"
#include "kernels/sap/solve.h"
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
  real stiction_tolerance, beta, sigma;
} sapMaterials;

/* One point contact found for a geometry pair this step (§4.1 output). */
typedef struct sapPointHit {
  int valid;
  int geom_a, geom_b; /* A, B as in the pair table */
  real depth;
  vec3 nhat_BA, p_WCa, p_WCb;
} sapPointHit;

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

static inline ISO_HD vec3 sap_body_origin(const real *q_world, int b) {
  return b >= 0 ? v3(q_world[7 * b + 4], q_world[7 * b + 5], q_world[7 * b + 6]) : v3_zero();
}

/* Fill the geometric part of a constraint: bodies, point, frame (Cz = n̂_AB = −n̂_BA). */
static inline ISO_HD void sap_con_geometry(sapCon *c, int ba, int bb, vec3 p_WC, vec3 nhat_BA, const real *q_world) {
  c->body_a = ba;
  c->body_b = bb;
  c->p_WC = p_WC;
  c->R_WC = sap_frame_from_z(v3_neg(nhat_BA));
  c->r_a = v3_sub(p_WC, sap_body_origin(q_world, ba));
  c->r_b = v3_sub(p_WC, sap_body_origin(q_world, bb));
}

static inline ISO_HD real sap_mat(wfield f, int world, int g, int width, int k) {
  return wf_at(f, world, g, width)[k];
}

/* The parameters two geometries share whatever the contact kind (reference §3, §4.2):
 * approximation settings, combined friction and relaxation time, and vn0 for the pair's frame. */
static inline ISO_HD sapContactParams sap_pair_params(const sapMaterials *M, int w, int ga, int gb, const sapCon *c,
                                                      const real *v0) {
  sapContactParams p = sap_contact_params_default();
  p.model = M->model;
  p.stiction_tolerance = M->stiction_tolerance;
  p.beta = M->beta;
  p.sigma = M->sigma;
  p.mu = sap_combine_friction(sap_mat(M->mu, w, ga, 2, 1), sap_mat(M->mu, w, gb, 2, 1));
  p.tau = sap_combine_relaxation_time(sap_mat(M->tau, w, ga, 1, 0), sap_mat(M->tau, w, gb, 1, 0));
  real vc[3];
  sap_con_apply(c, v0, vc);
  p.vn0 = vc[2];
  return p;
}

/* Build world w's constraints. faces: the world's compacted faces (hydroWork); hits: the
 * world's point hits (npoint). v0: current velocities (for vn0). Overflow of max_con sets the
 * world's bits and leaves it with no constraints. */
static inline ISO_HD void sap_build_world(const sapMaterials *M, const hydroDev *H, const hydroWork *W,
                                          const sapPointHit *hits, int npoint, int w, const real *q_world,
                                          const real *v0, sapCon *con, int max_con, int *ncon, int *needed,
                                          uint32_t *status) {
  int n = 0;
  *ncon = 0;
  if (status[w] & ISO_WORLD_FROZEN) return; /* *needed keeps what an overflow needed until reset */
  /* hydroelastic faces (§3) */
  const int nface = (H && W && W->face_count) ? W->face_count[w] : 0;
  for (int f = 0; f < nface; ++f) {
    const long fi = (long)w * W->max_face + f;
    const int slot = W->face_slot[fi];
    const long at = (long)w * W->max_cand + slot;
    const hydroFace *face = W->slot + at;
    const int pair = W->cand_pair[at];
    const int gm = H->pair_m[pair], gn = H->pair_n[pair];
    real area = face->area, p0 = face->p0;
    vec3 centroid = face->centroid;
    if (W->face_sub[fi] >= 0) { /* one triangle of the centroid fan */
      vec3 tri[HYDRO_MAX_POLY][3];
      real tp[HYDRO_MAX_POLY][3];
      hydro_face_fan(face, tri, tp);
      const int k = W->face_sub[fi];
      area = 0.5 * v3_norm(v3_cross(v3_sub(tri[k][1], tri[k][0]), v3_sub(tri[k][2], tri[k][0])));
      centroid = v3_scale(v3_add(v3_add(tri[k][0], tri[k][1]), tri[k][2]), (real)1 / 3);
      p0 = (tp[k][0] + tp[k][1] + tp[k][2]) / 3;
    }
    real k, phi0, fe0;
    if (!sap_hydro_face_params(area, p0, face->gM, face->gN, &k, &phi0, &fe0)) continue;
    if (n < max_con) {
      sapCon *c = con + n;
      sap_con_geometry(c, M->geom_body[gm], M->geom_body[gn], centroid, face->normal, q_world);
      c->kind = SAPCON_FACE;
      c->source = f;
      c->geom_a = gm;
      c->geom_b = gn;
      c->area = area;
      sapContactParams p = sap_pair_params(M, w, gm, gn, c, v0);
      p.k = k, p.phi0 = phi0, p.fe0 = fe0;
      real EM = isinf(face->gM) ? (real)INFINITY : sap_mat(M->E, w, gm, 1, 0);
      real EN = isinf(face->gN) ? (real)INFINITY : sap_mat(M->E, w, gn, 1, 0);
      p.d = sap_combine_hydro_dissipation(EM, EN, sap_mat(M->d, w, gm, 1, 0), sap_mat(M->d, w, gn, 1, 0));
      c->params = p;
    }
    n++;
  }
  /* point contacts (§4.2) */
  for (int i = 0; i < npoint; ++i) {
    const sapPointHit *h = hits + i;
    if (!h->valid) continue;
    if (n < max_con) {
      const int ga = h->geom_a, gb = h->geom_b;
      real kA = sap_mat(M->k, w, ga, 1, 0), kB = sap_mat(M->k, w, gb, 1, 0), wa, wb;
      sap_point_contact_weights(kA, kB, &wa, &wb);
      vec3 p_WC = v3_add(v3_scale(h->p_WCa, wa), v3_scale(h->p_WCb, wb));
      sapCon *c = con + n;
      sap_con_geometry(c, M->geom_body[ga], M->geom_body[gb], p_WC, h->nhat_BA, q_world);
      c->kind = SAPCON_POINT;
      c->source = i;
      c->geom_a = ga;
      c->geom_b = gb;
      c->area = 0;
      sapContactParams p = sap_pair_params(M, w, ga, gb, c, v0);
      p.k = sap_combine_stiffness(kA, kB);
      sap_point_pair_config(h->depth, p.k, &p.phi0, &p.fe0);
      p.d = sap_combine_point_dissipation(kA, kB, sap_mat(M->d, w, ga, 1, 0), sap_mat(M->d, w, gb, 1, 0));
      c->params = p;
    }
    n++;
  }
  *needed = n;
  if (n > max_con) {
    status[w] |= ISO_WORLD_OVERFLOW | ISO_WORLD_FROZEN;
    n = 0;
  }
  *ncon = n;
}

#endif
