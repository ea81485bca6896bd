/* Compiling a model into its flat arrays (host/model/model_flat.h).
 *
 * Everything a sim reads of its model is decided here, once per model: the per-body and
 * per-geometry values with Drake's estimates filled in for materials left unset, the assets
 * concatenated with their offsets, the pair tables. Sims of the model share the result. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host/base/error.h"
#include "host/model/model_flat.h"
#include "host/model/model_internal.h"
#include "kernels/contact/combine.h"
#include "kernels/rigid/free_body.h"

void model_view_bind(const modelFlat *f, const void *base, modelView *out) {
  const char *b = (const char *)base;
  out->z = f->z;
#define MODEL_FLAT_BIND(type, name, count) out->name = (const type *)(const void *)(b + f->off[MF_##name]);
  MODEL_FLAT(MODEL_FLAT_BIND)
#undef MODEL_FLAT_BIND
}

static modelSizes sizes_of(const isoModel *m) {
  const modelHydro *h = &m->hydro;
  modelSizes z;
  memset(&z, 0, sizeof z);
  z.nbody = m->nbody;
  z.nq = m->trees.nq;
  z.nv = m->trees.nv;
  z.ntree = m->trees.ntree;
  z.nact = m->nact;
  z.ncoupler = m->ncoupler;
  z.nclique = m->trees.nclique;
  z.a_size = m->trees.a_size;
  z.max_nt = m->trees.max_nt;
  z.max_tree_bodies = m->trees.max_tree_bodies;
  z.jointed = m->trees.jointed;
  for (int j = 0; j < m->njoint; ++j)
    if (iso_joint_type_nv(m->joint[j].type) == 1 && (isfinite(m->joint[j].position_lower) || isfinite(m->joint[j].position_upper)))
      z.nlimit++;
  z.ngeom = m->ngeom;
  z.nasset = h->nasset;
  for (int a = 0; a < h->nasset; ++a) {
    const hydroAsset *as = &h->asset[a];
    z.nvert += as->kind == HGEOM_TETS ? as->tets.nvert : as->tris.nvert;
    z.nelem += as->kind == HGEOM_TETS ? as->tets.ntet : as->tris.ntri;
    z.nnode += as->bvh.nnode;
  }
  z.npair = h->npair;
  z.nfallback = h->nfallback;
  for (int g = 0; g < m->ngeom; ++g) z.npoint_vert += h->point_nvert ? h->point_nvert[g] : 0;
  z.ndef = m->deformables.n;
  for (int d = 0; d < z.ndef; ++d) {
    const modelDeformable *b = &m->deformables.body[d];
    z.ndvert += b->nvert, z.ndtet += b->ntet, z.ndtri += b->ntri;
    z.ndpat += b->pattern.ndata, z.ndslot += b->pattern.nslot;
    z.nweld += b->nweld;
    z.ndsnode += b->sbvh.nnode;
  }
  z.npad = m->npad;
  z.ntaxel = (int)m->ntaxel;
  return z;
}

/* Writable pointers into the block being filled (the view is const by design). */
typedef struct flatFill {
#define MODEL_FLAT_MUT(type, name, count) type *name;
  MODEL_FLAT(MODEL_FLAT_MUT)
#undef MODEL_FLAT_MUT
} flatFill;

