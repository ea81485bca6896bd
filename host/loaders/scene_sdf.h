/* Internal: what the SDFormat parser (scene_sdf.c) shares with its element readers
 * (scene_sdf_elements.c). */
#ifndef ISO_HOST_SCENE_SDF_H
#define ISO_HOST_SCENE_SDF_H

#include "host/loaders/scene_desc.h"

/* A pose as written: X relative to frame `rel_to` (NULL: the element's default frame),
 * resolved once every frame is known. */
typedef struct scenePose {
  xform X;
  const char *rel_to;
  const sceneFile *file; /* where it is written, for messages */
  xmlNode *node;
} scenePose;

/* <pose>: "x y z roll pitch yaw" (radians, or degrees with degrees="true"), or with
 * rotation_format="quat_xyzw" "x y z qx qy qz qw"; empty is the identity. */
isoStatus scene_sdf_pose(sceneCtx *c, const sceneFile *f, xmlNode *n, scenePose *out);
/* <inertial> of link `link` (index in c->links): mass, centre of mass, inertia in the link. */
isoStatus scene_sdf_inertial(sceneCtx *c, const sceneFile *f, xmlNode *n, int link);
/* <collision> of link `link` in model scope `scope`: appends a sceneGeom (none for <empty/>). */
isoStatus scene_sdf_collision(sceneCtx *c, const sceneFile *f, xmlNode *n, int scope, int link);

#endif
