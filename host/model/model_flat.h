/* Internal: the compiled model — flat, read-only arrays every sim of a model shares.
 *
 * iso_model_compile lays every array out in one block (host/base/arena.h) from the table
 * below: bodies, geometries with their contact materials, the hydroelastic assets
 * concatenated, the pair tables, the point-contact hulls. A sim on the CPU reads the block in
 * place; a sim on the GPU uploads it in one copy and binds a view at the device address
 * (model_view_bind), so no pointer inside the block is ever stored. Joints and deformables add
 * entries to the table; they do not change these.
 *
 *   X(type, name, count)    count: an expression of z (const modelSizes *) */
#ifndef ISO_HOST_MODEL_FLAT_H
#define ISO_HOST_MODEL_FLAT_H

#include <stddef.h>

#include "host/base/arena.h"
#include "isobar/status.h"
#include "kernels/collide/bvh.h"
#include "kernels/core.h"
#include "kernels/fem/world.h"
#include "kernels/math/transform.h"
#include "kernels/math/vec3.h"

typedef struct modelSizes {
  int nbody, nq, nv;       /* bodies, generalized positions and velocities */
  int ntree, nact, ncoupler; /* trees (free bodies included), actuators, couplers */
  int nclique, a_size;     /* trees with DoFs; reals of A per world (Σ nt²) */
  int max_nt, max_tree_bodies; /* the largest tree's DoFs and bodies */
  int jointed;             /* some tree is not a plain free body */
  int nlimit;              /* DoFs with a finite position limit */
  int ngeom, nasset;       /* geometries, hydroelastic assets */
  long nvert, nelem, nnode; /* asset vertices, elements (tets or triangles), BVH nodes, summed */
  int npair, nfallback;    /* hydroelastic pairs, point-contact pairs */
  long npoint_vert;        /* point-contact hull vertices, summed */
  int ndef;                /* deformable bodies */
  long ndvert, ndtet, ndtri; /* their vertices, tets and surface triangles, summed */
  long ndpat, ndslot;      /* ints of their factor patterns, blocks of their factors, summed */
  long nweld;              /* deformable vertices welded to rigid bodies, summed */
  long ndsnode;            /* nodes of their surface BVHs, summed */
  int npad, ntaxel;        /* tactile pads, their taxels summed */
} modelSizes;