static void fill_bodies(const isoModel *m, flatFill *o) {
  const modelTrees *t = &m->trees;
  for (int b = 0; b < m->nbody; ++b) {
    const isoBodyDef *bd = &m->body[b];
    o->body_mass[b] = bd->mass;
    for (int k = 0; k < 3; ++k) o->body_com[3 * b + k] = bd->com[k];
    for (int k = 0; k < 6; ++k) o->body_inertia[6 * b + k] = bd->inertia[k];
    o->body_q0[b] = t->body_q0[b];
    o->body_v0[b] = t->body_v0[b];
    o->tree_order[b] = t->order[b];
    o->tree_pos[t->order[b]] = b;
    const int j = t->body_joint[b];
    real *q = o->q0 + t->body_q0[b], *v = o->v0 + t->body_v0[b];
    if (j < 0) { /* a free body: its implicit floating joint */
      const isoFreeBodyState *x = &m->body_state[b];
      for (int k = 0; k < 4; ++k) q[k] = x->quaternion[k];
      for (int k = 0; k < 3; ++k) {
        q[4 + k] = x->position[k];
        v[k] = x->angular_velocity[k];
        v[3 + k] = x->linear_velocity[k];
      }
      o->body_parent[b] = -1;
      o->body_jtype[b] = ISO_JOINT_FLOATING;
      o->body_X_PF[b] = o->body_X_BM[b] = xf_identity();
      continue;
    }
    const isoJointDef *d = &m->joint[j];
    for (int k = 0; k < iso_joint_type_nq(d->type); ++k) q[k] = m->joint_q[j][k];
    for (int k = 0; k < iso_joint_type_nv(d->type); ++k) v[k] = m->joint_v[j][k];
    o->body_parent[b] = d->parent;
    o->body_jtype[b] = d->type;
    const double *pq = d->parent_quaternion, *cq = d->child_quaternion;
    o->body_X_PF[b] = xf_make(quat_make(pq[0], pq[1], pq[2], pq[3]),
                              v3(d->parent_position[0], d->parent_position[1], d->parent_position[2]));
    o->body_X_BM[b] = xf_make(quat_make(cq[0], cq[1], cq[2], cq[3]),
                              v3(d->child_position[0], d->child_position[1], d->child_position[2]));
    o->body_axis[b] = v3(d->axis[0], d->axis[1], d->axis[2]);
  }
  for (int k = 0; k <= t->ntree; ++k) {
    o->tree_body0[k] = t->tree_body0[k];
    o->tree_q0[k] = t->tree_q0[k];
    o->tree_v0[k] = t->tree_v0[k];
  }
  for (int k = 0; k < t->ntree; ++k) {
    o->tree_free[k] = t->tree_free[k];
    o->tree_clique[k] = t->tree_clique[k];
    o->tree_a0[k] = t->tree_a0[k];
  }
  for (int b = 0; b < m->nbody; ++b) o->body_tree[b] = t->body_tree[b];
}

static void fill_joints(const isoModel *m, flatFill *o) {
  const modelTrees *t = &m->trees;
  for (int i = 0; i < t->nv; ++i) {
    o->dof_damping[i] = 0, o->dof_reflected[i] = 0;
    o->dof_limit[2 * i] = -INFINITY, o->dof_limit[2 * i + 1] = INFINITY;
  }
  for (int i = 0; i < t->nv; ++i) o->dof_q[i] = -1;
  for (int j = 0; j < m->njoint; ++j) {
    const isoJointDef *d = &m->joint[j];
    const int v0 = t->joint_v0[j];
    if (iso_joint_type_nv(d->type) == 1) o->dof_q[v0] = t->joint_q0[j];
    for (int k = 0; k < iso_joint_type_nv(d->type); ++k) o->dof_damping[v0 + k] = d->damping;
    if (iso_joint_type_nv(d->type) == 1) o->dof_limit[2 * v0] = d->position_lower, o->dof_limit[2 * v0 + 1] = d->position_upper;
  }
  int nl = 0; /* limited DoFs in v order (the order their constraints are built in) */
  for (int i = 0; i < t->nv; ++i)
    if (isfinite(o->dof_limit[2 * i]) || isfinite(o->dof_limit[2 * i + 1])) o->limit_dof[nl++] = i;
  for (int a = 0; a < m->nact; ++a) {
    const isoActuatorDef *d = &m->act[a];
    const int dof = t->joint_v0[d->joint];
    o->act_dof[a] = dof;
    o->act_effort_limit[a] = d->effort_limit;
    o->act_gains[2 * a] = d->kp;
    o->act_gains[2 * a + 1] = d->kd;
    o->dof_reflected[dof] = d->rotor_inertia * d->gear_ratio * d->gear_ratio;
  }
  for (int c = 0; c < m->ncoupler; ++c) {
    const isoCouplerDef *d = &m->coupler[c];
    o->coupler_dof[2 * c] = t->joint_v0[d->follower];
    o->coupler_dof[2 * c + 1] = t->joint_v0[d->leader];
    o->coupler_ratio[2 * c] = d->gear_ratio;
    o->coupler_ratio[2 * c + 1] = d->offset;
  }
}

