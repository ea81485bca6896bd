/* Tactile pads: taxel grids on a geometry that sample, after each step, the solved contact
 * forces of that geometry — per world, a force (normal and shear) and a pressure per taxel.
 *
 * A pad is a rows × cols grid in a pad frame P fixed on the geometry's body (on the world for an
 * anchored geometry). Taxel (i, j), row i and column j, sits at
 *     x = (j − (cols − 1)/2)·spacing,  y = (i − (rows − 1)/2)·spacing,  z = 0   in P,
 * so the grid is centred on P's origin; +z of P is the pad's normal and points OUT of the
 * geometry, into whatever touches it. Taxel k of a pad is i·cols + j (row-major).
 *
 * What a taxel receives, at each step, from the step's contact constraints (include/isobar/
 * contact.h) that involve the pad's geometry, when their normal out of the geometry is within
 * 60° of the pad's normal (a pad samples its own side: not the far one, nor the sides of a body
 * pressed into it):
 *   - a hydroelastic face: the face's solved force (its SAP impulse / δt) is spread uniformly
 *     over its polygon, traction t = f / A. A taxel is moved with its body to the world and
 *     projected along the face normal onto the face's plane; when the projection lies in the
 *     polygon the taxel receives t·spacing²·cos θ, θ the angle between the face normal and the
 *     pad normal (spacing²·cos θ is the area of the face its cell covers, so the taxels' forces
 *     add up to the face's force as the grid refines, whatever the tilt). A taxel on a
 *     polygon's edge (within 1e-6·spacing) takes half of that, and at a corner of interior angle
 *     φ the share φ/2π, so a taxel on the edges the polygons of one contact surface share counts
 *     once, and one on the surface's border by half. Only faces whose normal is within 60° of
 *     the pad's are the pad's.
 *   - a point contact: its whole force goes to the nearest taxel (the grid point nearest to the
 *     contact point in the pad's plane; clamped to the grid's border when the point is outside).
 * Forces are those ON the pad's geometry, expressed in the pad frame P (x, y: shear; z: normal),
 * N: a body pressing on a pad gives a force along −z. A taxel's pressure is its normal stress,
 * −f_z / spacing², Pa, positive when pressed; for a face parallel to the pad it is the face's
 * solved pressure (isoContactResult.pressure).
 *
 * The polygons and poses are those the step's contact forces came from: the state the step
 * started from (as iso_sim_get_contact_faces says). Contacts of deformable bodies are not
 * sampled. A world frozen at the end of a step (a fault, include/isobar/world_status.h) reports
 * zeros; a reset zeroes the selected worlds' taxels. The samples are the last step's: setting
 * a state or calling iso_sim_update_contact leaves them as they are.
 *
 * When they are computed. Once the taxel arrays have been viewed (iso_sim_taxel_buffers, the
 * views taxel_force and taxel_pressure of include/isobar/view.h: arrays read in place), every
 * step samples them. Until then a step only keeps what the sampling needs, and the samples are
 * taken when first read (iso_sim_get_taxel_forces, iso_sim_get_taxel_pressures), or before a
 * call would change what they are taken from (iso_sim_update_contact, iso_sim_set_param,
 * iso_sim_reserve): the same values to the bit, and a sim whose taxels nobody reads does not
 * pay for them (a sixth of the rigid pick's step). */
#ifndef ISOBAR_TACTILE_H
#define ISOBAR_TACTILE_H

#include "isobar/model.h"
#include "isobar/sim.h"
#include "isobar/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ISO_MAX_TAXELS_PER_PAD 65536 /* rows · cols of one pad */
#define ISO_MAX_TAXELS 1048576       /* taxels of all pads of a model together */

typedef struct isoTactilePadDef {
  int geometry;         /* the geometry whose contacts it samples; default 0 */
  int rows, cols;       /* taxels along the pad's y and x, >= 1; default 1 and 1 */
  double spacing;       /* distance between neighbouring taxels, m, finite, in [ISO_MIN_SIZE,
                           ISO_MAX_SIZE]; default 0.005 */
  double position[3];   /* p_BP: the pad frame's origin in the geometry's body frame (the world
                           frame for an anchored geometry), m, finite; default 0 */
  double quaternion[4]; /* R_BP as (w, x, y, z), finite and non-zero, normalised when added;
                           default identity */
} isoTactilePadDef;

/* Defaults as documented on each field. */
isoTactilePadDef iso_default_tactile_pad_def(void);

/* Add a tactile pad; *index (may be NULL) receives its index. Checked here, the model left
 * unchanged on failure, with a message naming the pad: a geometry index out of range, rows or
 * cols < 1, more than ISO_MAX_TAXELS_PER_PAD taxels (or ISO_MAX_TAXELS in the model), a spacing
 * that is not finite or outside [ISO_MIN_SIZE, ISO_MAX_SIZE], a position that is not finite, a
 * quaternion that is not finite or has zero length. ISO_ERR_STATE once the model is compiled. */
isoStatus iso_model_add_tactile_pad(isoModel *model, const isoTactilePadDef *def, int *index);

/* Number of tactile pads (0 for NULL). */
int iso_model_tactile_pad_count(const isoModel *model);

/* A copy of pad `pad` as added (quaternion normalised). */
isoStatus iso_model_get_tactile_pad(const isoModel *model, int pad, isoTactilePadDef *out);

/* ---- samples of a sim ---------------------------------------------------------------------------
 * A world's taxels are one row: the taxels of pad 0, then of pad 1, ... (iso_sim_taxel_offset
 * says where a pad starts and how many it has); rows are world-major, so world w's taxels of all
 * pads are contiguous. Forces hold 3 values per taxel (pad-frame x, y, z), pressures one. */

/* Number of tactile pads of the sim's model (0 for NULL). */
int iso_sim_tactile_count(const isoSim *sim);

/* Taxels per world, all pads together (0 for NULL). */
int iso_sim_taxel_total(const isoSim *sim);

/* Where pad `pad`'s taxels start in a world's row (in taxels, not values) and how many it has
 * (rows · cols); either output may be NULL. */
isoStatus iso_sim_taxel_offset(const isoSim *sim, int pad, int *offset, int *count);

/* Copy pad `pad`'s taxel forces of the selected worlds into `out`: per world count·3 values
 * (pad-frame x, y, z of each taxel, N), packed world after world (see isoWorlds). */
isoStatus iso_sim_get_taxel_forces(const isoSim *sim, int pad, isoWorlds worlds, double *out);

/* The same for the pressures: per world `count` values, Pa. */
isoStatus iso_sim_get_taxel_pressures(const isoSim *sim, int pad, isoWorlds worlds, double *out);

/* The base addresses of the sim's whole taxel arrays, for zero-copy views: forces
 * (nworld, iso_sim_taxel_total, 3) and pressures (nworld, iso_sim_taxel_total), C order, in the
 * backend's memory (device pointers on the CUDA backend, host pointers on the CPU). They stay
 * valid until iso_sim_reserve or iso_sim_destroy; a step rewrites them (on CUDA, asynchronously
 * on the sim's stream). Either output may be NULL; both are NULL when the model has no pad. */
isoStatus iso_sim_taxel_buffers(const isoSim *sim, const double **forces, const double **pressures);

#ifdef __cplusplus
}
#endif
#endif