#define MODEL_FLAT(X)                                                                              \
  /* bodies */                                                                                     \
  X(real, body_mass, z->nbody)            /* kg */                                                 \
  X(real, body_com, 3L * z->nbody)        /* centre of mass in the body frame, m */                \
  X(real, body_inertia, 6L * z->nbody)    /* Ixx Iyy Izz Ixy Ixz Iyz about the COM, kg m² */        \
  X(real, q0, z->nq)                      /* initial positions, [qw qx qy qz px py pz] per body */  \
  X(real, v0, z->nv)                      /* initial velocities, trees one after another */        \
  /* joints: body b's inboard joint (a free body's: floating, parent -1, identity frames) */       \
  X(int, body_parent, z->nbody)           /* -1: the world; parent < child */                      \
  X(int, body_jtype, z->nbody)            /* isoJointType */                                       \
  X(int, body_q0, z->nbody)               /* where its joint's q starts in a world's q */           \
  X(int, body_v0, z->nbody)               /* ... and its v in a world's v */                       \
  X(xform, body_X_PF, z->nbody)           /* frame F in the parent's frame */                      \
  X(xform, body_X_BM, z->nbody)           /* frame M in the body's frame */                        \
  X(vec3, body_axis, z->nbody)            /* unit axis in F (revolute, prismatic) */               \
  X(int, tree_order, z->nbody)            /* bodies tree by tree, parents first */                 \
  X(int, tree_pos, z->nbody)              /* body b's position in tree_order */                    \
  X(int, tree_body0, z->ntree + 1L)       /* tree t: tree_order[tree_body0[t], tree_body0[t+1]) */  \
  X(int, tree_q0, z->ntree + 1L)          /* tree t's q range */                                   \
  X(int, tree_v0, z->ntree + 1L)          /* tree t's v range: one clique */                       \
  X(int, tree_free, z->ntree)             /* 1: one free body, stepped by the free-body code */    \
  X(int, tree_clique, z->ntree)           /* its clique, -1 without DoFs */                        \
  X(int, tree_a0, z->ntree)               /* its block's offset in a world's A */                  \
  X(int, body_tree, z->nbody)                                                                      \
  X(int, limit_dof, z->nlimit)            /* DoFs with a finite limit, ascending */                \
  X(int, dof_q, z->nv)                    /* a 1-DoF joint's q index, -1 for other DoFs */         \
  X(real, dof_damping, z->nv)             /* joint damping, N m s/rad or N s/m */                  \
  X(real, dof_reflected, z->nv)           /* rotor inertia times gear ratio squared, kg m² */      \
  X(real, dof_limit, 2L * z->nv)          /* lower, upper position limits; +-inf: none */          \
  X(int, act_dof, z->nact)                /* actuators: the DoF driven (index in v) */             \
  X(real, act_effort_limit, z->nact)      /* N m or N; +inf: none */                               \
  X(real, act_gains, 2L * z->nact)        /* kp, kd; both 0: effort only */                        \
  X(int, coupler_dof, 2L * z->ncoupler)   /* follower, leader DoFs */                              \
  X(real, coupler_ratio, 2L * z->ncoupler) /* gear ratio, offset */                                \
  /* geometries */                                                                                 \
  X(int, geom_body, z->ngeom)             /* body index, -1 for the world */                       \
  X(xform, geom_X_BG, z->ngeom)           /* pose in the body (or world) frame */                  \
  X(int, geom_shape, z->ngeom)            /* isoShape */                                           \
  X(real, geom_size, 3L * z->ngeom)       /* isoGeometryDef.size */                                \
  X(int, geom_kind, z->ngeom)             /* HGEOM_*: how it takes part in hydroelastic contact */ \
  X(int, geom_asset, z->ngeom)            /* asset index, -1 when none */                          \
  X(real, geom_margin, z->ngeom)          /* m */                                                  \
  X(real, geom_slab, z->ngeom)            /* slab thickness of a compliant half-space, m */        \
  X(real, geom_E, z->ngeom)               /* hydroelastic modulus, Pa */                           \
  X(real, geom_d, z->ngeom)               /* Hunt–Crossley dissipation, s/m (estimate filled in) */ \
  X(real, geom_mu, 2L * z->ngeom)         /* static, dynamic friction */                           \
  X(real, geom_k, z->ngeom)               /* point stiffness, N/m (estimate filled in) */          \
  X(real, geom_tau, z->ngeom)             /* relaxation time, s */                                 \
  X(int, point_nvert, z->ngeom)           /* hull vertices for point contact, 0 for primitives */  \
  X(long, point_vert0, z->ngeom)          /* first hull vertex in point_vert */                    \
  X(real, point_vert, 3L * z->npoint_vert) /* hull vertices in each geometry's frame */            \
  /* hydroelastic assets, concatenated */                                                          \
  X(int, asset_vert0, z->nasset)          /* first vertex in vert */                               \
  X(int, asset_elem0, z->nasset)          /* first element in elem/grad/porig/normal/bvh_* */      \
  X(int, asset_node0, z->nasset)          /* first BVH node */                                     \
  X(int, asset_nnode, z->nasset)          /* BVH nodes */                                          \
  X(real, vert, 3L * z->nvert)            /* in the geometry frame */                              \
  X(real, pressure, z->nvert)             /* unit-modulus field; 0 for rigid assets */              \
  X(int, elem, 4L * z->nelem)             /* vertex indices local to the asset; triangles: 3, -1 */ \
  X(real, grad, 3L * z->nelem)            /* unit-modulus gradient (tets) */                       \
  X(real, porig, z->nelem)                /* unit-modulus field at the geometry origin (tets) */   \
  X(real, normal, 3L * z->nelem)          /* outward unit normal (triangles) */                    \
  X(bvhNode, node, z->nnode)              /* every asset's BVH nodes */                            \
  X(int, bvh_elem, z->nelem)              /* leaf order, local ids */                              \
  X(real, bvh_box, 6L * z->nelem)         /* element boxes in leaf order */                        \
  /* pairs */                                                                                      \
  X(int, pair_m, z->npair)                /* geometry M of each hydroelastic pair */               \
  X(int, pair_n, z->npair)                /* geometry N */                                         \
  X(int, pair_kind, z->npair)             /* isoPairKind */                                        \
  X(int, fallback_a, z->nfallback)        /* point-contact pairs */                                \
  X(int, fallback_b, z->nfallback)                                                                 \
  /* deformable bodies, one after another; indices local to the body */                           \
  X(int, def_vert0, z->ndef + 1L)         /* body d's vertices [def_vert0[d], def_vert0[d + 1]) */ \
  X(int, def_tet0, z->ndef + 1L)          /* ... its tets */                                       \
  X(int, def_tri0, z->ndef + 1L)          /* ... its surface triangles */                          \
  X(real, def_rest, 3L * z->ndvert)       /* rest positions in the world, m */                     \
  X(unsigned char, def_held, z->ndvert)   /* 1: a Dirichlet vertex (zero velocity) */              \
  X(real, def_sdf, z->ndvert)             /* signed distance to the surface at rest, m (<= 0) */   \
  X(int, def_tet, 4L * z->ndtet)          /* vertex indices, positively oriented */                \
  X(int, def_tri, 3L * z->ndtri)          /* surface triangles, outward normals */                 \
  X(int, def_tri_tet, z->ndtri)           /* the tet each surface triangle bounds */               \
  X(real, def_material, (long)DEF_NMAT * z->ndef) /* E, nu, rho, Rayleigh alpha, beta */          \
  X(real, def_contact, (long)DEF_NCON * z->ndef)  /* dissipation, relaxation time, mu_s, mu_d */ \
  X(femTetRest, def_tet_rest, z->ndtet)   /* shape-function gradients and rest volume per tet */   \
  X(int, def_pat_head, (long)FEM_PAT_HEAD * z->ndef) /* each body's factor pattern: counts, offsets */ \
  X(int, def_pat0, z->ndef + 1L)          /* body d's pattern in def_pat */                        \
  X(int, def_pat, z->ndpat)               /* the patterns (host/assets/fem_pattern.h) */          \
  X(int, def_slot0, z->ndef + 1L)         /* body d's first block in a world's factor storage */ \
  X(int, geom_def_asset, z->ndef ? (long)z->ngeom : 0L) /* the compliant asset it shows deformable bodies, -1: none */ \
  X(int, def_snode0, z->ndef + 1L)        /* body d's surface BVH nodes in def_snode */            \
  X(bvhNode, def_snode, z->ndsnode)       /* the surface BVHs' topology (boxes at rest) */         \
  X(int, def_stri, z->ndtri)              /* their triangles in leaf order, body-local */          \
  X(int, def_weld0, z->ndef + 1L)         /* body d's welds [def_weld0[d], def_weld0[d + 1]) */    \
  X(int, weld_vert, z->nweld)             /* the welded vertex (body-local) */                     \
  X(int, weld_body, z->nweld)             /* the rigid body it is welded to */                     \
  X(real, weld_p, 3L * z->nweld)          /* the body point it is held at, body frame */          \
  /* tactile pads (include/isobar/tactile.h) */                                                   \
  X(int, pad_geom, z->npad)               /* the geometry sampled */                               \
  X(int, pad_rows, z->npad)               /* taxels along the pad's y */                           \
  X(int, pad_cols, z->npad)               /* ... and x */                                          \
  X(real, pad_spacing, z->npad)           /* m */                                                  \
  X(xform, pad_X_GP, z->npad)             /* the pad frame in the geometry's frame */              \
  X(int, pad_taxel0, z->npad + 1L)        /* pad p's taxels [pad_taxel0[p], pad_taxel0[p + 1]) */