static void fill_geometries(const isoModel *m, flatFill *o) {
  const modelHydro *h = &m->hydro;
  /* Drake's estimates for geometries without stiffness or dissipation (reference §4.4): from
   * the heaviest body, the gravity and the model's penetration allowance */
  double m_max = 0;
  const double *gr = m->def.gravity;
  double gn = sqrt(gr[0] * gr[0] + gr[1] * gr[1] + gr[2] * gr[2]);
  for (int b = 0; b < m->nbody; ++b) m_max = fmax(m_max, m->body[b].mass);
  real k_est, d_est;
  sap_penetration_allowance_params(m_max, gn, m->def.penetration_allowance, &k_est, &d_est, NULL);
  long pv = 0;
  for (int g = 0; g < m->ngeom; ++g) {
    const isoGeometryDef *gd = &m->geom[g];
    o->geom_body[g] = gd->body;
    o->geom_X_BG[g] = xf_make(quat_make(gd->quaternion[0], gd->quaternion[1], gd->quaternion[2], gd->quaternion[3]),
                              v3(gd->position[0], gd->position[1], gd->position[2]));
    o->geom_shape[g] = gd->shape;
    for (int k = 0; k < 3; ++k) o->geom_size[3 * g + k] = gd->size[k];
    o->geom_kind[g] = h->geom[g].kind;
    o->geom_asset[g] = h->geom[g].asset;
    o->geom_margin[g] = gd->margin;
    o->geom_slab[g] = gd->slab_thickness > 0 ? gd->slab_thickness : 1.0;
    o->geom_E[g] = gd->hydroelastic_modulus;
    o->geom_d[g] = isnan(gd->hunt_crossley_dissipation) ? d_est : gd->hunt_crossley_dissipation;
    o->geom_mu[2 * g] = gd->mu_static;
    o->geom_mu[2 * g + 1] = gd->mu_dynamic;
    o->geom_k[g] = gd->point_stiffness == 0 ? k_est : gd->point_stiffness;
    o->geom_tau[g] = gd->relaxation_time;
    int nv = h->point_nvert ? h->point_nvert[g] : 0;
    o->point_nvert[g] = nv;
    o->point_vert0[g] = pv;
    if (nv > 0) memcpy(o->point_vert + 3 * pv, h->point_vert + 3 * pv, sizeof(real) * 3 * (size_t)nv);
    pv += nv;
  }
}

static void fill_assets(const modelHydro *h, flatFill *o) {
  long v = 0, e = 0, n = 0;
  for (int a = 0; a < h->nasset; ++a) {
    const hydroAsset *as = &h->asset[a];
    o->asset_vert0[a] = (int)v, o->asset_elem0[a] = (int)e, o->asset_node0[a] = (int)n;
    o->asset_nnode[a] = as->bvh.nnode;
    if (as->kind == HGEOM_TETS) {
      const tetMesh *t = &as->tets;
      memcpy(o->vert + 3 * v, t->vert, sizeof(real) * 3 * (size_t)t->nvert);
      memcpy(o->pressure + v, t->pressure, sizeof(real) * (size_t)t->nvert);
      memcpy(o->elem + 4 * e, t->tet, sizeof(int) * 4 * (size_t)t->ntet);
      memcpy(o->grad + 3 * e, t->grad, sizeof(real) * 3 * (size_t)t->ntet);
      memcpy(o->porig + e, t->p_origin, sizeof(real) * (size_t)t->ntet);
      v += t->nvert;
      e += t->ntet;
    } else {
      const triMesh *t = &as->tris;
      memcpy(o->vert + 3 * v, t->vert, sizeof(real) * 3 * (size_t)t->nvert);
      for (int i = 0; i < t->ntri; ++i) {
        for (int k = 0; k < 3; ++k) o->elem[4 * (e + i) + k] = t->tri[3 * i + k];
        o->elem[4 * (e + i) + 3] = -1;
      }
      memcpy(o->normal + 3 * e, t->normal, sizeof(real) * 3 * (size_t)t->ntri);
      v += t->nvert;
      e += t->ntri;
    }
    memcpy(o->node + n, as->bvh.node, sizeof(bvhNode) * (size_t)as->bvh.nnode);
    memcpy(o->bvh_elem + o->asset_elem0[a], as->bvh.elem, sizeof(int) * (size_t)as->bvh.nelem);
    memcpy(o->bvh_box + 6L * o->asset_elem0[a], as->bvh.box, sizeof(real) * 6 * (size_t)as->bvh.nelem);
    n += as->bvh.nnode;
  }
  for (int p = 0; p < h->npair; ++p) {
    o->pair_m[p] = h->pair[p].m;
    o->pair_n[p] = h->pair[p].n;
    o->pair_kind[p] = h->pair[p].kind;
  }
  for (int p = 0; p < h->nfallback; ++p) {
    o->fallback_a[p] = h->fallback[p].m;
    o->fallback_b[p] = h->fallback[p].n;
  }
}

