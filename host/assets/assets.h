/* Internal: hydroelastic assets, built once at model compile.
 *
 * Each geometry with a hydroelastic representation points at one asset: a compliant tet mesh
 * with a pressure field, or a rigid triangle surface, each with its BVH. Assets are shared:
 * two geometries with the same shape, sizes, resolution hint and margin use one asset
 * whatever their moduli, because every Drake pressure field is linear in E — the asset stores
 * the field for E = 1 Pa and kernels scale it by the geometry's modulus (which is therefore
 * randomised per world at no cost: ISO_PARAM_GEOM_MODULUS). Half-spaces are analytic and have no asset. */
#ifndef ISO_HOST_ASSETS_H
#define ISO_HOST_ASSETS_H

#include "host/assets/bvh.h"
#include "host/assets/mesh.h"
#include "isobar/contact.h"
#include "isobar/geometry.h"

/* How a geometry takes part in hydroelastic contact. */
enum {
  HGEOM_NONE = 0,        /* no hydroelastic representation (point contact only) */
  HGEOM_TETS = 1,        /* compliant tet mesh */
  HGEOM_TRIS = 2,        /* rigid triangle surface */
  HGEOM_RIGID_HALF = 3,  /* rigid half-space */
  HGEOM_SOFT_HALF = 4    /* compliant half-space */
};

typedef struct hydroAsset {
  int kind;      /* HGEOM_TETS or HGEOM_TRIS */
  tetMesh tets;  /* HGEOM_TETS: field for E = 1 */
  triMesh tris;  /* HGEOM_TRIS */
  bvhHost bvh;   /* over tets or triangles */
  real lo[3], hi[3]; /* bounds of the asset in its geometry frame */
  int source;    /* the geometry it was built from (same_asset compares against it) */
} hydroAsset;

typedef struct hydroGeom {
  int kind;      /* HGEOM_* */
  int asset;     /* index into assets, -1 when none */
  int def_asset; /* the compliant tet asset deformable bodies touch (Drake samples a rigid
                    geometry's compliant pressure field on a deformable surface, whatever its
                    declared compliance); -1 without deformable bodies, for a half-space, or
                    when the shape has no compliant representation */
} hydroGeom;

typedef struct hydroPair {
  int m, n;      /* geometry indices in Drake's (M, N) order: normals out of N into M */
  int kind;      /* isoPairKind */
} hydroPair;

typedef struct modelHydro {
  int nasset;
  hydroAsset *asset; /* (nasset) */
  hydroGeom *geom;   /* (ngeom) */
  int npair;         /* pairs with a hydroelastic surface kind (not FILTERED or FALLBACK) */
  hydroPair *pair;   /* (npair) ordered by (m, n) */
  int nfallback;     /* pairs that fall back to point contact */
  hydroPair *fallback; /* (nfallback) */
  int *point_nvert;  /* (ngeom) hull vertices of mesh and convex geometries for point contact, else 0 */
  real *point_vert;  /* (Σ point_nvert, 3) in each geometry's frame, geometry after geometry */
} modelHydro;

/* Build the assets, the per-geometry kinds and the pair table of a validated model. Errors
 * name the geometry (and element). */
struct isoModel;
isoStatus hydro_build(const struct isoModel *m, modelHydro *out);
void hydro_free(modelHydro *h);

/* How geometries a and b pair up (filters and kinds), without building anything. */
int hydro_pair_kind(const struct isoModel *m, const hydroGeom *geom, int a, int b, int *first, int *second);

#endif