enum {
#define MODEL_FLAT_ENUM(type, name, count) MF_##name,
  MODEL_FLAT(MODEL_FLAT_ENUM)
#undef MODEL_FLAT_ENUM
  MF_COUNT
};

typedef struct modelFlat {
  modelSizes z;
  isoArena arena;      /* one host block holding every array */
  size_t off[MF_COUNT]; /* where each array starts in it */
} modelFlat;

/* Pointers to every array of a compiled model, at a given base address (host or device). */
typedef struct modelView {
  modelSizes z;
#define MODEL_FLAT_PTR(type, name, count) const type *name;
  MODEL_FLAT(MODEL_FLAT_PTR)
#undef MODEL_FLAT_PTR
} modelView;

/* The view of `f` whose block starts at `base` (f->arena.base for the host copy, or a device
 * copy of the block). */
void model_view_bind(const modelFlat *f, const void *base, modelView *out);

struct isoModel;
/* Lay out and fill the flat arrays of a validated model whose assets are built (compile). */
isoStatus model_flatten(const struct isoModel *m, modelFlat *out);
/* A copy with its own block (a sim keeps one, so it outlives its model). */
isoStatus model_flat_copy(const modelFlat *src, modelFlat *dst);
void model_flat_free(modelFlat *f);

#endif