/* The deformable bodies one after another; their offsets fit an int because each body's counts
 * do and the model's sizes were checked when the arrays were planned. */
static void fill_deformables(const modelDeformables *D, flatFill *o) {
  int v0 = 0, t0 = 0, f0 = 0, p0 = 0, s0 = 0;
  for (int d = 0; d < D->n; ++d) {
    const modelDeformable *b = &D->body[d];
    o->def_vert0[d] = v0, o->def_tet0[d] = t0, o->def_tri0[d] = f0;
    const femPattern *p = &b->pattern;
    int *h = o->def_pat_head + (long)FEM_PAT_HEAD * d;
    h[FEM_PAT_N] = p->nvert, h[FEM_PAT_NSLOT] = p->nslot;
    h[FEM_PAT_PERM] = p->off_perm, h[FEM_PAT_IPERM] = p->off_iperm, h[FEM_PAT_PARENT] = p->off_parent;
    h[FEM_PAT_COL_PTR] = p->off_col_ptr, h[FEM_PAT_ROW] = p->off_row, h[FEM_PAT_PAIR_PTR] = p->off_pair_ptr;
    h[FEM_PAT_PAIR] = p->off_pair, h[FEM_PAT_TGT] = p->off_tgt, h[FEM_PAT_TET_SLOT] = p->off_tet_slot;
    o->def_pat0[d] = p0, o->def_slot0[d] = s0;
    memcpy(o->def_pat + p0, p->data, sizeof(int) * (size_t)p->ndata);
    for (int e = 0; e < b->ntet; ++e) { /* validated when added: every tet has a rest shape */
      real X[12];
      for (int k = 0; k < 4; ++k)
        for (int c = 0; c < 3; ++c) X[3 * k + c] = b->rest[3 * b->tet[4 * e + k] + c];
      fem_tet_rest(X, &o->def_tet_rest[t0 + e]);
    }
    p0 += p->ndata, s0 += p->nslot;
    memcpy(o->def_rest + 3L * v0, b->rest, sizeof(real) * 3 * (size_t)b->nvert);
    memcpy(o->def_held + v0, b->held, (size_t)b->nvert);
    memcpy(o->def_sdf + v0, b->sdf, sizeof(real) * (size_t)b->nvert);
    memcpy(o->def_tet + 4L * t0, b->tet, sizeof(int) * 4 * (size_t)b->ntet);
    memcpy(o->def_tri + 3L * f0, b->tri, sizeof(int) * 3 * (size_t)b->ntri);
    memcpy(o->def_tri_tet + f0, b->tri_tet, sizeof(int) * (size_t)b->ntri);
    const isoDeformableDef *e = &b->def;
    real *mat = o->def_material + (long)DEF_NMAT * d, *con = o->def_contact + (long)DEF_NCON * d;
    mat[DEF_MAT_E] = e->youngs_modulus, mat[DEF_MAT_NU] = e->poissons_ratio;
    mat[DEF_MAT_RHO] = e->mass_density;
    mat[DEF_MAT_ALPHA] = e->mass_damping, mat[DEF_MAT_BETA] = e->stiffness_damping;
    con[DEF_CON_D] = e->hunt_crossley_dissipation, con[DEF_CON_TAU] = e->relaxation_time;
    con[DEF_CON_MU_S] = e->mu_static, con[DEF_CON_MU_D] = e->mu_dynamic;
    v0 += b->nvert, t0 += b->ntet, f0 += b->ntri;
  }
  o->def_vert0[D->n] = v0, o->def_tet0[D->n] = t0, o->def_tri0[D->n] = f0;
  o->def_pat0[D->n] = p0, o->def_slot0[D->n] = s0;
  int k = 0;
  for (int d = 0; d < D->n; ++d) {
    const modelDeformable *b = &D->body[d];
    o->def_weld0[d] = k;
    for (int i = 0; i < b->nweld; ++i, ++k) {
      o->weld_vert[k] = b->weld_vert[i], o->weld_body[k] = b->weld_body[i];
      for (int c = 0; c < 3; ++c) o->weld_p[3L * k + c] = b->weld_p[3 * i + c];
    }
  }
  o->def_weld0[D->n] = k;
  int sn = 0, st = 0;
  for (int d = 0; d < D->n; ++d) {
    const modelDeformable *b = &D->body[d];
    o->def_snode0[d] = sn;
    memcpy(o->def_snode + sn, b->sbvh.node, sizeof(bvhNode) * (size_t)b->sbvh.nnode);
    memcpy(o->def_stri + st, b->sbvh.elem, sizeof(int) * (size_t)b->sbvh.nelem);
    sn += b->sbvh.nnode, st += b->sbvh.nelem;
  }
  o->def_snode0[D->n] = sn;
}

