/* Internal: isobar's <isobar:tactile_pad> inside a <collision> (scene_pad.c), read by the
 * SDFormat and URDF parsers alike. */
#ifndef ISO_HOST_SCENE_PAD_H
#define ISO_HOST_SCENE_PAD_H

#include "host/loaders/scene_desc.h"

/* Every <isobar:tactile_pad> child of <collision> n, appended to c->pads for geometry `geom`
 * (index in c->geoms, already appended), in document order. `urdf`: the numbers are in `value`
 * attributes and the pose is an <origin>; else text and a <pose>. X_GC: the shape's canonical
 * frame in the collision frame (scene_sdf_geometry's; the identity for URDF). */
isoStatus scene_tactile_pads(sceneCtx *c, const sceneFile *f, xmlNode *n, int urdf, int geom, xform X_GC);

#endif
