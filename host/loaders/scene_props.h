/* Internal: Drake's proximity properties of a collision (scene_props.c). */
#ifndef ISO_HOST_SCENE_PROPS_H
#define ISO_HOST_SCENE_PROPS_H

#include "host/loaders/scene_desc.h"

/* Read <drake:proximity_properties> element `props` of a <collision> into g, as Drake's
 * ParseProximityProperties does. `urdf`: values are in `value` attributes instead of text.
 * *has_friction is set when drake:mu_dynamic or drake:mu_static was given. */
isoStatus scene_proximity(sceneCtx *c, const sceneFile *f, xmlNode *props, int urdf, isoGeometryDef *g,
                          int *has_friction);

/* Check a friction pair as Drake's CoulombFriction does: both >= 0, dynamic <= static. */
isoStatus scene_check_friction(const sceneFile *f, xmlNode *n, double mu_static, double mu_dynamic);

#endif