isoStatus model_flatten(const isoModel *m, modelFlat *f) {
  memset(f, 0, sizeof *f);
  const modelSizes *z = &f->z;
  f->z = sizes_of(m);
#define MODEL_FLAT_PLAN(type, name, count)                                     \
  if (arena_plan(&f->arena, (size_t)(count), sizeof(type), &f->off[MF_##name]) != 0) \
    return iso_fail(ISO_ERR_INVALID, "iso_model_compile: the model's '%s' array is too large", #name);
  MODEL_FLAT(MODEL_FLAT_PLAN)
#undef MODEL_FLAT_PLAN
  /* calloc: padding between arrays is zero, so the block's bytes are reproducible */
  f->arena.base = (char *)calloc(f->arena.size ? f->arena.size : 1, 1);
  if (!f->arena.base)
    return iso_fail(ISO_ERR_NOMEM, "iso_model_compile: out of memory for the compiled model (%.1f MiB)",
                    (double)f->arena.size / 1048576.0);
  flatFill o;
#define MODEL_FLAT_FILL(type, name, count) o.name = (type *)(void *)arena_at(&f->arena, f->off[MF_##name]);
  MODEL_FLAT(MODEL_FLAT_FILL)
#undef MODEL_FLAT_FILL
  fill_bodies(m, &o);
  fill_joints(m, &o);
  fill_geometries(m, &o);
  fill_assets(&m->hydro, &o);
  fill_deformables(&m->deformables, &o);
  model_tactile_fill(m, o.pad_geom, o.pad_rows, o.pad_cols, o.pad_spacing, o.pad_X_GP, o.pad_taxel0);
  if (m->deformables.n > 0)
    for (int g = 0; g < m->ngeom; ++g) o.geom_def_asset[g] = m->hydro.geom[g].def_asset;
  return ISO_OK;
}

isoStatus model_flat_copy(const modelFlat *src, modelFlat *dst) {
  *dst = *src;
  dst->arena.base = (char *)malloc(src->arena.size ? src->arena.size : 1);
  if (!dst->arena.base) {
    memset(dst, 0, sizeof *dst);
    return iso_fail(ISO_ERR_NOMEM, "out of memory for a copy of the compiled model (%.1f MiB)",
                    (double)src->arena.size / 1048576.0);
  }
  memcpy(dst->arena.base, src->arena.base, src->arena.size);
  return ISO_OK;
}

void model_flat_free(modelFlat *f) {
  free(f->arena.base);
  memset(f, 0, sizeof *f);
}
