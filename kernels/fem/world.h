/* One world's deformable bodies' free motion: every element's share of the tangent and residual
 * assembled into the body's block-sparse factor storage, the factorisation on the mesh's fixed
 * pattern and one solve (reference §6.3; the element work is kernels/fem/element.h, the factor
 * kernels/linalg/block_chol.h). What contact adds, and the update after the solve, is
 * kernels/fem/contact.h.
 *
 * One item is one world, its bodies in order, so the fault bits of a world have one writer and
 * the sums of every vertex come in the same order on any backend and thread count. Each
 * element's 3×3 blocks are added to the slot the pattern names (fem_pattern_tet_slot): the
 * elements of a body in index order, so every block of T is the same sum in every world. */
#ifndef ISO_KERNELS_FEM_WORLD_H
#define ISO_KERNELS_FEM_WORLD_H

#include <stdint.h>

#include "isobar/world_status.h"
#include "kernels/core.h"
#include "kernels/fem/element.h"
#include "kernels/fem/newmark.h"
#include "kernels/fem/tet.h"
#include "kernels/linalg/block_chol.h"
#include "kernels/world_field.h"

/* Per deformable body, the material in the model's def_material (DEF_MAT_*, also the per-world
 * parameter's layout) and the contact values in def_contact (DEF_CON_*). */
enum { DEF_MAT_E = 0, DEF_MAT_NU, DEF_MAT_RHO, DEF_MAT_ALPHA, DEF_MAT_BETA, DEF_NMAT };
enum { DEF_CON_D = 0, DEF_CON_TAU, DEF_CON_MU_S, DEF_CON_MU_D, DEF_NCON };

/* A body's pattern header (the model's def_pat_head, FEM_PAT_* ints per body): its counts and
 * where each array of its pattern starts in its slice of the model's def_pat. */
enum {
  FEM_PAT_N = 0,
  FEM_PAT_NSLOT,
  FEM_PAT_PERM,
  FEM_PAT_IPERM,
  FEM_PAT_PARENT,
  FEM_PAT_COL_PTR,
  FEM_PAT_ROW,
  FEM_PAT_PAIR_PTR,
  FEM_PAT_PAIR,
  FEM_PAT_TGT,
  FEM_PAT_TET_SLOT,
  FEM_PAT_HEAD
};

/* The kernel view of body d's pattern. */
static inline ISO_HD bcholView fem_body_view(const int *head, const int *data) {
  bcholView v;
  v.n = head[FEM_PAT_N];
  v.nslot = head[FEM_PAT_NSLOT];
  v.perm = data + head[FEM_PAT_PERM];
  v.iperm = data + head[FEM_PAT_IPERM];
  v.parent = data + head[FEM_PAT_PARENT];
  v.col_ptr = data + head[FEM_PAT_COL_PTR];
  v.row = data + head[FEM_PAT_ROW];
  v.pair_ptr = data + head[FEM_PAT_PAIR_PTR];
  v.pair = data + head[FEM_PAT_PAIR];
  v.tgt = data + head[FEM_PAT_TGT];
  return v;
}

/* What the deformable stage reads and writes. Model arrays are the compiled model's def_*
 * (host/model/model_flat.h); per-world arrays are strided by ndv3 (vertex coordinates) and nL
 * (factor reals). */
typedef struct femArgs {
  int ndef;
  real dt;
  wfield gravity;           /* (3) m/s² */
  wfield material;          /* (ndef, DEF_NMAT): E, ν, ρ, α, β */
  const int *vert0, *tet0;  /* (ndef + 1) */
  const int *tet;           /* (ndtet, 4) body-local vertices */
  const unsigned char *held;
  const femTetRest *rest;   /* (ndtet) */
  const int *pat_head;      /* (ndef, FEM_PAT_HEAD) */
  const int *pat0;          /* (ndef + 1) each body's slice of pat */
  const int *pat;
  const int *slot0;         /* (ndef + 1) each body's first slot in a world's factor */
  long ndv3, nL;
  real *xd, *vd;            /* (nworld, ndv3) positions, velocities at the step's start */
  real *vs;                 /* (nworld, ndv3) free-motion velocities v* */
  real *L;                  /* (nworld, nL) factor storage */
  real *rhs, *work;         /* (nworld, ndv3) scratch */
  uint32_t *status;         /* (nworld) */
} femArgs;

