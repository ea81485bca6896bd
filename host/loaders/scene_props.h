/* Internal: Drake's proximity properties of a collision (scene_props.c). */
#ifndef ISO_HOST_SCENE_PROPS_H
#define ISO_HOST_SCENE_PROPS_H

#include "host/loaders/scene_desc.h"

/* The drake: tags that set a material value of a geometry (NULL: not given), so that the
 * older <drake_compliance> tag can say which of its values they override. */
typedef struct sceneProx {
  xmlNode *modulus;     /* drake:hydroelastic_modulus (when used: not on a rigid geometry) */
  xmlNode *dissipation; /* drake:hunt_crossley_dissipation */
  xmlNode *friction;    /* drake:mu_dynamic or drake:mu_static */
} sceneProx;

/* Read <drake:proximity_properties> element `props` of a <collision> into g, as Drake's
 * ParseProximityProperties does. `urdf`: values are in `value` attributes instead of text.
 * *given (zeroed by the caller) receives the tags that set material values; g->legacy_given
 * gets their bits. */
isoStatus scene_proximity(sceneCtx *c, const sceneFile *f, xmlNode *props, int urdf, isoGeometryDef *g,
                          sceneProx *given);

/* Read seed 004's <drake_compliance> element n of a <collision> (URDF and SDFormat alike, values
 * as element text): <youngs_modulus> (Pa, > 0), <dissipation> (s/m, >= 0), <static_friction>
 * and <dynamic_friction> (a pair or neither, static >= dynamic, else a load error naming both).
 * Omitted values keep the defaults. A value that a drake: tag in `given` also sets is reported
 * as ignored (the drake: tag wins), as is a Young's modulus on a compliant hydroelastic
 * geometry (its modulus is its pressure field's). What is used sets g->legacy_given's bits. */
isoStatus scene_drake_compliance(sceneCtx *c, const sceneFile *f, xmlNode *n, const sceneProx *given,
                                 isoGeometryDef *g);

/* Check a friction pair as Drake's CoulombFriction does: both >= 0, dynamic <= static. */
isoStatus scene_check_friction(const sceneFile *f, xmlNode *n, double mu_static, double mu_dynamic);

#endif
