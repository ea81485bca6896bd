/* The deformable stages, one item per world each (kernels/fem/world.h, kernels/fem/contact.h),
 * timed apart: the element work assembled into each body's factor, the factorisations and free
 * motions, the contacts and welds (the participating vertices), the Schur complements into the
 * solver's A. The constraints stage adds their cliques and constraints and the integrate stage
 * updates every vertex; all take their arguments from step_fem_args. */
#include "host/backend/launch.h"
#include "host/step/sap_internal.h"
#include "host/step/step.h"
#include "isobar/sim.h"

femSapArgs step_fem_args(const stepCtx *c) {
  const modelView *m = c->md;
  const simFem *fm = c->fem;
  femSapArgs a;
  femArgs *F = &a.F;
  F->ndef = m->z.ndef;
  F->dt = c->dt;
  F->gravity = c->param[ISO_PARAM_GRAVITY];
  F->material = c->param[ISO_PARAM_DEFORMABLE_MATERIAL];
  F->vert0 = m->def_vert0, F->tet0 = m->def_tet0, F->tet = m->def_tet, F->held = m->def_held;
  F->rest = m->def_tet_rest;
  F->pat_head = m->def_pat_head, F->pat0 = m->def_pat0, F->pat = m->def_pat, F->slot0 = m->def_slot0;
  F->ndv3 = 3L * m->z.ndvert, F->nL = 9L * m->z.ndslot;
  F->xd = c->xd, F->vd = c->vd, F->vs = c->fem_vs, F->L = c->fem_L, F->rhs = c->fem_b, F->work = c->fem_w;
  F->status = c->status;
  a.tri0 = m->def_tri0, a.tri = m->def_tri, a.def_contact = m->def_contact;
  a.ntouch = fm->ntouch, a.touch_geom = fm->touch_geom;
  a.geom_shape = m->geom_shape, a.geom_body = m->geom_body, a.geom_def_asset = m->geom_def_asset;
  a.X_BG = m->geom_X_BG, a.X_WB = c->X_WB, a.nbody = c->nbody;
  a.body_tree = m->body_tree, a.tree_clique = m->tree_clique;
  a.geom_E = c->param[ISO_PARAM_GEOM_MODULUS];
  a.asset_vert0 = m->asset_vert0, a.asset_elem0 = m->asset_elem0, a.asset_node0 = m->asset_node0;
  a.asset_nnode = m->asset_nnode;
  a.vert = m->vert, a.grad = m->grad, a.porig = m->porig, a.bvh_box = m->bvh_box;
  a.elem = m->elem, a.bvh_elem = m->bvh_elem, a.node = m->node;
  a.has_dd = fm->has_dd;
  a.ddj = c->fem_ddj;
  femDDArgs *dd = &a.dd;
  dd->ndef = m->z.ndef;
  dd->vert0 = m->def_vert0, dd->tet0 = m->def_tet0, dd->tet = m->def_tet, dd->sdf = m->def_sdf;
  dd->ndv3 = 3L * m->z.ndvert, dd->xd = c->xd;
  dd->max_con = fm->dd_max, dd->con = c->fem_dd, dd->ncon = c->fem_dd_ncon, dd->need = c->fem_dd_need;
  dd->pair_need = c->fem_dd_pneed, dd->tet_cap = fm->tet_cap, dd->max_pair = fm->dd_pairs;
  dd->box = c->fem_dd_box, dd->cand = c->fem_dd_cand, dd->pair = c->fem_dd_pair;
  a.snode0 = m->def_snode0, a.snode_rest = m->def_snode, a.stri = m->def_stri;
  a.snode = c->fem_snode, a.sbox = c->fem_sbox, a.nsnode = m->z.ndsnode, a.ndtri = m->z.ndtri;
  a.weld0 = m->def_weld0, a.weld_vert = m->weld_vert, a.weld_body = m->weld_body, a.weld_p = m->weld_p;
  a.pcap = fm->pcap, a.pslot0 = fm->pslot0, a.aoff = fm->aoff;
  a.nclique0 = m->z.nclique, a.nv0 = c->nv, a.a0 = m->z.a_size;
  a.max_con = fm->max_con;
  a.nvert = m->z.ndvert;
  a.np = c->fem_np, a.pv = c->fem_pv, a.slot = c->fem_slot, a.con = c->fem_con, a.ncon = c->fem_ncon;
  a.touch = fm->touch;
  a.v_state = c->v;
  const sapBatch *B = &c->sap->batch;
  a.sap_v = B->v, a.sap_vstar = (real *)B->vstar, a.sap_A = (real *)B->A, a.sap_tmp = B->dv;
  a.sap_H = B->H, a.sap_rhs = B->rhs;
  a.sap_nv = B->nv, a.sap_max_A = B->max_A;
  a.status = c->status;
  return a;
}

/* The four deformable stages (a model without deformable bodies launches nothing). */
#define FEM_STAGE(name)                                          \
  isoStatus step_##name(const stepCtx *c) {                      \
    if (c->md->z.ndef == 0) return ISO_OK;                       \
    const femSapArgs a = step_fem_args(c);                       \
    return launch_##name(c->be, c->nworld, &a);                  \
  }
FEM_STAGE(fem_elements)
FEM_STAGE(fem_factor)
FEM_STAGE(fem_contact)
FEM_STAGE(fem_schur)
#undef FEM_STAGE