/* Body d of world w, first half of its free motion: every element's share of T assembled into
 * its factor storage L and of the residual into rhs (the element work). */
static inline ISO_HD void fem_body_assemble(const femArgs *a, int w, int d) {
  const int v0 = a->vert0[d], n = a->vert0[d + 1] - v0;
  const int *head = a->pat_head + (long)FEM_PAT_HEAD * d;
  const int *data = a->pat + a->pat0[d];
  const bcholView V = fem_body_view(head, data);
  const int *tet_slot = data + head[FEM_PAT_TET_SLOT];
  const real *x = a->xd + (long)w * a->ndv3 + 3L * v0;
  real *v = a->vd + (long)w * a->ndv3 + 3L * v0;
  real *b = a->rhs + (long)w * a->ndv3 + 3L * v0;
  real *Lv = a->L + (long)w * a->nL + 9L * a->slot0[d];
  const unsigned char *held = a->held + v0;
  const real *g3 = wf_at(a->gravity, w, 0, 3), *mp = wf_at(a->material, w, d, DEF_NMAT);
  const femMaterial mat = fem_material(mp[0], mp[1], mp[2], mp[3], mp[4]);
  const vec3 g = v3(g3[0], g3[1], g3[2]);
  for (long k = 0; k < 9L * V.nslot; ++k) Lv[k] = 0;
  for (int k = 0; k < 3 * n; ++k) b[k] = 0;
  for (int i = 0; i < n; ++i)
    if (held[i]) v[3 * i] = v[3 * i + 1] = v[3 * i + 2] = 0; /* held: no velocity, ever */
  for (int e = a->tet0[d]; e < a->tet0[d + 1]; ++e) {
    const int *t = a->tet + 4L * e;
    real qn[12], vn[12], be[12];
    unsigned char h4[4];
    for (int k = 0; k < 4; ++k) {
      h4[k] = held[t[k]];
      for (int c = 0; c < 3; ++c) qn[3 * k + c] = x[3 * t[k] + c], vn[3 * k + c] = v[3 * t[k] + c];
    }
    fem_element_add(a->rest + e, qn, vn, h4, a->dt, &mat, g, tet_slot + 16L * (e - a->tet0[d]), Lv, be);
    for (int k = 0; k < 4; ++k)
      for (int c = 0; c < 3; ++c) b[3 * t[k] + c] += be[3 * k + c];
  }
}

/* Second half: T factored on the mesh's pattern (it stays in L for the Schur complement and the
 * update after the solve) and v* = v − T⁻¹·residual into vs. Returns a fault bit (0 when fine). */
static inline ISO_HD uint32_t fem_body_factor(const femArgs *a, int w, int d) {
  const int v0 = a->vert0[d], n = a->vert0[d + 1] - v0;
  const bcholView V = fem_body_view(a->pat_head + (long)FEM_PAT_HEAD * d, a->pat + a->pat0[d]);
  const real *v = a->vd + (long)w * a->ndv3 + 3L * v0;
  real *vs = a->vs + (long)w * a->ndv3 + 3L * v0;
  real *b = a->rhs + (long)w * a->ndv3 + 3L * v0, *work = a->work + (long)w * a->ndv3 + 3L * v0;
  real *Lv = a->L + (long)w * a->nL + 9L * a->slot0[d];
  if (bchol_factor(&V, Lv) != 0) return ISO_WORLD_NOT_SPD;
  bchol_solve(&V, Lv, b, work); /* b = T⁻¹·residual; the change is dz = −b */
  int finite = 1;
  for (int k = 0; k < 3 * n; ++k) {
    vs[k] = v[k] - b[k];
    finite &= isfinite(vs[k]) ? 1 : 0;
  }
  return finite ? 0u : ISO_WORLD_NONFINITE;
}

#endif
